/**
 * Sharing a user's file into a conversation (docs/files.md#sharing-into-a-conversation,
 * docs/reference/files.md): Nextcloud's files_sharing share API for Talk's share type (10), as
 * Talk's apps use it to send photos, files and voice messages. A share posts Talk's `file_shared`
 * message (stored `object_shared`) in the same transaction; every user participant of the
 * conversation can then read the file (WebDAV at their path, previews), guests of public
 * conversations through the share's link. Who may share is who may post (ChatApiService.access).
 */
import type { FileRow } from '../../db/repositories/files.js';
import type { FileShareRow } from '../../db/repositories/file-shares.js';
import type { Db } from '../../db/database.js';
import type { Repositories } from '../../db/repositories/index.js';
import { isReplyable, normalizeReferenceId } from '../../domain/chat.js';
import { badRequest, shareFailure } from '../../domain/errors.js';
import { hasPreview, pathFromText } from '../../domain/files/paths.js';
import {
  SHARE_TOKEN_LENGTH,
  SHARE_TYPE_ROOM,
  fileItemType,
  parseTalkMetaData,
  type FileShareParameters,
  type SharedFileSnapshot,
} from '../../domain/files/shares.js';
import { randomString } from '../../domain/passwords.js';
import { nowSeconds } from '../../domain/time.js';
import type { ChatApiService } from '../chat/chat-api.js';
import type { ChatService } from '../chat/chat.js';
import type { ChatMentions } from '../chat/chat-mentions.js';
import { may } from '../../domain/abilities.js';
import type { RoomsService } from '../conversations/rooms.js';
import type { RequestContext } from '../platform/request-context.js';
import type { PreviewService } from './previews.js';
import type { ShareView } from '../../presenters/files/share.js';
import { otherUserId } from '../../domain/one-to-one.js';
import { RoomType } from '../../domain/constants.js';
import type { FileShareTargets } from './share-targets.js';
import type { RoomRow } from '../../db/repositories/rooms.js';

export interface CreateShareInput {
  shareType?: number;
  shareWith: string;
  path: string;
  referenceId: string;
  talkMetaData: string;
}

const UNKNOWN_SHARE = () => shareFailure(404, 'share', 'Wrong share ID, share does not exist');

