/**
 * Conversation settings endpoints (contract "Conversations", base api/v4): description, public,
 * read-only, password, permissions, favorite, notify, notify-calls, message-expiration, listable,
 * and the lobby (webinar/lobby, not in the contract but its state is a record field). Thin:
 * coerce, call RoomSettingsService, answer the updated record (as LATEST Talk does).
 *
 * Wrong types fail coercion with the reason Talk uses for that field (`value`, `level`, `mode`),
 * before the conversation is looked up; every other check is the service's, in Talk's order.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import { LOBBY_TIMER_MAX } from '../../domain/room-settings.js';
import { ConversationSchema } from '../../presenters/conversation-schema.js';
import type { Services } from '../../services/index.js';
import type { CallerRoom } from '../../services/conversations/rooms.js';
import type { RequestContext } from '../../services/platform/request-context.js';
import { ocsRoute, type OcsRouteDef } from '../ocs/route.js';
import { ROOM, Token } from './common-schemas.js';

/** An int field whose wrong type is reported under Talk's reason for that endpoint. */
const Int = (reason: string) => Type.Integer({ 'x-error': reason });

/**
 * The caller's own settings, which also work on a conversation kept here for a host elsewhere (they
 * are the user's here, as Talk's FederationSupported has them; docs/federation.md#the-proxied-conversation).
 */
const OWN_SETTINGS = new Set(['/favorite', '/archive', '/important', '/sensitive', '/notify', '/notify-calls']);

export async function conversationSettingsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { conversationView, roomSettings } = services;

  /**
   * One settings route answering the caller's updated record: public (the service decides who
   * may), or `user` where Talk asks for a login before anything else (401).
   */
  const setting = (
    method: OcsRouteDef<any>['method'],
    path: string,
    summary: string,
    fields: TProperties,
    run: (ctx: RequestContext, params: any) => Promise<CallerRoom>,
    capability?: string,
    auth: 'public' | 'user' = 'public',
  ) =>
    ocsRoute(app, services, {
      method,
      path: `${ROOM}${path}`,
      auth,
      talk: true,
      capability,
      summary,
      ...(OWN_SETTINGS.has(path) ? { federation: 'local' as const } : {}),
      params: Type.Object({ token: Token, ...fields }) as TObject,
      response: ConversationSchema,
      handler: async ({ params, ctx }) => conversationView.presentOne(ctx, await run(ctx, params)),
    });

  setting(
    'PUT',
    '/description',
    'Set the description (moderators): at most 2000 characters, trimmed',
    { description: Type.String({ 'x-error': 'value' }) },
    (ctx, p) => roomSettings.setDescription(ctx, p.token, p.description),
    'room-description',
  );
  setting(
    'POST',
    '/public',
    'Allow guests (logged-in moderators): group to public, optionally with a password',
    { password: Type.String({ default: '', 'x-error': 'password' }) },
    (ctx, p) => roomSettings.makePublic(ctx, p.token, p.password),
  );
  setting('DELETE', '/public', 'Disallow guests (logged-in moderators): public to group, guests and self-joined users removed', {}, (ctx, p) =>
    roomSettings.makeGroup(ctx, p.token),
  );
  setting(
    'PUT',
    '/read-only',
    'Set read-only (logged-in moderators): state 0 read-write, 1 read-only',
    { state: Int('value') },
    (ctx, p) => roomSettings.setReadOnly(ctx, p.token, p.state),
    'read-only-rooms',
  );
  setting(
    'PUT',
    '/password',
    'Set or remove (empty) the password of a public conversation (moderators); password policy applies',
    { password: Type.String({ 'x-error': 'value' }) },
    (ctx, p) => roomSettings.setPassword(ctx, p.token, p.password),
  );
  setting(
    'PUT',
    '/permissions/:mode',
    "Set default or call permissions (moderators); resets attendees' own permissions",
    { mode: Type.String({ maxLength: 32, 'x-error': 'mode' }), permissions: Int('value') },
    (ctx, p) => roomSettings.setPermissions(ctx, p.token, p.mode, p.permissions),
  );
  // The caller's own marks (docs/reference/conversations.md#the-conversation-record), each a POST to set and a DELETE to clear.
  for (const [path, mark, feature, set, unset] of [
    ['/favorite', 'favorite', 'favorites', 'Add to favorites', 'Remove from favorites'],
    ['/archive', 'archived', 'archived-conversations-v2', 'Archive', 'Unarchive'],
    ['/important', 'important', 'important-conversations', 'Mark as important', 'Mark as unimportant'],
    ['/sensitive', 'sensitive', 'sensitive-conversations', 'Mark as sensitive', 'Mark as insensitive'],
  ] as const) {
    setting('POST', path, `${set} (logged-in participants)`, {}, (ctx, p) => roomSettings.setMark(ctx, p.token, mark, true), feature);
    setting('DELETE', path, `${unset} (logged-in participants)`, {}, (ctx, p) => roomSettings.setMark(ctx, p.token, mark, false), feature);
  }
  setting(
    'POST',
    '/notify',
    'Set the notification level: 1 always, 2 mentions, 3 never (logged-in participants)',
    { level: Int('level') },
    (ctx, p) => roomSettings.setNotificationLevel(ctx, p.token, p.level),
    'notification-levels',
  );
  setting(
    'POST',
    '/notify-calls',
    'Set call notifications: 0 off, 1 on (logged-in participants)',
    { level: Int('level') },
    (ctx, p) => roomSettings.setCallNotificationLevel(ctx, p.token, p.level),
    'notification-calls',
  );
  setting(
    'POST',
    '/message-expiration',
    'Set message expiration in seconds, 0 = off (moderators)',
    { seconds: Int('value') },
    (ctx, p) => roomSettings.setMessageExpiration(ctx, p.token, p.seconds),
    'message-expiration',
  );
  setting(
    'PUT',
    '/listable',
    'Open the conversation: scope 0 participants, 1 regular users, 2 everyone (logged-in moderators)',
    { scope: Int('value') },
    (ctx, p) => roomSettings.setListable(ctx, p.token, p.scope),
    'listable-rooms',
  );
  setting(
    'PUT',
    '/mention-permissions',
    'Who may mention @all (logged-in moderators): 0 everyone, 1 moderators only',
    { mentionPermissions: Int('value') },
    (ctx, p) => roomSettings.setMentionPermissions(ctx, p.token, p.mentionPermissions),
    'mention-permissions',
    // Not a contract endpoint: Talk's has no public-page mark, so a guest is 401 (docs/reference/conversations.md#endpoint-rules).
    'user',
  );
  setting(
    'PUT',
    '/webinar/lobby',
    'Set the lobby (logged-in moderators): state 0/1, timer = unix time when it lifts (null or 0 = none)',
    {
      state: Int('value'),
      timer: Type.Union([Type.Integer({ minimum: 0, maximum: LOBBY_TIMER_MAX }), Type.Null()], { default: null, 'x-error': 'timer' }),
    },
    (ctx, p) => roomSettings.setLobby(ctx, p.token, p.state, p.timer),
    undefined,
    // Not a contract endpoint: Talk's has no public-page mark, so a guest is 401 (docs/reference/conversations.md#endpoint-rules).
    'user',
  );
}
