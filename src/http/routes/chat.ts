/**
 * Chat endpoints (docs/reference/chat.md#endpoints, base api/v1): send, receive (history and
 * long-poll), context, edit, delete, clear history, read markers and mention autocomplete.
 * Thin: coerce, call ChatApiService, format with presenters/chat-message.ts.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { CHAT_DEFAULT_LIMIT, CHAT_DEFAULT_TIMEOUT, CHAT_MAX_LIMIT, CHAT_MAX_TIMEOUT, CONTEXT_DEFAULT_LIMIT, CONTEXT_MAX_LIMIT } from '../../domain/chat.js';
import { ConversationSchema } from '../../presenters/conversation-schema.js';
import type { CallerRoom } from '../../services/conversations/rooms.js';
import type { RequestContext } from '../../services/platform/request-context.js';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { listReply, oneReply, proxiedReply } from './chat-replies.js';
import { PROXIED_READ_STATE } from '../../services/chat/chat-proxied.js';
import type { ProxiedRead } from '../../services/chat/chat-api.js';
import { Token } from './common-schemas.js';

const V1 = '/apps/spreed/api/v1';
const NO_NUL = '^[^\\x00]*$';
const MessageId = Type.Integer({ minimum: 0, 'x-error': 'message' });
const Message = Type.Record(Type.String(), Type.Unknown());
/** A mention suggestion (services/chat/chat-mentions.ts AutocompleteItem), for the OpenAPI document. */
const MentionSuggestion = Type.Object({
  id: Type.String(),
  label: Type.String(),
  source: Type.String(),
  mentionId: Type.String(),
  details: Type.Optional(Type.String()),
});

/** A clamped integer parameter (Talk clamps limit/timeout instead of refusing them, docs/reference/chat.md#common-rules). */
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

