/**
 * Breakout rooms (feature `breakout-rooms-v1`; docs/reference/conversations.md#breakout-rooms, docs/reference/conversations.md#endpoint-rules; the
 * contract's "Get breakout rooms" and its state table): configure, remove, start, stop, apply an
 * attendee map, request and withdraw assistance, switch rooms in free mode, and the list.
 *
 * Every check runs before anything is written, so a 400 changes nothing. Children are ordinary
 * conversations (objectType `room`, objectId = parent token) created through RoomsService's
 * repositories; membership changes reuse the participants repository.
 */
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import {
  BREAKOUT_OBJECT_TYPE,
  requireBreakoutListable,
  breakoutRoomName,
  distributeAutomatically,
  isConfigurableMode,
  isValidRoomAmount,
  parseAttendeeMap,
  seesAllBreakoutRooms,
} from '../../domain/breakout.js';
import { ActorType, BreakoutMode, BreakoutStatus, LobbyState, RoomType } from '../../domain/constants.js';
import { badRequest } from '../../domain/errors.js';
import { may } from '../../domain/abilities.js';
import type { ConversationView } from '../../presenters/conversation.js';
import type { RequestContext } from '../platform/request-context.js';
import { RoomsService, type CallerRoom } from './rooms.js';
import { chatActorOf } from '../chat/chat.js';
import { nowSeconds } from '../../domain/time.js';
import type { Repositories } from '../../db/repositories/index.js';

export interface ConfigureInput {
  mode: number;
  amount: number;
  attendeeMap: string;
}

export class BreakoutRoomsService {
  constructor(
    private readonly rooms: RoomsService,
    private readonly repos: Pick<Repositories, 'attendees' | 'rooms'>,
  ) {}

  private children(parent: RoomRow): Promise<RoomRow[]> {
    return this.repos.rooms.childrenOf(parent.token);
  }

  /**
   * The caller's views of the parent and its children, for the management answers: Talk lists
   * the children the caller is in, then the parent (one query for the caller's rows).
   */
  async callerViews(ctx: RequestContext, parent: RoomRow): Promise<ConversationView[]> {
    const all = [...(await this.children(parent)), parent];
    const fresh = await this.repos.rooms.findByIds(all.map((r) => r.id));
    const mine =
      ctx.userId === undefined
        ? []
        : await this.repos.attendees.actorsInRooms(
            fresh.map((r) => r.id),
            ActorType.USERS,
            [ctx.userId],
          );
    const byRoom = new Map(mine.map((a) => [a.room_id, a]));
    const ordered = [...fresh.filter((r) => r.id !== parent.id), ...fresh.filter((r) => r.id === parent.id)];
    return ordered.filter((r) => byRoom.has(r.id)).map((room) => ({ room, attendee: byRoom.get(room.id) }));
  }

  // ---- configure / remove (logged-in moderators of the parent) ----

