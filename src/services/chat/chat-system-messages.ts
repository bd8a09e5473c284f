/**
 * Which changes become which system messages (docs/reference/chat.md#system-messages): subscribed to the
 * `trx`-carrying events of the owning services (services/subscribers.ts), so each message is
 * written in the same transaction as its change.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { attendeeObject, deletedUserObject } from '../../domain/chat-rich-objects.js';
import { isOneToOneKind } from '../../domain/permissions.js';
import { ActorType, ListableScope, ParticipantType, ReadOnlyState, RoomType } from '../../domain/constants.js';
import type { Repositories } from '../../db/repositories/index.js';
import { SYSTEM_ACTOR } from '../../domain/chat.js';
import { nowSeconds } from '../../domain/time.js';
import type { CallActor, CallEnded, CallSessionChange, RoomChange } from '../../events/event-map.js';
import type { ChatActor, ChatService } from './chat.js';

/** The system message id of a room change, or undefined when Talk records none. */
function roomChangeMessage(room: RoomRow, change: RoomChange): { id: string; params?: Record<string, unknown> } | undefined {
  switch (change.kind) {
    case 'created':
      return { id: 'conversation_created' };
    case 'renamed':
      return change.oldName !== '' && change.newName !== ''
        ? { id: 'conversation_renamed', params: { oldName: change.oldName, newName: change.newName } }
        : undefined;
    case 'description':
      return change.description === '' ? { id: 'description_removed' } : { id: 'description_set', params: { newDescription: change.description } };
    case 'read-only':
      return room.type === RoomType.CHANGELOG ? undefined : { id: change.state === ReadOnlyState.READ_ONLY ? 'read_only' : 'read_only_off' };
    case 'listable':
      return { id: change.scope === ListableScope.NONE ? 'listable_none' : change.scope === ListableScope.USERS ? 'listable_users' : 'listable_all' };
    case 'lobby':
      // Inside a breakout room the lobby is how rooms start and stop (docs/reference/chat.md#system-messages breakout_rooms_*).
      if (room.object_type === 'room') return { id: change.state === 0 ? 'breakout_rooms_started' : 'breakout_rooms_stopped' };
      return { id: change.state === 0 ? 'lobby_none' : 'lobby_non_moderators' };
    case 'password':
      return { id: change.set ? 'password_set' : 'password_removed' };
    case 'type':
      if (change.from === RoomType.GROUP && change.to === RoomType.PUBLIC) return { id: 'guests_allowed' };
      if (change.from === RoomType.PUBLIC && change.to === RoomType.GROUP) return { id: 'guests_disallowed' };
      return undefined;
    case 'message-expiration':
      return change.seconds > 0 ? { id: 'message_expiration_enabled', params: { seconds: change.seconds } } : { id: 'message_expiration_disabled' };
    case 'avatar':
      return { id: change.set ? 'avatar_set' : 'avatar_removed' };
  }
}

/**
 * The system message of an attendee added or removed (docs/reference/chat.md#system-messages user_*, group_*, circle_*, phone_*),
 * keyed by the rich object's parameter name; e-mail guests and guests are not recorded, as in Talk.
 */
function membershipMessage(attendee: AttendeeRow, added: boolean): { id: string; key: string } | undefined {
  const verb = added ? 'added' : 'removed';
  if (attendee.actor_type === ActorType.USERS) return { id: `user_${verb}`, key: 'user' };
  if (attendee.actor_type === ActorType.GROUPS) return { id: `group_${verb}`, key: 'group' };
  if (attendee.actor_type === ActorType.CIRCLES) return { id: `circle_${verb}`, key: 'circle' };
  if (attendee.actor_type === ActorType.PHONES) return { id: `phone_${verb}`, key: 'phone' };
  if (attendee.actor_type === ActorType.FEDERATED_USERS) return { id: `federated_user_${verb}`, key: 'federated_user' };
  return undefined;
}

