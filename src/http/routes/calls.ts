/**
 * Call endpoints (docs/reference/calls.md#the-call-api, base api/v4, under /ocs/v2.php and /ocs/v1.php): list
 * the peers, join, update flags, leave or end for everyone, ring an attendee. Thin: coerce,
 * call CallService. They act on the caller's room session (join the conversation first).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { DEFAULT_JOIN_FLAGS } from '../../services/calls/calls.js';
import type { Services } from '../../services/index.js';
import { ocsRoute } from '../ocs/route.js';
import { NullData, Token, V4 } from './common-schemas.js';

const CALL = `${V4}/call/:token`;
const Flags = Type.Integer({ 'x-error': 'flags' });

const PeerSchema = Type.Object({
  actorType: Type.String(),
  actorId: Type.String(),
  displayName: Type.String(),
  token: Type.String(),
  lastPing: Type.Integer(),
  sessionId: Type.String(),
});

export async function callRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { calls } = services;

  ocsRoute(app, services, {
    method: 'GET',
    path: CALL,
    auth: 'public',
    talk: true,
    summary: 'Sessions in the call (in call, pinged within 30 s)',
    response: Type.Array(PeerSchema),
    params: Type.Object({ token: Token }),
    handler: async ({ ctx, params }) => calls.peers(ctx, params.token),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: CALL,
    auth: 'public',
    talk: true,
    summary: 'Join the call with the current session (starts it when none runs)',
    response: NullData,
    params: Type.Object(
      {
        token: Token,
        flags: Type.Integer({ default: DEFAULT_JOIN_FLAGS, 'x-error': 'flags' }),
        silent: Type.Boolean({ default: false, 'x-error': 'silent' }),
        recordingConsent: Type.Boolean({ default: false, 'x-error': 'recordingConsent' }),
        silentFor: Type.Array(Type.String({ maxLength: 255 }), { default: [], maxItems: 1000, 'x-error': 'silentFor' }),
      },
      { required: ['token'] },
    ),
    handler: async ({ ctx, params }) => {
      await calls.join(ctx, params.token, {
        flags: params.flags,
        silent: params.silent,
        recordingConsent: params.recordingConsent,
        silentFor: params.silentFor,
      });
      return null;
    },
  });

  ocsRoute(app, services, {
    method: 'PUT',
    path: CALL,
    auth: 'public',
    talk: true,
    summary: 'Update the in-call flags of the current session',
    response: NullData,
    params: Type.Object({ token: Token, flags: Flags }, { required: ['token', 'flags'] }),
    handler: async ({ ctx, params }) => {
      await calls.updateFlags(ctx, params.token, params.flags);
      return null;
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: CALL,
    auth: 'public',
    talk: true,
    summary: 'Leave the call; all=true ends it for everyone (moderators)',
    response: NullData,
    params: Type.Object({ token: Token, all: Type.Boolean({ default: false, 'x-error': 'all' }) }, { required: ['token'] }),
    handler: async ({ ctx, params }) => {
      await calls.leave(ctx, params.token, params.all);
      return null;
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${CALL}/ring/:attendeeId`,
    auth: 'public',
    talk: true,
    summary: 'Ring an attendee (a user) while in the call',
    response: NullData,
    params: Type.Object({ token: Token, attendeeId: Type.Integer({ 'x-error': 'attendeeId' }) }),
    handler: async ({ ctx, params }) => {
      await calls.ring(ctx, params.token, params.attendeeId);
      return null;
    },
  });
}
