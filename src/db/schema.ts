/**
 * Table types for Kysely. Times are unix seconds (UTC); booleans are stored as 0/1
 * integers so that both dialects read them the same way.
 * Each capability area adds its tables here alongside its migration.
 */
import type { Generated } from 'kysely';
import type { StoredStatus } from '../domain/user-status.js';
import type { FilesTable, FileUploadsTable, FileUploadChunksTable, FileFavoritesTable, FileSharesTable, FileShareTargetsTable } from './schema-files.js';
import type { OutboxTable, OutboxLeasesTable, PushKeysTable, PushDevicesTable, WebpushSubscriptionsTable, PushVapidTable } from './schema-delivery.js';
export type { FilesTable, FileUploadsTable, FileUploadChunksTable, FileFavoritesTable, FileSharesTable, FileShareTargetsTable } from './schema-files.js';
export type { OutboxTable, OutboxLeasesTable, PushKeysTable, PushDevicesTable, WebpushSubscriptionsTable, PushVapidTable } from './schema-delivery.js';

export interface UsersTable {
  id: string;
  display_name: string;
  email: string;
  enabled: number;
  password_hash: string;
  created_at: number;
  /** Unix seconds of the last login with a password or app password (0: never). */
  last_login: number;
}

export interface GroupsTable {
  id: string;
  display_name: string;
}

export interface GroupMembersTable {
  group_id: string;
  user_id: string;
}

export interface AppPasswordsTable {
  id: Generated<number>;
  user_id: string;
  /** sha256 hex of the app password; the password itself is never stored. */
  token_hash: string;
  name: string;
  created_at: number;
}

export interface AppConfigTable {
  key: string;
  value: string;
}

export interface UserPreferencesTable {
  user_id: string;
  key: string;
  value: string;
}

export interface BruteForceAttemptsTable {
  id: Generated<number>;
  subnet: string;
  action: string;
  occurred_at: number;
}

/** One row (id = 1): bumped on every change that in-memory caches depend on. */
export interface CacheStateTable {
  id: number;
  generation: number;
}

export interface RoomsTable {
  id: Generated<number>;
  token: string;
  name: string;
  type: number;
  /** argon2id hash, '' when the conversation has no password. */
  password: string;
  description: string;
  /** Call start (unix seconds), null when no call is active. */
  active_since: number | null;
  call_flag: number;
  last_activity: number;
  last_message: number;
  lobby_state: number;
  /** Unix seconds, 0 = no timer. */
  lobby_timer: number;
  read_only: number;
  listable: number;
  object_type: string;
  object_id: string;
  sip_enabled: number;
  default_permissions: number;
  call_permissions: number;
  message_expiration: number;
  breakout_room_mode: number;
  breakout_room_status: number;
  /** Custom avatar version stem; '' when none. */
  avatar: string;
  call_recording: number;
  recording_consent: number;
  mention_permissions: number;
  created_at: number;
  /** Counted chat messages in the table (migration 0706-chat-unread-counters). */
  chat_count: number;
  /** Earliest expires_at of a counted message (0 = none known). */
  next_expiry: number;
  /** Moved by every update of the row (migration 0711-record-revisions). */
  rev: Generated<number>;
  /** The message pinned last that is still pinned, 0 = none (migration 0719-pinned-messages). */
  last_pinned_id: Generated<number>;
  /** A proxied conversation's host (base URL with scheme), '' for this server's (migration 0910). */
  remote_server: Generated<string>;
  /** The host's token of a proxied conversation, '' for this server's (migration 0910). */
  remote_token: Generated<string>;
  /** 1 once a federated user was invited here: its messages owe MESSAGE_POSTED (migration 0920). */
  has_federation: Generated<number>;
}

