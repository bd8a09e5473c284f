/**
 * Scheduled messages (docs/reference/chat.md#scheduled-messages, capability `scheduled-messages`,
 * local; Talk 23's ChatController, ScheduledMessageService and SendScheduledMessages): a user
 * writes a message now and it is posted at `sendAt`, as them, by the job `scheduled-messages`.
 *
 * Who: logged-in users in the conversation (the routes are not public), through the chat's
 * checks (404, 403 read-only, 412 lobby, 403 chat permission); a self-joined user is 404 `actor`.
 * Then, in Talk's order: 400 `send-at` (not in the future), 400 `message` (empty), 400 `reply-to`
 * (no such message, not replyable, or a thread: Parley has none), 413 `message`. A user sees,
 * edits and deletes only their own (404 `message` otherwise).
 *
 * Sending (the job, every minute): each due message is claimed by one conditional update, so
 * two processes post it once. It is then posted as an ordinary message of its author (mentions,
 * notifications, read marker, wake-ups), dated when it is sent. The author having left drops it;
 * a conversation that became read-only or a former one-to-one, a lobby that holds the author, a
 * lost chat permission or a reply whose message is gone fail it: it stays, with `sendAt` 0, and
 * the author's `hasScheduledMessages` says -1 until their next change.
 */
import { may } from '../../domain/abilities.js';
import type { Db } from '../../db/database.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { ChatMessageRead } from '../../db/repositories/chat-messages.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { ScheduledMessageRow, ScheduleOwner } from '../../db/repositories/scheduled-messages.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import { CHAT_MAX_LENGTH, isReplyable, messageLength, trimMessage } from '../../domain/chat.js';
import { ParticipantType, RoomType } from '../../domain/constants.js';
import { badRequest, notFound, payloadTooLarge } from '../../domain/errors.js';
import { lobbyStateAt, permissionsIn, serverDefaultPermissions } from '../../domain/permissions.js';
import { nowSeconds } from '../../domain/time.js';
import { formatChatMessage } from '../../presenters/chat-message.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { ChatAccess, ChatApiService } from './chat-api.js';
import type { ChatMentions } from './chat-mentions.js';
import type { ChatService } from './chat.js';
import type { RoomsService } from '../conversations/rooms.js';
import type { RequestContext } from '../platform/request-context.js';

/** Due messages sent per pass of the job. */
const DUE_BATCH = 200;

export interface ScheduleInput {
  message: string;
  sendAt: number;
  replyTo: number;
  silent: boolean;
  threadId: number;
}

/** Talk's ScheduledMessage object (ResponseDefinitions TalkScheduledMessage). */
export type ScheduledMessageRecord = Record<string, unknown>;

