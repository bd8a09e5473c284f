/**
 * Conversations core endpoints (contract "Conversations", base api/v4): list, create, get one,
 * listed rooms, rename and delete. Thin: coerce, call RoomsService, present the record.
 * Other conversation mutators (description, public, password, ...) live in their own modules.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ConversationListSchema, ConversationSchema } from '../../presenters/conversation-schema.js';
import type { Services } from '../../services/index.js';
import { JsonArrayOfParts } from '../ocs/json-bytes.js';
import { KeptReply, OcsReply, ocsRoute } from '../ocs/route.js';
import { Token, V4 } from './common-schemas.js';
import { nowSeconds } from '../../domain/time.js';
import { conversationTopics } from '../../cache/answer-topics.js';
import { INVITATION_KINDS, INVITATION_MAX_LENGTH, INVITATIONS_MAX } from '../../services/conversations/room-invitations.js';

/** Talk's `participants` map of POST /room: each kind a list of ids, e-mail addresses, cloud ids or numbers. */
const InvitationList = Type.Array(Type.String({ maxLength: INVITATION_MAX_LENGTH }), { maxItems: INVITATIONS_MAX });
const Invitations = Type.Object(Object.fromEntries(INVITATION_KINDS.map((k) => [k, Type.Optional(InvitationList)])), { 'x-error': 'invite' });
const CreatedWithInvalid = Type.Intersect([ConversationSchema, Type.Object({ invalidParticipants: Invitations })]);

