/**
 * Shared objects in a chat (docs/reference/chat.md#endpoints, docs/reference/chat.md#shared-objects, base api/v1): share a rich object,
 * list the shared items of one kind, and the overview of every kind. Thin: coerce, call
 * ChatSharesService, format with presenters/chat-message.ts.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { formatChatMessage } from '../../presenters/chat-message.js';
import type { Services } from '../../services/index.js';
import { IdKeyedObject } from '../ocs/json-bytes.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { oneReply } from './chat-replies.js';
import { Token } from './common-schemas.js';

const BASE = '/apps/spreed/api/v1/chat/:token/share';
const NO_NUL = '^[^\\x00]*$';
const Message = Type.Record(Type.String(), Type.Unknown());

/** Limits as Talk clamps them (docs/reference/chat.md#endpoints): a list 1..200 (default 100), the overview 1..20 (default 7). */
const LIST_MAX = 200;
const LIST_DEFAULT = 100;
const OVERVIEW_MAX = 20;
const OVERVIEW_DEFAULT = 7;
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

export async function chatShareRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const shares = services.chatShares;

  ocsRoute(app, services, {
    method: 'POST',
    path: BASE,
    auth: 'public',
    talk: true,
    capability: 'rich-object-sharing',
    summary: 'Share a rich object (a location, a deck card, ...) as a message',
    statuses: {
      201: { description: 'the message', schema: Message },
      400: 'the object is not a valid rich object (`object`) or its link is not on this server (`link`)',
      412: 'held in the lobby',
    },
    params: Type.Object({
      token: Token,
      objectType: Type.String({ minLength: 1, maxLength: 64, pattern: NO_NUL, 'x-error': 'object' }),
      objectId: Type.String({ minLength: 1, maxLength: 1000, pattern: NO_NUL, 'x-error': 'object' }),
      metaData: Type.String({ default: '', maxLength: 32000, pattern: NO_NUL, 'x-error': 'object' }),
      actorDisplayName: Type.String({ default: '', maxLength: 255, pattern: NO_NUL, 'x-error': 'actorDisplayName' }),
      referenceId: Type.String({ default: '', maxLength: 1000, pattern: NO_NUL, 'x-error': 'referenceId' }),
    }),
    response: Message,
    handler: async ({ params, ctx }) => oneReply(await shares.share(ctx, params.token, params), 201),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: BASE,
    auth: 'public',
    talk: true,
    capability: 'rich-object-list-media',
    summary: 'The shared items of one kind, newest first, keyed by message id',
    statuses: { 412: 'held in the lobby' },
    params: Type.Object({
      token: Token,
      objectType: Type.String({ maxLength: 64, pattern: NO_NUL, 'x-error': 'objectType' }),
      lastKnownMessageId: Type.Integer({ default: 0, 'x-error': 'lastKnownMessageId' }),
      limit: Type.Integer({ default: LIST_DEFAULT, 'x-error': 'limit' }),
    }),
    response: Type.Union([Type.Record(Type.String(), Message), Type.Array(Message)]),
    handler: async ({ params, ctx }) => {
      const page = await shares.list(ctx, params.token, params.objectType, Math.max(0, params.lastKnownMessageId), clamp(params.limit, 1, LIST_MAX));
      // An object keyed by message id, newest first as PHP keeps it (PHP's empty array is `[]`),
      // with X-Chat-Last-Given only.
      const byId = new IdKeyedObject(page.rows.map((row) => [row.id, formatChatMessage(row, page.env)] as const));
      return new OcsReply(page.rows.length ? byId : [], 200, page.lastGiven !== undefined ? { 'X-Chat-Last-Given': String(page.lastGiven) } : {});
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${BASE}/overview`,
    auth: 'public',
    talk: true,
    capability: 'rich-object-list-media',
    summary: 'The newest shared items of every kind',
    statuses: { 412: 'held in the lobby' },
    params: Type.Object({ token: Token, limit: Type.Integer({ default: OVERVIEW_DEFAULT, 'x-error': 'limit' }) }),
    response: Type.Record(Type.String(), Type.Array(Message)),
    handler: async ({ params, ctx }) => {
      const { page, byType } = await shares.overview(ctx, params.token, clamp(params.limit, 1, OVERVIEW_MAX));
      const out: Record<string, unknown[]> = {};
      for (const [type, rows] of byType) out[type] = rows.map((r) => formatChatMessage(r, page.env));
      return new OcsReply(out);
    },
  });
}
