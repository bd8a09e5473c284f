/**
 * Chat in a conversation kept here for a host elsewhere (docs/reference/federation.md#proxied-requests):
 * sending and receiving (history and long-poll) are forwarded to the host by FederationProxy and
 * its messages mapped for this server.
 */
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { FederationProxy, ProxiedAnswer } from '../federation/proxy.js';
export type { FederationProxy, ProxiedAnswer };
import type { ReceiveInput, SendInput } from './chat-inputs.js';
import type { RequestContext } from '../platform/request-context.js';

function mapped(proxy: FederationProxy, room: RoomRow, answer: ProxiedAnswer): ProxiedAnswer {
  return { ...answer, data: proxy.messages(room, answer.data) };
}

export async function proxiedSend(proxy: FederationProxy, ctx: RequestContext, room: RoomRow, input: SendInput): Promise<ProxiedAnswer> {
  const { message, replyTo, referenceId, silent } = input;
  return mapped(proxy, room, await proxy.forward(ctx, room, 'POST', 'v1/chat/{token}', { body: { message, replyTo, referenceId, silent } }));
}

export async function proxiedReceive(
  proxy: FederationProxy,
  ctx: RequestContext,
  acc: { room: RoomRow; attendee: { id: number } },
  q: ReceiveInput,
): Promise<ProxiedAnswer> {
  const { room } = acc;
  const query = {
    lookIntoFuture: q.lookIntoFuture ? 1 : 0,
    limit: q.limit,
    lastKnownMessageId: q.lastKnownMessageId,
    lastCommonReadId: q.lastCommonReadId,
    timeout: q.timeoutSeconds,
    setReadMarker: q.setReadMarker ? 1 : 0,
    includeLastKnown: q.includeLastKnown ? 1 : 0,
    markNotificationsAsRead: q.markNotificationsAsRead ? 1 : 0,
  };
  // The host's long-poll waits up to `timeout`: the request may take that long and a little more.
  const timeoutMs = (q.lookIntoFuture ? q.timeoutSeconds : 0) * 1000 + 5000;
  const answer = await proxy.forward(ctx, room, 'GET', 'v1/chat/{token}', { query, timeoutMs });
  if (q.lookIntoFuture && q.setReadMarker) {
    // Waiting for new messages with the read marker on has read everything up to the last one
    // given: nothing unread here any more (Talk's proxy does the same; docs/reference/federation.md#keeping-the-conversation-current).
    const lastGiven = Number(answer.headers['X-Chat-Last-Given'] ?? q.lastKnownMessageId);
    await proxy.keepReadState(room, acc.attendee.id, { unread: 0, mention: false, mentionDirect: false, lastRead: lastGiven });
  }
  return mapped(proxy, room, answer);
}

/** GET /chat/{token}/{messageId}/context, forwarded (docs/reference/federation.md#proxied-requests). */
export async function proxiedContext(proxy: FederationProxy, ctx: RequestContext, room: RoomRow, messageId: number, limit: number): Promise<ProxiedAnswer> {
  return mapped(proxy, room, await proxy.forward(ctx, room, 'GET', `v1/chat/{token}/${messageId}/context`, { query: { limit } }));
}

/** PUT /chat/{token}/{messageId}: the host answers the `message_edited` system message with the edited one as its parent. */
export async function proxiedEdit(proxy: FederationProxy, ctx: RequestContext, room: RoomRow, messageId: number, message: string): Promise<ProxiedAnswer> {
  return mapped(proxy, room, await proxy.forward(ctx, room, 'PUT', `v1/chat/{token}/${messageId}`, { body: { message } }));
}

/** DELETE /chat/{token}/{messageId}: the host answers the `message_deleted` system message with the deleted one as its parent. */
export async function proxiedDelete(proxy: FederationProxy, ctx: RequestContext, room: RoomRow, messageId: number): Promise<ProxiedAnswer> {
  return mapped(proxy, room, await proxy.forward(ctx, room, 'DELETE', `v1/chat/{token}/${messageId}`));
}

/**
 * POST /chat/{token}/read (`lastReadMessage`, omitted for the last message) or DELETE (mark
 * unread), forwarded. The host answers its own conversation record: the caller answers the local
 * one with the host's read state in it (ProxiedReadState).
 */
export async function proxiedReadMarker(
  proxy: FederationProxy,
  ctx: RequestContext,
  acc: { room: RoomRow; attendee: { id: number } },
  change: { lastReadMessage: number | null } | 'unread',
): Promise<ProxiedAnswer> {
  const body = change === 'unread' || change.lastReadMessage === null ? {} : { lastReadMessage: change.lastReadMessage };
  const answer = await proxy.forward(ctx, acc.room, change === 'unread' ? 'DELETE' : 'POST', 'v1/chat/{token}/read', { body });
  // The host's answer is its record of the conversation for this user: its read state is kept
  // here, as Talk's proxy keeps it on the local participant, so the list shows it at once.
  await proxy.keepHostReadRecord(acc.room, acc.attendee.id, answer.data);
  return answer;
}

/** The fields of the host's conversation record that say how far the user has read. */
export const PROXIED_READ_STATE = ['lastReadMessage', 'unreadMessages', 'unreadMention', 'unreadMentionDirect', 'lastCommonReadMessage'] as const;

/** GET /chat/{token}/mentions, forwarded; the suggestions mapped (FederationProxy.mentions). */
export async function proxiedMentions(
  proxy: FederationProxy,
  ctx: RequestContext,
  room: RoomRow,
  q: { search: string; limit: number; includeStatus: boolean },
): Promise<ProxiedAnswer> {
  const answer = await proxy.forward(ctx, room, 'GET', 'v1/chat/{token}/mentions', {
    query: { search: q.search, limit: q.limit, includeStatus: q.includeStatus ? 1 : 0 },
  });
  return { ...answer, data: proxy.mentions(room, answer.data) };
}

/** GET/POST/DELETE /reaction/{token}/{messageId}, forwarded; the reactions map mapped, `{}` when empty. */
export async function proxiedReactions(
  proxy: FederationProxy,
  ctx: RequestContext,
  room: RoomRow,
  method: 'GET' | 'POST' | 'DELETE',
  messageId: number,
  reaction: string | undefined,
): Promise<ProxiedAnswer> {
  const path = `v1/reaction/{token}/${messageId}`;
  const answer =
    method === 'GET'
      ? await proxy.forward(ctx, room, method, path, reaction === undefined ? {} : { query: { reaction } })
      : await proxy.forward(ctx, room, method, path, { body: { reaction } });
  const data = proxy.reactions(room, answer.data);
  // PHP's empty array arrives as `[]`: the reactions map is always an object (docs/reference/chat.md#reactions).
  return { ...answer, data: Array.isArray(data) && data.length === 0 ? {} : data };
}

/** A poll request (`path` after `v1/poll/{token}`), forwarded; polls and drafts mapped (FederationProxy.polls). */
export async function proxiedPoll(
  proxy: FederationProxy,
  ctx: RequestContext,
  room: RoomRow,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: Record<string, unknown>,
): Promise<ProxiedAnswer> {
  const answer = await proxy.forward(ctx, room, method, `v1/poll/{token}${path}`, body === undefined ? {} : { body });
  return { ...answer, data: proxy.polls(room, answer.data) };
}
