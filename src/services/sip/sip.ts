/**
 * SIP in conversations (contract "Settings"/"Participants" SIP parts; docs/reference/conversations.md#endpoint-rules
 * "webinar/sip", docs/reference/sip.md#bridge-endpoints "SIP bridge endpoints"): enabling dial-in per conversation, the four
 * endpoints the SIP bridge calls, and phone attendees for dial-out.
 *
 * Conversation lookup comes from RoomsService, the record and PIN generation from ConversationViewService;
 * the bridge's signature check from SipBridgeService.
 */
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { ActorType, ParticipantType, StartCalls } from '../../domain/constants.js';
import { badRequest, forbidden, notFound, notImplemented, preconditionFailed } from '../../domain/errors.js';
import { randomHex } from '../../domain/passwords.js';
import { permissionsIn, serverDefaultPermissions } from '../../domain/permissions.js';
import { may } from '../../domain/abilities.js';
import {
  DIALOUT_REQUEST_TTL,
  dialOutCallerNumber,
  dialOutEnabled,
  dialOutRequest,
  isE164,
  parseDialOutOptions,
  phoneActorId,
  phoneDisplayName,
  sipConfigured,
  sipStateProblem,
} from '../../domain/sip.js';
import { isWellFormedToken } from '../../domain/tokens.js';
import type { ConversationRecord } from '../../presenters/conversation.js';
import type { PhoneNumbersService } from './phone-numbers.js';
import type { RequestContext } from '../platform/request-context.js';
import { type CallerRoom, type RoomsService } from '../conversations/rooms.js';
import type { SipBridgeService } from './sip-bridge.js';
import { nowSeconds } from '../../domain/time.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { ConversationViewService } from '../conversations/conversation-view.js';
import { chatActorOf } from '../chat/chat.js';

/** What the signature of the pending dial-out list covers instead of a conversation token. */
export const DIALOUT_LIST_SIGNED_DATA = 'dialout';

/** One started dial-out as the bridge reads it. */
export interface PendingDialOut {
  token: string;
  callId: string;
  number: string;
  options: Record<string, unknown>;
}

/** PINs as the deprecated route accepts them (`\d{7,32}`). */
const PIN_PATTERN = /^\d{7,32}$/;

export class SipService {
  constructor(
    private readonly rooms: RoomsService,
    private readonly repos: Pick<Repositories, 'attendees' | 'rooms'>,
    private readonly conversationView: ConversationViewService,
    private readonly bridge: SipBridgeService,
    private readonly phoneNumbers: PhoneNumbersService,
  ) {}

  // ---- PUT /room/{token}/webinar/sip ----

  /**
   * Sets `sipEnabled` (0 off, 1 with PIN, 2 without PIN). Order as docs/reference/conversations.md#endpoint-rules:
   * 404 room, 403 moderator, 403 `sip_bridge_groups`, 412 SIP not configured, unchanged → no-op,
   * then 400 breakout-room / type / value / token.
   */
  async setConversationSip(ctx: RequestContext, token: string, state: number): Promise<CallerRoom> {
    const caller = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    const cfg = await ctx.config();
    if (!(await ctx.inGroupList(cfg.list('sip_bridge_groups')))) throw forbidden('sip_bridge_groups', 'You are not allowed to enable SIP');
    if (!sipConfigured(cfg)) throw preconditionFailed('sip');
    if (caller.room.sip_enabled === state) return caller;
    const problem = sipStateProblem(caller.room, state);
    if (problem) throw badRequest(problem);
    const now = nowSeconds();
    await this.repos.rooms.update(caller.room.id, { sip_enabled: state });
    await this.rooms.touch([caller.room.id], now);
    return { ...caller, room: { ...caller.room, sip_enabled: state, last_activity: now } };
  }

  // ---- the SIP bridge ----

  /** The conversation a validated bridge request names (any type, no membership needed). */
  private async bridgeRoom(ctx: RequestContext, token: string): Promise<RoomRow> {
    await this.bridge.require(ctx, token);
    const room = isWellFormedToken(token) ? await this.repos.rooms.findByToken(token) : undefined;
    if (!room) throw notFound('room');
    return room;
  }

  /** Whether the request carries the bridge's signature headers: its GET /room/{token} answer is the bridge's view (bridgeRecord). */
  isBridgeRequest(ctx: RequestContext): boolean {
    return this.bridge.carriesSignature(ctx);
  }