export interface AttendeesTable {
  id: Generated<number>;
  room_id: number;
  actor_type: string;
  actor_id: string;
  display_name: string;
  pin: string | null;
  participant_type: number;
  favorite: number;
  notification_level: number;
  notification_calls: number;
  last_joined_call: number;
  last_read_message: number;
  last_mention_message: number;
  last_mention_direct: number;
  read_privacy: number;
  permissions: number;
  access_token: string | null;
  invited_cloud_id: string | null;
  phone_number: string | null;
  call_id: string | null;
  /** A dial-out waiting for the SIP bridge: JSON {number, options} (see services/sip/sip.ts). */
  dialout_request: string | null;
  /** When that dial-out was started (seconds); 0 when none. */
  dialout_requested_at: number;
  last_attendee_activity: number;
  created_at: number;
  /** Counted chat messages up to last_read_message (migration 0706-chat-unread-counters). */
  read_count: number;
  /** The user's own marks on the conversation, 0 or 1 (migration 0717-attendee-conversation-marks). */
  archived: number;
  important: number;
  sensitive: number;
  /** Moved by every update of the row (migration 0711-record-revisions). */
  rev: Generated<number>;
  /** The pinned message this attendee hid for themselves, 0 = none (migration 0719-pinned-messages). */
  hidden_pinned_id: Generated<number>;
  /** The user's scheduled messages here, -1 after a failed one (migration 0720-scheduled-messages). */
  has_scheduled_messages: Generated<number>;
}

/** A user's message waiting for its time (migration 0720-scheduled-messages). */
export interface ScheduledMessagesTable {
  id: Generated<number>;
  room_id: number;
  actor_type: string;
  actor_id: string;
  /** The text as written (mentions are parsed when it is posted). */
  message: string;
  parent_id: number | null;
  silent: number;
  /** Unix seconds; 0 = sending failed. */
  send_at: number;
  /** When a failed one was due (0 otherwise). */
  original_send_at: number;
  created_at: number;
}

export interface SessionsTable {
  id: Generated<number>;
  attendee_id: number;
  session_id: string;
  in_call: number;
  last_ping: number;
  /** 0 inactive, 1 active. */
  state: number;
}

/** A conversation's custom avatar (docs/reference/conversations.md#avatars); rooms.avatar names its version. */
export interface RoomAvatarsTable {
  room_id: number;
  version: string;
  content_type: string;
  data: Buffer;
  updated_at: number;
}

/** One row per job run (pruned after a week). */
export interface JobHistoryTable {
  id: Generated<number>;
  name: string;
  started_at: number;
  finished_at: number;
  owner: string;
  status: string;
  summary: string;
}

export interface JobRunsTable {
  name: string;
  next_run_at: number;
  last_run_at: number;
  last_finished_at: number;
  last_status: string;
  last_error: string;
  last_owner: string;
  runs: number;
}

/** Nextcloud user status (participants area). */
/** A user's status: the columns the status rules read (domain/user-status.ts), by user. */
export interface UserStatusTable extends StoredStatus {
  user_id: string;
}

export interface MailOutboxTable {
  id: Generated<number>;
  recipient: string;
  subject: string;
  body: string;
  created_at: number;
}

/** A server federation is limited to while `federation_only_trusted_servers` is on (migration 0900). */
export interface FederationTrustedServersTable {
  id: Generated<number>;
  /** `host[:port][/path]`, or `http://host...` for a plain-HTTP peer. */
  server: string;
  created_at: number;
}

/** The host's last message of a conversation kept here for it (migration 0920), as MESSAGE_POSTED carried it, mapped for this server. */
export interface FederationLastMessagesTable {
  /** The local conversation. */
  room_id: number;
  /** The message's id on the host. */
  remote_message_id: number;
  actor_type: string;
  actor_id: string;
  actor_display_name: string;
  message_type: string;
  system_message: string;
  message: string;
  /** JSON object of the message's rich parameters. */
  message_parameters: string;
  /** JSON object: silent, replyToActorType/Id, replyToMessageId. */
  meta_data: string;
  created_at: number;
  /** Unix seconds; 0 = does not expire. */
  expires_at: number;
}

/** A local user's unread counters in a conversation kept here, as the host's MESSAGE_POSTED told them (migration 0920). */
export interface FederationUnreadTable {
  attendee_id: number;
  room_id: number;
  unread_messages: number;
  unread_mention: number;
  unread_mention_direct: number;
  /** The host's message id the user read up to. */
  last_read_message: number;
}

