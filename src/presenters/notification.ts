/**
 * A notification as the notifications app returns it (EndpointController::notificationToArray),
 * prepared the way Talk's Notifier does (lib/Notification/Notifier.php): subjects, rich subject
 * parameters (`user`, `call`, `guest`), the link to the conversation, the action buttons, and for
 * chat notifications (mentions, reminders) the message and `object_id` = `token/messageId`.
 * Pure: rows and names in.
 */
import type { NotificationRow } from '../db/repositories/notifications.js';
import type { RoomRow } from '../db/repositories/rooms.js';
import { RoomType } from '../domain/constants.js';
import { isOneToOneKind } from '../domain/permissions.js';

export type RichParameter = Record<string, string>;
export type RichParameters = Record<string, RichParameter>;

export interface NotificationAction {
  label: string;
  link: string;
  type: string;
  primary: boolean;
}

export interface NotificationRecord {
  notification_id: number;
  app: string;
  user: string;
  datetime: string;
  object_type: string;
  object_id: string;
  subject: string;
  message: string;
  link: string;
  subjectRich?: string;
  /** PHP encodes an empty array as `[]`. */
  subjectRichParameters?: RichParameters | [];
  messageRich?: string;
  messageRichParameters?: RichParameters | [];
  icon?: string;
  shouldNotify?: boolean;
  actions: NotificationAction[];
}

export interface NotificationContext {
  /** Absolute base URL (scheme, host, no trailing slash). */
  base: string;
  /** 'v1' omits the rich fields, as the notifications app does. */
  apiVersion: 'v1' | 'v2';
  room: RoomRow;
  /** The conversation's name as the recipient sees it (one-to-one: the other user's display name). */
  roomName: string;
  /** Display names of the users the notification names; absent = deleted user. */
  names: Map<string, string>;
  /** The message a chat or reminder notification is about, as its user reads it now. */
  chatMessage?: { text: string; parameters: RichParameters };
  /** The recipient marked the conversation sensitive: chat notifications leave the message out. */
  sensitive?: boolean;
}

