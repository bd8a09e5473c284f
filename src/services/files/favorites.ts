/**
 * Favourite files (docs/files.md "For apps: WebDAV"): a user marks one of the files they see
 * (their own or one shared with them) with WebDAV PROPPATCH of `oc:favorite`, as Nextcloud's
 * tag manager keeps them; PROPFIND shows the mark to that user only.
 */
import type { FileRow } from '../../db/repositories/files.js';
import type { FileFavoritesRepository } from '../../db/repositories/file-favorites.js';

export class FileFavoritesService {
  constructor(private readonly repo: FileFavoritesRepository) {}

  /** `oc:favorite` as Nextcloud reads it: "1" or "true" marks, anything else unmarks. */
  async set(userId: string, row: FileRow, value: string): Promise<void> {
    await this.repo.set(userId, Number(row.id), value === '1' || value.toLowerCase() === 'true');
  }

  async unset(userId: string, row: FileRow): Promise<void> {
    await this.repo.set(userId, Number(row.id), false);
  }

  /** The ids among `rows` the user marked (one statement per listing). */
  among(userId: string, rows: FileRow[]): Promise<Set<number>> {
    return this.repo.among(
      userId,
      rows.map((r) => Number(r.id)),
    );
  }

  forget(userId: string): Promise<void> {
    return this.repo.deleteUser(userId);
  }

  /** Marks of files that are gone (the file-uploads job). */
  sweep(): Promise<number> {
    return this.repo.deleteOrphans();
  }
}
