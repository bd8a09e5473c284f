/**
 * Two Parley servers on loopback, each with its own database, federating (docs/federation.md):
 * insecure peers allowed (plain HTTP, loopback), federation enabled on both, the brute-force
 * delay off so refused secrets do not slow the tests. alice (and carol) on the host, bob on the remote.
 */
import { createUser, startParley, type DialectName, type Parley } from './parley.js';

export interface FederatedPair {
  host: Parley;
  remote: Parley;
  /** bob's cloud id as the host names him. */
  bobId: string;
}

export async function startFederatedPair(dialect: DialectName): Promise<FederatedPair> {
  const env = { FEDERATION_ALLOW_INSECURE: 'true', BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '1000' };
  const host = await startParley(dialect, { env });
  const remote = await startParley(dialect, { env });
  for (const p of [host, remote]) await p.services.appConfig.set('federation_enabled', 'yes');
  await createUser(host, 'alice', { displayName: 'Alice A' });
  await createUser(host, 'carol');
  await createUser(remote, 'bob', { displayName: 'Bob B' });
  return { host, remote, bobId: `bob@${remote.url}` };
}
