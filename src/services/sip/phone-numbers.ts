/**
 * Users' phone numbers (Talk's `talk:phone-number:*`): the operator maps numbers to accounts
 * with `parley phone-number:add`. A dial-out started by a user who has one shows
 * `sip_bridge_dialout_prefix` + their first number as the caller (domain/sip.ts
 * dialOutCallerNumber). Numbers are stored as digits only, without the leading "+".
 */
import type { PhoneNumberRow, PhoneNumbersRepository } from '../../db/repositories/phone-numbers.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { normalizeUserPhoneNumber } from '../../domain/sip.js';
import type { DirectoryService } from '../accounts/directory.js';
import { nowSeconds } from '../../domain/time.js';

export class PhoneNumbersService {
  constructor(
    readonly repo: PhoneNumbersRepository,
    private readonly directory: DirectoryService,
  ) {}

  /** A deleted user's numbers go with them (subscribed to `user.deleting`). */
  async removeAllOf(userId: string): Promise<void> {
    await this.repo.deleteForUser(userId);
  }

  /**
   * Maps `number` to `userId`: 400 `phone` for a malformed number, 404 `user` for an unknown
   * account, 400 `taken` when the number belongs to another user (unless `force`).
   */
  async add(number: string, userId: string, force = false): Promise<PhoneNumberRow> {
    const phone = normalizeUserPhoneNumber(number);
    if (phone === undefined) throw badRequest('phone', 'A phone number is 2 to 15 digits, optionally with a leading "+"');
    await this.directory.requireUser(userId);
    const existing = await this.repo.find(phone);
    if (existing && existing.actor_id !== userId && !force) {
      throw badRequest('taken', `${phone} already belongs to ${existing.actor_id} (use --force to move it)`);
    }
    if (existing?.actor_id === userId) return existing;
    const row = { phone_number: phone, actor_id: userId, created_at: nowSeconds() };
    await this.repo.put(row);
    return row;
  }

  /** 404 `phone` when the number is not mapped. */
  async remove(number: string): Promise<void> {
    const phone = normalizeUserPhoneNumber(number);
    if (phone === undefined || !(await this.repo.delete(phone))) throw notFound('phone', `${number} is not mapped to any user`);
  }

  list(userId?: string): Promise<PhoneNumberRow[]> {
    return userId === undefined ? this.repo.list() : this.repo.forUser(userId);
  }

  /** The user's first number, or undefined. */
  async first(userId: string): Promise<string | undefined> {
    return (await this.repo.forUser(userId))[0]?.phone_number;
  }
}
