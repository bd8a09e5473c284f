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
import { ancestorsOf, pathFromText } from '../../domain/files/paths.js';
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

  /**
   * The received file or folder at `path` of `userId`'s tree, read-only, if they may read it
   * now: a received share itself, or a file or folder inside a received folder (its contents
   * are readable as Nextcloud's received folder shares are). The part of `path` below the share
   * was checked name by name (no `.`, `..`, separators or control characters), and is looked
   * up below the shared folder in its owner's tree only: it cannot reach another file.
   */
  async at(userId: string, path: string): Promise<ReceivedFile | undefined> {
    const found = await this.covering(userId, path);
    if (!found) return undefined;
    if (found.path === path) return asReceived(found);
    if (!found.file.is_dir) return undefined;
    const below = path.slice(found.path.length + 1);
    const inner = await this.repos.files.find(found.file.owner, `${found.file.path}/${below}`);
    return inner ? relocate(inner, found.file.path, found.path) : undefined;
  }

  /** Whether `path` of `userId`'s tree is a received share or inside one (read-only: writes there are refused). */
  async covers(userId: string, path: string): Promise<boolean> {
    return (await this.covering(userId, path)) !== undefined;
  }

  /** The received share at `path` or at the nearest folder above it that `userId` may read now. */
  private async covering(userId: string, path: string): Promise<VisibleShare | undefined> {
    if (path === '') return undefined;
    const paths = [...ancestorsOf(path).filter((p) => p !== ''), path];
    const found = await this.repos.fileShares.visible(userId, { paths }, nowSeconds());
    // The deepest one: a received folder may hold the attachment folder of later shares.
    return found.sort((a, b) => b.path.length - a.path.length)[0];
  }

  /** The entries of `folder` in `userId`'s tree that are not their own: received shares, or the contents of a received folder. */
  async listIn(userId: string, folder: FileRow): Promise<ReceivedFile[]> {
    if (!folder.is_dir) return [];
    const inReceived = 'ownerPath' in folder ? (folder as ReceivedFile) : undefined;
    const shares = (await this.repos.fileShares.visible(userId, { parent: folder.path }, nowSeconds())).map(asReceived);
    if (!inReceived) return shares;
    const inner = await this.repos.files.children(inReceived.owner, inReceived.ownerPath);
    return [...inner.map((r) => relocate(r, inReceived.ownerPath, inReceived.path)), ...shares];
  }

  /**
   * Where the file `fileId` is in `userId`'s tree (their own, a received share, or inside a
   * received folder), or undefined when it is missing or they may not read it: the two are
   * one answer, so that a file link reveals nothing (docs/reference/files.md#file-links).
   */
  async pathOf(userId: string, fileId: number): Promise<{ path: string; isDir: boolean } | undefined> {
    const file = await this.repos.files.findById(fileId);
    if (!file) return undefined;
    const path = file.owner === userId ? file.path : await this.pathFor(userId, file);
    return path === undefined ? undefined : { path, isDir: file.is_dir === 1 };
  }

  /**
   * Where a file another user owns appears in `userId`'s tree (the `link` of its rich object
   * leads there): the target of a share of it, or of a shared folder above it, joined with the
   * rest of its path. Undefined when `userId` may not read it.
   */
  async pathFor(userId: string, file: FileRow): Promise<string | undefined> {
    const paths = [...ancestorsOf(file.path).filter((p) => p !== ''), file.path];
    for (const { share, path, name } of await this.repos.fileShares.covering(userId, file.owner, paths, nowSeconds())) {
      const target = await this.place(share, name, userId);
      if (target !== undefined) return path === file.path ? target : `${target}${file.path.slice(path.length)}`;
    }
    return undefined;
  }
}

/**
 * A file shared with a user (or inside a folder shared with them), at its place in their tree
 * (WebDAV shows it read-only); `ownerPath` is where it is in its owner's tree.
 */
export type ReceivedFile = FileRow & { received: true; ownerPath: string };

function asReceived(v: VisibleShare): ReceivedFile {
  return at(v.file, v.path);
}

/** `row` (inside the owner's folder `from`) shown inside the reader's `to`. */
function relocate(row: FileRow, from: string, to: string): ReceivedFile {
  return at(row, to + row.path.slice(from.length));
}

function at(row: FileRow, path: string): ReceivedFile {
  const cut = path.lastIndexOf('/');
  return { ...row, path, parent: cut < 0 ? '' : path.slice(0, cut), name: cut < 0 ? path : path.slice(cut + 1), received: true, ownerPath: row.path };
}
