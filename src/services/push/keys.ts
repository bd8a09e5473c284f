/**
 * Each user's push key pair (Nextcloud's identity proof key, which the notifications app signs
 * pushes with): RSA 2048, generated on first use and kept in `push_keys`. The private key never
 * leaves the server: it is not returned, logged or shown by any command.
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { PushDevicesRepository, PushKeyRow } from '../../db/repositories/push-devices.js';
import { nowSeconds } from '../../domain/time.js';

const generate = promisify(generateKeyPair);

export class PushKeys {
  constructor(private readonly repo: PushDevicesRepository) {}

  /** The user's key pair, generated now if they have none (a concurrent first use keeps one). */
  async of(userId: string): Promise<PushKeyRow> {
    const [found] = await this.repo.keys([userId]);
    if (found) return found;
    const { publicKey, privateKey } = await generate('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    return this.repo.keepKey({ user_id: userId, public_key: publicKey, private_key: privateKey, created_at: nowSeconds() });
  }

  /** The key pairs of these users (those that have one). */
  async ofUsers(userIds: string[]): Promise<Map<string, PushKeyRow>> {
    return new Map((await this.repo.keys([...new Set(userIds)])).map((k) => [k.user_id, k]));
  }

  /** A deleted user's key pair goes with them (their devices went with their app passwords). */
  async forget(userId: string): Promise<void> {
    await this.repo.deleteKey(userId);
  }
}
