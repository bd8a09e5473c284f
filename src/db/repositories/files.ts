/**
 * SQL for users' file trees (table `files`, migration 0800; docs/files.md). A subtree is the
 * row at `path` and every row whose path starts with `path/`, compared with substr (not LIKE,
 * whose wildcards a name may contain); lengths are in characters, as both databases count them.
 */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Database, FilesTable } from '../schema.js';

export type FileRow = Selectable<FilesTable>;
export type NewFile = Insertable<FilesTable>;

const chars = (s: string) => [...s].length;

export class FilesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(owner: string, path: string): Promise<FileRow | undefined> {
    return this.db.selectFrom('files').selectAll().where('owner', '=', owner).where('path', '=', path).executeTakeFirst();
  }

  findById(id: number): Promise<FileRow | undefined> {
    return this.db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
  }

  children(owner: string, parent: string): Promise<FileRow[]> {
    return this.db.selectFrom('files').selectAll().where('owner', '=', owner).where('parent', '=', parent).orderBy('name').execute();
  }

  /** Inserts unless the path exists (unique owner+path): the new id, or undefined when it was taken. */
  async insertIfAbsent(row: NewFile): Promise<number | undefined> {
    const r = await this.db
      .insertInto('files')
      .values(row)
      .onConflict((oc) => oc.columns(['owner', 'path']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return r?.id;
  }

  /**
   * Locks the owner's root row until the transaction ends: every change to one user's tree (and
   * so to their quota) queues behind it. SQLite transactions are already one writer at a time.
   */
  async lockTree(owner: string): Promise<void> {
    await this.db
      .updateTable('files')
      .set((eb) => ({ id: eb.ref('id') }))
      .where('owner', '=', owner)
      .where('path', '=', '')
      .execute();
  }

  /** Bytes of the owner's files. */
  async usage(owner: string): Promise<number> {
    const r = await this.db
      .selectFrom('files')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), sql<number>`0`).as('used'))
      .where('owner', '=', owner)
      .where('is_dir', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(r.used);
  }

  /** A new version of an existing file's row. */
  async updateFile(id: number, set: Pick<FileRow, 'size' | 'mimetype' | 'etag' | 'mtime' | 'width' | 'height' | 'blob'>): Promise<void> {
    await this.db.updateTable('files').set(set).where('id', '=', id).execute();
  }

  /** New etag and mtime for folders (a change inside them, as Nextcloud propagates it). */
  async touch(owner: string, paths: string[], etag: string, mtime: number): Promise<void> {
    if (paths.length === 0) return;
    await this.db.updateTable('files').set({ etag, mtime }).where('owner', '=', owner).where('path', 'in', paths).execute();
  }

  /** Every row of the subtree at `path`. */
  subtree(owner: string, path: string): Promise<FileRow[]> {
    const n = chars(path);
    return this.db
      .selectFrom('files')
      .selectAll()
      .where('owner', '=', owner)
      .where((eb) => eb.or([eb('path', '=', path), eb(sql`substr(path, 1, ${n + 1})`, '=', `${path}/`)]))
      .orderBy('path')
      .execute();
  }

  /** Deletes the subtree at `path`: the blobs its files pointed at. */
  async deleteSubtree(owner: string, path: string): Promise<string[]> {
    const n = chars(path);
    const rows = await this.db
      .deleteFrom('files')
      .where('owner', '=', owner)
      .where((eb) => eb.or([eb('path', '=', path), eb(sql`substr(path, 1, ${n + 1})`, '=', `${path}/`)]))
      .returning('blob')
      .execute();
    return rows.flatMap((r) => (r.blob ? [r.blob] : []));
  }

  /** Deletes a user's whole tree: the blobs its files pointed at. */
  async deleteOwner(owner: string): Promise<string[]> {
    const rows = await this.db.deleteFrom('files').where('owner', '=', owner).returning('blob').execute();
    return rows.flatMap((r) => (r.blob ? [r.blob] : []));
  }

  /** Renames the subtree at `from` to `to` (whose parent exists and which does not). */
  async moveSubtree(owner: string, from: string, to: string, toParent: string, toName: string, etag: string, mtime: number): Promise<void> {
    const n = chars(from);
    await this.db
      .updateTable('files')
      .set({
        path: sql<string>`${to} || substr(path, ${n + 1})`,
        parent: sql<string>`${to} || substr(parent, ${n + 1})`,
      })
      .where('owner', '=', owner)
      .where(sql`substr(path, 1, ${n + 1})`, '=', `${from}/`)
      .execute();
    await this.db
      .updateTable('files')
      .set({ path: to, parent: toParent, name: toName, etag, mtime })
      .where('owner', '=', owner)
      .where('path', '=', from)
      .execute();
  }

  async insertMany(rows: NewFile[]): Promise<void> {
    if (rows.length > 0) await this.db.insertInto('files').values(rows).execute();
  }
}
