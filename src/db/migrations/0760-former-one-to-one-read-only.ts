/**
 * Former one-to-one conversations are read-only, as Talk's Manager makes them when the other
 * user goes (RoomsRepository.markFormerOneToOne now writes both); the ones made before are set
 * read-only here, so their records, chat and calls agree with new ones.
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

export const formerOneToOneReadOnly: ParleyMigration = {
  name: '0760-former-one-to-one-read-only',
  async up({ db }) {
    await sql`UPDATE rooms SET read_only = 1 WHERE type = 5 AND read_only = 0`.execute(db);
  },
};
