/**
 * Polls (talk-chat-calls.md §3.2, base api/v1): create (201), show, vote, close (200).
 * Thin: coerce, call PollsService.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { Token } from './common-schemas.js';

const BASE = '/apps/spreed/api/v1/poll/:token';
const PollId = Type.Integer({ minimum: 0, 'x-error': 'poll' });
const Poll = Type.Record(Type.String(), Type.Unknown());
const NO_NUL = '^[^\\x00]*$';

export async function pollRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const polls = services.polls;

  ocsRoute(app, services, {
    method: 'POST',
    path: BASE,
    auth: 'public',
    talk: true,
    capability: 'talk-polls',
    summary: 'Create a poll (posted into the chat)',
    statuses: { 201: { description: 'the poll', schema: Poll }, 412: 'held in the lobby' },
    params: Type.Object({
      token: Token,
      question: Type.String({ pattern: NO_NUL, 'x-error': 'question' }),
      options: Type.Array(Type.Unknown(), { maxItems: 200, 'x-error': 'options' }),
      resultMode: Type.Integer({ default: 0, minimum: 0, maximum: 1, 'x-error': 'resultMode' }),
      maxVotes: Type.Integer({ default: 0, minimum: 0, maximum: 1000, 'x-error': 'maxVotes' }),
      draft: Type.Boolean({ default: false, 'x-error': 'draft' }),
    }),
    response: Poll,
    handler: async ({ params, ctx }) => new OcsReply(await polls.create(ctx, params.token, params), 201),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${BASE}/:pollId`,
    auth: 'public',
    talk: true,
    capability: 'talk-polls',
    summary: 'Show a poll',
    params: Type.Object({ token: Token, pollId: PollId }),
    response: Poll,
    handler: async ({ params, ctx }) => polls.get(ctx, params.token, params.pollId),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${BASE}/:pollId`,
    auth: 'public',
    talk: true,
    capability: 'talk-polls',
    summary: 'Vote (replaces earlier votes; an empty list withdraws)',
    params: Type.Object({ token: Token, pollId: PollId, optionIds: Type.Array(Type.Unknown(), { default: [], maxItems: 200, 'x-error': 'options' }) }),
    response: Poll,
    handler: async ({ params, ctx }) => polls.vote(ctx, params.token, params.pollId, params.optionIds),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${BASE}/:pollId`,
    auth: 'public',
    talk: true,
    capability: 'talk-polls',
    summary: 'Close a poll (author or moderator)',
    params: Type.Object({ token: Token, pollId: PollId }),
    response: Poll,
    handler: async ({ params, ctx }) => polls.close(ctx, params.token, params.pollId),
  });
}