export class FileSharesService {
  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly chatApi: ChatApiService,
    private readonly chat: ChatService,
    private readonly mentions: ChatMentions,
    private readonly rooms: RoomsService,
    private readonly previews: PreviewService,
    private readonly targets: FileShareTargets,
    private readonly baseUrl: string,
  ) {}

  /**
   * POST /apps/files_sharing/api/v1/shares with shareType 10: shares the caller's file at
   * `path` (a file or a folder) into the conversation `shareWith` and posts it. 400
   * `shareType` for any other type, 404 `path` when missing or not the caller's; the
   * conversation's refusals are the chat's (404 not a participant, 403 read-only or no chat
   * permission, 412 lobby).
   */
  async create(ctx: RequestContext, input: CreateShareInput): Promise<ShareView> {
    const userId = ctx.userId!;
    if (input.shareType !== SHARE_TYPE_ROOM) throw shareFailure(400, 'shareType', 'Unknown share type');
    if (input.path === '') throw shareFailure(404, 'path', 'Please specify a file or folder path');
    const parsed = pathFromText(input.path);
    if ('problem' in parsed) throw shareFailure(404, 'path', 'Wrong path, file/folder does not exist');
    const file = parsed.path === '' ? undefined : await this.repos.files.find(userId, parsed.path);
    if (!file) throw shareFailure(404, 'path', 'Wrong path, file/folder does not exist');
    const acc = await this.chatApi.access(ctx, input.shareWith, { write: true, chat: true });
    const meta = parseTalkMetaData(input.talkMetaData, file.mimetype);
    const now = nowSeconds();
    // A reply to a message that cannot be replied to is no reply (Talk's listener ignores it).
    const parent = meta.replyTo > 0 ? await this.repos.chatMessages.findInRoom(acc.room.id, meta.replyTo, now) : undefined;
    const parentId = parent && isReplyable(parent.message_type === 'object_shared' ? 'comment' : parent.message_type, parent.actor_type) ? parent.id : null;
    await this.rooms.refillOneToOne(acc.room);
    const token = randomString(SHARE_TOKEN_LENGTH);
    const snapshot = await this.snapshotOf(file, token);
    // The caption is parsed as a message is: its mentions (and a reply) notify and are marked
    // (docs/reference/files.md#talkmetadata).
    const canMentionAll = may.mentionAll(acc.room, acc.attendee);
    const mentions = await this.mentions.resolve(acc.room, meta.caption, {
      author: acc.attendee,
      canMentionAll,
      replyTo: parent && parentId ? parent : undefined,
    });
    const { shareId, messageId } = await this.db.kysely.transaction().execute(async (trx) => {
      const tx = this.repos.withTransaction(trx);
      // The share expires with its message (docs/reference/chat.md#expiration).
      const expires = acc.room.message_expiration > 0 ? now + acc.room.message_expiration : 0;
      const id = await tx.fileShares.insert({ file_id: file.id, owner: userId, room_id: acc.room.id, token, created_at: now, expires_at: expires });
      const parameters: FileShareParameters = {
        share: id,
        file: snapshot,
        metaData: { messageType: meta.messageType, ...(meta.caption ? { caption: meta.caption } : {}), mimeType: file.mimetype },
      };
      const posted = await this.chat.postFileShare(
        trx,
        acc.room,
        acc.actor,
        { ...parameters, ...mentions.parameters },
        {
          message: meta.caption ? mentions.message : '{file}',
          canMentionAll,
          mentions: mentions.mentioned,
          referenceId: normalizeReferenceId(input.referenceId),
          parentId,
          silent: meta.silent,
          itemType: fileItemType(meta.messageType, file.mimetype),
          authorAttendeeId: acc.attendee.id,
        },
      );
      await tx.fileShares.setMessage(id, posted);
      return { shareId: id, messageId: posted };
    });
    // Each participant finds it in their attachment folder (those who join later, when they read it).
    for (const user of await this.repos.fileShares.roomUsers(acc.room.id)) if (user !== userId) await this.targets.place({ id: shareId }, file.name, user);
    // A silent share notifies nobody, mentioned or not.
    if (!meta.silent) await this.chat.objectShared(acc.room, messageId, acc.actor, mentions.mentioned.notices);
    const share = (await this.repos.fileShares.findById(shareId))!;
    return {
      share,
      file,
      room: acc.room,
      roomName: await this.roomName(acc.room, userId),
      ownerDisplayName: ctx.user?.display_name ?? userId,
      path: file.path,
      participant: true,
    };
  }

  /** What the message keeps of the file: its Talk rich object fields, and the links. */
  private async snapshotOf(file: FileRow, token: string): Promise<SharedFileSnapshot> {
    const preview = hasPreview(file);
    const snap: SharedFileSnapshot = {
      id: String(file.id),
      name: file.name,
      size: String(file.size),
      etag: file.etag,
      mimetype: file.mimetype,
      'preview-available': preview ? 'yes' : 'no',
      ownerPath: file.path,
      owner: file.owner,
      link: `${this.baseUrl}/index.php/f/${file.id}`,
      publicLink: `${this.baseUrl}/index.php/s/${token}`,
    };
    if (preview && file.width !== null && file.height !== null) {
      snap.width = String(file.width);
      snap.height = String(file.height);
      const hash = await this.previews.blurhash(file);
      if (hash) snap.blurhash = hash;
    }
    return snap;
  }

  /** GET /shares/{id}: the caller's own share, or one shared into a conversation they are in; else 404. */
  async get(ctx: RequestContext, id: number): Promise<ShareView> {
    const view = await this.viewOf(ctx.userId!, await this.repos.fileShares.findById(id));
    if (!view) throw UNKNOWN_SHARE();
    return view;
  }

  /**
   * GET /shares: the caller's shares (of the file at `path` when given), or with `sharedWithMe`
   * the shares of the conversations they are in. A `path` that is not the caller's file is 404.
   */
  async list(ctx: RequestContext, opts: { sharedWithMe: boolean; path: string }): Promise<ShareView[]> {
    const userId = ctx.userId!;
    const now = nowSeconds();
    let rows: FileShareRow[];
    if (opts.sharedWithMe) rows = await this.repos.fileShares.listReceived(userId, now);
    else if (opts.path !== '') {
      const parsed = pathFromText(opts.path);
      const file = 'path' in parsed && parsed.path !== '' ? await this.repos.files.find(userId, parsed.path) : undefined;
      if (!file) throw shareFailure(404, 'path', 'Wrong path, file/folder does not exist');
      rows = await this.repos.fileShares.listOwned(userId, now, file.id);
    } else rows = await this.repos.fileShares.listOwned(userId, now);
    const out: ShareView[] = [];
    for (const row of rows) {
      const view = await this.viewOf(userId, row);
      if (view) out.push(view);
    }
    return out;
  }

  /**
   * DELETE /shares/{id}: the owner unshares (the message stays, showing the file as no longer
   * available, as in Talk). 404 for a share the caller cannot see, 403 for someone else's.
   */
  async delete(ctx: RequestContext, id: number): Promise<void> {
    const userId = ctx.userId!;
    const view = await this.viewOf(userId, await this.repos.fileShares.findById(id));
    if (!view) throw UNKNOWN_SHARE();
    if (view.share.owner !== userId) throw shareFailure(403, 'share', 'Could not delete share');
    await this.repos.fileShares.deleteIds([id]);
    await this.chat.wake(view.room.id);
  }

  /** A share as `userId` may see it (owner, or a user of its conversation), with its file and room. */
  private async viewOf(userId: string, share: FileShareRow | undefined): Promise<ShareView | undefined> {
    const now = nowSeconds();
    if (!share || share.message_id <= 0 || (share.expires_at > 0 && share.expires_at <= now)) return undefined;
    const own = share.owner === userId;
    const participant = await this.repos.fileShares.readable(userId, share.id, now);
    if (!own && !participant) return undefined;
    const [file, room, owner] = await Promise.all([
      this.repos.files.findById(share.file_id),
      this.repos.rooms.findById(share.room_id),
      this.repos.users.find(share.owner),
    ]);
    if (!file || !room) return undefined;
    const path = own ? file.path : ((await this.targets.place(share, file.name, userId)) ?? file.name);
    return { share, file, room, roomName: await this.roomName(room, userId), ownerDisplayName: owner?.display_name || share.owner, path, participant };
  }

  /** A conversation's name for `userId`: the other person's in a one-to-one. */
  private async roomName(room: RoomRow, userId: string): Promise<string> {
    if (room.type !== RoomType.ONE_TO_ONE && room.type !== RoomType.ONE_TO_ONE_FORMER) return room.name;
    const other = otherUserId(room, userId);
    return other ? ((await this.repos.users.find(other))?.display_name ?? other) : room.name;
  }

  /**
   * A live share of a public conversation by its link token (guests' downloads), or undefined;
   * with `inner` (a path below a shared folder, as `/sub/file`) the file or folder there. A bad
   * `inner` (`..`, `.`, control characters, ...) is 400 `path`; it is looked up below the shared
   * folder in its owner's tree only, so it cannot reach another file.
   */
  async byLink(token: string, inner = ''): Promise<{ share: FileShareRow; file: FileRow } | undefined> {
    const parsed = pathFromText(inner);
    if ('problem' in parsed) throw badRequest('path', `Invalid path: ${parsed.problem}`);
    const found = await this.repos.fileShares.byPublicToken(token, nowSeconds());
    if (!found || parsed.path === '') return found;
    if (!found.file.is_dir) return undefined;
    const file = await this.repos.files.find(found.file.owner, `${found.file.path}/${parsed.path}`);
    return file ? { share: found.share, file } : undefined;
  }

  // ---- when shares go (docs/reference/files.md#when-a-share-goes) ----

  /** Deleted conversations take their shares along. */
  async forgetRooms(roomIds: number[]): Promise<void> {
    await this.repos.fileShares.deleteIds(await this.repos.fileShares.idsOfRooms(roomIds));
  }

  /** A deleted user's shares go (their files go with them), and so do the places of what they received. */
  async forgetUser(userId: string): Promise<void> {
    await this.repos.fileShares.deleteIds(await this.repos.fileShares.idsOfOwner(userId));
    await this.repos.fileShares.deleteTargetsOf(userId);
  }

  /** Shares whose message expired or is gone (the message-expiration job, a cleared history). */
  async sweep(now = nowSeconds()): Promise<number> {
    const ids = await this.repos.fileShares.idsGone(now);
    await this.repos.fileShares.deleteIds(ids);
    return ids.length;
  }
}
