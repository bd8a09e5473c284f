/**
 * Scheduled messages (docs/reference/chat.md#scheduled-messages, base api/v1, capability
 * `scheduled-messages`, local): the caller's list, schedule (201), edit (202) and delete (200
 * `[]`). Users only: the routes are not public (401 to guests), as Talk's are not. Thin: coerce,
 * call ChatScheduleService.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { Token } from './common-schemas.js';

const V1 = '/apps/spreed/api/v1';
const NO_NUL = '^[^\\x00]*$';
const ScheduledId = Type.Integer({ minimum: 0, 'x-error': 'message' });
const Scheduled = Type.Object({
  id: Type.String(),
  actorId: Type.String(),
  actorType: Type.String(),
  threadId: Type.Integer(),
  message: Type.String(),
  messageType: Type.String(),
  createdAt: Type.Integer(),
  sendAt: Type.Integer({ description: '0 when sending failed' }),
  silent: Type.Boolean(),
  originalSendAt: Type.Optional(Type.Integer({ description: 'when a failed one was due' })),
  parent: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
/** What a scheduled message is written with (schedule and edit). */
const TEXT = {
  message: Type.String({ pattern: NO_NUL, 'x-error': 'message' }),
  sendAt: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, 'x-error': 'send-at' }),
  silent: Type.Boolean({ default: false, 'x-error': 'silent' }),
};
const REFUSALS = {
  400: '`send-at` (not in the future), `message` (empty), `reply-to`',
  403: 'read-only (`readOnly`) or no chat permission (`permission`)',
  404: 'not a participant, a self-joined user (`actor`), or not a scheduled message of the caller (`message`)',
  412: 'held in the lobby',
  413: 'the message is longer than 32000 characters',
};

export async function chatScheduleRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const schedule = services.chatSchedule;
  const path = `${V1}/chat/:token/schedule`;

  ocsRoute(app, services, {
    method: 'GET',
    path,
    auth: 'user',
    talk: true,
    capability: 'scheduled-messages',
    summary: "The caller's scheduled messages in the conversation (failed ones first, then by time)",
    statuses: { 403: REFUSALS[403], 404: 'not a participant, or a self-joined user (`actor`)', 412: REFUSALS[412] },
    params: Type.Object({ token: Token }),
    response: Type.Array(Scheduled),
    handler: async ({ params, ctx }) => schedule.list(ctx, params.token),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path,
    auth: 'user',
    talk: true,
    capability: 'scheduled-messages',
    summary: 'Schedule a message, posted as the caller at sendAt (unix seconds)',
    statuses: { 201: { description: 'the scheduled message', schema: Scheduled }, ...REFUSALS },
    params: Type.Object({
      token: Token,
      ...TEXT,
      replyTo: Type.Integer({ default: 0, 'x-error': 'reply-to' }),
      threadId: Type.Integer({ default: 0, 'x-error': 'reply-to' }),
    }),
    response: Scheduled,
    handler: async ({ params, ctx }) => new OcsReply(await schedule.schedule(ctx, params.token, params), 201),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${path}/:messageId`,
    auth: 'user',
    talk: true,
    capability: 'scheduled-messages',
    summary: "Edit one of the caller's scheduled messages (text, time, silent)",
    statuses: { 202: { description: 'the scheduled message', schema: Scheduled }, ...REFUSALS },
    params: Type.Object({ token: Token, messageId: ScheduledId, ...TEXT }),
    response: Scheduled,
    handler: async ({ params, ctx }) => new OcsReply(await schedule.edit(ctx, params.token, params.messageId, params), 202),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${path}/:messageId`,
    auth: 'user',
    talk: true,
    capability: 'scheduled-messages',
    summary: "Delete one of the caller's scheduled messages",
    statuses: { 403: REFUSALS[403], 404: REFUSALS[404], 412: REFUSALS[412] },
    params: Type.Object({ token: Token, messageId: ScheduledId }),
    response: Type.Array(Type.Never()),
    handler: async ({ params, ctx }) => {
      await schedule.delete(ctx, params.token, params.messageId);
      return [];
    },
  });
}
