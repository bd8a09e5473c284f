/**
 * Participant endpoints (contract "Participants", base api/v4; the guest name under api/v1):
 * list, add, remove, leave, join/leave sessions, session state, moderators, permissions,
 * invitations. Thin: coerce, call the participants/sessions services, present.
 * The SIP-bridge endpoints of the same section live with the SIP work.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ConversationSchema } from '../../presenters/conversation-schema.js';
import type { Services } from '../../services/index.js';
import { newCookieHeaders } from '../auth/cookie-session.js';
import { PARTICIPANT_KEYS, type ParticipantRecord } from '../../presenters/participant.js';
import { compileRecordWriter, WrittenList } from '../ocs/json-bytes.js';
import { KeptReply, OcsReply, ocsRoute } from '../ocs/route.js';
import { AddResult, EmptyList, NullData, ParticipantListSchema } from './participant-schemas.js';
import { Token, V4 } from './common-schemas.js';

const AttendeeId = Type.Integer({ 'x-error': 'attendeeId' });
const Method = Type.String({ maxLength: 32, 'x-error': 'method' });
const Permissions = Type.Integer({ 'x-error': 'permissions' });
/** The list is written record by record into the JSON answer's bytes (no 1.4 MB string for 5,000). */
const writeParticipant = compileRecordWriter<ParticipantRecord, typeof PARTICIPANT_KEYS>(PARTICIPANT_KEYS);