  /**
   * POST breakout-rooms/{token}: creates "Room 1".."Room N" with the parent's type, behind the
   * lobby until started; parent moderators join every child; `users` attendees are distributed
   * (automatic: shuffled evenly; manual: by the map; free: nobody). 400 `config`, `room`,
   * `mode`, `amount`, `attendeeMap`.
   */
  async configure(ctx: RequestContext, token: unknown, input: ConfigureInput): Promise<RoomRow> {
    const { room: found, attendee: caller } = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    const cfg = await ctx.config();
    if (!cfg.bool('breakout_rooms')) throw badRequest('config', 'Breakout rooms are disabled');
    requireConfigurable(found);
    if (!isConfigurableMode(input.mode)) throw badRequest('mode', 'mode must be 1 (automatic), 2 (manual) or 3 (free)');
    if (!isValidRoomAmount(input.amount)) throw badRequest('amount', 'amount must be between 1 and 20');
    const map = input.mode === BreakoutMode.MANUAL ? parseAttendeeMap(input.attendeeMap, input.amount) : new Map<number, number>();
    if (!map) throw badRequest('attendeeMap', 'attendeeMap must be a JSON object of attendee id to room index (0 to amount-1)');

    const now = nowSeconds();
    let orphans: RoomRow[] = [];
    // Under the parent's row lock, re-read: of simultaneous configurations one creates rooms and
    // the others see it configured (400 `room`); a parent deleted meanwhile is 404 `room` and
    // gets no children.
    const parent = await this.rooms.lockedTransaction(found.id, async (repos, trx) => {
      const parent = (await repos.rooms.findById(found.id))!;
      requireConfigurable(parent);
      const people = (await repos.attendees.forRoom(parent.id)).filter((a) => a.actor_type === ActorType.USERS);
      const moderators = people.filter((a) => !may.joinOneBreakoutRoom(a));
      const others = people.filter((a) => may.joinOneBreakoutRoom(a));
      let groups: AttendeeRow[][] = Array.from({ length: input.amount }, () => []);
      if (input.mode === BreakoutMode.AUTOMATIC) groups = distributeAutomatically(others, input.amount);
      else if (input.mode === BreakoutMode.MANUAL) for (const a of others) if (map.has(a.id)) groups[map.get(a.id)!].push(a);

      // Safety: children left over from an earlier configuration go first (Talk does the same).
      orphans = await repos.rooms.childrenOf(parent.token);
      await RoomsService.purgeRows(repos, orphans);
      const actor = chatActorOf(ctx, caller);
      for (let i = 0; i < input.amount; i++) {
        const id = await repos.rooms.insert({
          ...this.rooms.roomDefaults(cfg, now),
          token: await this.rooms.newToken(cfg, repos),
          name: breakoutRoomName(i),
          type: parent.type,
          object_type: BREAKOUT_OBJECT_TYPE,
          object_id: parent.token,
          lobby_state: LobbyState.NON_MODERATORS,
        });
        // Talk creates each room with createConversation and fills it with addUsers: its chat
        // starts with `conversation_created`, which everyone added has read, then `user_added`
        // for everyone but the caller (docs/reference/chat.md#system-messages).
        const child = (await repos.rooms.findById(id))!;
        await this.rooms.announceChange(trx, child, actor, { kind: 'created' });
        // The moderators first, as Talk adds them.
        const added = await this.rooms.addAttendees(id, [...moderators, ...groups[i]].map(copyOf), repos);
        await this.rooms.announceAttendeesAddedIn(
          trx,
          child,
          actor,
          added.filter((a) => !(a.actor_type === ActorType.USERS && a.actor_id === ctx.userId)),
        );
      }
      const patch = { breakout_room_mode: input.mode, breakout_room_status: BreakoutStatus.STOPPED };
      await repos.rooms.update(parent.id, patch);
      return { ...parent, ...patch };
    });
    await this.rooms.announceDeleted(orphans);
    return parent;
  }

