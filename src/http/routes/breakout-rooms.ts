/**
 * Breakout rooms (feature `breakout-rooms-v1`): the management API real clients use under
 * api/v1 (docs/reference/conversations.md#breakout-rooms) and the contract's `GET api/v4/room/{token}/breakout-rooms`.
 * Thin: coerce, call BreakoutRoomsService, present. (`GET .../breakout-rooms/participants`
 * lives with the participant routes.)
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ConversationListSchema, ConversationSchema } from '../../presenters/conversation-schema.js';
import type { Services } from '../../services/index.js';
import type { RequestContext } from '../../services/platform/request-context.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { V4 } from './common-schemas.js';

const V1 = '/apps/spreed/api/v1/breakout-rooms/:token';
const TokenOnly = Type.Object({ token: Type.String() });
const mapOptions = { maxLength: 65536, 'x-error': 'attendeeMap', description: 'JSON object attendeeId → 0-based room index' };

export async function breakoutRoomRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { breakoutRooms, conversationView } = services;
  /** The children the caller is in, then the parent, as records (Talk's formatMultipleRooms). */
  const roomList = async (ctx: RequestContext, parent: RoomRow) => conversationView.present(ctx, await breakoutRooms.callerViews(ctx, parent));

  ocsRoute(app, services, {
    method: 'POST',
    path: V1,
    auth: 'user',
    capability: 'breakout-rooms-v1',
    talk: true,
    summary: 'Configure breakout rooms (moderators): mode 1 automatic, 2 manual, 3 free; amount 1-20',
    params: Type.Object(
      {
        token: Type.String(),
        mode: Type.Integer({ 'x-error': 'mode' }),
        amount: Type.Integer({ 'x-error': 'amount' }),
        attendeeMap: Type.String({ ...mapOptions, default: '' }),
      },
      { required: ['token', 'mode', 'amount'] },
    ),
    response: ConversationListSchema,
    handler: async ({ ctx, params }) => roomList(ctx, await breakoutRooms.configure(ctx, params.token, params)),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V1}/broadcast`,
    auth: 'user',
    talk: true,
    capability: 'breakout-rooms-v1',
    summary: 'Post a message into every breakout room (moderators): 201 with the breakout rooms',
    statuses: { 201: { description: 'posted; the breakout rooms', schema: ConversationListSchema }, 413: 'the message is longer than 32000 characters' },
    params: Type.Object({ token: Type.String(), message: Type.String({ pattern: '^[^\\x00]*$', 'x-error': 'message' }) }),
    response: ConversationListSchema,
    handler: async ({ ctx, params }) =>
      new OcsReply(await conversationView.present(ctx, await services.breakoutBroadcast.broadcast(ctx, params.token, params.message)), 201),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: V1,
    auth: 'user',
    capability: 'breakout-rooms-v1',
    talk: true,
    summary: 'Remove the breakout rooms (moderators)',
    params: TokenOnly,
    response: ConversationSchema,
    handler: async ({ ctx, params }) => conversationView.presentOne(ctx, await breakoutRooms.remove(ctx, params.token)),
  });

  for (const [method, started] of [
    ['POST', true],
    ['DELETE', false],
  ] as const) {
    ocsRoute(app, services, {
      method,
      path: `${V1}/rooms`,
      auth: 'user',
      capability: 'breakout-rooms-v1',
      talk: true,
      summary: started ? 'Start the breakout rooms (lobbies off, status 1)' : 'Stop the breakout rooms (lobbies on, status 0)',
      params: TokenOnly,
      response: ConversationListSchema,
      handler: async ({ ctx, params }) => roomList(ctx, await breakoutRooms.setStarted(ctx, params.token, started)),
    });
  }

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V1}/attendees`,
    auth: 'user',
    capability: 'breakout-rooms-v1',
    talk: true,
    summary: 'Move attendees between breakout rooms by an attendee map (moderators)',
    params: Type.Object({ token: Type.String(), attendeeMap: Type.String(mapOptions) }, { required: ['token', 'attendeeMap'] }),
    response: ConversationListSchema,
    handler: async ({ ctx, params }) => roomList(ctx, await breakoutRooms.applyAttendeeMap(ctx, params.token, params.attendeeMap)),
  });

  for (const [method, requested] of [
    ['POST', true],
    ['DELETE', false],
  ] as const) {
    ocsRoute(app, services, {
      method,
      path: `${V1}/request-assistance`,
      auth: 'user',
      capability: 'breakout-rooms-v1',
      talk: true,
      summary: requested ? 'Ask for a moderator in this breakout room (status 2)' : 'Withdraw the request for assistance (status 0)',
      params: TokenOnly,
      response: ConversationSchema,
      handler: async ({ ctx, params }) => conversationView.presentOne(ctx, await breakoutRooms.setAssistance(ctx, params.token, requested)),
    });
  }

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V1}/switch`,
    auth: 'user',
    capability: 'breakout-rooms-v1',
    talk: true,
    summary: 'Switch to another breakout room (free selection mode, after the start)',
    params: Type.Object({ token: Type.String(), target: Type.String({ maxLength: 64, 'x-error': 'target' }) }, { required: ['token', 'target'] }),
    response: ConversationSchema,
    handler: async ({ ctx, params }) => conversationView.presentOne(ctx, await breakoutRooms.switchRoom(ctx, params.token, params.target)),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V4}/room/:token/breakout-rooms`,
    auth: 'user',
    capability: 'breakout-rooms-v1',
    talk: true,
    summary: 'Breakout rooms of a conversation: all for moderators and free selection, else the assigned one',
    params: TokenOnly,
    response: ConversationListSchema,
    handler: async ({ ctx, params }) => conversationView.present(ctx, await breakoutRooms.list(ctx, params.token)),
  });
}
