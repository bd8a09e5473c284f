/**
 * Polls (docs/reference/chat.md#polls, base api/v1): create (201; a draft 200), show, vote, close
 * (200; a deleted draft 202), and the drafts: list and edit. Thin: coerce, call PollsService.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { Token } from './common-schemas.js';
import { isProxied, proxiedReply } from './chat-replies.js';

/** The host's answer for a conversation kept here for a host elsewhere, as it came; else the record. */
const orProxied = <T>(r: T) => (isProxied(r) ? proxiedReply(r) : r);

const BASE = '/apps/spreed/api/v1/poll/:token';
const PollId = Type.Integer({ minimum: 0, 'x-error': 'poll' });
const Poll = Type.Record(Type.String(), Type.Unknown());
const NO_NUL = '^[^\\x00]*$';
/** What a poll and a draft are made of (create and edit). */
const POLL_FIELDS = {
  question: Type.String({ pattern: NO_NUL, 'x-error': 'question' }),
  options: Type.Array(Type.Unknown(), { maxItems: 200, 'x-error': 'options' }),
  resultMode: Type.Integer({ default: 0, minimum: 0, maximum: 1, 'x-error': 'resultMode' }),
  maxVotes: Type.Integer({ default: 0, minimum: 0, maximum: 1000, 'x-error': 'maxVotes' }),
};

export async function pollRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const polls = services.polls;

  ocsRoute(app, services, {
    method: 'POST',
    path: BASE,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    capability: 'talk-polls',
    summary: 'Create a poll (posted into the chat), or save a draft (moderators, draft=true)',
    statuses: {
      200: { description: 'the draft (nothing is posted)', schema: Poll },
      201: { description: 'the poll', schema: Poll },
      400: '`room`, `draft` (not a moderator), `question`, `options`',
      412: 'held in the lobby',
    },
    params: Type.Object({ token: Token, ...POLL_FIELDS, draft: Type.Boolean({ default: false, 'x-error': 'draft' }) }),
    response: Poll,
    handler: async ({ params, ctx }) => {
      const poll = await polls.create(ctx, params.token, params);
      return isProxied(poll) ? proxiedReply(poll) : new OcsReply(poll, params.draft ? 200 : 201);
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${BASE}/drafts`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    capability: 'talk-polls-drafts',
    summary: "The conversation's poll drafts, oldest first (moderators)",
    statuses: { 403: 'not a moderator' },
    params: Type.Object({ token: Token }),
    response: Type.Array(Poll),
    handler: async ({ params, ctx }) => orProxied(await polls.drafts(ctx, params.token)),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${BASE}/draft/:pollId`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    capability: 'edit-draft-poll',
    summary: 'Edit a poll draft (moderators and its author)',
    statuses: { 400: '`room`, `poll` (not a draft), `draft` (neither moderator nor author), `question`, `options`', 404: '`poll`', 412: 'held in the lobby' },
    params: Type.Object({ token: Token, pollId: PollId, ...POLL_FIELDS }),
    response: Poll,
    handler: async ({ params, ctx }) => orProxied(await polls.editDraft(ctx, params.token, params.pollId, params)),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${BASE}/:pollId`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    capability: 'talk-polls',
    summary: 'Show a poll',
    params: Type.Object({ token: Token, pollId: PollId }),
    response: Poll,
    handler: async ({ params, ctx }) => orProxied(await polls.get(ctx, params.token, params.pollId)),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${BASE}/:pollId`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    capability: 'talk-polls',
    summary: 'Vote (replaces earlier votes; an empty list withdraws)',
    params: Type.Object({ token: Token, pollId: PollId, optionIds: Type.Array(Type.Unknown(), { default: [], maxItems: 200, 'x-error': 'options' }) }),
    response: Poll,
    handler: async ({ params, ctx }) => orProxied(await polls.vote(ctx, params.token, params.pollId, params.optionIds)),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${BASE}/:pollId`,
    federation: 'forwarded',
    auth: 'public',
    talk: true,
    capability: 'talk-polls',
    summary: 'Close a poll (author or moderator), or delete a draft (logged-in moderators)',
    statuses: { 202: { description: 'a draft was deleted: null', schema: Type.Null() } },
    params: Type.Object({ token: Token, pollId: PollId }),
    response: Type.Union([Poll, Type.Null()]),
    handler: async ({ params, ctx }) => {
      const closed = await polls.close(ctx, params.token, params.pollId);
      return closed === null ? new OcsReply(null, 202) : orProxied(closed);
    },
  });
}