/** Nextcloud's DateTime::format('c'): 2026-11-25T11:50:00+00:00. */
export function isoSeconds(unix: number): string {
  return new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

function roomType(room: RoomRow): string {
  if (isOneToOneKind(room.type)) return 'one2one';
  return room.type === RoomType.PUBLIC ? 'public' : 'group';
}

/** A stored JSON object column; anything else reads as `{}`. */
export function parseJson(text: string): Record<string, any> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** Replaces `{placeholder}`s in one pass (Talk uses strtr so names cannot inject placeholders). */
function fill(template: string, params: RichParameters, mention = false): string {
  return template.replace(/\{([a-z0-9-]+)\}/gi, (whole, key: string) => {
    const p = params[key];
    if (!p) return whole;
    return mention && (p.type === 'user' || p.type === 'guest') ? '@' + p.name : p.name;
  });
}

/**
 * The record, or undefined when Talk would drop it (AlreadyProcessedException): an unknown
 * subject, an invitation into a one-to-one conversation, a one-to-one call from a deleted user.
 */
export function presentNotification(row: NotificationRow, c: NotificationContext): NotificationRecord | undefined {
  const { room, base } = c;
  const link = `${base}/index.php/call/${room.token}`;
  const call: RichParameter = {
    type: 'call',
    id: String(room.id),
    name: c.roomName,
    'call-type': roomType(room),
    'icon-url': `${base}/ocs/v2.php/apps/spreed/api/v1/room/${room.token}/avatar`,
  };
  const sp = parseJson(row.subject_params);
  const user = (id: unknown): RichParameter | undefined => {
    const name = typeof id === 'string' ? c.names.get(id) : undefined;
    return name === undefined ? undefined : { type: 'user', id: id as string, name };
  };
  const action = (label: string, primary: boolean, direct = false): NotificationAction => ({
    label,
    link: direct ? `${link}#direct-call` : link,
    type: 'WEB',
    primary,
  });

  let subject: string;
  let params: RichParameters;
  let actions: NotificationAction[];
  let message = '';
  let messageRich = '';
  let messageParams: RichParameters = {};
  let objectId = row.object_id;
  let recordLink = link;

  if (row.subject === 'invitation' && row.object_type === 'room') {
    const actor = user(sp.actorId);
    if (!actor || isOneToOneKind(room.type)) return undefined;
    subject = '{user} invited you to a group conversation: {call}';
    params = { user: actor, call };
    actions = room.active_since ? [action('Join call', true, true)] : [action('View chat', false)];
  } else if (row.subject === 'call' && row.object_type === 'call') {
    const missed = row.missed === 1;
    if (isOneToOneKind(room.type)) {
      const caller = user(sp.callee);
      if (!caller) return undefined;
      subject = missed ? 'You missed a call from {user}' : '{user} would like to talk with you';
      params = { user: caller, call };
      actions = [missed ? action('Call back', true) : action('Answer call', true, true)];
    } else {
      subject = missed ? 'You missed a group call in {call}' : 'A group call has started in {call}';
      params = { call };
      actions = [missed ? action('View chat', false) : action('Join call', true, true)];
    }
  } else if (row.object_type === 'chat' && CHAT_SUBJECTS.has(row.subject)) {
    const { author, guest } = messageAuthor(sp, user);
    params = { call, ...author, ...guest };
    if (row.subject === 'mention_group') params.group = { type: 'user-group', id: String(sp.sourceId ?? ''), name: String(sp.sourceName ?? sp.sourceId ?? '') };
    const who = author.user ? '{user}' : !isGuestActor(sp.userType) ? 'A deleted user' : guest.guest ? '{guest} (guest)' : 'A guest';
    subject = chatSubject(row.subject, isOneToOneKind(room.type), who);
    if (!params.user && subject.includes('{user}')) return undefined;
    ({ message, messageRich, messageParams, objectId, recordLink, actions } = chatMessagePart(row, link, c.chatMessage, c.sensitive === true));
  } else if (row.object_type === 'reminder' && row.subject === 'reminder') {
    const { author, guest } = messageAuthor(sp, user);
    params = { call, ...author, ...guest };
    const own = sp.userType === 'users' && sp.userId === row.user_id;
    if (isOneToOneKind(room.type)) {
      if (own) subject = 'Reminder: You in private conversation {call}';
      else if (room.type === RoomType.ONE_TO_ONE_FORMER) subject = 'Reminder: A deleted user in private conversation {call}';
      else subject = 'Reminder: {user} in private conversation';
    } else if (author.user) subject = own ? 'Reminder: You in conversation {call}' : 'Reminder: {user} in conversation {call}';
    else if (!isGuestActor(sp.userType)) subject = 'Reminder: A deleted user in conversation {call}';
    else if (guest.guest) subject = 'Reminder: {guest} (guest) in conversation {call}';
    else subject = 'Reminder: A guest in conversation {call}';
    if (!params.user && subject.includes('{user}')) return undefined;
    ({ message, messageRich, messageParams, objectId, recordLink, actions } = chatMessagePart(row, link, c.chatMessage, c.sensitive === true));
  } else {
    return undefined;
  }

  const out: NotificationRecord = {
    notification_id: Number(row.id),
    app: row.app,
    user: row.user_id,
    datetime: isoSeconds(Number(row.created_at)),
    object_type: row.object_type,
    object_id: objectId,
    subject: fill(subject, params),
    message,
    link: recordLink,
    actions,
  };
  if (c.apiVersion === 'v2') {
    out.subjectRich = subject;
    out.subjectRichParameters = params;
    out.messageRich = messageRich;
    out.messageRichParameters = Object.keys(messageParams).length ? messageParams : [];
    out.icon = `${base}/apps/spreed/img/app-dark.svg`;
    out.shouldNotify = true;
  }
  // Keys in Nextcloud's order: actions last.
  const { actions: acts, ...rest } = out;
  return { ...rest, actions: acts };
}

const isGuestActor = (type: unknown) => type === 'guests' || type === 'emails';

/**
 * The author of the message a chat or reminder notification is about, as rich parameters: `user`
 * while the user exists, `guest` for a guest who had a name (stored as `guestName`), else neither
 * (a deleted user, an anonymous guest).
 */
function messageAuthor(
  sp: Record<string, any>,
  user: (id: unknown) => RichParameter | undefined,
): { author: { user?: RichParameter }; guest: { guest?: RichParameter } } {
  const found = sp.userType === 'users' ? user(sp.userId) : undefined;
  if (found) return { author: { user: found }, guest: {} };
  // A user of another server (a conversation kept here for a host's): named by the user part and
  // the server of the cloud id, with the name the host sent (docs/federation.md "Keeping the conversation current").
  const at = typeof sp.userId === 'string' ? sp.userId.lastIndexOf('@') : -1;
  if (sp.userType === 'federated_users' && at > 0) {
    const id = String(sp.userId);
    const name = typeof sp.actorDisplayName === 'string' && sp.actorDisplayName !== '' ? sp.actorDisplayName : id;
    return { author: { user: { type: 'user', id: id.slice(0, at), name, server: id.slice(at + 1) } }, guest: {} };
  }
  const named = isGuestActor(sp.userType) && typeof sp.guestName === 'string' && sp.guestName.trim() !== '';
  return { author: {}, guest: named ? { guest: { type: 'guest', id: String(sp.userId), name: sp.guestName } } : {} };
}

/** Subjects of chat notifications (Talk's Chat\Notifier): `mention` is Parley's older name of `mention_direct`. */
const CHAT_SUBJECTS = new Set(['mention', 'mention_direct', 'mention_all', 'mention_group', 'reply', 'chat']);

/**
 * A chat notification's subject as Talk's notifier words it (Notification\Notifier::parseChatMessage,
 * outside push): `who` is `{user}`, `{guest} (guest)`, "A guest" or "A deleted user". In a
 * one-to-one conversation the other person is `{user}` and the conversation is not named.
 */
function chatSubject(subject: string, oneToOne: boolean, who: string): string {
  if (subject === 'chat') return oneToOne ? '{user} sent you a private message' : `${who} sent a message in conversation {call}`;
  if (subject === 'reply') return oneToOne ? '{user} replied to your private message' : `${who} replied to your message in conversation {call}`;
  if (oneToOne) return '{user} mentioned you in a private conversation';
  if (subject === 'mention_all') return `${who} mentioned everyone in conversation {call}`;
  if (subject === 'mention_group') return `${who} mentioned group {group} in conversation {call}`;
  return `${who} mentioned you in conversation {call}`;
}

/**
 * The message part of a notification about a chat message (mentions, reminders): the message as
 * rich text and plain text (mentions as `@name`), the object id `token/messageId` (clients quote
 * the message on replies: Talk forwards its id there) and the link to the message.
 */
function chatMessagePart(row: NotificationRow, link: string, current: { text: string; parameters: RichParameters } | undefined, sensitive: boolean) {
  // Rows written before messages were read live kept their text. In a conversation its
  // recipient marked sensitive, Talk's Notifier sets neither the message nor the message id.
  const messageRich = sensitive ? '' : current ? current.text : row.message;
  const messageParams = sensitive ? {} : current ? current.parameters : (parseJson(row.message_params) as RichParameters);
  return {
    messageRich,
    messageParams,
    message: fill(messageRich, messageParams, true),
    objectId: sensitive ? row.object_id : `${row.object_id}/${row.message_id}`,
    recordLink: `${link}#message_${row.message_id}`,
    actions: [{ label: 'View chat', link, type: 'WEB', primary: false }] as NotificationAction[],
  };
}
