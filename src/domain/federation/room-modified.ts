/**
 * The host's ROOM_MODIFIED (docs/reference/federation.md#proxied-requests), pure: which of the
 * properties Talk sends the server keeping the conversation applies, as a patch of its row, and
 * the notification's fields for a change on the host. Unknown properties are not kept (Talk
 * logs and ignores them); a known one with a value that does not fit is refused.
 */
import { DESCRIPTION_MAX, LobbyState, ReadOnlyState, RoomType } from '../constants.js';
import type { OcmRefusal } from './ocm.js';

/** What a ROOM_MODIFIED changes on the conversation kept here. */
export interface RoomModifiedPatch {
  name?: string;
  description?: string;
  type?: number;
  read_only?: number;
  lobby_state?: number;
  lobby_timer?: number;
  avatar?: string;
}

/** What changed on the host, as the room change event names it (events/event-map.ts RoomChange). */
export type HostRoomChange =
  | { kind: 'renamed'; oldName: string; newName: string }
  | { kind: 'description'; description: string }
  | { kind: 'read-only'; state: number }
  | { kind: 'lobby'; state: number }
  | { kind: 'type'; from: number; to: number }
  | { kind: 'avatar'; set: boolean }
  | { kind: string };

/**
 * The ROOM_MODIFIED fields (besides the sender's) for a change on the host, or undefined when
 * Talk does not tell remotes of it: `changedProperty` in Talk's names, `newValue`, `oldValue`;
 * the lobby with its timer (`dateTime`, unix seconds, '' for none) and `timerReached`.
 */
export function roomModifiedFields(change: HostRoomChange, room: { lobby_timer: number; avatar: string }): Record<string, unknown> | undefined {
  switch (change.kind) {
    case 'renamed': {
      const c = change as { oldName: string; newName: string };
      return { changedProperty: 'name', newValue: c.newName, oldValue: c.oldName };
    }
    case 'description':
      return { changedProperty: 'description', newValue: (change as { description: string }).description, oldValue: null };
    case 'read-only':
      return { changedProperty: 'readOnly', newValue: (change as { state: number }).state, oldValue: null };
    case 'lobby':
      return {
        changedProperty: 'lobby',
        newValue: (change as { state: number }).state,
        oldValue: null,
        dateTime: room.lobby_timer > 0 ? String(room.lobby_timer) : '',
        timerReached: false,
      };
    case 'type': {
      const c = change as { from: number; to: number };
      return { changedProperty: 'type', newValue: c.to, oldValue: c.from };
    }
    case 'avatar':
      // The avatar's stored name (its version and type); the image itself is read from the host.
      return { changedProperty: 'avatar', newValue: room.avatar, oldValue: null };
    default:
      return undefined;
  }
}

/** A stored avatar name as Parley and Talk write it (`<version>.<ext>`, or '' for none). */
const AVATAR_NAME = /^(?:[A-Za-z0-9_-]{1,64}(?:\.[a-z]{2,4})?)?$/;

const int = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) ? v : typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : undefined;

function invalid(name: string): OcmRefusal {
  return { status: 400, message: 'Invalid request', validationErrors: [{ name, message: 'invalid' }] };
}

/** Reads a received ROOM_MODIFIED: the patch to apply (undefined: a property not kept here), or a refusal. */
export function readRoomModified(fields: Record<string, unknown>): RoomModifiedPatch | OcmRefusal | undefined {
  const value = fields.newValue;
  switch (fields.changedProperty) {
    case 'name':
      return typeof value === 'string' && value.trim() !== '' && value.length <= 255 ? { name: value } : invalid('newValue');
    case 'description':
      return typeof value === 'string' && [...value].length <= DESCRIPTION_MAX ? { description: value } : invalid('newValue');
    case 'type': {
      // A proxied conversation is a group or public one (docs/reference/federation.md#invitations).
      const t = int(value);
      return t === RoomType.GROUP || t === RoomType.PUBLIC ? { type: t } : invalid('newValue');
    }
    case 'readOnly': {
      const s = int(value);
      return s === ReadOnlyState.READ_WRITE || s === ReadOnlyState.READ_ONLY ? { read_only: s } : invalid('newValue');
    }
    case 'avatar':
      return typeof value === 'string' && AVATAR_NAME.test(value) ? { avatar: value } : invalid('newValue');
    case 'lobby': {
      const s = int(value);
      if (s !== LobbyState.NONE && s !== LobbyState.NON_MODERATORS) return invalid('newValue');
      const at = fields.dateTime === undefined || fields.dateTime === null || fields.dateTime === '' ? 0 : int(fields.dateTime);
      if (at === undefined) return invalid('dateTime');
      return { lobby_state: s, lobby_timer: s === LobbyState.NONE ? 0 : at };
    }
    default:
      return undefined;
  }
}
