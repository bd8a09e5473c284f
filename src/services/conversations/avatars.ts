/**
 * Conversation avatars (feature `avatar`; contract "Avatar", docs/reference/conversations.md#avatars,
 * docs/reference/conversations.md#endpoint-rules): upload (PNG or JPEG, square, at most 20 MiB, not one-to-one), removal,
 * and the image itself — the custom one from the database, else a generated SVG.
 *
 * `rooms.avatar` holds `<version>.<ext>`; a fresh random version per upload makes the record's
 * avatarVersion (computed by the presenter) change whenever the image does.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { RoomAvatarsRepository } from '../../db/repositories/room-avatars.js';
import { emojiAvatar, emojiAvatarRow, iconAvatar, initialsAvatar, themedAvatar } from '../../domain/avatar-svg.js';
import { leadingEmoji } from '../../domain/emoji.js';
import { AVATAR_COLOR, isSingleEmoji } from '../../domain/create-options.js';
import { RoomType } from '../../domain/constants.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { inspectImage } from '../../domain/images.js';
import { isOneToOneKind } from '../../domain/permissions.js';
import { randomString } from '../../domain/passwords.js';
import { otherUserId } from '../../domain/one-to-one.js';
import { listableScopesFor } from '../platform/request-context.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { RequestContext } from '../platform/request-context.js';
import { type CallerRoom, type RoomsService } from './rooms.js';
import { chatActorOf } from '../chat/chat.js';
import { nowSeconds } from '../../domain/time.js';
import { reencodeImage, type EncodedImage } from '../images/reencode.js';
import { svgToPng } from '../images/rasterise.js';

/** Upload limit (Talk's). */
export const AVATAR_MAX_BYTES = 20 * 1024 * 1024;
/** Stored avatars are re-encoded to at most this many pixels a side (the largest size Nextcloud serves). */
export const AVATAR_MAX_SIDE = 512;
const VERSION_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** An uploaded file as the HTTP layer hands it over: the bytes, or `tooBig` without them. */
export interface AvatarUpload {
  data?: Buffer;
  tooBig: boolean;
}

/**
 * The checks every avatar upload gets (conversation and user avatars): 400 `file` (no file or
 * empty), `size` (over 20 MiB), `mimetype` (not PNG/JPEG), `image` (broken, or more pixels than
 * Parley decodes), `square`. What is stored is the decoded image re-encoded at most
 * AVATAR_MAX_SIDE a side, never the uploaded bytes.
 */
export async function squareImage(file: AvatarUpload | undefined): Promise<EncodedImage> {
  if (!file) throw badRequest('file', 'No image file was uploaded (multipart field "file")');
  if (file.tooBig || !file.data) throw badRequest('size', 'The file is too big (at most 20 MiB)');
  if (file.data.length === 0) throw badRequest('file', 'The uploaded file is empty');
  const info = inspectImage(file.data);
  if (info === 'mimetype') throw badRequest('mimetype', 'Only PNG and JPEG images are supported');
  if (info === 'image') throw badRequest('image', 'The file is not a valid image');
  if (info.width !== info.height) throw badRequest('square', 'The image is not square');
  return reencodeImage(file.data, info, AVATAR_MAX_SIDE);
}

const etagOf = (svg: string | Buffer) => `"${createHash('sha1').update(svg).digest('hex').slice(0, 20)}"`;

export interface AvatarImage {
  body: Buffer | string;
  contentType: string;
  etag: string;
}

export class AvatarService {
  constructor(
    private readonly repo: RoomAvatarsRepository,
    private readonly rooms: RoomsService,
    private readonly directory: DirectoryService,
    /** The host's image of a conversation kept here for another server (federation/proxy.ts). */
    private readonly remote?: { avatar(ctx: RequestContext, room: RoomRow, dark: boolean): Promise<{ body: Buffer; contentType: string } | undefined> },
  ) {}

  /** Deleted conversations take their avatars with them (subscribed to `rooms.deleted`). */
  async forgetRooms(rooms: RoomRow[]): Promise<void> {
    await this.repo.deleteForRooms(rooms.map((r) => r.id));
  }

