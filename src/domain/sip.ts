/**
 * Pure SIP rules (docs/reference/sip.md#dial-in-pins, docs/reference/conversations.md#the-conversation-record canEnableSIP, docs/reference/sip.md#sip-settings; docs/reference/constants.md#conversation-states). "SIP configured" means the bridge's shared secret and the dial-in info are both set;
 * "dial-out enabled" additionally needs app config `sip_dialout` != `no`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AppConfigSnapshot } from '../app-config/snapshot.js';
import { ActorType, SipState } from './constants.js';
import { isSipCompatibleToken } from './tokens.js';
import { isGroupOrPublic } from './room-settings.js';

/** "SIP configured": shared secret and dial-in info both non-empty. */
export function sipConfigured(cfg: AppConfigSnapshot): boolean {
  return cfg.get('sip_bridge_shared_secret') !== '' && cfg.get('sip_bridge_dialin_info') !== '';
}

/** The room's attendees dial in with a PIN: SIP configured and switched on for the room. */
export function roomUsesPins(sipIsConfigured: boolean, room: { sip_enabled: number }): boolean {
  return sipIsConfigured && room.sip_enabled !== SipState.DISABLED;
}

/** Actors that get a dial-in PIN: users and e-mail guests (docs/reference/sip.md#dial-in-pins). */
export function actorGetsPin(actorType: string): boolean {
  return actorType === ActorType.USERS || actorType === ActorType.EMAILS;
}

/** An attendee that should have a PIN in this room and has none yet (generated lazily on read). */
export function needsAttendeePin(sipIsConfigured: boolean, room: { sip_enabled: number }, a: { actor_type: string; pin: string | null }): boolean {
  return roomUsesPins(sipIsConfigured, room) && a.pin === null && actorGetsPin(a.actor_type);
}

/** SIP dial-out works: SIP configured and `sip_dialout` is not `no`. */
export function dialOutEnabled(cfg: AppConfigSnapshot): boolean {
  return sipConfigured(cfg) && cfg.get('sip_dialout') !== 'no';
}

/** Shortest `Talk-SIPBridge-Random` accepted (docs/reference/sip.md#bridge-signature). */
export const SIP_BRIDGE_RANDOM_MIN = 32;

/** Lower-case hex HMAC-SHA256 over random + data with the shared secret (docs/reference/sip.md#bridge-signature). */
export function sipBridgeChecksum(secret: string, random: string, data: string): string {
  return createHmac('sha256', secret)
    .update(random + data)
    .digest('hex');
}

/**
 * Whether a SIP-bridge signature is valid for `data` (the conversation token). Empty secret,
 * short random or empty checksum are invalid; the comparison runs in constant time.
 */
