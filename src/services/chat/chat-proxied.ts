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

export async function proxiedReceive(proxy: FederationProxy, ctx: RequestContext, room: RoomRow, q: ReceiveInput): Promise<ProxiedAnswer> {
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
  return mapped(proxy, room, await proxy.forward(ctx, room, 'GET', 'v1/chat/{token}', { query, timeoutMs }));
}