  /**
   * GET /room/{token} as the SIP bridge asks it: undefined when the request carries no bridge
   * signature; 401 when it is wrong; else the conversation (any type) in the limited view with
   * the name forced and no last message (docs/reference/participants.md).
   */
  async bridgeRecord(ctx: RequestContext, token: string): Promise<ConversationRecord | undefined> {
    if (!(await this.bridge.detect(ctx, token))) return undefined;
    const caller = await this.rooms.getRoomForCaller(ctx, token, { sipBridge: true });
    return this.conversationView.presentOne(ctx, { room: caller.room, forceName: true }, { includeLastMessage: false });
  }

  /** The record the bridge gets: the attendee's view with the room name forced, no last message. */
  private present(ctx: RequestContext, room: RoomRow, attendee: AttendeeRow): Promise<ConversationRecord> {
    return this.conversationView.presentOne(ctx, { room, attendee, forceName: true }, { includeLastMessage: false });
  }

  /** 501 unless SIP is configured (checked before the signature, as Talk does). */
  private async requireSip(ctx: RequestContext, dialOut: boolean): Promise<void> {
    const cfg = await ctx.config();
    if (!sipConfigured(cfg)) throw notImplemented('sip');
    if (dialOut && !dialOutEnabled(cfg)) throw notImplemented('dialout');
  }

  /** GET /room/{token}/pin/{pin} (deprecated): 401 signature, 404 room or PIN. */
  async participantByPin(ctx: RequestContext, token: string, pin: string): Promise<ConversationRecord> {
    const room = await this.bridgeRoom(ctx, token);
    return this.present(ctx, room, await this.attendeeByPin(room, pin));
  }

  /** POST /room/{token}/verify-dialin: 501 SIP off, 401 signature, 404 room or PIN. */
  async verifyDialIn(ctx: RequestContext, token: string, pin: string): Promise<ConversationRecord> {
    await this.requireSip(ctx, false);
    const room = await this.bridgeRoom(ctx, token);
    return this.present(ctx, room, await this.attendeeByPin(room, pin));
  }

  private async attendeeByPin(room: RoomRow, pin: string): Promise<AttendeeRow> {
    const attendee = PIN_PATTERN.test(pin) ? await this.repos.attendees.findByPin(room.id, pin) : undefined;
    if (!attendee) throw notFound('participant');
    return attendee;
  }

  /**
   * POST /room/{token}/verify-dialout: 501 SIP or dial-out off, 401 signature, 404 room, 400
   * `options` without a phones actor, 404 no such phone attendee, 400 `number` mismatch.
   */
  async verifyDialOut(ctx: RequestContext, token: string, number: string, rawOptions: unknown): Promise<ConversationRecord> {
    await this.requireSip(ctx, true);
    const room = await this.bridgeRoom(ctx, token);
    const options = parseDialOutOptions(rawOptions);
    if (!options.actorId || options.actorType !== ActorType.PHONES) throw badRequest('options', 'options must name actorType "phones" and an actorId');
    const attendee = await this.repos.attendees.find(room.id, ActorType.PHONES, options.actorId);
    if (!attendee) throw notFound('participant');
    if (attendee.phone_number !== number) throw badRequest('number', 'number does not match the attendee');
    // The bridge has taken the dial-out: it leaves the pending list (the call id stays).
    if (attendee.dialout_request !== null) {
      await this.clearDialOutRequest(attendee.id);
      attendee.dialout_request = null;
      attendee.dialout_requested_at = 0;
    }
    return this.present(ctx, room, attendee);
  }

  /**
   * DELETE /room/{token}/rejected-dialout: 501, 401, 404 room; 400 `options` without attendeeId;
   * 404 attendee missing, elsewhere or not a phone; 400 `callId` mismatch; else the call id is cleared.
   */
  async rejectedDialOut(ctx: RequestContext, token: string, callId: string, rawOptions: unknown): Promise<void> {
    await this.requireSip(ctx, true);
    const room = await this.bridgeRoom(ctx, token);
    const { attendeeId } = parseDialOutOptions(rawOptions);
    if (attendeeId === undefined) throw badRequest('options', 'options must carry the attendeeId');
    const attendee = await this.repos.attendees.findById(attendeeId);
    if (!attendee || attendee.room_id !== room.id || attendee.actor_type !== ActorType.PHONES) throw notFound('participant');
    if (callId === '' || attendee.call_id !== callId) throw badRequest('callId', 'callId does not match the dial-out');
    await this.clearDialOutRequest(attendee.id, { call_id: null });
  }

  // ---- starting a dial-out (POST /call/{token}/dialout/{attendeeId}) ----

