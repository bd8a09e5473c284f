/**
 * SIP endpoints (contract "Participants" SIP parts and "Conversations"; docs/reference/conversations.md#endpoint-rules
 * "webinar/sip", docs/reference/sip.md#bridge-endpoints "SIP bridge endpoints"): per-conversation dial-in and the four endpoints
 * the SIP bridge calls, which accept only requests signed with `sip_bridge_shared_secret`.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ConversationSchema } from '../../presenters/conversation-schema.js';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { ROOM, Token, V4 } from './common-schemas.js';

// The bridge endpoints stay routed without sip-support-dialout: the contract lists 501 (SIP or
// dial-out not configured) for them, which only a routed endpoint can answer (docs/compatibility.md).
/** The bridge sends `options` as an object or as its JSON text. */
const Options = Type.Union([Type.String({ maxLength: 4096 }), Type.Object({}, { additionalProperties: true })], { default: '', 'x-error': 'options' });

export async function sipRoutes(app: FastifyInstance, services: Services): Promise<void> {
  ocsRoute(app, services, {
    method: 'PUT',
    path: `${ROOM}/webinar/sip`,
    auth: 'user',
    talk: true,
    summary: 'Enable SIP dial-in for a conversation: state 0 off, 1 with PIN, 2 without PIN (moderators in sip_bridge_groups)',
    params: Type.Object({ token: Token, state: Type.Integer({ 'x-error': 'value' }) }),
    response: ConversationSchema,
    handler: async ({ params, ctx }) => {
      const caller = await services.sip.setConversationSip(ctx, params.token, params.state);
      return services.conversationView.presentOne(ctx, caller);
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${ROOM}/pin/:pin`,
    capability: 'sip-support',
    auth: 'public',
    statuses: { 501: 'SIP or SIP dial-out is not configured' },
    summary: 'SIP bridge (deprecated): the conversation as seen by the attendee with this dial-in PIN',
    params: Type.Object({ token: Token, pin: Type.String({ maxLength: 64 }) }),
    response: ConversationSchema,
    handler: async ({ params, ctx }) => services.sip.participantByPin(ctx, params.token, params.pin),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${ROOM}/verify-dialin`,
    auth: 'public',
    statuses: { 501: 'SIP or SIP dial-out is not configured' },
    summary: 'SIP bridge: verify a dial-in PIN',
    params: Type.Object({ token: Token, pin: Type.String({ default: '', maxLength: 64 }) }),
    response: ConversationSchema,
    handler: async ({ params, ctx }) => services.sip.verifyDialIn(ctx, params.token, params.pin),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${ROOM}/verify-dialout`,
    auth: 'public',
    statuses: { 501: 'SIP or SIP dial-out is not configured' },
    summary: 'SIP bridge: verify a dial-out number (options: actorId, actorType phones, attendeeId)',
    params: Type.Object({ token: Token, number: Type.String({ default: '', maxLength: 64 }), options: Options }),
    response: ConversationSchema,
    handler: async ({ params, ctx }) => services.sip.verifyDialOut(ctx, params.token, params.number, params.options),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${ROOM}/rejected-dialout`,
    auth: 'public',
    statuses: { 501: 'SIP or SIP dial-out is not configured' },
    summary: 'SIP bridge: reset the call id of a rejected dial-out',
    params: Type.Object({ token: Token, callId: Type.String({ default: '', maxLength: 255 }), options: Options }),
    response: Type.Null(),
    handler: async ({ params, ctx }) => {
      await services.sip.rejectedDialOut(ctx, params.token, params.callId, params.options);
      return null;
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${V4}/call/:token/dialout/:attendeeId`,
    auth: 'public',
    statuses: { 501: 'SIP or SIP dial-out is not configured' },
    talk: true,
    summary: 'Call a phone attendee (SIP dial-out): recorded for the SIP bridge, which reads it from GET /dialout/pending',
    params: Type.Object({ token: Token, attendeeId: Type.Integer({ 'x-error': 'attendeeId' }) }, { required: ['token', 'attendeeId'] }),
    response: Type.Null(),
    handler: async ({ params, ctx }) => {
      await services.sip.startDialOut(ctx, params.token, params.attendeeId);
      return new OcsReply(null, 201);
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${V4}/dialout/pending`,
    auth: 'public',
    statuses: { 501: 'SIP or SIP dial-out is not configured' },
    summary: 'SIP bridge (Parley): the dial-outs to place, each {token, callId, number, options}; signed over the word "dialout"',
    params: Type.Object({}),
    response: Type.Array(
      Type.Object({ token: Type.String(), callId: Type.String(), number: Type.String(), options: Type.Object({}, { additionalProperties: true }) }),
    ),
    handler: async ({ ctx }) => services.sip.pendingDialOuts(ctx),
  });
}
