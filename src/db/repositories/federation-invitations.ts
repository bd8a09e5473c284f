/** SQL for invitations to conversations on other servers (migration 0901) and the conversations kept here for them (0910). */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Database, FederationInvitationsTable, RoomsTable } from '../schema.js';

export type InvitationRow = Selectable<FederationInvitationsTable>;
export type NewInvitation = Omit<Insertable<FederationInvitationsTable>, 'id'>;

export class FederationInvitationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Stores a received share, or finds the one stored for the same server and attendee (a share
   * delivered again). One statement decides (the unique index): `created` says which.
   */
  async insertOnce(row: NewInvitation): Promise<{ invitation: InvitationRow; created: boolean }> {
    const inserted = await this.db
      .insertInto('federation_invitations')
      .values(row)
      .onConflict((oc) => oc.columns(['remote_server_url', 'remote_attendee_id']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { invitation: inserted, created: true };
    const found = await this.findByShare(row.remote_server_url, Number(row.remote_attendee_id));
    return { invitation: found!, created: false };
  }

  forUser(userId: string): Promise<InvitationRow[]> {
    return this.db.selectFrom('federation_invitations').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  }

  find(id: number): Promise<InvitationRow | undefined> {
    return this.db.selectFrom('federation_invitations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Pending invitations among `ids` (notifications ask which still stand). */
  async pendingIds(ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('federation_invitations').select('id').where('id', 'in', ids).where('state', '=', 0).execute();
    return new Set(rows.map((r) => Number(r.id)));
  }

  findByShare(remoteServerUrl: string, remoteAttendeeId: number): Promise<InvitationRow | undefined> {
    return this.db
      .selectFrom('federation_invitations')
      .selectAll()
      .where('remote_server_url', '=', remoteServerUrl)
      .where('remote_attendee_id', '=', remoteAttendeeId)
      .executeTakeFirst();
  }

  /** The accepted invitation of `userId` for the local conversation `roomId` (its secret authenticates proxied requests). */
  forLocalRoom(userId: string, roomId: number): Promise<InvitationRow | undefined> {
    return this.db
      .selectFrom('federation_invitations')
      .selectAll()
      .where('user_id', '=', userId)
      .where('local_room_id', '=', roomId)
      .where('state', '=', 1)
      .executeTakeFirst();
  }

  /** Accepted invitations for the local conversation `roomId` (every user of this server in it). */
  forRoom(roomId: number): Promise<InvitationRow[]> {
    return this.db.selectFrom('federation_invitations').selectAll().where('local_room_id', '=', roomId).where('state', '=', 1).execute();
  }

  async rename(id: number, roomName: string): Promise<void> {
    await this.db.updateTable('federation_invitations').set({ room_name: roomName }).where('id', '=', id).execute();
  }

  async setLocalRoom(id: number, roomId: number): Promise<void> {
    await this.db.updateTable('federation_invitations').set({ local_room_id: roomId }).where('id', '=', id).execute();
  }

  /**
   * The local conversation of a host's conversation (docs/reference/federation.md#proxied-requests):
   * inserted unless one exists already (unique index rooms_remote), then read; one statement decides.
   */
  async insertRoomOnce(row: Insertable<RoomsTable> & { remote_server: string; remote_token: string }): Promise<Selectable<RoomsTable>> {
    await this.db
      .insertInto('rooms')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['remote_server', 'remote_token'])
          .where(sql<boolean>`remote_token <> ''`)
          .doNothing(),
      )
      .execute();
    return this.db
      .selectFrom('rooms')
      .selectAll()
      .where('remote_server', '=', row.remote_server)
      .where('remote_token', '=', row.remote_token)
      .executeTakeFirstOrThrow();
  }

  /** Pending → `to` in one conditional statement; whether this call moved it. */
  async setState(id: number, from: number, to: number): Promise<boolean> {
    const res = await this.db.updateTable('federation_invitations').set({ state: to }).where('id', '=', id).where('state', '=', from).executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Deletes the invitation if it is still in `state` (undefined: any); whether it was there. */
  async remove(id: number, state?: number): Promise<boolean> {
    let q = this.db.deleteFrom('federation_invitations').where('id', '=', id);
    if (state !== undefined) q = q.where('state', '=', state);
    const res = await q.executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.db.deleteFrom('federation_invitations').where('user_id', '=', userId).execute();
  }
}
