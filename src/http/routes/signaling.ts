/**
 * Signaling endpoints (docs/reference/signaling.md): settings for clients, the internal signaling
 * relay, the backend API of an external signaling server, and the admin's check that a configured
 * signaling server answers.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { INTERNAL_SIGNALING_DISABLED } from '../../services/signaling/internal-signaling.js';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { Token } from './common-schemas.js';

export const V3 = '/apps/spreed/api/v3';

const Anything = Type.Object({}, { additionalProperties: true });

export async function signalingRoutes(app: FastifyInstance, services: Services): Promise<void> {
  ocsRoute(app, services, {
    method: 'GET',
    path: `${V3}/signaling/settings`,
    federation: 'local',
    auth: 'public',
    summary: 'Signaling settings: mode, server, tickets (v1 ticket, v2 JWT), STUN and TURN servers with time-limited credentials',
    params: Type.Object({ token: Type.String({ default: '', maxLength: 64 }) }),
    response: Anything,
    statuses: { 404: 'no token for an anonymous caller, or a conversation the caller has not joined (error room)' },
    handler: async ({ params, ctx }) => services.signaling.settings(ctx, params.token),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V3}/signaling/backend`,
    auth: 'public',
    summary: 'Backend API of the external signaling server (auth, room, ping), signed with Spreed-Signaling-Random/-Checksum',
    // The body is read raw (the checksum covers its bytes) and interpreted by the service.
    params: Type.Object({}, { additionalProperties: true }),
    response: Anything,
    handler: async ({ ctx, request }) => services.signalingBackend.handle(ctx, (request as { rawBody?: string }).rawBody ?? ''),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V3}/signaling/welcome/:serverId`,
    auth: 'admin',
    summary: 'Admin: whether configured signaling server serverId (0-based) answers its welcome endpoint',
    params: Type.Object({ serverId: Type.Integer({ minimum: 0, maximum: 1000, 'x-error': 'serverId' }) }),
    response: Anything,
    handler: async ({ params }) => {
      const r = await services.signaling.welcome(params.serverId);
      return new OcsReply(r.data, r.status);
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V3}/signaling/:token`,
    auth: 'public',
    summary: 'Internal signaling: wait for messages to the caller’s session (long poll), then usersInRoom',
    params: Type.Object({ token: Token }),
    response: Type.Array(Anything),
    statuses: {
      400: { description: 'internal signaling is disabled (external signaling server configured)', schema: Type.String() },
      404: { description: 'the caller has no session in the conversation: the messages that announce it', schema: Type.Array(Anything) },
    },
    handler: async ({ params, ctx, reply }) => {
      if (!(await services.internalSignaling.enabled())) return new OcsReply(INTERNAL_SIGNALING_DISABLED, 400);
      // The response closing before it was written means the client went away: stop waiting.
      const abort = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableEnded) abort.abort();
      });
      const r = await services.internalSignaling.poll(ctx, params.token, abort.signal);
      return new OcsReply(r.items, r.kind === 'ok' ? 200 : 404);
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V3}/signaling/:token`,
    auth: 'public',
    summary: 'Internal signaling: relay messages to sessions of the same conversation',
    params: Type.Object({ token: Token, messages: Type.String({ maxLength: 1_000_000, 'x-error': 'messages' }) }),
    response: Type.Null(),
    handler: async ({ params, ctx }) => {
      if (!(await services.internalSignaling.enabled())) return new OcsReply(INTERNAL_SIGNALING_DISABLED, 400);
      await services.internalSignaling.send(ctx, params.token, params.messages);
      return null;
    },
  });
}
