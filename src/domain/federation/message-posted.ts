/**
 * The host's MESSAGE_POSTED (docs/reference/federation.md#keeping-the-conversation-current),
 * pure: the strict reading of a received one (every field checked for type and length; what
 * does not fit is refused, nothing is guessed), the mapping of its message for the server that
 * keeps the conversation (Talk's UserConverter), and who of that server it notifies (Talk's
 * FederationChatNotifier).
 */
import { NotificationLevel } from '../constants.js';
import type { OcmRefusal } from './ocm.js';

export interface PostedMessage {
  remoteMessageId: number;
  actorType: string;
  actorId: string;
  actorDisplayName: string;
  messageType: string;
  systemMessage: string;
  /** Unix seconds; 0 = does not expire. */
  expiresAt: number;
  message: string;
  parameters: Record<string, Record<string, unknown>>;
  /** Unix seconds. */
  createdAt: number;
  metaData: Record<string, unknown>;
}

export interface UnreadInfo {
  unreadMessages: number;
  unreadMention: boolean;
  unreadMentionDirect: boolean;
  lastReadMessage: number;
}

export interface MessagePosted {
  remoteToken: string;
  message: PostedMessage;
  unread: UnreadInfo;
}

/** Longest message text kept (Talk's chat limit is 32000 characters; rich placeholders make it longer). */
const MESSAGE_MAX = 64_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, max: number, empty = false): v is string => typeof v === 'string' && (empty || v.length > 0) && v.length <= max;
const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
const flag = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : v === 0 || v === 1 ? v === 1 : undefined);

/** An ATOM date (`2026-12-06T08:00:00+00:00`) as unix seconds; '' as 0 when `empty` is allowed. */
function atomSeconds(v: unknown, empty: boolean): number | undefined {
  if (typeof v !== 'string' || v.length > 40) return undefined;
  if (v === '') return empty ? 0 : undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/.test(v)) return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) && ms >= 0 ? Math.floor(ms / 1000) : undefined;
}