export async function participantRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { participants, participantRoles, sessions, conversationView } = services;

  for (const [path, breakout] of [
    [`${V4}/room/:token/participants`, false],
    [`${V4}/room/:token/breakout-rooms/participants`, true],
  ] as const) {
    ocsRoute(app, services, {
      method: 'GET',
      path,
      // Forwarded to the host for a conversation kept here (docs/federation.md#the-proxied-conversation).
      ...(breakout ? {} : { federation: 'forwarded' as const }),
      auth: 'public',
      talk: true,
      capability: breakout ? 'breakout-rooms-v1' : undefined,
      summary: breakout ? 'Participants of a conversation and its breakout rooms' : 'Participants of a conversation',
      response: ParticipantListSchema,
      params: Type.Object({ token: Token, includeStatus: Type.Boolean({ default: false }) }, { required: ['token'] }),
      cache: { store: 'conversations', key: ({ params }) => ['participants', breakout, params.token, params.includeStatus] },
      handler: async ({ ctx, params }) => {
        const out = await participants.list(ctx, params.token, { includeStatus: params.includeStatus, breakout });
        const headers: Record<string, string> = out.withStatuses ? { 'X-Nextcloud-Has-User-Statuses': 'true' } : {};
        return new KeptReply(new WrittenList(out.records, writeParticipant), { until: out.until, topics: out.topics }, headers);
      },
    });
  }

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V4}/room/:token/participants`,
    // Public: the contract lists 403/404 here, never 401 (guests and anonymous callers included).
    auth: 'public',
    talk: true,
    summary: 'Add a user, group, team (circle) or e-mail guest',
    response: AddResult,
    params: Type.Object(
      {
        token: Type.String(),
        newParticipant: Type.String({ maxLength: 255, 'x-error': 'newParticipant' }),
        source: Type.String({ default: 'users', maxLength: 32, 'x-error': 'source' }),
      },
      { required: ['token', 'newParticipant'] },
    ),
    handler: async ({ ctx, params }) => participants.add(ctx, params.token, params.newParticipant, params.source),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${V4}/room/:token/attendees`,
    auth: 'public',
    talk: true,
    summary: 'Remove an attendee',
    response: NullData,
    params: Type.Object({ token: Type.String(), attendeeId: AttendeeId }, { required: ['token', 'attendeeId'] }),
    handler: async ({ ctx, params }) => {
      await participants.removeAttendee(ctx, params.token, params.attendeeId);
      return null;
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${V4}/room/:token/participants/self`,
    federation: 'forwarded',
    // Public: the contract lists 403/404 here, never 401 (guests and anonymous callers included).
    auth: 'public',
    talk: true,
    summary: 'Leave a conversation for good',
    response: NullData,
    params: Type.Object({ token: Type.String() }),
    handler: async ({ ctx, params }) => {
      await participants.removeSelf(ctx, params.token);
      return null;
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V4}/room/:token/participants/active`,
    federation: 'local',
    auth: 'public',
    talk: true,
    summary: 'Join a conversation (new session); 409 when this browser session is still active and force=false',
    statuses: {
      409: {
        description: 'the caller already has an active session here (force=false)',
        schema: Type.Object({ sessionId: Type.String(), inCall: Type.Integer(), lastPing: Type.Integer() }),
      },
    },
    response: ConversationSchema,
    params: Type.Object({
      token: Type.String(),
      password: Type.String({ default: '', maxLength: 1024, 'x-error': 'password' }),
      force: Type.Boolean({ default: true, 'x-error': 'force' }),
    }),
    handler: async ({ ctx, params }) => {
      const cookieBefore = ctx.guestSessionKey;
      const joined = await sessions.join(ctx, params.token, { password: params.password, force: params.force });
      const record = await conversationView.presentOne(ctx, joined);
      return new OcsReply(
        record,
        200,
        newCookieHeaders(cookieBefore, ctx.guestSessionKey, (k) => services.clientSessions.setCookieHeader(k)),
      );
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${V4}/room/:token/participants/active`,
    federation: 'local',
    auth: 'public',
    talk: true,
    summary: 'Leave the conversation with the current session',
    response: NullData,
    params: Type.Object({ token: Type.String() }),
    handler: async ({ ctx, params }) => {
      await sessions.leave(ctx, params.token);
      return null;
    },
  });

  ocsRoute(app, services, {
    method: 'PUT',
    path: `${V4}/room/:token/participants/state`,
    federation: 'local',
    capability: 'session-state',
    auth: 'public',
    talk: true,
    summary: 'Set the session state: 0 inactive, 1 active',
    response: ConversationSchema,
    params: Type.Object({ token: Type.String(), state: Type.Integer({ 'x-error': 'state' }) }, { required: ['token', 'state'] }),
    handler: async ({ ctx, params }) => conversationView.presentOne(ctx, await sessions.setState(ctx, params.token, params.state)),
  });

  for (const [method, promote] of [
    ['POST', true],
    ['DELETE', false],
  ] as const) {
    ocsRoute(app, services, {
      method,
      path: `${V4}/room/:token/moderators`,
      auth: 'public',
      talk: true,
      summary: promote ? 'Promote a user or guest to moderator' : 'Demote a moderator',
      response: NullData,
      params: Type.Object({ token: Type.String(), attendeeId: AttendeeId }, { required: ['token', 'attendeeId'] }),
      handler: async ({ ctx, params }) => {
        await participantRoles.setModerator(ctx, params.token, params.attendeeId, promote);
        return null;
      },
    });
  }

  ocsRoute(app, services, {
    method: 'PUT',
    path: `${V4}/room/:token/attendees/permissions`,
    auth: 'public',
    talk: true,
    summary: "Set, add or remove an attendee's permissions",
    response: ParticipantListSchema,
    params: Type.Object(
      { token: Type.String(), attendeeId: AttendeeId, method: Method, permissions: Permissions },
      { required: ['token', 'attendeeId', 'method', 'permissions'] },
    ),
    handler: async ({ ctx, params }) => participantRoles.setPermissions(ctx, params.token, params.attendeeId, params.method, params.permissions),
  });

  ocsRoute(app, services, {
    method: 'PUT',
    path: `${V4}/room/:token/attendees/permissions/all`,
    auth: 'public',
    talk: true,
    summary: 'Deprecated: validates and does nothing',
    response: NullData,
    params: Type.Object({ token: Type.String(), method: Method, permissions: Permissions }, { required: ['token', 'method', 'permissions'] }),
    handler: async ({ ctx, params }) => {
      await participantRoles.setAllPermissions(ctx, params.token, params.method, params.permissions);
      return null;
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V4}/room/:token/participants/resend-invitations`,
    capability: 'sip-support',
    // Public: the contract lists 403/404 here, never 401 (guests and anonymous callers included).
    auth: 'public',
    talk: true,
    summary: 'Send the invitation mails again (all e-mail guests, or one attendee)',
    response: NullData,
    params: Type.Object({ token: Type.String(), attendeeId: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { 'x-error': 'attendeeId' })) }),
    handler: async ({ ctx, params }) => {
      await participants.resendInvitations(ctx, params.token, params.attendeeId ?? null);
      return null;
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: '/apps/spreed/api/v1/guest/:token/name',
    auth: 'public',
    talk: true,
    summary: 'Set the display name as a guest',
    response: EmptyList,
    params: Type.Object({ token: Type.String(), displayName: Type.String({ 'x-error': 'displayName' }) }, { required: ['token', 'displayName'] }),
    handler: async ({ ctx, params }) => {
      await participants.setGuestName(ctx, params.token, params.displayName);
      return [];
    },
  });
}