export function sipBridgeSignatureValid(secret: string, random: string, checksum: string, data: string): boolean {
  if (secret === '' || Buffer.byteLength(random) < SIP_BRIDGE_RANDOM_MIN || checksum === '') return false;
  const expected = Buffer.from(sipBridgeChecksum(secret, random, data));
  const given = Buffer.from(checksum.toLowerCase());
  // timingSafeEqual needs equal lengths; comparing against itself keeps the time independent of the input.
  if (given.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(given, expected);
}

/** E.164: "+", a non-zero country digit, at most 15 digits in all. */
export function isE164(number: string): boolean {
  return /^\+[1-9]\d{1,14}$/.test(number);
}

/**
 * A user's phone number as stored (Talk's talk_phone_numbers): spaces, dashes, dots and
 * parentheses dropped, then an optional leading "+" and 2 to 15 digits; stored without the "+"
 * (sip_bridge_dialout_prefix supplies it). Undefined when malformed.
 */
export function normalizeUserPhoneNumber(raw: string): string | undefined {
  const compact = raw.replace(/[\s\-().]/g, '').replace(/^\+/, '');
  return /^\d{2,15}$/.test(compact) ? compact : undefined;
}

/** Display name of a phone attendee: the number without its last 4 digits, then "…" (docs/reference/constants.md#generated-identifiers). */
export function phoneDisplayName(number: string): string {
  return number.slice(0, Math.max(0, number.length - 4)) + '…';
}

/** Actor id of a phone attendee: sha1(number + '#' + now) (docs/reference/constants.md#generated-identifiers). */
export function phoneActorId(number: string, now: number): string {
  return createHash('sha1').update(`${number}#${now}`).digest('hex');
}

/**
 * The caller number a dial-out shows (Talk's sipDialOut): none when `sip_bridge_dialout_anonymous`;
 * else `sip_bridge_dialout_prefix` + the calling user's first phone number when both exist; else
 * `sip_bridge_dialout_number` ('' = let the bridge decide).
 */
export function dialOutCallerNumber(cfg: AppConfigSnapshot, userPhoneNumber?: string): string | false {
  if (cfg.bool('sip_bridge_dialout_anonymous')) return false;
  const prefix = cfg.get('sip_bridge_dialout_prefix');
  if (prefix !== '' && userPhoneNumber) return prefix + userPhoneNumber;
  return cfg.get('sip_bridge_dialout_number');
}

/** How long a started dial-out waits for the SIP bridge to take it (seconds). */
export const DIALOUT_REQUEST_TTL = 60;

/**
 * What the bridge reads for a started dial-out: the message Talk sends its signaling server
 * (`dialout` with the number and options attendeeId, actorType, actorId; `anonymous: true` to
 * hide the caller, or `caller` with the number to show; neither lets the bridge decide).
 */
export function dialOutRequest(
  attendee: { id: number; actor_type: string; actor_id: string; phone_number: string | null },
  caller: string | false,
): { number: string; options: Record<string, string | number | boolean> } {
  const options: Record<string, string | number | boolean> = { attendeeId: attendee.id, actorType: attendee.actor_type, actorId: attendee.actor_id };
  if (caller === false) options.anonymous = true;
  else if (caller !== '') options.caller = caller;
  return { number: attendee.phone_number ?? '', options };
}

export interface DialOutOptions {
  actorId?: string;
  actorType?: string;
  attendeeId?: number;
}

/**
 * The bridge's `options` (verify-dialout, rejected-dialout): an object, or the JSON text of one
 * (older bridges). Anything else reads as no options.
 */
export function parseDialOutOptions(raw: unknown): DialOutOptions {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const o = value as Record<string, unknown>;
  const id =
    typeof o.attendeeId === 'number' ? o.attendeeId : typeof o.attendeeId === 'string' && /^\d{1,15}$/.test(o.attendeeId) ? Number(o.attendeeId) : undefined;
  return {
    actorId: typeof o.actorId === 'string' ? o.actorId : undefined,
    actorType: typeof o.actorType === 'string' ? o.actorType : undefined,
    attendeeId: id !== undefined && Number.isSafeInteger(id) && id > 0 ? id : undefined,
  };
}

/**
 * `phoneNumber` / `callId` of a `phones` participant in a participant list (contract
 * "Participant": only for moderators allowed to configure SIP; the call id only when they may
 * dial out). Everyone else sees ''.
 */
export function phoneFieldsFor(
  attendee: { phone_number: string | null; call_id: string | null },
  viewer: { sipConfigured: boolean; loggedInModerator: boolean; inSipBridgeGroups: boolean; dialOutEnabled: boolean },
): { phoneNumber: string; callId: string } {
  if (!viewer.sipConfigured || !viewer.loggedInModerator || !viewer.inSipBridgeGroups) return { phoneNumber: '', callId: '' };
  return { phoneNumber: attendee.phone_number ?? '', callId: viewer.dialOutEnabled ? (attendee.call_id ?? '') : '' };
}

/**
 * Why `PUT /room/{token}/webinar/sip` cannot set `state` (docs/reference/conversations.md#endpoint-rules, in Talk's order),
 * or null when it can. Called only when the state actually changes.
 */
export function sipStateProblem(room: { type: number; object_type: string; token: string }, state: number): string | null {
  if (room.object_type === 'room') return 'breakout-room';
  if (!isGroupOrPublic(room.type)) return 'type';
  if (!(Object.values(SipState) as number[]).includes(state)) return 'value';
  if (!isSipCompatibleToken(room.token)) return 'token';
  return null;
}
