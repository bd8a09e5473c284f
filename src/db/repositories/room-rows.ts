/**
 * The row shapes of table `rooms` and the column values of a new room (the migration's
 * defaults), apart from the repository's SQL (rooms.ts re-exports them).
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { RoomsTable } from '../schema.js';

export type RoomRow = Selectable<RoomsTable>;
export type NewRoom = Insertable<RoomsTable>;
export type RoomPatch = Updateable<Omit<RoomsTable, 'id'>>;

/** Column values of a new room before the creator's choices (the migration's defaults). */
export const ROOM_DEFAULTS: Omit<NewRoom, 'token' | 'name' | 'type'> = {
  password: '',
  description: '',
  active_since: null,
  call_flag: 0,
  last_activity: 0,
  last_message: 0,
  lobby_state: 0,
  lobby_timer: 0,
  read_only: 0,
  listable: 0,
  object_type: '',
  object_id: '',
  sip_enabled: 0,
  default_permissions: 0,
  call_permissions: 0,
  message_expiration: 0,
  breakout_room_mode: 0,
  breakout_room_status: 0,
  avatar: '',
  call_recording: 0,
  recording_consent: 0,
  mention_permissions: 0,
  created_at: 0,
  chat_count: 0,
  next_expiry: 0,
  last_pinned_id: 0,
  remote_server: '',
  remote_token: '',
  has_federation: 0,
};