  /**
   * Starts a dial-out to a phone attendee. Talk hands it to its signaling server; Parley has
   * none, so the request is recorded on the attendee (a new call id, and the dial-out message
   * with the caller number) where the bridge reads it (`pendingDialOuts`). Order: 404 room
   * (not a participant), 403 `permissions` without the start-call permission, 400 `in-call`
   * without a running call (or when the caller's session is not in it), 501 `dialout`
   * while dial-out is off, 404 `participant` unless the attendee is a phone of this room.
   */
  async startDialOut(ctx: RequestContext, token: string, attendeeId: number): Promise<void> {
    const { room, attendee, session } = await this.rooms.requireParticipant(ctx, token);
    const cfg = await ctx.config();
    const effective = permissionsIn(room, attendee, serverDefaultPermissions(cfg.get('default_permissions')));
    if (cfg.int('start_calls') === StartCalls.NOBODY || !may.callOthers(effective)) {
      throw forbidden('permissions', 'You are not allowed to start calls in this conversation');
    }
    // A dial-out joins a running call the caller is in (docs/reference/calls.md#the-call-api; a caller without
    // a session here is not checked, as in Talk).
    if (room.call_flag === 0 || (session !== undefined && session.in_call === 0)) throw badRequest('in-call', 'Dial-out needs a running call you are in');
    if (!dialOutEnabled(cfg)) throw notImplemented('dialout');
    const target = Number.isSafeInteger(attendeeId) && attendeeId > 0 ? await this.repos.attendees.findById(attendeeId) : undefined;
    if (!target || target.room_id !== room.id || target.actor_type !== ActorType.PHONES) throw notFound('participant');
    const userNumber = attendee.actor_type === ActorType.USERS ? await this.phoneNumbers.first(attendee.actor_id) : undefined;
    const caller = dialOutCallerNumber(cfg, userNumber);
    await this.repos.attendees.update(target.id, {
      call_id: randomHex(16),
      dialout_request: JSON.stringify(dialOutRequest(target, caller)),
      dialout_requested_at: nowSeconds(),
    });
  }

  /**
   * The bridge's list of dial-outs to place (oldest first, at most 100, each waiting at most
   * DIALOUT_REQUEST_TTL seconds): 501 while dial-out is off, 401 unless signed over
   * DIALOUT_LIST_SIGNED_DATA. A request leaves the list when the bridge verifies or rejects it.
   */
  async pendingDialOuts(ctx: RequestContext): Promise<PendingDialOut[]> {
    await this.requireSip(ctx, true);
    await this.bridge.require(ctx, DIALOUT_LIST_SIGNED_DATA);
    const rows = await this.repos.attendees.pendingDialOuts(nowSeconds() - DIALOUT_REQUEST_TTL, 100);
    return rows.map((r) => {
      const req = JSON.parse(r.dialout_request ?? '{}') as { number?: string; options?: Record<string, unknown> };
      return { token: r.token, callId: r.call_id ?? '', number: req.number ?? '', options: req.options ?? {} };
    });
  }

  private async clearDialOutRequest(attendeeId: number, patch: { call_id?: null } = {}): Promise<void> {
    await this.repos.attendees.update(attendeeId, { ...patch, dialout_request: null, dialout_requested_at: 0 });
  }

  // ---- phone participants (source=phones on add participant) ----

  /**
   * Adds a phone attendee for dial-out (docs/reference/participants.md#the-participant-record `phones`): 501 `sip` unless SIP
   * and dial-out are on and the caller is in `sip_bridge_groups`; 400 `phone` unless the number
   * is E.164. The caller must already be known as a moderator of `room`.
   */
  async addPhoneParticipant(ctx: RequestContext, room: RoomRow, number: string): Promise<AttendeeRow> {
    const cfg = await ctx.config();
    if (!dialOutEnabled(cfg) || !(await ctx.inGroupList(cfg.list('sip_bridge_groups')))) throw notImplemented('sip');
    const normalized = number.replace(/[\s\-().]/g, '');
    if (!isE164(normalized)) throw badRequest('phone', 'The phone number must be in E.164 format, e.g. +4930123456');
    const now = nowSeconds();
    const spec = {
      actorType: ActorType.PHONES,
      actorId: phoneActorId(normalized, now),
      displayName: phoneDisplayName(normalized),
      participantType: ParticipantType.USER,
      phoneNumber: normalized,
    };
    // Recorded as `phone_added` in the adding transaction (docs/reference/chat.md#system-messages).
    return this.rooms.lockedTransaction(room.id, async (repos, trx) => {
      const [row] = await this.rooms.addAttendees(room.id, [spec], repos);
      await this.rooms.announceAttendeesAddedIn(trx, room, chatActorOf(ctx), [row]);
      return row;
    });
  }
}