/** The system message of a participant type change (docs/reference/chat.md#system-messages moderator_*, guest_moderator_*). */
function typeChangeMessage(attendee: AttendeeRow, from: number, to: number): string | undefined {
  const guest = attendee.actor_type === ActorType.GUESTS || attendee.actor_type === ActorType.EMAILS;
  if (to === ParticipantType.MODERATOR && from !== ParticipantType.MODERATOR) return 'moderator_promoted';
  if (from === ParticipantType.MODERATOR && to !== ParticipantType.MODERATOR) return 'moderator_demoted';
  if (guest && to === ParticipantType.GUEST_MODERATOR) return 'guest_moderator_promoted';
  if (guest && from === ParticipantType.GUEST_MODERATOR) return 'guest_moderator_demoted';
  return undefined;
}

const chatActorOfCall = (a: CallActor | null): ChatActor => (a ? { type: a.actorType, id: a.actorId, displayName: a.displayName } : { ...SYSTEM_ACTOR });

/**
 * The one-to-one partner of `caller`, whom the caller's `call_tried` names (docs/reference/chat.md#system-messages call_missed,
 * Talk reads the pair from the room name): the other user attendee, or for a former
 * one-to-one whose partner is gone, the other id of the stored pair name.
 */
function otherParty(room: RoomRow, attendees: AttendeeRow[], caller: string): Record<string, unknown> | undefined {
  const other = attendees.find((a) => a.actor_type === ActorType.USERS && a.actor_id !== caller);
  if (other) return attendeeObject(other.actor_type, other.actor_id, other.display_name);
  let pair: unknown;
  try {
    pair = JSON.parse(room.name);
  } catch {
    return undefined;
  }
  const id = Array.isArray(pair) ? pair.find((x) => typeof x === 'string' && x !== caller) : undefined;
  return typeof id === 'string' ? attendeeObject(ActorType.USERS, id, id) : undefined;
}

export class ChatSystemMessages {
  constructor(
    private readonly chat: ChatService,
    private readonly repos: Repositories,
  ) {}

  async roomChanged(e: { trx: Kysely<Database>; room: RoomRow; actor: ChatActor; change: RoomChange }): Promise<void> {
    const msg = roomChangeMessage(e.room, e.change);
    // The change already moved lastActivity in this transaction: record it at that same second.
    const now = nowSeconds();
    const at = Math.abs(now - e.room.last_activity) <= 5 ? e.room.last_activity : now;
    if (msg) await this.chat.postSystemMessage(e.trx, e.room, e.actor, msg.id, msg.params ?? {}, { at });
  }

  /**
   * Added/removed attendees; none in one-to-ones, nothing added to the changelog (docs/reference/chat.md#system-messages user_added).
   * `userDeleted`: users removed with their account are named as Talk renders a user who no
   * longer exists (docs/reference/chat.md#rich-objects), since Talk removes them after the account is gone.
   */
  async membershipChanged(
    e: { trx: Kysely<Database>; room: RoomRow; actor: ChatActor; attendees: AttendeeRow[] },
    added: boolean,
    userDeleted = false,
  ): Promise<void> {
    if (isOneToOneKind(e.room.type) || e.room.type === RoomType.CHANGELOG) return;
    const messages = e.attendees.flatMap((attendee) => {
      const msg = membershipMessage(attendee, added);
      if (!msg) return [];
      const named =
        userDeleted && attendee.actor_type === ActorType.USERS
          ? deletedUserObject()
          : attendeeObject(attendee.actor_type, attendee.actor_id, attendee.display_name);
      return [{ systemMessage: msg.id, parameters: { [msg.key]: named } }];
    });
    // A group or team added with hundreds of members: their messages in one insert, not one post each.
    await this.chat.postSystemMessages(e.trx, e.room, e.actor, messages);
  }

  /** Lobbies lifted by their timer (docs/reference/chat.md#system-messages lobby_timer_reached, by guests/system). */
  async lobbyTimerReached(e: { trx: Kysely<Database>; rooms: RoomRow[]; now: number }): Promise<void> {
    await this.chat.postSystemMessagesToLocked(e.trx, e.rooms, { ...SYSTEM_ACTOR }, 'lobby_timer_reached', e.now);
  }

