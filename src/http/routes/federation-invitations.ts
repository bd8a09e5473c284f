/**
 * A user's invitations to conversations on other servers (docs/reference/federation.md#invitations):
 * `GET /api/v1/federation/invitation`, accept with `POST …/invitation/{id}`, decline with
 * `DELETE …/invitation/{id}`. Exist while `federation-v1` is advertised (federation enabled).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { ocsRoute } from '../ocs/route.js';
import { ConversationSchema } from '../../presenters/conversation-schema.js';

const BASE = '/apps/spreed/api/v1/federation/invitation';
const Id = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, 'x-error': 'invitation' });

const Invitation = Type.Object({
  id: Type.Integer(),
  userId: Type.String(),
  state: Type.Integer({ description: '0 pending, 1 accepted' }),
  localCloudId: Type.String(),
  remoteServerUrl: Type.String(),
  remoteToken: Type.String(),
  remoteAttendeeId: Type.Integer(),
  inviterCloudId: Type.String(),
  inviterDisplayName: Type.String(),
  roomName: Type.String(),
  localToken: Type.String({ description: "the conversation's token here once accepted, empty while pending" }),
});

export async function federationInvitationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const invitations = services.federation.invitations;

  ocsRoute(app, services, {
    method: 'GET',
    path: BASE,
    auth: 'user',
    talk: true,
    capability: 'federation-v1',
    params: Type.Object({}),
    response: Type.Array(Invitation),
    summary: "The caller's invitations to federated conversations (pending and accepted)",
    handler: ({ ctx }) => invitations.list(ctx),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${BASE}/:id`,
    auth: 'user',
    talk: true,
    capability: 'federation-v1',
    params: Type.Object({ id: Id }),
    response: ConversationSchema,
    statuses: {
      400: '`state`: accepted already',
      404: '`invitation`: not an invitation of the caller',
      410: '`remote`: the host could not be reached or refused; the invitation stays pending',
    },
    summary: 'Accept an invitation (the host is told at once); answers the conversation kept here',
    handler: async ({ ctx, params }) => services.conversationView.presentOne(ctx, await invitations.accept(ctx, params.id)),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${BASE}/:id`,
    auth: 'user',
    talk: true,
    capability: 'federation-v1',
    params: Type.Object({ id: Id }),
    response: Type.Null(),
    statuses: { 400: '`state`: accepted already (leave the conversation instead)', 404: '`invitation`: not an invitation of the caller' },
    summary: 'Decline an invitation (the host is told through the outbox)',
    handler: async ({ ctx, params }) => {
      await invitations.decline(ctx, params.id);
      return null;
    },
  });
}
