/**
 * Files shared into conversations (docs/files.md#sharing-into-a-conversation,
 * docs/reference/files.md): Nextcloud's room shares (share type 10).
 *
 * - `file_shares`: one row per share: the file (`file_id`, a row of `files`), its owner, the
 *   conversation, the chat message that announced it (0 until posted in the same transaction),
 *   the public link token (`/index.php/s/{token}`, unique), when it was made and when it
 *   expires (0 never: the message's expiry).
 * - `file_share_targets`: where a received share appears in a participant's tree
 *   (`{attachment folder}/{name}`, made unique per user with " (2)"...), unique (user, path) so
 *   two shares can never claim one name, and (share, user). Who may read a share is not stored
 *   here: it is whoever is a user participant of the conversation now.
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const fileShares: ParleyMigration = {
  name: '0830-file-shares',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('file_shares'), dialect)
      .addColumn('file_id', 'bigint', (c) => c.notNull())
      .addColumn('owner', 'varchar(64)', (c) => c.notNull())
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('message_id', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('token', 'varchar(32)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('file_shares_token').on('file_shares').column('token').unique().execute();
    await db.schema.createIndex('file_shares_room').on('file_shares').columns(['room_id', 'message_id']).execute();
    await db.schema.createIndex('file_shares_file').on('file_shares').column('file_id').execute();
    await db.schema.createIndex('file_shares_owner').on('file_shares').column('owner').execute();
    await db.schema
      .createTable('file_share_targets')
      .addColumn('share_id', 'bigint', (c) => c.notNull())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('parent', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_share_targets_pk', ['share_id', 'user_id'])
      .execute();
    await db.schema.createIndex('file_share_targets_path').on('file_share_targets').columns(['user_id', 'path']).unique().execute();
    await db.schema.createIndex('file_share_targets_parent').on('file_share_targets').columns(['user_id', 'parent']).execute();
  },
};
