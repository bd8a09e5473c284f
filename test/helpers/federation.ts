/**
 * Two Parley servers on loopback, each with its own database, federating (docs/federation.md):
 * insecure peers allowed (plain HTTP, loopback), federation enabled on both, the brute-force
 * delay off so refused secrets do not slow the tests. alice (and carol) on the host, bob on the remote.
 */
import assert from 'node:assert/strict';
import { as, call, createUser, startParley, type DialectName, type Parley } from './parley.js';
import { createRoom } from './rooms.js';
import { eventually } from './eventually.js';

const INVITATIONS = '/apps/spreed/api/v1/federation/invitation';

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

/**
 * alice creates a group conversation on the host and invites bob, who accepts on the remote:
 * the host's token and the token of the conversation kept on the remote.
 */
export async function acceptedConversation(pair: FederatedPair, roomName: string): Promise<{ hostToken: string; localToken: string }> {
  const { host, remote, bobId } = pair;
  const room = await createRoom(host, 'alice', { roomType: 2, roomName });
  const r = await call(host, 'POST', `/apps/spreed/api/v4/room/${room.token}/participants`, {
    as: as('alice'),
    body: { newParticipant: bobId, source: 'federated_users' },
  });
  assert.equal(r.status, 200, r.text);
  let inv: any;
  await eventually('the invitation', async () => {
    inv = ((await call(remote, 'GET', INVITATIONS, { as: as('bob') })).data as any[]).find((i) => i.remoteToken === room.token);
    return inv !== undefined;
  });
  const accepted = await call(remote, 'POST', `${INVITATIONS}/${inv.id}`, { as: as('bob') });
  assert.equal(accepted.status, 200, accepted.text);
  return { hostToken: room.token, localToken: accepted.data.token };
}
