/**
 * Breakout room rules (docs/reference/constants.md#breakout-rooms, docs/reference/conversations.md#breakout-rooms; Talk's BreakoutRoomService), pure:
 * limits, the attendee map, the automatic distribution and which children a participant sees.
 */
import { BreakoutMode, BreakoutStatus } from './constants.js';
import { badRequest } from './errors.js';
import { isModeratorType } from './permissions.js';

export const BREAKOUT_MIN_ROOMS = 1;
export const BREAKOUT_MAX_ROOMS = 20;
/** Parent object type of a breakout child (its object id is the parent token). */
export const BREAKOUT_OBJECT_TYPE = 'room';

/** Names of the children: "Room 1", "Room 2", ... */
export function breakoutRoomName(index: number): string {
  return `Room ${index + 1}`;
}

export function isConfigurableMode(mode: number): boolean {
  return mode === BreakoutMode.AUTOMATIC || mode === BreakoutMode.MANUAL || mode === BreakoutMode.FREE;
}

export function isValidRoomAmount(amount: number): boolean {
  return Number.isInteger(amount) && amount >= BREAKOUT_MIN_ROOMS && amount <= BREAKOUT_MAX_ROOMS;
}

/**
 * Parses `attendeeMap` (JSON object attendeeId → 0-based room index) as Talk does: '' and empty
 * lists/objects are an empty map; ids must be positive integers, indexes integers in
 * [0, rooms). Anything else is undefined (400 `attendeeMap`).
 */
export function parseAttendeeMap(raw: string, rooms: number): Map<number, number> | undefined {
  const map = new Map<number, number>();
  if (raw.trim() === '') return map;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (Array.isArray(parsed)) {
    // A JSON list has keys 0..n-1, and attendee id 0 does not exist: only the empty list passes.
    return parsed.length === 0 ? map : undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!/^[1-9]\d{0,17}$/.test(key)) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= rooms) return undefined;
    map.set(Number(key), value);
  }
  return map;
}

/**
 * Automatic mode: shuffled, then dealt round-robin so room sizes differ by at most one.
 * `random` is injectable for tests of the evenness; it must return values in [0, 1).
 */
export function distributeAutomatically<T>(items: readonly T[], rooms: number, random: () => number = Math.random): T[][] {
  const shuffled = [...items];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  const out: T[][] = Array.from({ length: rooms }, () => []);
  shuffled.forEach((item, i) => out[i % rooms].push(item));
  return out;
}

export interface BreakoutListInput {
  mode: number;
  status: number;
  participantType: number;
}

/**
 * GET breakout rooms (docs/reference/conversations.md#endpoint-rules): undefined when allowed, else the 400 reason —
 * `mode` when nothing is configured, `status` for a non-moderator before the start.
 */
export function breakoutListProblem(i: BreakoutListInput): 'mode' | 'status' | undefined {
  if (i.mode === BreakoutMode.NOT_CONFIGURED) return 'mode';
  if (!isModeratorType(i.participantType) && i.status !== BreakoutStatus.STARTED) return 'status';
  return undefined;
}

/** breakoutListProblem as the catalog's 400 (listing breakout rooms, or their participants). */
export function requireBreakoutListable(i: BreakoutListInput): void {
  const problem = breakoutListProblem(i);
  if (problem === 'mode') throw badRequest('mode', 'The conversation has no breakout rooms configured');
  if (problem === 'status') throw badRequest('status', 'The breakout rooms are not started');
}

/** Moderators and free selection see every child; everyone else only the rooms they are in. */
export function seesAllBreakoutRooms(i: BreakoutListInput): boolean {
  return isModeratorType(i.participantType) || i.mode === BreakoutMode.FREE;
}
