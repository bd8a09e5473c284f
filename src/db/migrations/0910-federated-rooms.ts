/**
 * Proxied conversations (docs/reference/federation.md#proxied-requests): a conversation kept here
 * for one on another server names its host (`remote_server`, the host's base URL with its scheme)
 * and the host's token (`remote_token`); '' for conversations of this server. One local
 * conversation per host conversation (partial unique index), whoever of this server accepted.
 * An accepted invitation names the local conversation (`local_room_id`, 0 while pending).
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

export const federatedRooms: ParleyMigration = {
  name: '0910-federated-rooms',
  async up({ db }) {
    await db.schema
      .alterTable('rooms')
      .addColumn('remote_server', 'varchar(512)', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('rooms')
      .addColumn('remote_token', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .execute();
    await sql`CREATE UNIQUE INDEX rooms_remote ON rooms (remote_server, remote_token) WHERE remote_token <> ''`.execute(db);
    await db.schema
      .alterTable('federation_invitations')
      .addColumn('local_room_id', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
