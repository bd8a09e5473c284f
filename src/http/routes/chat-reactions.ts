/**
 * Reactions (docs/reference/chat.md#reactions, base api/v1): add (201 new, 200 already there), remove,
 * list (optional `reaction` filter). Thin: coerce, call ChatReactionsService.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { Token } from './common-schemas.js';
import { isProxied, proxiedReply } from './chat-replies.js';
import type { ProxiedAnswer } from '../../services/federation/proxy.js';

const PATH = '/apps/spreed/api/v1/reaction/:token/:messageId';
const MessageId = Type.Integer({ minimum: 0, 'x-error': 'message' });
const Reaction = Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\x00]*$', 'x-error': 'reaction' });
const ReactionsMap = Type.Record(Type.String(), Type.Array(Type.Record(Type.String(), Type.Unknown())));

/** `{}` when empty (docs/reference/chat.md#reactions): an object, never PHP's `[]`. */
const mapReply = (map: Record<string, unknown> | ProxiedAnswer, status = 200) => (isProxied(map) ? proxiedReply(map) : new OcsReply(map, status));

export async function chatReactionRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const reactions = services.chatReactions;

  ocsRoute(app, services, {
    method: 'POST',
    path: PATH,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    capability: 'reactions',
    summary: 'React to a message (201 added, 200 already reacted)',
    statuses: { 201: { description: 'added', schema: ReactionsMap }, 412: 'held in the lobby' },
    params: Type.Object({ token: Token, messageId: MessageId, reaction: Reaction }),
    response: ReactionsMap,
    handler: async ({ params, ctx }) => {
      const r = await reactions.add(ctx, params.token, params.messageId, params.reaction);
      if ('proxied' in r) return proxiedReply(r);
      return mapReply(r.reactions, r.created ? 201 : 200);
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: PATH,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    capability: 'reactions',
    summary: 'Remove a reaction',
    params: Type.Object({ token: Token, messageId: MessageId, reaction: Reaction }),
    response: ReactionsMap,
    handler: async ({ params, ctx }) => mapReply(await reactions.remove(ctx, params.token, params.messageId, params.reaction)),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: PATH,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    capability: 'reactions',
    summary: 'List the reactions of a message (optionally of one emoji)',
    params: Type.Object({ token: Token, messageId: MessageId, reaction: Type.Optional(Reaction) }),
    response: ReactionsMap,
    handler: async ({ params, ctx }) => mapReply(await reactions.list(ctx, params.token, params.messageId, params.reaction)),
  });
}