/** A JSON text of an object (or PHP's empty array `[]`), or undefined. */
function jsonObject(v: unknown, max: number): Record<string, unknown> | undefined {
  if (typeof v !== 'string' || v.length > max) return undefined;
  if (v === '') return {};
  try {
    const parsed: unknown = JSON.parse(v);
    if (Array.isArray(parsed) && parsed.length === 0) return {};
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function invalid(fields: string[]): OcmRefusal {
  return { status: 400, message: 'Invalid request', validationErrors: fields.map((name) => ({ name, message: 'invalid' })) };
}

/** Reads the fields of a received MESSAGE_POSTED notification, or says why it is refused. */
export function readMessagePosted(fields: Record<string, unknown>): MessagePosted | OcmRefusal {
  const { remoteToken, messageData: m, unreadInfo: u } = fields;
  const bad: string[] = [];
  if (!str(remoteToken, 64) || !/^[a-z0-9]+$/i.test(remoteToken)) bad.push('remoteToken');
  if (!isObject(m)) bad.push('messageData');
  if (!isObject(u)) bad.push('unreadInfo');
  if (bad.length) return invalid(bad);
  const md = m as Record<string, unknown>;
  const ui = u as Record<string, unknown>;
  const id = count(md.remoteMessageId);
  const expiresAt = atomSeconds(md.expirationDatetime ?? '', true);
  const createdAt = atomSeconds(md.creationDatetime, false);
  const params = jsonObject(md.messageParameter, MESSAGE_MAX);
  const meta = jsonObject(md.metaData ?? '', 4096);
  if (id === undefined || id === 0) bad.push('messageData.remoteMessageId');
  if (!str(md.actorType, 64)) bad.push('messageData.actorType');
  if (!str(md.actorId, 255)) bad.push('messageData.actorId');
  if (!str(md.actorDisplayName ?? '', 255, true)) bad.push('messageData.actorDisplayName');
  if (!str(md.messageType, 64)) bad.push('messageData.messageType');
  if (!str(md.systemMessage ?? '', 64, true)) bad.push('messageData.systemMessage');
  if (expiresAt === undefined) bad.push('messageData.expirationDatetime');
  if (!str(md.message, MESSAGE_MAX, true)) bad.push('messageData.message');
  if (!params || !Object.values(params).every(isObject)) bad.push('messageData.messageParameter');
  if (createdAt === undefined) bad.push('messageData.creationDatetime');
  if (!meta) bad.push('messageData.metaData');
  const unreadMessages = count(ui.unreadMessages);
  const unreadMention = flag(ui.unreadMention);
  const unreadMentionDirect = flag(ui.unreadMentionDirect);
  const lastReadMessage = typeof ui.lastReadMessage === 'number' && Number.isSafeInteger(ui.lastReadMessage) ? ui.lastReadMessage : undefined;
  if (unreadMessages === undefined) bad.push('unreadInfo.unreadMessages');
  if (unreadMention === undefined) bad.push('unreadInfo.unreadMention');
  if (unreadMentionDirect === undefined) bad.push('unreadInfo.unreadMentionDirect');
  if (lastReadMessage === undefined) bad.push('unreadInfo.lastReadMessage');
  if (bad.length) return invalid(bad);
  return {
    remoteToken: remoteToken as string,
    message: {
      remoteMessageId: id!,
      actorType: md.actorType as string,
      actorId: md.actorId as string,
      actorDisplayName: (md.actorDisplayName as string | undefined) ?? '',
      messageType: md.messageType as string,
      systemMessage: (md.systemMessage as string | undefined) ?? '',
      expiresAt: expiresAt!,
      message: md.message as string,
      parameters: params as Record<string, Record<string, unknown>>,
      createdAt: createdAt!,
      metaData: meta!,
    },
    unread: { unreadMessages: unreadMessages!, unreadMention: unreadMention!, unreadMentionDirect: unreadMentionDirect!, lastReadMessage: lastReadMessage! },
  };
}

/**
 * A message record of the host's chat API (the message an edit or deletion is about, read back
 * from the host) as a MESSAGE_POSTED message, or undefined when it does not have the fields.
 */
export function postedFromRecord(r: unknown): PostedMessage | undefined {
  if (!isObject(r)) return undefined;
  const id = count(r.id);
  const params = r.messageParameters;
  const parameters = Array.isArray(params) && params.length === 0 ? {} : params;
  if (
    !id ||
    !str(r.actorType, 64) ||
    !str(r.actorId, 255) ||
    !str(r.actorDisplayName ?? '', 255, true) ||
    !str(r.messageType, 64) ||
    !str(r.systemMessage ?? '', 64, true) ||
    !str(r.message, MESSAGE_MAX, true) ||
    !isObject(parameters) ||
    !Object.values(parameters).every(isObject) ||
    count(r.timestamp) === undefined
  ) {
    return undefined;
  }
  return {
    remoteMessageId: id,
    actorType: r.actorType,
    actorId: r.actorId,
    actorDisplayName: (r.actorDisplayName as string | undefined) ?? '',
    messageType: r.messageType,
    systemMessage: (r.systemMessage as string | undefined) ?? '',
    expiresAt: count(r.expirationTimestamp) ?? 0,
    message: r.message,
    parameters: parameters as Record<string, Record<string, unknown>>,
    createdAt: count(r.timestamp)!,
    metaData: r.silent === true ? { silent: true } : {},
  };
}

/** How the server keeping the conversation names things of the host (docs/reference/federation.md#proxied-requests). */
export interface ConversionContext {
  /** The host's remote part (`host[:port][/path]`, `http://` kept). */
  hostRemote: string;
  /** This server's remote part, lower case. */
  ownRemote: string;
  /** The conversation's token here. */
  localToken: string;
  /** An actor of the host as this server names it. */
  actor(type: string, id: string): { type: string; id: string };
}

/**
 * One rich parameter of the host mapped for this server (Talk's UserConverter): a host user
 * gains the host as `server`, a user of this server loses it, the conversation is named by
 * its local token.
 */
function convertParameter(p: Record<string, unknown>, c: ConversionContext): Record<string, unknown> {
  if (p.type === 'user' && typeof p.id === 'string') {
    const server = typeof p.server === 'string' ? p.server : '';
    if (server === '') return { ...p, server: c.hostRemote, 'mention-id': `federated_user/${p.id}@${c.hostRemote}` };
    if (server.toLowerCase() === c.ownRemote) {
      const { server: _server, ...rest } = p;
      return { ...rest, 'mention-id': p.id };
    }
    return p;
  }
  if (p.type === 'call') return { ...p, id: c.localToken };
  return p;
}

/** The host's message as this server shows it: actor and rich parameters mapped. */
export function convertPostedMessage(m: PostedMessage, c: ConversionContext): PostedMessage {
  const actor = c.actor(m.actorType, m.actorId);
  const parameters: Record<string, Record<string, unknown>> = {};
  for (const [k, p] of Object.entries(m.parameters)) parameters[k] = convertParameter(p, c);
  const metaData = { ...m.metaData };
  if (typeof metaData.replyToActorType === 'string' && typeof metaData.replyToActorId === 'string') {
    const to = c.actor(metaData.replyToActorType, metaData.replyToActorId);
    metaData.replyToActorType = to.type;
    metaData.replyToActorId = to.id;
  }
  return { ...m, actorType: actor.type, actorId: actor.id, parameters, metaData };
}

/**
 * The notification subject a mapped message gives a user of this server in the conversation
 * (Talk's FederationChatNotifier), or undefined for none: nothing for silent messages or their
 * own; at "mention" (or "default" while the server's default is not "never") a reply to them,
 * a mention of them (a user parameter without server) or of everyone; at "always" every message.
 */
export function proxiedNotificationSubject(
  m: PostedMessage,
  userId: string,
  level: number,
  defaultGroupLevel: number,
): 'reply' | 'mention_direct' | 'mention_all' | 'chat' | undefined {
  if (m.metaData.silent === true) return undefined;
  if (m.actorType === 'users' && m.actorId === userId) return undefined;
  if (level === NotificationLevel.MENTION || (level === NotificationLevel.DEFAULT && defaultGroupLevel !== NotificationLevel.NEVER)) {
    if (m.metaData.replyToActorType === 'users' && m.metaData.replyToActorId === userId) return 'reply';
    const params = Object.values(m.parameters);
    if (params.some((p) => p.type === 'user' && p.id === userId && !p.server)) return 'mention_direct';
    if (params.some((p) => p.type === 'call')) return 'mention_all';
    return undefined;
  }
  return level === NotificationLevel.ALWAYS ? 'chat' : undefined;
}
