/**
 * The conversation records of a request (contract "Conversation"; docs/reference/conversations.md#the-conversation-record): loads
 * what the records need beyond their room/attendee/session rows (other users' display names,
 * group membership, common read markers, user statuses) and makes the lazy repairs reading them
 * implies (expired lobby timers lifted, default names saved, missing PINs generated), each once
 * per call in a batch, so any number of conversations costs a constant number of queries. The
 * record itself is the pure `formatConversation` (presenters/conversation.ts).
 */
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import type { LobbyTimers } from './lobby-timers.js';
import type { AttendeesRepository } from '../../db/repositories/attendees.js';
import type { ChatMessagesRepository } from '../../db/repositories/chat-messages.js';
import type { RoomsRepository } from '../../db/repositories/rooms.js';
import type { UsersRepository } from '../../db/repositories/users.js';
import { isOneToOneKind, lobbyTimerReached, serverDefaultPermissions } from '../../domain/permissions.js';
import { defaultRoomName, isGroupOrPublic } from '../../domain/room-settings.js';
import { needsAttendeePin, sipConfigured } from '../../domain/sip.js';
import { recordingAvailable } from '../../domain/features.js';
import { newAttendeePin } from '../../domain/tokens.js';
import { nowSeconds } from '../../domain/time.js';
import { otherUserId } from '../../domain/one-to-one.js';
import {
  formatConversation,
  stableUntil,
  type ConversationRecord,
  type ConversationView,
  type FormatEnv,
  type PresentOptions,
  type RoomChatState,
  type UserStatus,
} from '../../presenters/conversation.js';
import { listableScopesFor, type RequestContext } from '../platform/request-context.js';
import type { UserStatusService } from '../accounts/user-status.js';
import type { FederationSyncRepository } from '../../db/repositories/federation-sync.js';

/** Repositories the records are batch-loaded from and repaired through. */
export interface ConversationViewRepos {
  users: UsersRepository;
  rooms: RoomsRepository;
  attendees: AttendeesRepository;
  chatMessages: ChatMessagesRepository;
  federationSync: FederationSyncRepository;
}

/** See ConversationViewService.requestEnv. */
export interface RequestEnv {
  cfg: AppConfigSnapshot;
  sip: boolean;
  inStartCallsGroups: boolean;
  inSipBridgeGroups: boolean;
  signature: string;
}

export class ConversationViewService {
  constructor(
    private readonly repos: ConversationViewRepos,
    private readonly userStatus: UserStatusService,
    private readonly lobbyTimers: LobbyTimers,
  ) {}

  /** Formats one conversation (see `present`). */
  async presentOne(ctx: RequestContext, view: ConversationView, opts: PresentOptions = {}): Promise<ConversationRecord> {
    return (await this.present(ctx, [view], opts))[0];
  }

