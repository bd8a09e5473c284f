/**
 * Where files shared into conversations appear for the users who receive them
 * (docs/reference/files.md#where-received-files-appear): in their attachment folder (user setting
 * `attachment_folder`, else app config `default_attachment_folder`, created on first need) under
 * the file's name, made unique with " (2)", " (3)"... against their own files and other received
 * shares. A target is claimed by one insert that the database keeps unique per (user, path), so
 * two shares placed at once never get the same name. Targets are made when a file is shared
 * (for the participants then) and when a reader meets a share without one (who joined later).
 */
import type { FileShareRow, VisibleShare } from '../../db/repositories/file-shares.js';
import type { FileRow } from '../../db/repositories/files.js';
import type { Repositories } from '../../db/repositories/index.js';
import { ActorType } from '../../domain/constants.js';
import { pathFromText } from '../../domain/files/paths.js';
import { candidateName } from '../../domain/files/shares.js';
import { nowSeconds } from '../../domain/time.js';
import { effectivePreferences } from '../accounts/preferences.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { FilesService } from './files.js';

/** How often a share tries to claim a name that concurrent shares keep taking (then it shows under its name only). */
const CLAIM_ATTEMPTS = 5;

export class FileShareTargets {
  constructor(
    private readonly repos: Repositories,
    private readonly files: FilesService,
    private readonly appConfig: AppConfigService,
  ) {}

  /** The user's attachment folder as a path in their tree ('' for the root). */
  async folderOf(userId: string): Promise<string> {
    const prefs = effectivePreferences(await this.repos.preferences.forUser(userId), await this.appConfig.snapshot());
    const parsed = pathFromText(prefs.attachmentFolder);
    return 'path' in parsed ? parsed.path : 'Talk';
  }

  /** The share's path in `userId`'s tree, claimed now if it has none; undefined when no name could be claimed. */
  async place(share: Pick<FileShareRow, 'id'>, name: string, userId: string): Promise<string | undefined> {
    const [existing] = await this.repos.fileShares.targetsOf(userId, [share.id]);
    if (existing) return existing.path;
    const folder = await this.folderOf(userId);
    try {
      await this.files.ensureFolder(userId, folder);
    } catch {
      // A file where the folder should be: the share lands in the root instead.
      return this.claim(share.id, name, userId, '');
    }
    return this.claim(share.id, name, userId, folder);
  }

  /**
   * Claims the first free name in `folder`: the names taken there (own files and received
   * shares) are read in two statements, the free one claimed; a concurrent claim of the same
   * name makes it read again (a few times at most).
   */
  private async claim(shareId: number, name: string, userId: string, folder: string): Promise<string | undefined> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const taken = new Set([
        ...(await this.repos.files.children(userId, folder)).map((r) => r.path),
        ...(await this.repos.fileShares.targetPathsIn(userId, folder)),
      ]);
      let path: string | undefined;
      for (let n = 1; path === undefined; n++) {
        const candidate = folder === '' ? candidateName(name, n) : `${folder}/${candidateName(name, n)}`;
        if (!taken.has(candidate)) path = candidate;
      }
      if (await this.repos.fileShares.claimTarget({ share_id: shareId, user_id: userId, path, parent: folder })) return path;
      // Taken meanwhile by another share, or this share was placed meanwhile by a concurrent reader.
      const [mine] = await this.repos.fileShares.targetsOf(userId, [shareId]);
      if (mine) return mine.path;
    }
    return undefined;
  }

  /**
   * What a reader of a page of messages needs about the shares it names: their paths in the
   * reader's tree (users who may read them; placed now when missing), and the shares that are gone.
   */
  async forReader(viewer: { type: string; id: string } | undefined, shareIds: number[]): Promise<{ targets: Map<number, string>; gone: Set<number> }> {
    const ids = [...new Set(shareIds)];
    const shares = await this.repos.fileShares.findByIds(ids);
    const now = nowSeconds();
    const live = shares.filter((s) => s.message_id > 0 && (s.expires_at === 0 || s.expires_at > now));
    const gone = new Set(ids.filter((id) => !live.some((s) => s.id === id)));
    const targets = new Map<number, string>();
    if (viewer?.type !== ActorType.USERS || live.length === 0) return { targets, gone };
    for (const t of await this.repos.fileShares.targetsOf(
      viewer.id,
      live.map((s) => s.id),
    ))
      targets.set(t.share_id, t.path);
    for (const s of live) {
      if (targets.has(s.id) || s.owner === viewer.id) continue;
      if (!(await this.repos.fileShares.readable(viewer.id, s.id, now))) continue;
      const file = await this.repos.files.findById(s.file_id);
      if (!file) continue;
      const path = await this.place(s, file.name, viewer.id);
      if (path !== undefined) targets.set(s.id, path);
    }
    return { targets, gone };
  }

  /** The received file at `path` of `userId`'s tree, read-only, if they may read it now. */
  async at(userId: string, path: string): Promise<ReceivedFile | undefined> {
    if (path === '') return undefined;
    const [v] = await this.repos.fileShares.visible(userId, { path }, nowSeconds());
    return v ? asReceived(v) : undefined;
  }

  /** The received files in the folder `folder` of `userId`'s tree. */
  async listIn(userId: string, folder: FileRow): Promise<ReceivedFile[]> {
    if (!folder.is_dir) return [];
    return (await this.repos.fileShares.visible(userId, { parent: folder.path }, nowSeconds())).map(asReceived);
  }
}

/** A file shared with a user, at its place in their tree (WebDAV shows it read-only). */
export type ReceivedFile = FileRow & { received: true };

function asReceived(v: VisibleShare): ReceivedFile {
  const cut = v.path.lastIndexOf('/');
  return { ...v.file, path: v.path, parent: cut < 0 ? '' : v.path.slice(0, cut), name: cut < 0 ? v.path : v.path.slice(cut + 1), received: true };
}
