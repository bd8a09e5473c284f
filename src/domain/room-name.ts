/**
 * The conversation name rule (docs/reference/conversations.md#creation): trimmed, 1 to ROOM_NAME_MAX characters
 * counted as code points (multibyte-aware), the same for create, rename and the operator's
 * commands, with one message.
 */
import { ROOM_NAME_MAX } from './constants.js';
import { invalidRoomName } from './errors.js';

/** The name as stored, or undefined when it breaks the rule. */
export function normalizeRoomName(raw: string): string | undefined {
  const name = raw.trim();
  if (name === '' || [...name].length > ROOM_NAME_MAX) return undefined;
  return name;
}

/** The name as stored; else 400 `{error: field}` (`name` on create, `value` on rename as Talk answers). */
export function requireRoomName(raw: string, field = 'name'): string {
  const name = normalizeRoomName(raw);
  if (name === undefined) throw invalidRoomName(field);
  return name;
}
