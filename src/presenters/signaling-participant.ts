/**
 * The participant entries of the `incall` and `participants` notifications Parley sends the
 * external signaling server (docs/reference/signaling.md#notifications-to-the-signaling-server; docs/reference/signaling.md#notifications-to-the-signaling-server): one per Talk
 * session, with the session's in-call flags and the attendee's type and effective permissions.
 * The server rewrites `sessionId` to its own session ids and drops sessions not connected to it.
 * Pure.
 */
import type { RoomRow } from '../db/repositories/rooms.js';
import type { RoomSessionRow } from '../db/repositories/signaling.js';
import { ActorType } from '../domain/constants.js';
import { permissionsIn } from '../domain/permissions.js';

export type SignalingParticipant = Record<string, unknown>;

/** One session's entry; `nextcloudSessionId` only in `incall` entries (as Talk sends it). */
export function signalingParticipant(room: RoomRow, s: RoomSessionRow, serverDefault: number, opts: { incall?: boolean } = {}): SignalingParticipant {
  const out: SignalingParticipant = {
    inCall: s.in_call,
    lastPing: s.last_ping,
    sessionId: s.session_id,
    participantType: s.participant_type,
    participantPermissions: permissionsIn(room, s, serverDefault),
    actorType: s.actor_type,
    actorId: s.actor_id,
  };
  if (opts.incall) out.nextcloudSessionId = s.session_id;
  else out.displayName = s.display_name;
  if (s.actor_type === ActorType.USERS) out.userId = s.actor_id;
  return out;
}
