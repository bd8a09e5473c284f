/**
 * Nextcloud's provisioning API for accounts (docs/api.md "Provisioning API"): `/cloud/users...` and
 * `/cloud/user`. Admin-only except what Nextcloud lets a user do to themself (read their
 * record and groups, change their display name, email and password). Rules and OCS codes live
 * in ProvisioningService; successful calls without a payload answer `data: []` as Nextcloud.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { ocsRoute } from '../ocs/route.js';
import { CreatedUser, GroupIds, UserDetails, UserIds } from './account-schemas.js';
import { EmptyList } from './common-schemas.js';

const userid = Type.String({ 'x-error': 'userid' });

/** `search`, `limit`, `offset` of the list endpoints (no limit: everything). */
export const pageParams = {
  search: Type.String({ default: '', maxLength: 255 }),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  offset: Type.Integer({ default: 0, minimum: 0 }),
};

export async function provisioningUserRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const prov = services.provisioning;

  ocsRoute(app, services, {
    method: 'GET',
    path: '/cloud/users',
    auth: 'admin',
    summary: 'List user ids (search, limit, offset)',
    params: Type.Object(pageParams),
    response: UserIds,
    handler: ({ params }) => prov.listUsers(params),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: '/cloud/users',
    auth: 'admin',
    summary: 'Create a user (userid, password, displayName, email, groups[])',
    params: Type.Object({
      userid,
      password: Type.String({ default: '' }),
      displayName: Type.String({ default: '' }),
      email: Type.String({ default: '' }),
      groups: Type.Array(Type.String(), { default: [], maxItems: 1000, 'x-error': 'groups' }),
    }),
    response: CreatedUser,
    handler: ({ params, ctx }) =>
      prov.createUser({
        createdBy: ctx.userId,
        id: params.userid,
        password: params.password,
        displayName: params.displayName,
        email: params.email,
        groups: params.groups,
      }),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: '/cloud/user',
    auth: 'user',
    summary: "The caller's own account record",
    params: Type.Object({}),
    response: UserDetails,
    handler: ({ ctx }) => prov.currentUser(ctx),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: '/cloud/users/:userid',
    auth: 'user',
    summary: 'An account record (admin, or the user themself)',
    params: Type.Object({ userid }),
    response: UserDetails,
    handler: ({ params, ctx }) => prov.userDetails(ctx, params.userid),
  });

  ocsRoute(app, services, {
    method: 'PUT',
    path: '/cloud/users/:userid',
    auth: 'user',
    summary: 'Edit displayname (or display), email or password (admin, or the user themself)',
    params: Type.Object({
      userid,
      key: Type.String({ maxLength: 64 }),
      value: Type.String(),
    }),
    response: EmptyList,
    handler: async ({ params, ctx }) => {
      await prov.editUser(ctx, params.userid, params.key, params.value);
      return [];
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: '/cloud/users/:userid',
    auth: 'admin',
    summary: 'Delete a user (not yourself)',
    params: Type.Object({ userid }),
    response: EmptyList,
    handler: async ({ params, ctx }) => {
      await prov.deleteUser(ctx, params.userid);
      return [];
    },
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    ocsRoute(app, services, {
      method: 'PUT',
      path: `/cloud/users/:userid/${action}`,
      auth: 'admin',
      summary: `${enabled ? 'Enable' : 'Disable'} a user (not yourself)`,
      params: Type.Object({ userid }),
      response: EmptyList,
      handler: async ({ params, ctx }) => {
        await prov.setEnabled(ctx, params.userid, enabled);
        return [];
      },
    });
  }

  ocsRoute(app, services, {
    method: 'GET',
    path: '/cloud/users/:userid/groups',
    auth: 'user',
    summary: "A user's groups (admin, or the user themself)",
    params: Type.Object({ userid }),
    response: GroupIds,
    handler: ({ params, ctx }) => prov.userGroups(ctx, params.userid),
  });

  const membership = Type.Object({ userid, groupid: Type.String({ default: '' }) });

  ocsRoute(app, services, {
    method: 'POST',
    path: '/cloud/users/:userid/groups',
    auth: 'admin',
    summary: 'Add a user to a group (groupid)',
    params: membership,
    response: EmptyList,
    handler: async ({ params, ctx }) => {
      await prov.addToGroup(params.userid, params.groupid, ctx.userId);
      return [];
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: '/cloud/users/:userid/groups',
    auth: 'admin',
    summary: 'Remove a user from a group (groupid)',
    params: membership,
    response: EmptyList,
    handler: async ({ params, ctx }) => {
      await prov.removeFromGroup(ctx, params.userid, params.groupid);
      return [];
    },
  });
}