  /**
   * POST avatar: moderators (guest moderators too). 400 `type` (one-to-one), `file` (no file),
   * `size` (over 20 MiB), `mimetype` (not PNG/JPEG), `image` (broken), `square` (not square).
   */
  async upload(ctx: RequestContext, token: unknown, file: AvatarUpload | undefined): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token);
    if (isOneToOneKind(found.room.type)) throw badRequest('type', 'One-to-one conversations cannot have an avatar');
    const { data, contentType } = await squareImage(file);
    const version = randomString(16, VERSION_ALPHABET);
    const avatar = `${version}.${contentType === 'image/png' ? 'png' : 'jpg'}`;
    const now = Math.max(nowSeconds(), found.room.last_activity);
    const room = { ...found.room, avatar, last_activity: now };
    await this.repo.save(found.room.id, { version, content_type: contentType, data, updated_at: now }, avatar, this.announce(ctx, found, room, true));
    return this.rooms.reread(found, room);
  }

  /**
   * POST avatar/emoji (Talk's current clients): moderators (guest moderators too); one emoji on
   * a colour of six hex digits ('' for Talk's neutral grey). 400 `type` (one-to-one), `emoji`,
   * `color`.
   */
  async setEmoji(ctx: RequestContext, token: unknown, emoji: string, color: string): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token);
    if (isOneToOneKind(found.room.type)) throw badRequest('type', 'One-to-one conversations cannot have an avatar');
    if (!isSingleEmoji(emoji)) throw badRequest('emoji', 'emoji must be exactly one emoji');
    if (color !== '' && !AVATAR_COLOR.test(color)) throw badRequest('color', 'color must be six hex digits, e.g. ff8800');
    const { column, row } = emojiAvatarRow(emoji, color);
    const now = Math.max(nowSeconds(), found.room.last_activity);
    const room = { ...found.room, avatar: column, last_activity: now };
    await this.repo.save(found.room.id, { ...row, updated_at: now }, column, this.announce(ctx, found, room, true));
    return this.rooms.reread(found, room);
  }

  /** DELETE avatar: moderators (guest moderators too); back to the generated image. */
  async remove(ctx: RequestContext, token: unknown): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token);
    if (found.room.avatar === '') return found;
    const now = Math.max(nowSeconds(), found.room.last_activity);
    const room = { ...found.room, avatar: '', last_activity: now };
    await this.repo.remove(found.room.id, now, this.announce(ctx, found, room, false));
    return this.rooms.reread(found, room);
  }

  /** The change's announcement, run inside its transaction (avatar_set / avatar_removed, docs/reference/chat.md#system-messages). */
  private announce(ctx: RequestContext, found: CallerRoom, room: RoomRow, set: boolean): (trx: Kysely<Database>) => Promise<void> {
    return (trx) => this.rooms.announceChange(trx, room, chatActorOf(ctx, found.attendee), { kind: 'avatar', set });
  }

  /**
   * GET avatar[/dark]: participants, and logged-in users the conversation is listed for (else
   * 404 like a missing conversation).
   */
  async image(ctx: RequestContext, token: unknown, dark: boolean): Promise<AvatarImage> {
    const found = await this.rooms.getRoomForCaller(ctx, token);
    if (!found.attendee) {
      const listed = ctx.user !== undefined && found.room.listable !== 0 && (await listableScopesFor(ctx)).includes(found.room.listable);
      if (!listed) throw notFound('room');
    }
    const room = found.room;
    if (room.remote_token !== '' && room.avatar !== '' && this.remote) {
      // A federated conversation's own image is the host's (ROOM_MODIFIED tells its version).
      const hosted = await this.remote.avatar(ctx, room, dark);
      if (hosted) return { body: hosted.body, contentType: hosted.contentType, etag: etagOf(hosted.body) };
    }
    if (room.avatar !== '') {
      const stored = await this.repo.find(room.id);
      if (stored) return { body: themedAvatar(stored.data, stored.content_type, dark), contentType: stored.content_type, etag: `"${stored.version}"` };
    }
    const other = isOneToOneKind(room.type) ? otherUserId(room, ctx.userId) : undefined;
    if (other !== undefined) {
      // Initials are rendered with the bundled font (as Nextcloud renders user avatars).
      const user = await this.directory.users.find(other);
      const svg = initialsAvatar(other, user?.display_name ?? other, dark).svg;
      return { body: await svgToPng(svg), contentType: 'image/png', etag: etagOf(svg) };
    }
    // A name starting with an emoji shows that emoji on the theme's grey (docs/reference/conversations.md#avatars).
    const emoji = room.type === RoomType.ONE_TO_ONE ? undefined : leadingEmoji(room.name);
    if (emoji !== undefined) {
      const svg = themedAvatar(Buffer.from(emojiAvatar(emoji, '').svg), 'image/svg+xml', dark).toString('utf8');
      return { body: svg, contentType: 'image/svg+xml', etag: etagOf(svg) };
    }
    // Talk serves its conversation icons as SVG; they hold no text.
    const svg = iconAvatar(room.type === RoomType.PUBLIC ? 'public' : 'group', dark).svg;
    return { body: svg, contentType: 'image/svg+xml', etag: etagOf(svg) };
  }
}