  /**
   * Formats conversations for the caller with a constant number of queries: at most one each for
   * expired lobby timers, other users' display names, the caller's groups, new PINs, statuses,
   * the last messages and the unread counts. Every answer that carries a record (GET /room, join,
   * read marker, settings, ...) gets its chat fields from here, as Talk's formatRoom does.
   */
  async present(ctx: RequestContext, views: ConversationView[], opts: PresentOptions = {}, shared?: RequestEnv): Promise<ConversationRecord[]> {
    const anyParticipant = views.some((v) => v.attendee);
    const req = shared ?? (await this.requestEnv(ctx, anyParticipant));
    const { cfg, sip, inStartCallsGroups, inSipBridgeGroups } = req;
    const now = nowSeconds();
    const userId = ctx.userId;

    // Lobby timers are applied lazily on read (docs/reference/conversations.md#timers-and-jobs): lift and save expired ones.
    const expired = views.filter((v) => lobbyTimerReached(v.room, now));
    if (expired.length) {
      const lifted = new Map((await this.lobbyTimers.lift([...new Set(expired.map((v) => v.room.id))], now)).map((r) => [r.id, r]));
      // Lifted here: the row with its lobby_timer_reached message; lifted meanwhile elsewhere: just open.
      for (const v of expired) v.room = lifted.get(v.room.id) ?? { ...v.room, lobby_state: 0, lobby_timer: 0, last_activity: now };
    }

    // A group or public conversation without a name gets one from its users, saved (docs/reference/conversations.md#default-names). Parley's own paths never leave a name empty; imported rows may.
    const nameless = views.filter((v) => v.room.name === '' && isGroupOrPublic(v.room.type));
    if (nameless.length) {
      const users = await this.repos.attendees.userDisplayNames([...new Set(nameless.map((v) => v.room.id))]);
      const names = new Map<number, string>();
      for (const v of nameless) {
        const name = defaultRoomName(users.get(v.room.id) ?? []);
        if (name !== '') names.set(v.room.id, name);
      }
      await this.repos.rooms.setNamesIfEmpty(names);
      for (const v of nameless) if (names.has(v.room.id)) v.room = { ...v.room, name: names.get(v.room.id)! };
    }

    const otherIds = new Set<string>();
    for (const v of views) {
      if (!isOneToOneKind(v.room.type)) continue;
      const other = otherUserId(v.room, userId);
      if (other !== undefined) otherIds.add(other);
    }
    const userNames = new Map<string, string>();
    if (otherIds.size) {
      for (const u of await this.repos.users.existing([...otherIds])) userNames.set(u.id, u.display_name);
    }

    const newPins = new Map<number, string>();
    if (sip) {
      for (const v of views) {
        const a = v.attendee;
        if (a && needsAttendeePin(true, v.room, a)) {
          newPins.set(a.id, newAttendeePin());
        }
      }
      if (newPins.size) await this.repos.attendees.setPins(newPins, now);
    }

    // Common read markers read with the rooms are taken as they are; the others loaded in one statement.
    const publicReaders = views.filter((v) => v.attendee && v.attendee.read_privacy === 0 && !v.chatPreload).map((v) => v.room.id);
    const commonRead = publicReaders.length ? await this.repos.attendees.commonReadMessages([...new Set(publicReaders)]) : new Map<number, number>();
    for (const v of views) if (v.chatPreload) commonRead.set(v.room.id, v.chatPreload.commonRead);
    const listableScopes = views.some((v) => !v.attendee) ? await listableScopesFor(ctx) : [];

    let statuses: ReadonlyMap<string, UserStatus> = new Map();
    const includeStatus = opts.includeStatus === true;
    if (includeStatus && otherIds.size) statuses = await this.userStatus.forUsers([...otherIds]);

    const env: FormatEnv = {
      now,
      userId,
      cfg,
      sipConfigured: sip,
      userNames,
      inStartCallsGroups,
      inSipBridgeGroups,
      statuses,
      newPins,
      commonRead,
      includeStatus,
      includeLastMessage: opts.includeLastMessage !== false,
      // After the repairs: a lifted lobby timer has just posted the room's last message.
      chat: await this.chatStates(views, opts.includeLastMessage !== false),
      serverDefault: serverDefaultPermissions(cfg.raw('default_permissions')),
      recordingAvailable: recordingAvailable(cfg),
      startCalls: cfg.int('start_calls'),
      startCallsGroups: cfg.list('start_calls_groups'),
      deleteOneToOne: cfg.bool('delete_one_to_one_conversations'),
    };
    if (opts.validity) {
      let until = stableUntil(views, statuses, now);
      // A kept last message of another server's conversation expires without a write here.
      for (const c of env.chat?.values() ?? []) {
        const at = Number(c.proxied?.lastMessage?.expires_at ?? 0);
        if (at > 0) until = Math.min(until, Math.max(now, at - 1));
      }
      opts.validity.until = until;
    }
    return views.map((v) => formatConversation(v, env, listableScopes.includes(v.room.listable)));
  }

