/**
 * Invitations to conversations on other servers (docs/reference/federation.md#invitations): one
 * row per OCM share received for a user here, pending (state 0) until the user accepts (1) or
 * declines (the row goes). A share is named by its server and the host's attendee id
 * (`remote_attendee_id`, the share's providerId): unique, so a share delivered twice is stored
 * once. `access_token` is the attendee's shared secret: it authenticates this server to the
 * host and the host's notifications to this server; it is never returned.
 */
import { withSerialId, type ParleyMigration } from './helpers.js';

export const federationInvitations: ParleyMigration = {
  name: '0901-federation-invitations',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('federation_invitations'), dialect)
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('state', 'smallint', (c) => c.notNull().defaultTo(0))
      .addColumn('access_token', 'varchar(64)', (c) => c.notNull())
      .addColumn('remote_server_url', 'varchar(512)', (c) => c.notNull())
      .addColumn('remote_token', 'varchar(64)', (c) => c.notNull())
      .addColumn('remote_attendee_id', 'bigint', (c) => c.notNull())
      .addColumn('inviter_cloud_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('inviter_display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('local_cloud_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('room_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('room_type', 'smallint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('federation_invitations_share')
      .unique()
      .on('federation_invitations')
      .columns(['remote_server_url', 'remote_attendee_id'])
      .execute();
    await db.schema.createIndex('federation_invitations_user').on('federation_invitations').columns(['user_id', 'id']).execute();
  },
};
