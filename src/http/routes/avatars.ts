/**
 * Conversation avatars (feature `avatar`; contract "Avatar"): POST/DELETE/GET
 * `room/{token}/avatar` and GET `.../avatar/dark`, under api/v4 (contract) and api/v1 (where
 * real clients call them, docs/reference/conversations.md#avatars). Uploads arrive through the streaming
 * multipart parser registered here; the GETs answer the raw image (no OCS envelope, no CSRF).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ConversationSchema } from '../../presenters/conversation-schema.js';
import { AVATAR_MAX_BYTES, type AvatarUpload } from '../../services/conversations/avatars.js';
import type { Services } from '../../services/index.js';
import { registerMultipart, UploadedFile } from '../multipart.js';
import { ocsRoute, RawReply } from '../ocs/route.js';

/** 24 hours, as the contract's Limits ask; the version in the URL (`?v=`) busts it. */
const CACHE_CONTROL = 'private, max-age=86400, immutable';

export async function avatarRoutes(app: FastifyInstance, services: Services): Promise<void> {
  registerMultipart(app, { maxFileBytes: AVATAR_MAX_BYTES, maxFieldBytes: 64 * 1024, maxParts: 20, maxDiscardBytes: 64 * 1024 * 1024 });
  const { avatars, conversationView } = services;

  for (const api of ['v1', 'v4'] as const) {
    const base = `/apps/spreed/api/${api}/room/:token/avatar`;

    ocsRoute(app, services, {
      method: 'POST',
      path: base,
      auth: 'public',
      talk: true,
      capability: 'avatar',
      summary: 'Upload a conversation avatar (multipart field "file"; PNG or JPEG, square, at most 20 MiB)',
      params: Type.Object({
        token: Type.String(),
        file: Type.Optional(Type.Unknown({ description: 'the image, as the multipart/form-data part "file"' })),
      }),
      response: ConversationSchema,
      handler: async ({ ctx, params }) => {
        const part = params.file;
        const upload: AvatarUpload | undefined = part instanceof UploadedFile ? { data: part.data, tooBig: part.tooBig } : undefined;
        return conversationView.presentOne(ctx, await avatars.upload(ctx, params.token, upload));
      },
    });

    ocsRoute(app, services, {
      method: 'POST',
      path: `${base}/emoji`,
      auth: 'public',
      talk: true,
      capability: 'avatar',
      summary: 'Set an emoji avatar (one emoji on a colour of six hex digits)',
      params: Type.Object({
        token: Type.String(),
        emoji: Type.String({ maxLength: 64, 'x-error': 'emoji' }),
        // Talk's emojiAvatar(string $emoji, ?string $color): null is the default colour, as omitted (nc_py_api sends it).
        color: Type.Optional(Type.Union([Type.String({ maxLength: 16, 'x-error': 'color' }), Type.Null()])),
      }),
      response: ConversationSchema,
      handler: async ({ ctx, params }) => conversationView.presentOne(ctx, await avatars.setEmoji(ctx, params.token, params.emoji, params.color ?? '')),
    });

    ocsRoute(app, services, {
      method: 'DELETE',
      path: base,
      auth: 'public',
      talk: true,
      capability: 'avatar',
      summary: 'Remove the conversation avatar (back to the generated one)',
      params: Type.Object({ token: Type.String() }),
      response: ConversationSchema,
      handler: async ({ ctx, params }) => conversationView.presentOne(ctx, await avatars.remove(ctx, params.token)),
    });

    for (const variant of ['', '/dark'] as const) {
      ocsRoute(app, services, {
        method: 'GET',
        path: base + variant,
        federation: 'local',
        auth: 'public',
        talk: true,
        csrf: false,
        summary: variant ? 'The conversation avatar for dark themes (raw image)' : 'The conversation avatar (raw image: PNG, JPEG or generated SVG)',
        rawContent: ['image/png', 'image/jpeg', 'image/svg+xml'],
        statuses: { 304: 'not modified (If-None-Match matched the ETag)' },
        params: Type.Object({ token: Type.String(), darkTheme: Type.Boolean({ default: false, 'x-error': 'darkTheme' }) }),
        response: Type.String({ description: 'the image bytes (not an OCS envelope)', contentMediaType: 'image/*' }),
        handler: async ({ ctx, params, request }) => {
          const img = await avatars.image(ctx, params.token, variant !== '' || params.darkTheme);
          const headers = { 'Cache-Control': CACHE_CONTROL, ETag: img.etag, 'X-Content-Type-Options': 'nosniff' };
          const match = request.headers['if-none-match'];
          if (typeof match === 'string' && match.split(',').some((t) => t.trim().replace(/^W\//, '') === img.etag)) {
            return new RawReply('', img.contentType, 304, headers);
          }
          return new RawReply(img.body, img.contentType, 200, headers);
        },
      });
    }
  }
}
