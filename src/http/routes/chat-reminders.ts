/**
 * Message reminders (docs/reference/chat.md#reminders, base api/v1): set, read and delete the caller's
 * reminder of a message, and list their upcoming reminders. Users only: the routes are not
 * public (401 to guests and anonymous callers), as Talk's are not. Thin: coerce, call
 * ChatRemindersService, format with presenters/chat-reminder.ts.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { presentReminder, presentUpcomingReminder } from '../../presenters/chat-reminder.js';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { Token } from './common-schemas.js';

const V1 = '/apps/spreed/api/v1';
const MessageId = Type.Integer({ minimum: 0, 'x-error': 'message' });
const Reminder = Type.Object({ userId: Type.String(), token: Type.String(), messageId: Type.Integer(), timestamp: Type.Integer() });
const UpcomingReminder = Type.Object({
  reminderTimestamp: Type.Integer(),
  roomToken: Type.String(),
  messageId: Type.Integer(),
  actorType: Type.String(),
  actorId: Type.String(),
  actorDisplayName: Type.String(),
  message: Type.String(),
  messageParameters: Type.Unknown(),
});

export async function chatReminderRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const reminders = services.chatReminders;
  const path = `${V1}/chat/:token/:messageId/reminder`;

  ocsRoute(app, services, {
    method: 'POST',
    path,
    auth: 'user',
    talk: true,
    capability: 'remind-me-later',
    summary: "Set (or move) the caller's reminder of a message",
    statuses: { 201: { description: 'the reminder', schema: Reminder }, 412: 'held in the lobby', 429: 'more than 60 reminders set in an hour' },
    params: Type.Object({
      token: Token,
      messageId: MessageId,
      timestamp: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, 'x-error': 'timestamp' }),
    }),
    response: Reminder,
    handler: async ({ params, ctx }) => new OcsReply(presentReminder(await reminders.set(ctx, params.token, params.messageId, params.timestamp)), 201),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path,
    auth: 'user',
    talk: true,
    capability: 'remind-me-later',
    summary: "The caller's reminder of a message",
    statuses: { 404: 'not a participant, no such message (`message`) or no reminder set (`reminder`)', 412: 'held in the lobby' },
    params: Type.Object({ token: Token, messageId: MessageId }),
    response: Reminder,
    handler: async ({ params, ctx }) => presentReminder(await reminders.get(ctx, params.token, params.messageId)),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path,
    auth: 'user',
    talk: true,
    capability: 'remind-me-later',
    summary: "Delete the caller's reminder of a message (and its notification when it was due)",
    statuses: { 412: 'held in the lobby' },
    params: Type.Object({ token: Token, messageId: MessageId }),
    response: Type.Array(Type.Never()),
    handler: async ({ params, ctx }) => {
      await reminders.delete(ctx, params.token, params.messageId);
      return [];
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V1}/chat/upcoming-reminders`,
    auth: 'user',
    talk: true,
    capability: 'upcoming-reminders',
    summary: "The caller's next ten reminders, soonest first, with their messages",
    params: Type.Object({}),
    response: Type.Array(UpcomingReminder),
    handler: async ({ ctx }) => (await reminders.upcoming(ctx)).map(presentUpcomingReminder),
  });
}
