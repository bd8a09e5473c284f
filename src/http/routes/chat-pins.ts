/**
 * Pinned messages (docs/reference/chat.md#pinned-messages, base api/v1, capability `pinned-messages`):
 * pin and unpin (moderators), and hide a pin for oneself (participants). Pin and unpin answer
 * the system message they posted, or `null` when there was nothing to do. Thin: coerce, call
 * ChatPinsService, format with chat-replies.ts.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { oneReply } from './chat-replies.js';
import { Token } from './common-schemas.js';

const V1 = '/apps/spreed/api/v1';
const MessageId = Type.Integer({ minimum: 0, 'x-error': 'message' });
const SystemMessage = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

export async function chatPinRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const pins = services.chatPins;
  const path = `${V1}/chat/:token/:messageId/pin`;

  ocsRoute(app, services, {
    method: 'POST',
    path,
    auth: 'public',
    talk: true,
    capability: 'pinned-messages',
    summary: 'Pin a message (moderators), until pinUntil (unix seconds; 0: no end)',
    statuses: {
      200: { description: 'the message_pinned system message with the message as parent; null when it was pinned already', schema: SystemMessage },
      400: 'not a text message or shared object (`message`), or pinUntil in the past (`until`)',
      403: 'not a moderator',
      404: 'not a participant, or no such message (`message`)',
    },
    params: Type.Object({
      token: Token,
      messageId: MessageId,
      pinUntil: Type.Integer({ default: 0, minimum: 0, maximum: Number.MAX_SAFE_INTEGER, 'x-error': 'until' }),
    }),
    response: SystemMessage,
    handler: async ({ params, ctx }) => oneReply(await pins.pin(ctx, params.token, params.messageId, params.pinUntil), 200),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path,
    auth: 'public',
    talk: true,
    capability: 'pinned-messages',
    summary: 'Unpin a message (moderators)',
    statuses: {
      200: { description: 'the message_unpinned system message with the message as parent; null when it was not pinned', schema: SystemMessage },
      403: 'not a moderator',
      404: 'not a participant, or no such message (`message`)',
    },
    params: Type.Object({ token: Token, messageId: MessageId }),
    response: SystemMessage,
    handler: async ({ params, ctx }) => oneReply(await pins.unpin(ctx, params.token, params.messageId), 200),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${path}/self`,
    auth: 'public',
    talk: true,
    capability: 'pinned-messages',
    summary: "Hide a pinned message for the caller (the record's hiddenPinnedId)",
    statuses: { 200: { description: 'null', schema: Type.Null() }, 404: 'not a participant', 412: 'held in the lobby' },
    params: Type.Object({ token: Token, messageId: MessageId }),
    response: Type.Null(),
    handler: async ({ params, ctx }) => {
      await pins.hide(ctx, params.token, params.messageId);
      return new OcsReply(null);
    },
  });
}