  /**
   * DELETE breakout-rooms/{token}: the children go, the parent is "not configured" again, in one
   * transaction under the parent's lock (a configuration at the same moment comes before or after).
   */
  async remove(ctx: RequestContext, token: unknown): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    const patch = { breakout_room_mode: BreakoutMode.NOT_CONFIGURED, breakout_room_status: BreakoutStatus.STOPPED };
    const removed = await this.rooms.lockedTransaction(found.room.id, async (repos) => {
      const gone = await RoomsService.purgeLocked(repos, await repos.rooms.childrenOf(found.room.token));
      await repos.rooms.update(found.room.id, patch);
      return gone;
    });
    await this.rooms.announceDeleted(removed);
    return { ...found, room: { ...found.room, ...patch } };
  }

  // ---- start / stop ----

  /**
   * POST (start) or DELETE (stop) breakout-rooms/{token}/rooms: lobbies off/on, status 1/0. Under
   * the parent's row lock, so the children switched are the ones configured at that moment.
   */
  async setStarted(ctx: RequestContext, token: unknown, started: boolean): Promise<RoomRow> {
    const { room: found, attendee: caller } = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    requireConfigured(found);
    const now = nowSeconds();
    const { parent, children } = await this.rooms.lockedTransaction(found.id, async (repos, trx) => {
      const parent = (await repos.rooms.findById(found.id))!;
      requireConfigured(parent);
      const children = await repos.rooms.childrenOf(parent.token);
      for (const c of children) {
        const patch = started
          ? { lobby_state: LobbyState.NONE, lobby_timer: 0 }
          : {
              lobby_state: LobbyState.NON_MODERATORS,
              lobby_timer: 0,
              // Stopping also clears pending requests for assistance.
              ...(c.breakout_room_status === BreakoutStatus.ASSISTANCE_REQUESTED ? { breakout_room_status: BreakoutStatus.STOPPED } : {}),
            };
        await repos.rooms.update(c.id, patch);
        // Talk starts and stops the rooms through their lobbies: each records the change as
        // `breakout_rooms_started` / `_stopped` (docs/reference/chat.md#system-messages), when its lobby moved.
        if (c.lobby_state !== patch.lobby_state) {
          await this.rooms.announceChange(trx, { ...c, ...patch, last_activity: Math.max(now, c.last_activity) }, chatActorOf(ctx, caller), {
            kind: 'lobby',
            state: patch.lobby_state,
          });
        }
      }
      const status = { breakout_room_status: started ? BreakoutStatus.STARTED : BreakoutStatus.STOPPED };
      await repos.rooms.update(parent.id, status);
      // A lobby change is activity (docs/reference/conversations.md#timers-and-jobs).
      await repos.rooms.touch(
        children.map((c) => c.id),
        now,
      );
      return { parent: { ...parent, ...status }, children };
    });
    await this.rooms.announceBreakoutSwitched(parent, children, started);
    return parent;
  }

  // ---- attendee map ----

  /**
   * POST breakout-rooms/{token}/attendees: moves the mapped `users` attendees of the parent into
   * their rooms (out of any other child), under the parent's row lock (as switching rooms).
   * 400 `config`, `mode`, `attendeeMap`, `moderator`.
   */
  async applyAttendeeMap(ctx: RequestContext, token: unknown, rawMap: string): Promise<RoomRow> {
    const { room: found, attendee: caller } = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    const cfg = await ctx.config();
    if (!cfg.bool('breakout_rooms')) throw badRequest('config', 'Breakout rooms are disabled');
    requireConfigured(found);
    return this.rooms.lockedTransaction(found.id, async (repos, trx) => {
      const parent = (await repos.rooms.findById(found.id))!;
      requireConfigured(parent);
      const children = await repos.rooms.childrenOf(parent.token);
      const map = parseAttendeeMap(rawMap, children.length);
      if (!map) throw badRequest('attendeeMap', 'attendeeMap must be a JSON object of attendee id to room index (0 to rooms-1)');
      const moving = (await repos.attendees.forRoom(parent.id)).filter((a) => map.has(a.id) && a.actor_type === ActorType.USERS);
      if (moving.length === 0) return parent;
      const ids = children.map((c) => c.id);
      const inChildren = await repos.attendees.actorsInRooms(
        ids,
        ActorType.USERS,
        moving.map((a) => a.actor_id),
      );
      if (inChildren.some((a) => !may.joinOneBreakoutRoom(a))) throw badRequest('moderator', 'Moderators cannot be moved between breakout rooms');
      // As Talk's applyAttendeeMap: out of the other rooms (user_removed there), into the mapped
      // one unless already in it (user_added there), in each room's chat (docs/reference/chat.md#system-messages).
      const targetOf = new Map(moving.map((a) => [a.actor_id, children[map.get(a.id)!].id]));
      const leaving = inChildren.filter((a) => a.room_id !== targetOf.get(a.actor_id));
      const staying = new Set(inChildren.filter((a) => a.room_id === targetOf.get(a.actor_id)).map((a) => a.actor_id));
      const arriving = moving.filter((a) => !staying.has(a.actor_id));
      await repos.participants.deleteAttendeesInTransaction(leaving.map((a) => a.id));
      const now = nowSeconds();
      await repos.attendees.insertIgnoringDuplicates(arriving.map((a) => this.rooms.attendeeRow(targetOf.get(a.actor_id)!, now, copyOf(a))));
      const arrived = (
        await repos.attendees.actorsInRooms(
          ids,
          ActorType.USERS,
          arriving.map((a) => a.actor_id),
        )
      ).filter((a) => a.room_id === targetOf.get(a.actor_id));
      const actor = chatActorOf(ctx, caller);
      for (const child of children) {
        await this.rooms.announceAttendeesRemovedIn(
          trx,
          child,
          actor,
          leaving.filter((a) => a.room_id === child.id),
        );
        await this.rooms.announceAttendeesAddedIn(
          trx,
          child,
          actor,
          arrived.filter((a) => a.room_id === child.id),
        );
      }
      return parent;
    });
  }

  // ---- assistance (participants of a child) ----

  /**
   * POST (request) / DELETE (withdraw) breakout-rooms/{token}/request-assistance on a child:
   * status 2 / 0. 400 `room` when it is not a breakout room or its lobby is still on.
   */
  async setAssistance(ctx: RequestContext, token: unknown, requested: boolean): Promise<CallerRoom> {
    const found = await this.rooms.requireParticipant(ctx, token);
    if (!ctx.user) throw badRequest('room', 'Only logged-in participants can ask for assistance');
    const room = found.room;
    if (room.object_type !== BREAKOUT_OBJECT_TYPE) throw badRequest('room', 'This is not a breakout room');
    if (room.lobby_state !== LobbyState.NONE) throw badRequest('room', 'The breakout rooms are not started');
    const status = requested ? BreakoutStatus.ASSISTANCE_REQUESTED : BreakoutStatus.STOPPED;
    await this.repos.rooms.update(room.id, { breakout_room_status: status });
    return { ...found, room: { ...room, breakout_room_status: status } };
  }

  // ---- switch (free mode) ----

  /**
   * POST breakout-rooms/{token}/switch: in free mode, once started, a non-moderator moves to the
   * child `target`. 400 `mode`, `status`, `moderator`, `target`. Returns the caller's view of it.
   */
  async switchRoom(ctx: RequestContext, token: unknown, target: string): Promise<CallerRoom> {
    const { room: found, attendee } = await this.rooms.requireParticipant(ctx, token);
    requireSwitchable(found);
    if (!may.joinOneBreakoutRoom(attendee)) throw badRequest('moderator', 'Moderators are in every breakout room already');
    // Under the parent's row lock, re-read: of two switches at once (two devices, a double
    // click) the second sees the first's move, so the caller ends in one room; a removal of the
    // breakout rooms at the same moment comes before (400 `mode`) or after (nothing left behind).
    return this.rooms.lockedTransaction(found.id, async (repos) => {
      const parent = (await repos.rooms.findById(found.id))!;
      requireSwitchable(parent);
      const children = await repos.rooms.childrenOf(parent.token);
      const dest = children.find((c) => c.token === target);
      if (!dest) throw badRequest('target', 'target is not a breakout room of this conversation');
      const current = await repos.attendees.actorsInRooms(
        children.map((c) => c.id),
        attendee.actor_type,
        [attendee.actor_id],
      );
      await repos.participants.deleteAttendeesInTransaction(current.filter((a) => a.room_id !== dest.id).map((a) => a.id));
      const [mine] = await this.rooms.addAttendees(dest.id, [copyOf(attendee)], repos);
      return { room: dest, attendee: mine };
    });
  }

  // ---- list (GET api/v4/room/{token}/breakout-rooms) ----

  /**
   * The children the caller may see: all for moderators and in free mode, else the ones they
   * are in. Rooms the caller is not in show the limited record with the room name.
   */
  async list(ctx: RequestContext, token: unknown): Promise<ConversationView[]> {
    const { room: parent, attendee } = await this.rooms.requireParticipant(ctx, token);
    const rule = { mode: parent.breakout_room_mode, status: parent.breakout_room_status, participantType: attendee.participant_type };
    requireBreakoutListable(rule);
    const children = await this.children(parent);
    const mine = await this.repos.attendees.actorsInRooms(
      children.map((c) => c.id),
      attendee.actor_type,
      [attendee.actor_id],
    );
    const byRoom = new Map(mine.map((a) => [a.room_id, a]));
    const visible = seesAllBreakoutRooms(rule) ? children : children.filter((c) => byRoom.has(c.id));
    return visible.map((room) => (byRoom.has(room.id) ? { room, attendee: byRoom.get(room.id) } : { room, forceName: true }));
  }
}

