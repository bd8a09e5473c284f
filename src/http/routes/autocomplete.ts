/**
 * Finding people (docs/api.md "Finding people"): Nextcloud's `GET /core/autocomplete/get`, which
 * Talk's apps call to start a one-to-one conversation or add participants (`itemType=call`,
 * `itemId` the conversation or `new`), and `GET /cloud/users/details`, the provisioning search.
 * Thin: bounds on the input, then AutocompleteService / ProvisioningService.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AUTOCOMPLETE_LIMIT_MAX, AUTOCOMPLETE_SEARCH_MAX, AUTOCOMPLETE_SHARE_TYPES_MAX, nextPageQuery } from '../../domain/autocomplete.js';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { pageParams } from './provisioning-users.js';

const Status = Type.Union([
  Type.Object({
    status: Type.String(),
    message: Type.Union([Type.String(), Type.Null()]),
    icon: Type.Union([Type.String(), Type.Null()]),
    clearAt: Type.Union([Type.Integer(), Type.Null()]),
  }),
  Type.Literal(''),
]);

const Entry = Type.Object({
  id: Type.String(),
  label: Type.String(),
  icon: Type.String({ description: '`icon-user` for users, else empty' }),
  source: Type.String({ description: 'users, groups, emails or circles (teams)' }),
  status: Status,
  subline: Type.String({ description: "the user's status message" }),
  shareWithDisplayNameUnique: Type.String({ description: "a user's e-mail address, else their id" }),
});

export async function autocompleteRoutes(app: FastifyInstance, services: Services): Promise<void> {
  ocsRoute(app, services, {
    method: 'GET',
    path: '/core/autocomplete/get',
    auth: 'user',
    summary: 'Find users, groups, e-mail addresses and teams: exact matches first per share type; itemType=call applies Talk’s filters',
    params: Type.Object({
      search: Type.String({ default: '', maxLength: AUTOCOMPLETE_SEARCH_MAX }),
      itemType: Type.Optional(Type.String({ maxLength: 64 })),
      itemId: Type.Optional(Type.String({ maxLength: 255 })),
      sorter: Type.Optional(Type.String({ maxLength: 255 })),
      shareTypes: Type.Array(Type.Integer({ minimum: 0, maximum: 100 }), { default: [0], maxItems: AUTOCOMPLETE_SHARE_TYPES_MAX }),
      limit: Type.Integer({ default: 10, minimum: 1, maximum: AUTOCOMPLETE_LIMIT_MAX }),
      offset: Type.Integer({ default: 0, minimum: 0, maximum: 1_000_000 }),
    }),
    response: Type.Array(Entry),
    handler: async ({ params, ctx, request }) => {
      const { entries, more } = await services.autocomplete.search(ctx, params);
      if (!more) return entries;
      // A full page links the next one, as Nextcloud's PaginationTrait does (docs/api.md "Finding people").
      const path = request.url.split('?')[0];
      return new OcsReply(entries, 200, { Link: `<${services.settings.baseUrl}${path}?${nextPageQuery(params)}>; rel="next"` });
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: '/cloud/users/details',
    auth: 'user',
    summary: 'Account records matching search (id, name or e-mail), keyed by id; admins only, others get none',
    params: Type.Object(pageParams),
    response: Type.Object({ users: Type.Union([Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown())), Type.Array(Type.Never())]) }),
    handler: ({ params, ctx }) => services.provisioning.usersDetails(ctx, params),
  });
}