/** An invitation of a user here to a conversation on another server (migration 0901). */
export interface FederationInvitationsTable {
  id: Generated<number>;
  user_id: string;
  /** 0 pending, 1 accepted. */
  state: Generated<number>;
  /** The shared secret (never returned). */
  access_token: string;
  /** The host's base URL, with its scheme. */
  remote_server_url: string;
  remote_token: string;
  /** The host's attendee id of the invited user (the share's providerId). */
  remote_attendee_id: number;
  inviter_cloud_id: string;
  inviter_display_name: Generated<string>;
  local_cloud_id: string;
  room_name: Generated<string>;
  room_type: number;
  created_at: number;
  /** The local conversation once accepted, 0 while pending (migration 0910). */
  local_room_id: Generated<number>;
}

/** Phone numbers of users (Talk's talk_phone_numbers), stored without a leading "+". */
export interface PhoneNumbersTable {
  phone_number: string;
  actor_id: string;
  created_at: number;
}

export interface TeamsTable {
  id: string;
  display_name: string;
  created_at: number;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
}

/** A browser's cookie session; the cookie value is stored only as sha256 hex. */
export interface ClientSessionsTable {
  id: Generated<number>;
  key_hash: string;
  created_at: number;
  last_seen: number;
  /** The login a user's cookie session was opened with (migration 0721); null for guests. */
  user_id: string | null;
  app_password_id: number | null;
  login_token_hash: string | null;
  password_stamp: string | null;
}

/** Per cookie session and conversation token: the last Talk session id and the guest actor id. */
export interface ClientRoomSessionsTable {
  id: Generated<number>;
  client_session_id: number;
  token: string;
  tab_id: string;
  session_id: string | null;
  guest_actor_id: string | null;
}

/** A browser login session (admin page); the cookie value is stored only as sha256 hex. */
export interface LoginSessionsTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
}

/** A chat message (docs/reference/chat.md#common-rules, docs/reference/chat.md#the-message-object); see migration 0600-chat. */
export interface ChatMessagesTable {
  id: Generated<number>;
  room_id: number;
  actor_type: string;
  actor_id: string;
  actor_display_name: string;
  message: string;
  message_type: string;
  system_message: string;
  /** JSON object placeholder -> rich object. */
  message_parameters: string;
  reference_id: string;
  parent_id: number | null;
  created_at: number;
  /** Unix seconds, 0 = never expires. */
  expires_at: number;
  silent: number;
  can_mention_all: number;
  last_edit_actor_type: string;
  last_edit_actor_id: string;
  last_edit_actor_display_name: string;
  last_edit_at: number;
  deleted_by_type: string;
  deleted_by_id: string;
  deleted_at: number;
  /** JSON object emoji -> count. */
  reactions: string;
  /** Moved by every update of the row (migration 0711-record-revisions). */
  rev: Generated<number>;
  /** The `message_pinned` system message that pinned this one, 0 = not pinned (migration 0719-pinned-messages). */
  pinned_id: Generated<number>;
  pinned_by_type: Generated<string>;
  pinned_by_id: Generated<string>;
  pinned_by_name: Generated<string>;
  pinned_at: Generated<number>;
  /** Unix seconds the pin ends, 0 = no end. */
  pinned_until: Generated<number>;
  /** The deleter's display name when they deleted it (migration 0750-chat-deleted-by-name). */
  deleted_by_name: Generated<string>;
}

/** Internal signaling messages waiting for their recipient session (0600). */
export interface SignalingMessagesTable {
  id: Generated<number>;
  room_id: number;
  recipient: string;
  /** The JSON text handed to the recipient as `data`. */
  data: string;
  created_at: number;
}

/** A Login Flow v2 / v1 in progress (migration 0700). */
export interface LoginFlowsTable {
  login_token: string;
  kind: string;
  poll_token_hash: string | null;
  state_hash: string | null;
  client_name: string;
  created_at: number;
  started: number;
  user_id: string | null;
  public_key: string | null;
  sealed_private_key: string | null;
  server: string | null;
  sealed_app_password: string | null;
}

/** An uploaded user avatar (migration 0701). */
export interface UserAvatarsTable {
  user_id: string;
  version: string;
  content_type: string;
  data: Buffer;
  updated_at: number;
}