export async function conversationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const rooms = services.rooms;

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V4}/room`,
    auth: 'user',
    talk: true,
    summary: "The caller's conversations (modifiedSince, includeStatus, includeLastMessage)",
    params: Type.Object({
      noStatusUpdate: Type.Integer({ default: 0, minimum: 0, maximum: 1 }),
      includeStatus: Type.Boolean({ default: false }),
      modifiedSince: Type.Integer({ default: 0, minimum: 0 }),
      includeLastMessage: Type.Boolean({ default: true }),
    }),
    response: ConversationListSchema,
    cache: {
      store: 'conversations',
      // A poll with modifiedSince names the previous poll's time: its answer is asked once, so it
      // is not kept (it would only push the lists that are asked again out of the cache).
      key: ({ params }) => (params.modifiedSince > 0 ? undefined : ['list', params.includeStatus, params.includeLastMessage]),
      perRequest: async ({ params, ctx }) => {
        // Contract: without noStatusUpdate=1 the caller counts as online (participants area, user status).
        if (params.noStatusUpdate === 0) await services.userStatus.markOnline(ctx.userId!);
        // Taken before the query, so a change made while it runs is returned again next time.
        const modifiedBefore = String(nowSeconds());
        return { 'X-Service-Modified-Before': modifiedBefore, 'X-Nextcloud-Talk-Modified-Before': modifiedBefore };
      },
    },
    handler: async ({ params, ctx }) => {
      // Records kept while the database says they are current (services/conversations/conversation-list.ts);
      // XML (rare for this list) is written from the same records.
      const { parts, until, topics } = await services.conversationList.renderJson(ctx, params);
      return new KeptReply(new JsonArrayOfParts(parts), { until, topics }, await services.serviceHash.headers(ctx));
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V4}/room`,
    auth: 'user',
    talk: true,
    summary: 'Create a conversation (one-to-one, group, public, breakout child)',
    statuses: {
      200: { description: 'the one-to-one conversation already exists', schema: ConversationSchema },
      201: { description: 'created', schema: ConversationSchema },
      202: { description: 'created; some participants could not be invited (invalidParticipants)', schema: CreatedWithInvalid },
      404: 'the user, group or team to invite does not exist',
    },
    params: Type.Object({
      roomType: Type.Integer({ 'x-error': 'type' }),
      invite: Type.String({ default: '', maxLength: 255, 'x-error': 'invite' }),
      source: Type.String({ default: '', maxLength: 64, 'x-error': 'source' }),
      roomName: Type.String({ default: '', 'x-error': 'name' }),
      objectType: Type.String({ default: '', maxLength: 64, 'x-error': 'object' }),
      objectId: Type.String({ default: '', maxLength: 64, 'x-error': 'object' }),
      // Talk's current create-time settings (docs/reference/conversations.md#creation), each optional.
      password: Type.Optional(Type.String({ maxLength: 1024, 'x-error': 'password' })),
      readOnly: Type.Optional(Type.Integer({ 'x-error': 'read-only' })),
      listable: Type.Optional(Type.Integer({ 'x-error': 'listable' })),
      messageExpiration: Type.Optional(Type.Integer({ 'x-error': 'message-expiration' })),
      lobbyState: Type.Optional(Type.Integer({ 'x-error': 'lobby' })),
      lobbyTimer: Type.Optional(Type.Integer({ 'x-error': 'lobby-timer' })),
      sipEnabled: Type.Optional(Type.Integer({ 'x-error': 'sip-enabled' })),
      permissions: Type.Optional(Type.Integer({ 'x-error': 'permissions' })),
      recordingConsent: Type.Optional(Type.Integer({ 'x-error': 'recording-consent' })),
      mentionPermissions: Type.Optional(Type.Integer({ 'x-error': 'mention-permissions' })),
      description: Type.Optional(Type.String({ 'x-error': 'description' })),
      emoji: Type.Optional(Type.String({ maxLength: 64, 'x-error': 'avatar' })),
      avatarColor: Type.Optional(Type.String({ maxLength: 16, 'x-error': 'avatar' })),
      // Talk 21+: who to invite (docs/reference/conversations.md#creation-with-participants).
      participants: Type.Optional(Invitations),
    }),
    response: ConversationSchema,
    handler: async ({ params, ctx }) => {
      const { roomType, invite, source, roomName, objectType, objectId, participants, ...options } = params;
      const input = { roomType, invite, source, roomName, objectType, objectId, options };
      const { caller, created, invalid } = await services.roomInvitations.create(ctx, input, participants);
      // The new conversation's lastMessage is its conversation_created message, as in Talk.
      const record = await services.conversationView.presentOne(ctx, caller);
      if (invalid) return new OcsReply({ ...record, invalidParticipants: invalid }, 202);
      return new OcsReply(record, created ? 201 : 200);
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V4}/room/note-to-self`,
    auth: 'user',
    talk: true,
    capability: 'note-to-self',
    summary: "The caller's note-to-self conversation, created on first demand",
    params: Type.Object({}),
    response: ConversationSchema,
    handler: async ({ ctx }) => {
      const caller = await services.roomCreation.noteToSelf(ctx);
      return new OcsReply(await services.conversationView.presentOne(ctx, caller), 200, await services.serviceHash.headers(ctx));
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V4}/room/:token`,
    federation: 'local',
    auth: 'public',
    talk: true,
    summary: 'One conversation (participants, guests, and non-participants where it is listed or public)',
    params: Type.Object({ token: Token }),
    response: ConversationSchema,
    cache: {
      store: 'conversations',
      // The record depends only on the user, the database and the clock. A request signed by the
      // SIP bridge is answered its own view, never kept.
      key: ({ params, ctx }) => (services.sip.isBridgeRequest(ctx) ? undefined : ['room', params.token]),
    },
    handler: async ({ params, ctx }) => {
      // A signed SIP-bridge request sees any conversation in the limited view (docs/reference/sip.md#bridge-endpoints).
      const bridgeRecord = await services.sip.bridgeRecord(ctx, params.token);
      if (bridgeRecord) return new OcsReply(bridgeRecord, 200, await services.serviceHash.headers(ctx));
      // Only found conversations are kept (an error is never stored), so a miss is always looked
      // up (and throttled) again.
      const caller = await rooms.getRoomForCaller(ctx, params.token, { withChat: true });
      const validity = { until: Infinity };
      const record = await services.conversationView.presentOne(ctx, caller, { includeStatus: true, validity });
      const topics = conversationTopics(caller.room, ctx.userId!);
      return new KeptReply(record, { until: validity.until, topics }, await services.serviceHash.headers(ctx));
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V4}/listed-room`,
    capability: 'listable-rooms',
    auth: 'user',
    talk: true,
    summary: 'Open (listable) conversations the caller is not in, filtered by searchTerm',
    params: Type.Object({ searchTerm: Type.String({ default: '', maxLength: 255, 'x-error': 'searchTerm' }) }),
    response: ConversationListSchema,
    handler: async ({ params, ctx }) => {
      const views = await rooms.listed(ctx, params.searchTerm.trim());
      return services.conversationView.present(ctx, views, { includeLastMessage: false });
    },
  });

  ocsRoute(app, services, {
    method: 'PUT',
    path: `${V4}/room/:token`,
    auth: 'public',
    talk: true,
    summary: 'Rename a conversation (moderators)',
    params: Type.Object({ token: Token, roomName: Type.String({ default: '', 'x-error': 'value' }) }),
    response: ConversationSchema,
    handler: async ({ params, ctx }) => {
      const caller = await rooms.rename(ctx, params.token, params.roomName);
      return services.conversationView.presentOne(ctx, caller);
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${V4}/room/:token`,
    auth: 'public',
    talk: true,
    summary: 'Delete a conversation with its breakout rooms (moderators)',
    params: Type.Object({ token: Token }),
    response: Type.Null(),
    handler: async ({ params, ctx }) => {
      await rooms.deleteConversation(ctx, params.token);
      return null;
    },
  });
}