  /**
   * What every record of a request shares besides the caller: the configuration and the
   * caller's group-based rights, with a signature that changes whenever any of it does (records
   * kept across requests are checked against it, services/conversations/conversation-list.ts).
   */
  async requestEnv(ctx: RequestContext, anyParticipant: boolean): Promise<RequestEnv> {
    const cfg = await ctx.config();
    const sip = sipConfigured(cfg);
    const inStartCallsGroups = anyParticipant ? await ctx.inGroupList(cfg.list('start_calls_groups')) : false;
    // Only a logged-in caller can enable SIP; the SIP bridge sees attendees' records with false.
    const inSipBridgeGroups = anyParticipant && sip && ctx.user !== undefined ? await ctx.inGroupList(cfg.list('sip_bridge_groups')) : false;
    return { cfg, sip, inStartCallsGroups, inSipBridgeGroups, signature: `${cfg.generation}:${+inStartCallsGroups}:${+inSipBridgeGroups}` };
  }

  /**
   * Each room's last message (read with the room when it was, else one statement for all) and
   * the caller's unread count: the count is the room's counter
   * minus the attendee's (migration 0706-chat-unread-counters), so it costs nothing per message;
   * rooms whose earliest counted expiry has passed also subtract their expired messages not yet
   * deleted by the job (one statement over those rows only, and only then).
   */
  private async chatStates(views: readonly ConversationView[], includeLastMessage: boolean): Promise<Map<number, RoomChatState>> {
    const now = nowSeconds();
    const out = new Map<number, RoomChatState>();
    // A last message read with the room is used unless a repair has posted since (lobby timer).
    const preloaded = (v: ConversationView) => v.chatPreload !== undefined && v.chatPreload.lastMessageId === v.room.last_message;
    const lastIds = includeLastMessage ? views.flatMap((v) => (v.room.last_message > 0 && !preloaded(v) ? [v.room.last_message] : [])) : [];
    const last = new Map((lastIds.length ? await this.repos.chatMessages.findByIds(lastIds, now) : []).map((m) => [m.id, m]));
    for (const v of views) {
      const m = preloaded(v) ? v.chatPreload!.lastMessage : undefined;
      if (m) last.set(m.id, m);
    }
    const expiring = views.flatMap((v) => (v.attendee && v.attendee.id > 0 && v.room.next_expiry > 0 && v.room.next_expiry <= now ? [v.attendee.id] : []));
    const expired = expiring.length ? await this.repos.chatMessages.expiredUnreadCounts(expiring, now) : undefined;
    for (const v of views) {
      const m = last.get(v.room.last_message);
      out.set(v.room.id, { unread: unreadOf(v, expired), lastMessage: m && m.room_id === v.room.id ? m : undefined });
    }
    // Conversations kept here for another server's: what the host's MESSAGE_POSTED left
    // (docs/federation.md "Keeping the conversation current"); read only when there are any.
    const proxied = views.filter((v) => v.room.remote_token !== '');
    if (proxied.length) {
      const lasts = new Map(
        (includeLastMessage ? await this.repos.federationSync.lastMessages(proxied.map((v) => v.room.id)) : []).map((r) => [Number(r.room_id), r]),
      );
      const attendeeIds = proxied.flatMap((v) => (v.attendee && v.attendee.id > 0 ? [v.attendee.id] : []));
      const unread = new Map((await this.repos.federationSync.unread(attendeeIds)).map((u) => [Number(u.attendee_id), u]));
      for (const v of proxied) {
        const u = v.attendee ? unread.get(v.attendee.id) : undefined;
        const last = lasts.get(v.room.id);
        out.set(v.room.id, {
          unread: u ? Number(u.unread_messages) : 0,
          proxied: {
            // An expired message is not shown, as a local one is not (docs/reference/chat.md#expiration).
            lastMessage: last && (Number(last.expires_at) === 0 || Number(last.expires_at) > now) ? last : undefined,
            unreadMention: u ? Number(u.unread_mention) === 1 : false,
            unreadMentionDirect: u ? Number(u.unread_mention_direct) === 1 : false,
            lastReadMessage: u ? Number(u.last_read_message) : 0,
          },
        });
      }
    }
    return out;
  }
}

/** The caller's unread count of a conversation from the counters (never below 0). */
function unreadOf(v: ConversationView, expired: ReadonlyMap<number, number> | undefined): number {
  if (!v.attendee || v.attendee.id <= 0) return 0;
  const read = v.attendee.last_read_message > 0 ? v.attendee.read_count : 0;
  return Math.max(0, v.room.chat_count - read - (expired?.get(v.room.id) ?? 0));
}