  async typeChanged(e: { trx: Kysely<Database>; room: RoomRow; actor: ChatActor; attendee: AttendeeRow; from: number; to: number }): Promise<void> {
    const id = typeChangeMessage(e.attendee, e.from, e.to);
    if (!id) return;
    const user = attendeeObject(e.attendee.actor_type, e.attendee.actor_id, e.attendee.display_name);
    const params: Record<string, unknown> = { user };
    if (id.startsWith('guest_')) Object.assign(params, { type: e.attendee.actor_type, id: e.attendee.actor_id });
    await this.chat.postSystemMessage(e.trx, e.room, e.actor, id, params);
  }

  // ---- calls (docs/reference/chat.md#system-messages call_*; docs/reference/calls.md#leaving-and-ending) ----

  /** `call_started` by the session that started the call (stored silent for a silent call). */
  async callStarted(e: CallSessionChange & { silent: boolean; trx: Kysely<Database> }): Promise<void> {
    await this.chat.postSystemMessage(e.trx, e.room, chatActorOfCall(e.actor), 'call_started', {}, { silent: e.silent });
  }

  /** `call_joined` for a session entering a running call (the starter got `call_started`). */
  async callJoined(e: CallSessionChange & { started: boolean; silent: boolean; trx: Kysely<Database> }): Promise<void> {
    if (e.started) return;
    await this.chat.postSystemMessage(e.trx, e.room, chatActorOfCall(e.actor), 'call_joined', {}, { silent: e.silent });
  }

  /** `call_left` (not for sessions taken out by an end for everyone: those emit no `call.left`). */
  async callLeft(e: CallSessionChange & { trx: Kysely<Database> }): Promise<void> {
    await this.chat.postSystemMessage(e.trx, e.room, chatActorOfCall(e.actor), 'call_left');
  }

  /**
   * `call_ended`, `call_ended_everyone` or, in one-to-ones where only one user joined,
   * `call_missed`. Parameters as Talk stores them (`users` who joined since the call started,
   * `cloudIds`, `guests` count, `duration`) plus the rendered `user1…` objects.
   */
  async callEnded(e: CallEnded & { trx: Kysely<Database> }): Promise<void> {
    if (e.reason === 'disconnected') return;
    const since = e.callStartTime;
    const attendees = await this.repos.withTransaction(e.trx).attendees.forRoom(e.room.id);
    const joined = attendees.filter((a) => since > 0 && a.last_joined_call >= since);
    const actor = chatActorOfCall(e.actor);
    // Named in id order, as Talk's parseCall sorts the user ids before naming them.
    let users = joined.filter((a) => a.actor_type === ActorType.USERS).sort((a, b) => (a.actor_id < b.actor_id ? -1 : a.actor_id > b.actor_id ? 1 : 0));
    // Ended for everyone: the moderator is the sentence's subject, not one of the others (docs/reference/chat.md#system-messages);
    // a guest moderator is not counted among the guests either.
    if (e.everyone && e.actor) users = users.filter((a) => !(a.actor_type === e.actor!.actorType && a.actor_id === e.actor!.actorId));
    const guestActor = e.everyone && e.actor && (e.actor.actorType === ActorType.GUESTS || e.actor.actorType === ActorType.EMAILS) ? 1 : 0;
    const guests = Math.max(0, joined.filter((a) => a.actor_type === ActorType.GUESTS || a.actor_type === ActorType.EMAILS).length - guestActor);
    const cloudIds = joined.filter((a) => a.actor_type === ActorType.FEDERATED_USERS).map((a) => a.actor_id);
    const params: Record<string, unknown> = { users: users.map((a) => a.actor_id), cloudIds, guests, duration: e.duration };
    users.slice(0, 5).forEach((a, i) => (params[`user${i + 1}`] = attendeeObject(a.actor_type, a.actor_id, a.display_name)));
    let id = e.everyone ? 'call_ended_everyone' : 'call_ended';
    // A one-to-one call only one user joined is "missed" (docs/reference/chat.md#system-messages call_missed).
    if (!e.everyone && isOneToOneKind(e.room.type) && users.length === 1 && guests === 0) {
      id = 'call_missed';
      const other = otherParty(e.room, attendees, users[0]!.actor_id);
      if (other) params.other = other;
    }
    await this.chat.postSystemMessage(e.trx, e.room, actor, id, params);
  }
}
