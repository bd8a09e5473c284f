/**
 * SQL for files shared into conversations (tables `file_shares` and `file_share_targets`,
 * migration 0830; docs/files.md#sharing-into-a-conversation). A share is live while its message
 * is posted (`message_id` > 0) and it has not expired; who may read it is decided in the same
 * statement that reads it: a user participant of its conversation now (attendees), so a removed
 * participant loses it with the removal, nothing to clean up first.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, FileSharesTable, FileShareTargetsTable } from '../schema.js';
import type { FileRow } from './files.js';

export type FileShareRow = Selectable<FileSharesTable>;
export type FileShareTargetRow = Selectable<FileShareTargetsTable>;

/** A received share as its reader sees it: the file, the share, and the path in the reader's tree. */
export interface VisibleShare {
  file: FileRow;
  share: FileShareRow;
  path: string;
}

const ROOM_TYPE_PUBLIC = 3;

export class FileSharesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: { file_id: number; owner: string; room_id: number; token: string; created_at: number; expires_at: number }): Promise<number> {
    const r = await this.db
      .insertInto('file_shares')
      .values({ ...row, message_id: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(r.id);
  }

  async setMessage(id: number, messageId: number): Promise<void> {
    await this.db.updateTable('file_shares').set({ message_id: messageId }).where('id', '=', id).execute();
  }

  findById(id: number): Promise<FileShareRow | undefined> {
    return this.db.selectFrom('file_shares').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Shares by id (the ones a page of messages names). */
  findByIds(ids: number[]): Promise<FileShareRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('file_shares').selectAll().where('id', 'in', ids).execute();
  }

  /** The owner's live shares, newest first; only those of `fileId` when given. */
  listOwned(owner: string, now: number, fileId?: number): Promise<FileShareRow[]> {
    let q = this.db
      .selectFrom('file_shares')
      .selectAll()
      .where('owner', '=', owner)
      .where('message_id', '>', 0)
      .where((eb) => eb.or([eb('expires_at', '=', 0), eb('expires_at', '>', now)]));
    if (fileId !== undefined) q = q.where('file_id', '=', fileId);
    return q.orderBy('id', 'desc').execute();
  }

  /** Live shares of the conversations where `userId` is a user participant now (the rule every read of a received share uses). */
  private readableBy(userId: string, now: number) {
    return this.db
      .selectFrom('file_shares as s')
      .innerJoin('attendees as a', (j) => j.onRef('a.room_id', '=', 's.room_id').on('a.actor_type', '=', 'users').on('a.actor_id', '=', userId))
      .where('s.message_id', '>', 0)
      .where((eb) => eb.or([eb('s.expires_at', '=', 0), eb('s.expires_at', '>', now)]));
  }

  /** Live shares of the conversations where `userId` is a user participant, not their own. */
  listReceived(userId: string, now: number): Promise<FileShareRow[]> {
    return this.readableBy(userId, now).selectAll('s').where('s.owner', '<>', userId).orderBy('s.id', 'desc').execute();
  }

  /** Whether `userId` is a user participant of the share's conversation (and the share live). */
  async readable(userId: string, shareId: number, now: number): Promise<boolean> {
    return (await this.readableBy(userId, now).select('s.id').where('s.id', '=', shareId).executeTakeFirst()) !== undefined;
  }

  /**
   * The live shares through which `userId` may read a file of `owner` (a conversation they are
   * in): shares of the file itself or of a folder above it (`paths`: the file's path and its
   * ancestors in the owner's tree), with the shared file's path and name. `limit` 1 answers
   * whether there is one.
   */
  async covering(
    userId: string,
    owner: string,
    paths: string[],
    now: number,
    limit = 100,
  ): Promise<Array<{ share: FileShareRow; path: string; name: string }>> {
    if (paths.length === 0) return [];
    const rows = await this.readableBy(userId, now)
      .innerJoin('files as f', 'f.id', 's.file_id')
      .selectAll('s')
      .select(['f.path as f_path', 'f.name as f_name'])
      .where('f.owner', '=', owner)
      .where('f.path', 'in', paths)
      .orderBy('s.id')
      .limit(limit)
      .execute();
    return rows.map(({ f_path, f_name, ...share }) => ({ share, path: f_path, name: f_name }));
  }

  /**
   * The received shares at `path` (one), at any of `paths` (a path and its ancestors: the
   * shared folders it may be inside) or in the folder `parent` (many) of `userId`'s tree that
   * they may read now.
   */
  async visible(userId: string, where: { path: string } | { paths: string[] } | { parent: string }, now: number): Promise<VisibleShare[]> {
    if ('paths' in where && where.paths.length === 0) return [];
    let q = this.db
      .selectFrom('file_share_targets as t')
      .innerJoin('file_shares as s', 's.id', 't.share_id')
      .innerJoin('attendees as a', (j) => j.onRef('a.room_id', '=', 's.room_id').on('a.actor_type', '=', 'users').onRef('a.actor_id', '=', 't.user_id'))
      .innerJoin('files as f', 'f.id', 's.file_id')
      .selectAll('f')
      .select([
        's.id as s_id',
        's.file_id as s_file_id',
        's.owner as s_owner',
        's.room_id as s_room_id',
        's.message_id as s_message_id',
        's.token as s_token',
        's.created_at as s_created_at',
        's.expires_at as s_expires_at',
        't.path as t_path',
      ])
      .where('t.user_id', '=', userId)
      .where('s.message_id', '>', 0)
      .where((eb) => eb.or([eb('s.expires_at', '=', 0), eb('s.expires_at', '>', now)]));
    if ('path' in where) q = q.where('t.path', '=', where.path);
    else if ('paths' in where) q = q.where('t.path', 'in', where.paths);
    else q = q.where('t.parent', '=', where.parent).orderBy('t.path');
    const rows = await q.execute();
    return rows.map((r) => {
      const { s_id, s_file_id, s_owner, s_room_id, s_message_id, s_token, s_created_at, s_expires_at, t_path, ...file } = r;
      return {
        file: file as FileRow,
        share: {
          id: s_id,
          file_id: s_file_id,
          owner: s_owner,
          room_id: s_room_id,
          message_id: s_message_id,
          token: s_token,
          created_at: s_created_at,
          expires_at: s_expires_at,
        },
        path: t_path,
      };
    });
  }

  /** A live share of a public conversation by its link token, with its file. */
  async byPublicToken(token: string, now: number): Promise<{ share: FileShareRow; file: FileRow } | undefined> {
    const s = await this.db
      .selectFrom('file_shares as s')
      .innerJoin('rooms as r', 'r.id', 's.room_id')
      .selectAll('s')
      .where('s.token', '=', token)
      .where('r.type', '=', ROOM_TYPE_PUBLIC)
      .where('s.message_id', '>', 0)
      .where((eb) => eb.or([eb('s.expires_at', '=', 0), eb('s.expires_at', '>', now)]))
      .executeTakeFirst();
    if (!s) return undefined;
    const file = await this.db.selectFrom('files').selectAll().where('id', '=', s.file_id).executeTakeFirst();
    return file ? { share: s, file } : undefined;
  }

  /** The paths of `shareIds` in `userId`'s tree. */
  targetsOf(userId: string, shareIds: number[]): Promise<FileShareTargetRow[]> {
    if (shareIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('file_share_targets').selectAll().where('user_id', '=', userId).where('share_id', 'in', shareIds).execute();
  }

  /** The paths of received shares in the folder `parent` of `userId`'s tree (visible or not: a name stays taken). */
  async targetPathsIn(userId: string, parent: string): Promise<string[]> {
    const rows = await this.db.selectFrom('file_share_targets').select('path').where('user_id', '=', userId).where('parent', '=', parent).execute();
    return rows.map((r) => r.path);
  }

  /** Claims `path` for the share in the user's tree: false when the path (or a target of this share) is taken. */
  async claimTarget(row: FileShareTargetRow): Promise<boolean> {
    const r = await this.db
      .insertInto('file_share_targets')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .returning('share_id')
      .executeTakeFirst();
    return r !== undefined;
  }

  /** The user ids of a conversation's user participants. */
  async roomUsers(roomId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('attendees').select('actor_id').where('room_id', '=', roomId).where('actor_type', '=', 'users').execute();
    return rows.map((r) => r.actor_id);
  }

  /** Deletes shares (and their targets) by id. */
  async deleteIds(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom('file_share_targets').where('share_id', 'in', ids).execute();
    await this.db.deleteFrom('file_shares').where('id', 'in', ids).execute();
  }

  /** The shares a message announced. */
  async idsOfMessage(roomId: number, messageId: number): Promise<number[]> {
    const rows = await this.db.selectFrom('file_shares').select('id').where('room_id', '=', roomId).where('message_id', '=', messageId).execute();
    return rows.map((r) => Number(r.id));
  }

  async idsOfRooms(roomIds: number[]): Promise<number[]> {
    if (roomIds.length === 0) return [];
    const rows = await this.db.selectFrom('file_shares').select('id').where('room_id', 'in', roomIds).execute();
    return rows.map((r) => Number(r.id));
  }

  async idsOfOwner(owner: string): Promise<number[]> {
    const rows = await this.db.selectFrom('file_shares').select('id').where('owner', '=', owner).execute();
    return rows.map((r) => Number(r.id));
  }

  /** Shares past their expiry, or whose message no longer exists (expired and deleted by the chat job, or the history cleared). */
  async idsGone(now: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('file_shares as s')
      .select('s.id')
      .where((eb) =>
        eb.or([
          eb.and([eb('s.expires_at', '>', 0), eb('s.expires_at', '<=', now)]),
          eb.and([
            eb('s.message_id', '>', 0),
            eb.not(
              eb.exists(eb.selectFrom('chat_messages as m').select('m.id').whereRef('m.id', '=', 's.message_id').where('m.message_type', '=', 'object_shared')),
            ),
          ]),
        ]),
      )
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** A user's received-share targets go with the user. */
  async deleteTargetsOf(userId: string): Promise<void> {
    await this.db.deleteFrom('file_share_targets').where('user_id', '=', userId).execute();
  }
}