export async function chatRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const chat = services.chatApi;
  // Waiting long-polls (chat 304, signaling) answer before the server stops accepting: waiters are released on shutdown.
  app.addHook('preClose', async () => services.db.wake.close());

  /**
   * The room record after a read-marker change, with the chat fields loaded for it. For a
   * conversation kept here for a host elsewhere, the local record with the host's read state and
   * X-Chat-Last-Common-Read (docs/reference/federation.md#proxied-requests).
   */
  const roomRecord = async (ctx: RequestContext, view: CallerRoom | ProxiedRead) => {
    const record = await services.conversationView.presentOne(ctx, view, { includeStatus: true });
    if ('proxied' in view) {
      const host = view.proxied.data as Record<string, unknown> | null;
      for (const key of PROXIED_READ_STATE) if (host && host[key] !== undefined) (record as Record<string, unknown>)[key] = host[key];
      return new OcsReply(record, 200, view.proxied.headers);
    }
    const common = await chat.commonReadFor(view);
    return new OcsReply(record, 200, common !== undefined ? { 'X-Chat-Last-Common-Read': String(common) } : {});
  };

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V1}/chat/:token`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    summary: 'Chat history (lookIntoFuture=0) or wait for new messages (lookIntoFuture=1)',
    statuses: { 304: 'nothing new (long-poll timed out) or no history', 412: 'held in the lobby' },
    params: Type.Object({
      token: Token,
      lookIntoFuture: Type.Integer({ minimum: 0, maximum: 1, 'x-error': 'lookIntoFuture' }),
      limit: Type.Integer({ default: CHAT_DEFAULT_LIMIT, 'x-error': 'limit' }),
      lastKnownMessageId: Type.Integer({ default: 0, 'x-error': 'lastKnownMessageId' }),
      lastCommonReadId: Type.Integer({ default: 0, 'x-error': 'lastCommonReadId' }),
      timeout: Type.Integer({ default: CHAT_DEFAULT_TIMEOUT, 'x-error': 'timeout' }),
      setReadMarker: Type.Integer({ default: 1, minimum: 0, maximum: 1, 'x-error': 'setReadMarker' }),
      includeLastKnown: Type.Integer({ default: 0, minimum: 0, maximum: 1, 'x-error': 'includeLastKnown' }),
      noStatusUpdate: Type.Integer({ default: 0, minimum: 0, maximum: 1, 'x-error': 'noStatusUpdate' }),
      markNotificationsAsRead: Type.Integer({ default: 1, minimum: 0, maximum: 1, 'x-error': 'markNotificationsAsRead' }),
    }),
    response: Type.Array(Message),
    handler: async ({ params, ctx, request }) => {
      const page = await chat.receive(
        ctx,
        params.token,
        {
          lookIntoFuture: params.lookIntoFuture === 1,
          limit: clamp(params.limit, 1, CHAT_MAX_LIMIT),
          lastKnownMessageId: Math.max(0, params.lastKnownMessageId),
          lastCommonReadId: params.lastCommonReadId,
          timeoutSeconds: clamp(params.timeout, 0, CHAT_MAX_TIMEOUT),
          setReadMarker: params.setReadMarker === 1,
          includeLastKnown: params.includeLastKnown === 1,
          markNotificationsAsRead: params.markNotificationsAsRead === 1,
        },
        // The wait ends when the client goes away (its connection closes).
        request.raw.socket,
      );
      return listReply(page);
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V1}/chat/:token`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    summary: 'Send a message (replyTo, referenceId, silent; actorDisplayName for guests)',
    statuses: {
      201: { description: 'the message', schema: Message },
      412: 'held in the lobby',
      413: 'the message is longer than 32000 characters',
      429: 'a guest sent 50 messages with mentions from this address in the last day',
    },
    params: Type.Object({
      token: Token,
      message: Type.String({ pattern: NO_NUL, 'x-error': 'message' }),
      actorDisplayName: Type.String({ default: '', maxLength: 255, pattern: NO_NUL, 'x-error': 'actorDisplayName' }),
      replyTo: Type.Integer({ default: 0, 'x-error': 'reply-to' }),
      referenceId: Type.String({ default: '', maxLength: 1000, pattern: NO_NUL, 'x-error': 'referenceId' }),
      silent: Type.Boolean({ default: false, 'x-error': 'silent' }),
    }),
    response: Message,
    handler: async ({ params, ctx }) => oneReply(await chat.send(ctx, params.token, params), 201),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${V1}/chat/:token`,
    auth: 'user',
    talk: true,
    summary: 'Clear the history (moderators)',
    params: Type.Object({ token: Token }),
    response: Message,
    handler: async ({ params, ctx }) => oneReply(await chat.clearHistory(ctx, params.token), 200),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V1}/chat/:token/:messageId/context`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    summary: 'Messages around a message (ascending)',
    statuses: { 304: 'an unknown message', 412: 'held in the lobby' },
    params: Type.Object({
      token: Token,
      messageId: MessageId,
      limit: Type.Integer({ default: CONTEXT_DEFAULT_LIMIT, 'x-error': 'limit' }),
    }),
    response: Type.Array(Message),
    handler: async ({ params, ctx }) => listReply(await chat.context(ctx, params.token, params.messageId, clamp(params.limit, 0, CONTEXT_MAX_LIMIT))),
  });

  ocsRoute(app, services, {
    method: 'PUT',
    path: `${V1}/chat/:token/:messageId`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    summary: 'Edit a message (author or moderator, 24 hours)',
    statuses: { 405: 'not a text message', 413: 'the message is longer than 32000 characters' },
    params: Type.Object({ token: Token, messageId: MessageId, message: Type.String({ pattern: NO_NUL, 'x-error': 'message' }) }),
    response: Message,
    handler: async ({ params, ctx }) => oneReply(await chat.edit(ctx, params.token, params.messageId, params.message), 200),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${V1}/chat/:token/:messageId`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    summary: 'Delete a message (author or moderator)',
    statuses: { 405: 'not a text message' },
    params: Type.Object({ token: Token, messageId: MessageId }),
    response: Message,
    handler: async ({ params, ctx }) => oneReply(await chat.delete(ctx, params.token, params.messageId), 200),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V1}/chat/:token/read`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    summary: 'Set the read marker (null: the last message)',
    params: Type.Object({
      token: Token,
      lastReadMessage: Type.Union([Type.Integer(), Type.Null()], { default: null, 'x-error': 'lastReadMessage' }),
    }),
    response: ConversationSchema,
    handler: async ({ params, ctx }) => roomRecord(ctx, await chat.setReadMarker(ctx, params.token, params.lastReadMessage ?? null)),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${V1}/chat/:token/read`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    summary: 'Mark the conversation unread',
    params: Type.Object({ token: Token }),
    response: ConversationSchema,
    handler: async ({ params, ctx }) => roomRecord(ctx, await chat.markUnread(ctx, params.token)),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V1}/chat/:token/mentions`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    summary: 'Mention autocomplete',
    params: Type.Object({
      token: Token,
      search: Type.String({ maxLength: 255, pattern: NO_NUL, 'x-error': 'search' }),
      limit: Type.Integer({ default: 20, minimum: 1, maximum: 200, 'x-error': 'limit' }),
      includeStatus: Type.Boolean({ default: false, 'x-error': 'includeStatus' }),
    }),
    response: Type.Array(MentionSuggestion),
    handler: async ({ params, ctx }) => {
      const found = await chat.mentionSuggestions(ctx, params.token, params);
      return 'proxied' in found ? proxiedReply(found) : found;
    },
  });
}
