/**
 * SQL for keeping proxied conversations current (migration 0920,
 * docs/reference/federation.md#keeping-the-conversation-current): on the host, the federated
 * attendees a message is owed to with their unread state; on the user's server, the host's last
 * message of each conversation kept here and each local user's unread counters there.
 */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Database, FederationLastMessagesTable, FederationUnreadTable } from '../schema.js';

export type FederationLastMessageRow = Selectable<FederationLastMessagesTable>;
export type FederationUnreadRow = Selectable<FederationUnreadTable>;

/** A federated attendee of a conversation on the host, with what its unread counters are computed from. */
export interface FederatedAttendeeState {
  id: number;
  actor_id: string;
  access_token: string | null;
  last_read_message: number;
  last_mention_message: number;
  last_mention_direct: number;
  read_count: number;
  /** The conversation's counted messages (rooms.chat_count). */
  chat_count: number;
}

export class FederationSyncRepository {
  constructor(private readonly db: Kysely<Database>) {}

  // ---- the host ----

  /** Marks a conversation as having federated attendees (its messages owe MESSAGE_POSTED). */
  async markFederated(roomId: number): Promise<void> {
    await this.db.updateTable('rooms').set({ has_federation: 1 }).where('id', '=', roomId).where('has_federation', '=', 0).execute();
  }

  /** The federated attendees of a conversation with their read and mention markers and the room's message count. */
  federatedAttendees(roomId: number): Promise<FederatedAttendeeState[]> {
    return this.db
      .selectFrom('attendees as a')
      .innerJoin('rooms as r', 'r.id', 'a.room_id')
      .select([
        'a.id',
        'a.actor_id',
        'a.access_token',
        'a.last_read_message',
        'a.last_mention_message',
        'a.last_mention_direct',
        'a.read_count',
        'r.chat_count',
      ])
      .where('a.room_id', '=', roomId)
      .where('a.actor_type', '=', 'federated_users')
      .orderBy('a.id')
      .execute();
  }

  // ---- the user's server ----

  /** Keeps `row` as the conversation's last message unless a later one of the host is kept already. */
  async keepLastMessage(row: Insertable<FederationLastMessagesTable>): Promise<void> {
    const { room_id: _roomId, ...rest } = row;
    await this.db
      .insertInto('federation_last_messages')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('room_id')
          .doUpdateSet(rest)
          .where('federation_last_messages.remote_message_id', '<', sql<number>`excluded.remote_message_id`),
      )
      .execute();
  }

  /** Replaces the kept last message by a newer reading of the same message of the host (edited, deleted). */
  async refreshLastMessage(row: Insertable<FederationLastMessagesTable>): Promise<boolean> {
    const { room_id: roomId, remote_message_id: id, ...rest } = row;
    const r = await this.db
      .updateTable('federation_last_messages')
      .set(rest)
      .where('room_id', '=', roomId)
      .where('remote_message_id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** A local user's unread counters in a conversation kept here (the latest the host sent). */
  async setUnread(row: FederationUnreadRow): Promise<void> {
    const { attendee_id: _id, ...rest } = row;
    await this.db
      .insertInto('federation_unread')
      .values(row)
      .onConflict((oc) => oc.column('attendee_id').doUpdateSet(rest))
      .execute();
  }

  async lastMessages(roomIds: number[]): Promise<FederationLastMessageRow[]> {
    if (roomIds.length === 0) return [];
    return this.db.selectFrom('federation_last_messages').selectAll().where('room_id', 'in', roomIds).execute();
  }

  async unread(attendeeIds: number[]): Promise<FederationUnreadRow[]> {
    if (attendeeIds.length === 0) return [];
    return this.db.selectFrom('federation_unread').selectAll().where('attendee_id', 'in', attendeeIds).execute();
  }

  /** Deleted local conversations take what was kept for them along. */
  async forgetRooms(roomIds: number[]): Promise<void> {
    if (roomIds.length === 0) return;
    await this.db.deleteFrom('federation_last_messages').where('room_id', 'in', roomIds).execute();
    await this.db.deleteFrom('federation_unread').where('room_id', 'in', roomIds).execute();
  }
}