/** A notification of the notifications app, created by Talk's events (migration 0702). */
export interface NotificationsTable {
  id: Generated<number>;
  user_id: string;
  app: string;
  subject: string;
  object_type: string;
  object_id: string;
  room_id: number;
  message_id: number;
  /** JSON object: actorId / callee / userType, userId, ... as Talk stores them. */
  subject_params: string;
  /**
   * Written empty since chat notifications read their message when they are read
   * (NotificationService.present); rows written before keep the text they were given.
   */
  message: string;
  /** JSON object: the rich parameters of `message` (empty likewise). */
  message_params: string;
  missed: number;
  created_at: number;
}

/** A message that shares an object, by the kind the shared-items lists filter by (0714). */
/** A user's reminder of a message (migration 0715). */
export interface ChatRemindersTable {
  id: Generated<number>;
  user_id: string;
  room_id: number;
  message_id: number;
  /** Unix seconds: when the reminder notification is due. */
  remind_at: number;
}

/** A request let through a per-user rate limit (migration 0715). */
export interface UserRateLimitsTable {
  id: Generated<number>;
  user_id: string;
  action: string;
  occurred_at: number;
}

export interface ChatSharedItemsTable {
  message_id: number;
  room_id: number;
  object_type: string;
}

export interface PollsTable {
  id: Generated<number>;
  room_id: number;
  question: string;
  /** JSON array of strings. */
  options: string;
  actor_type: string;
  actor_id: string;
  actor_display_name: string;
  status: number;
  result_mode: number;
  max_votes: number;
  /** JSON object "option-<i>" -> count. */
  votes: string;
  num_voters: number;
  created_at: number;
}

export interface PollVotesTable {
  id: Generated<number>;
  poll_id: number;
  actor_type: string;
  actor_id: string;
  actor_display_name: string;
  option_id: number;
}

/** A recording consent given on joining a call (Talk's talk_consent). */
export interface RecordingConsentsTable {
  id: Generated<number>;
  room_id: number;
  actor_type: string;
  actor_id: string;
  created_at: number;
}

export interface Database {
  users: UsersTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  app_passwords: AppPasswordsTable;
  app_config: AppConfigTable;
  user_preferences: UserPreferencesTable;
  brute_force_attempts: BruteForceAttemptsTable;
  cache_state: CacheStateTable;
  rooms: RoomsTable;
  attendees: AttendeesTable;
  sessions: SessionsTable;
  user_status: UserStatusTable;
  mail_outbox: MailOutboxTable;
  outbox: OutboxTable;
  outbox_leases: OutboxLeasesTable;
  federation_trusted_servers: FederationTrustedServersTable;
  federation_invitations: FederationInvitationsTable;
  federation_last_messages: FederationLastMessagesTable;
  federation_unread: FederationUnreadTable;
  push_keys: PushKeysTable;
  push_devices: PushDevicesTable;
  webpush_subscriptions: WebpushSubscriptionsTable;
  push_vapid: PushVapidTable;
  teams: TeamsTable;
  phone_numbers: PhoneNumbersTable;
  team_members: TeamMembersTable;
  client_sessions: ClientSessionsTable;
  client_room_sessions: ClientRoomSessionsTable;
  job_runs: JobRunsTable;
  job_history: JobHistoryTable;
  room_avatars: RoomAvatarsTable;
  login_sessions: LoginSessionsTable;
  chat_messages: ChatMessagesTable;
  scheduled_messages: ScheduledMessagesTable;
  signaling_messages: SignalingMessagesTable;
  login_flows: LoginFlowsTable;
  user_avatars: UserAvatarsTable;
  notifications: NotificationsTable;
  polls: PollsTable;
  chat_shared_items: ChatSharedItemsTable;
  chat_reminders: ChatRemindersTable;
  user_rate_limits: UserRateLimitsTable;
  poll_votes: PollVotesTable;
  recording_consents: RecordingConsentsTable;
  files: FilesTable;
  file_uploads: FileUploadsTable;
  file_upload_chunks: FileUploadChunksTable;
  file_shares: FileSharesTable;
  file_favorites: FileFavoritesTable;
  file_share_targets: FileShareTargetsTable;
}