/** The spec of an attendee copied into a child with the same actor and participant type. */
function copyOf(a: AttendeeRow) {
  return { actorType: a.actor_type, actorId: a.actor_id, displayName: a.display_name, participantType: a.participant_type, readPrivacy: a.read_privacy };
}

/** 400 `room` unless `parent` can be given breakout rooms now (docs/reference/conversations.md#breakout-rooms). */
function requireConfigurable(parent: RoomRow): void {
  if (parent.breakout_room_mode !== BreakoutMode.NOT_CONFIGURED) throw badRequest('room', 'Breakout rooms are already configured');
  if (parent.type !== RoomType.GROUP) throw badRequest('room', 'Only group conversations can have breakout rooms');
  if (parent.object_type === BREAKOUT_OBJECT_TYPE) throw badRequest('room', 'Breakout rooms cannot be nested');
}

/** 400 `mode` / `status` unless participants may switch between `parent`'s breakout rooms now. */
function requireSwitchable(parent: RoomRow): void {
  if (parent.breakout_room_mode !== BreakoutMode.FREE) throw badRequest('mode', 'Switching rooms needs free selection mode');
  if (parent.breakout_room_status !== BreakoutStatus.STARTED) throw badRequest('status', 'The breakout rooms are not started');
}

/** 400 `mode` when `parent` has no breakout rooms configured. */
function requireConfigured(parent: RoomRow): void {
  if (parent.breakout_room_mode === BreakoutMode.NOT_CONFIGURED) throw badRequest('mode', 'The conversation has no breakout rooms configured');
}