export class ChatScheduleService {
  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly chatApi: ChatApiService,
    private readonly chat: ChatService,
    private readonly mentions: ChatMentions,
    private readonly rooms: RoomsService,
    private readonly appConfig: AppConfigService,
  ) {}

  /** GET /chat/{token}/schedule: the caller's scheduled messages here, failed ones first, then by time. */
  async list(ctx: RequestContext, token: unknown): Promise<ScheduledMessageRecord[]> {
    const acc = await this.access(ctx, token);
    const rows = await this.repos.scheduledMessages.list(ownerOf(acc));
    return this.present(acc, rows);
  }

  /** POST /chat/{token}/schedule: 201 the scheduled message. */
  async schedule(ctx: RequestContext, token: unknown, input: ScheduleInput): Promise<ScheduledMessageRecord> {
    const acc = await this.access(ctx, token);
    const now = nowSeconds();
    const text = this.checked(input.message, input.sendAt, now);
    let parentId: number | null = null;
    if (input.replyTo !== 0) {
      const parent = input.replyTo > 0 ? await this.repos.chatMessages.findInRoom(acc.room.id, input.replyTo, now) : undefined;
      if (!parent || !isReplyable(parent.message_type, parent.actor_type))
        throw badRequest('reply-to', 'The message to reply to does not exist or cannot be replied to');
      parentId = parent.id;
    }
    // Threads do not exist here, so no thread is valid (Talk's validateThread answers `reply-to`).
    if (input.threadId !== 0) throw badRequest('reply-to', 'The thread does not exist');
    if (messageLength(text) > CHAT_MAX_LENGTH) throw payloadTooLarge('message', `The message is longer than ${CHAT_MAX_LENGTH} characters`);
    const owner = ownerOf(acc);
    // The conversation's row first (as every change takes it): one deleted since the lookup
    // gets no scheduled message (404 `room`).
    const row = await this.rooms.lockedTransaction(owner.roomId, async (tx) => {
      await tx.scheduledMessages.lockOwner(owner);
      const stored = await tx.scheduledMessages.insert({
        room_id: owner.roomId,
        actor_type: owner.actorType,
        actor_id: owner.actorId,
        message: text,
        parent_id: parentId,
        silent: input.silent ? 1 : 0,
        send_at: input.sendAt,
        original_send_at: 0,
        created_at: now,
      });
      await tx.scheduledMessages.recount(owner);
      return stored;
    });
    return (await this.present(acc, [row]))[0];
  }

  /** POST /chat/{token}/schedule/{id}: edits the caller's message (text, time, silent); 202 the message. */
  async edit(ctx: RequestContext, token: unknown, id: number, input: Pick<ScheduleInput, 'message' | 'sendAt' | 'silent'>): Promise<ScheduledMessageRecord> {
    const acc = await this.access(ctx, token);
    const now = nowSeconds();
    const text = this.checked(input.message, input.sendAt, now);
    const owner = ownerOf(acc);
    if (id <= 0 || !(await this.repos.scheduledMessages.find(owner, id))) throw notFound('message', 'The scheduled message does not exist');
    if (messageLength(text) > CHAT_MAX_LENGTH) throw payloadTooLarge('message', `The message is longer than ${CHAT_MAX_LENGTH} characters`);
    const row = await this.db.kysely.transaction().execute(async (trx) => {
      const tx = this.repos.withTransaction(trx);
      await tx.scheduledMessages.lockOwner(owner);
      const edited = await tx.scheduledMessages.edit(owner, id, { message: text, send_at: input.sendAt, silent: input.silent ? 1 : 0 });
      // Sent or deleted meanwhile.
      if (!edited) throw notFound('message', 'The scheduled message does not exist');
      // A failed message edited to a new time is scheduled again: the count replaces the -1.
      await tx.scheduledMessages.recount(owner);
      return edited;
    });
    return (await this.present(acc, [row]))[0];
  }

  /** DELETE /chat/{token}/schedule/{id}: 404 `message` when it is not the caller's. */
  async delete(ctx: RequestContext, token: unknown, id: number): Promise<void> {
    const acc = await this.access(ctx, token);
    const owner = ownerOf(acc);
    await this.db.kysely.transaction().execute(async (trx) => {
      const tx = this.repos.withTransaction(trx);
      await tx.scheduledMessages.lockOwner(owner);
      if (id <= 0 || !(await tx.scheduledMessages.delete(owner, id))) throw notFound('message', 'The scheduled message does not exist');
      await tx.scheduledMessages.recount(owner);
    });
  }

  /** The job: posts every message due at `now` (see the file comment); answers how many were posted. */
  async sendDue(now: number): Promise<{ sent: number; failed: number }> {
    const done = { sent: 0, failed: 0 };
    for (;;) {
      const due = await this.repos.scheduledMessages.due(now, DUE_BATCH);
      for (const row of due) {
        if (!(await this.repos.scheduledMessages.claim(row.id))) continue;
        const outcome = await this.sendOne(row, now);
        if (outcome === 'sent') done.sent++;
        if (outcome === 'failed') done.failed++;
      }
      if (due.length < DUE_BATCH) return done;
    }
  }

  /** Deleted conversations take their scheduled messages along (subscribed to `rooms.deleted`). */
  async forgetRooms(rooms: RoomRow[]): Promise<void> {
    await this.repos.scheduledMessages.deleteForRooms(rooms.map((r) => Number(r.id)));
  }

  /** A deleted user's scheduled messages go with them (subscribed to `user.deleting`). */
  async forgetUser(userId: string): Promise<void> {
    await this.repos.scheduledMessages.deleteForUser(userId);
  }

  /** Posts one claimed message as its author, or drops or fails it. */
  private async sendOne(row: ScheduledMessageRow, now: number): Promise<'sent' | 'failed' | 'dropped'> {
    const owner: ScheduleOwner = { roomId: row.room_id, actorType: row.actor_type, actorId: row.actor_id };
    const [room] = await this.repos.rooms.findByIds([row.room_id]);
    const [attendee] = room ? await this.repos.attendees.actorsInRooms([room.id], row.actor_type, [row.actor_id]) : [];
    if (!room || !attendee) {
      // The author left (or the conversation is gone): nobody to post as, and no count to keep.
      await this.repos.scheduledMessages.remove(row.id);
      return 'dropped';
    }
    const parent = row.parent_id !== null ? await this.repos.chatMessages.findInRoom(room.id, Number(row.parent_id), now) : undefined;
    const cfg = await this.appConfig.snapshot();
    if (!maySend(room, attendee, parent, row, now, cfg.raw('default_permissions'))) {
      await this.repos.scheduledMessages.recount(owner, true);
      return 'failed';
    }
    const user = await this.repos.users.find(row.actor_id);
    const actor = { type: row.actor_type, id: row.actor_id, displayName: user?.display_name ?? attendee.display_name };
    await this.rooms.refillOneToOne(room);
    const canMentionAll = may.mentionAll(room, attendee);
    const parsed = await this.mentions.resolve(room, row.message, { author: attendee, canMentionAll, replyTo: parent });
    await this.chat.postUserMessage(room, {
      actor,
      attendeeId: attendee.id,
      message: parsed.message,
      parameters: parsed.parameters,
      parentId: parent ? parent.id : null,
      referenceId: '',
      silent: row.silent === 1,
      canMentionAll,
      mentions: parsed.mentioned,
      config: cfg,
    });
    await this.db.kysely.transaction().execute(async (trx) => {
      const tx = this.repos.withTransaction(trx);
      await tx.scheduledMessages.lockOwner(owner);
      await tx.scheduledMessages.remove(row.id);
      await tx.scheduledMessages.recount(owner);
    });
    return 'sent';
  }

  /** The chat's access for a scheduling user; self-joined users are 404 `actor` (Talk's isSelfJoinedOrGuest). */
  private async access(ctx: RequestContext, token: unknown): Promise<ChatAccess> {
    const acc = await this.chatApi.access(ctx, token, { write: true, chat: true, authenticated: true });
    if (acc.attendee.participant_type === ParticipantType.USER_SELF_JOINED) throw notFound('actor', 'Join the conversation to schedule messages');
    return acc;
  }

  /** The text after Talk's first checks: 400 `send-at` (not in the future), 400 `message` (empty). */
  private checked(message: string, sendAt: number, now: number): string {
    if (sendAt <= now) throw badRequest('send-at', 'sendAt must be in the future');
    const text = trimMessage(message);
    if (text === '') throw badRequest('message', 'The message is empty');
    return text;
  }

  /** Talk's ScheduledMessage::toArray, with the parent as the caller reads it. */
  private async present(acc: ChatAccess, rows: ScheduledMessageRow[]): Promise<ScheduledMessageRecord[]> {
    const parentIds = rows.flatMap((r) => (r.parent_id !== null ? [Number(r.parent_id)] : []));
    const parents = new Map<number, ChatMessageRead>();
    if (parentIds.length) for (const p of await this.repos.chatMessages.findByIds(parentIds, nowSeconds())) if (p.room_id === acc.room.id) parents.set(p.id, p);
    const env = { token: acc.room.token, roomType: acc.room.type, viewer: { type: acc.actor.type, id: acc.actor.id } };
    return rows.map((r) => {
      const out: ScheduledMessageRecord = {
        id: String(r.id),
        actorId: r.actor_id,
        actorType: r.actor_type,
        threadId: 0,
        message: r.message,
        messageType: 'comment',
        createdAt: Number(r.created_at),
        sendAt: Number(r.send_at),
        silent: r.silent === 1,
      };
      // Set only when sending failed (TalkScheduledMessage.originalSendAt).
      if (Number(r.send_at) === 0) out.originalSendAt = Number(r.original_send_at);
      if (r.parent_id !== null) {
        const parent = parents.get(Number(r.parent_id));
        out.parent = parent ? formatChatMessage(parent, env, false) : { id: Number(r.parent_id), deleted: true };
      }
      return out;
    });
  }
}

function ownerOf(acc: ChatAccess): ScheduleOwner {
  return { roomId: acc.room.id, actorType: acc.attendee.actor_type, actorId: acc.attendee.actor_id };
}

/** Whether the author may still post here, as the chat's checks would answer them now. */
function maySend(
  room: RoomRow,
  attendee: AttendeeRow,
  parent: ChatMessageRead | undefined,
  row: ScheduledMessageRow,
  now: number,
  defaultPermissions: string | undefined,
): boolean {
  if (!may.postIn(room) || room.type === RoomType.ONE_TO_ONE_FORMER) return false;
  const effective = permissionsIn(room, attendee, serverDefaultPermissions(defaultPermissions));
  if (!may.passLobby(lobbyStateAt(room, now), attendee, effective)) return false;
  if (!may.chat(effective)) return false;
  if (row.parent_id !== null && (!parent || !isReplyable(parent.message_type, parent.actor_type))) return false;
  return true;
}
