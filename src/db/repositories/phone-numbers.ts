/**
 * SQL for users' phone numbers (table `phone_numbers`, Talk's talk_phone_numbers): one row per
 * number, the primary key; a user's numbers are read in the order they were added.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, PhoneNumbersTable } from '../schema.js';

export type PhoneNumberRow = Selectable<PhoneNumbersTable>;

export class PhoneNumbersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(phoneNumber: string): Promise<PhoneNumberRow | undefined> {
    return this.db.selectFrom('phone_numbers').selectAll().where('phone_number', '=', phoneNumber).executeTakeFirst();
  }

  /** A user's numbers, oldest first (the first is the dial-out caller number). */
  forUser(userId: string): Promise<PhoneNumberRow[]> {
    return this.db.selectFrom('phone_numbers').selectAll().where('actor_id', '=', userId).orderBy('created_at').orderBy('phone_number').execute();
  }

  list(): Promise<PhoneNumberRow[]> {
    return this.db.selectFrom('phone_numbers').selectAll().orderBy('actor_id').orderBy('created_at').orderBy('phone_number').execute();
  }

  /** Maps the number to the user, replacing any earlier mapping of that number. */
  async put(row: PhoneNumberRow): Promise<void> {
    await this.db
      .insertInto('phone_numbers')
      .values(row)
      .onConflict((oc) => oc.column('phone_number').doUpdateSet({ actor_id: row.actor_id, created_at: row.created_at }))
      .execute();
  }

  /** True when the number was mapped. */
  async delete(phoneNumber: string): Promise<boolean> {
    const r = await this.db.deleteFrom('phone_numbers').where('phone_number', '=', phoneNumber).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async deleteForUser(userId: string): Promise<number> {
    const r = await this.db.deleteFrom('phone_numbers').where('actor_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
