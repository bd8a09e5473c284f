/**
 * Nextcloud's files_sharing share API for conversations (docs/files.md#sharing-into-a-conversation,
 * docs/reference/files.md#the-share-api): create a share of type 10 (posts the file into the
 * chat), list and get shares, delete one. Thin: coerce, call FileSharesService, format with
 * presenters/files/share.ts.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { formatShare } from '../../../presenters/files/share.js';
import type { Services } from '../../../services/index.js';
import { OcsReply, ocsRoute } from '../../ocs/route.js';
import { shareFailure } from '../../../domain/errors.js';

const BASE = '/apps/files_sharing/api/v1/shares';
const NO_NUL = '^[^\\x00]*$';
const Share = Type.Record(Type.String(), Type.Unknown());

/** A share id from the path: digits, else the share does not exist (404, as Nextcloud). */
function shareId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw shareFailure(404, 'share', 'Wrong share ID, share does not exist');
  return Number(raw);
}

export async function fileShareRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const shares = services.fileShares;
  const base = services.settings.baseUrl;

  ocsRoute(app, services, {
    method: 'POST',
    path: BASE,
    auth: 'user',
    summary: 'Share a file into a conversation (shareType 10, shareWith the token): posts it in the chat',
    statuses: {
      400: 'an unknown share type (`shareType`)',
      403: 'the conversation is read-only or the caller may not chat',
      404: 'no such file of the caller (`path`), or not a participant of the conversation (`room`)',
      412: 'held in the lobby',
    },
    params: Type.Object({
      shareType: Type.Optional(Type.Integer({ 'x-error': 'shareType' })),
      shareWith: Type.String({ default: '', maxLength: 64, pattern: NO_NUL, 'x-error': 'shareWith' }),
      path: Type.String({ default: '', maxLength: 4096, 'x-error': 'path' }),
      referenceId: Type.String({ default: '', maxLength: 1000, pattern: NO_NUL, 'x-error': 'referenceId' }),
      // A JSON string as Talk's apps send it, or the object itself in a JSON body.
      talkMetaData: Type.Union([Type.String({ maxLength: 64000, pattern: NO_NUL }), Type.Record(Type.String(), Type.Unknown())], {
        default: '',
        'x-error': 'talkMetaData',
      }),
    }),
    response: Share,
    handler: async ({ params, ctx }) => {
      const talkMetaData = typeof params.talkMetaData === 'string' ? params.talkMetaData : JSON.stringify(params.talkMetaData);
      return formatShare(await shares.create(ctx, { ...params, talkMetaData }), ctx.userId!, base);
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: BASE,
    auth: 'user',
    summary: "The caller's shares into conversations (of one file with `path`), or with shared_with_me=true those of the conversations they are in",
    statuses: { 404: 'the path is not a file of the caller' },
    params: Type.Object({
      shared_with_me: Type.String({ default: '', maxLength: 8, 'x-error': 'shared_with_me' }),
      path: Type.String({ default: '', maxLength: 4096, 'x-error': 'path' }),
    }),
    response: Type.Array(Share),
    handler: async ({ params, ctx }) => {
      const list = await shares.list(ctx, { sharedWithMe: params.shared_with_me === 'true' || params.shared_with_me === '1', path: params.path });
      return list.map((v) => formatShare(v, ctx.userId!, base));
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${BASE}/:id`,
    auth: 'user',
    summary: 'One share (a list of one, as Nextcloud answers)',
    statuses: { 404: 'no such share the caller may see' },
    params: Type.Object({ id: Type.String({ maxLength: 32 }) }),
    response: Type.Array(Share),
    handler: async ({ params, ctx }) => [formatShare(await shares.get(ctx, shareId(params.id)), ctx.userId!, base)],
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${BASE}/:id`,
    auth: 'user',
    summary: 'Unshare: the message stays and shows the file as no longer available',
    statuses: { 403: "someone else's share", 404: 'no such share the caller may see' },
    params: Type.Object({ id: Type.String({ maxLength: 32 }) }),
    response: Type.Array(Type.Unknown(), { maxItems: 0 }),
    handler: async ({ params, ctx }) => {
      await shares.delete(ctx, shareId(params.id));
      return new OcsReply([]);
    },
  });
}
