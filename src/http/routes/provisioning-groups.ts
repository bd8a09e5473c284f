/**
 * Nextcloud's provisioning API for groups (docs/api.md "Provisioning API"): list, create, delete,
 * members. Admin-only in Parley (no sub-admins).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { ocsRoute } from '../ocs/route.js';
import { pageParams } from './provisioning-users.js';
import { GroupIds, UserIds } from './account-schemas.js';
import { EmptyList } from './common-schemas.js';

const groupid = Type.String({ 'x-error': 'groupid' });

export async function provisioningGroupRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const prov = services.provisioning;

  ocsRoute(app, services, {
    method: 'GET',
    path: '/cloud/groups',
    auth: 'admin',
    summary: 'List group ids (search, limit, offset)',
    params: Type.Object(pageParams),
    response: GroupIds,
    handler: ({ params }) => prov.listGroups(params),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: '/cloud/groups',
    auth: 'admin',
    summary: 'Create a group (groupid, displayname)',
    params: Type.Object({ groupid: Type.String({ default: '' }), displayname: Type.String({ default: '' }) }),
    response: EmptyList,
    handler: async ({ params }) => {
      await prov.createGroup(params.groupid, params.displayname);
      return [];
    },
  });

  ocsRoute(app, services, {
    method: 'PUT',
    path: '/cloud/groups/:groupid',
    auth: 'admin',
    summary: 'Change a group (key=displayname, value=new name; another key is OCS 997, HTTP 401, as Nextcloud); conversations show the new name',
    params: Type.Object({
      groupid,
      key: Type.String({ maxLength: 64, 'x-error': 'key' }),
      value: Type.String({ default: '', maxLength: 255, 'x-error': 'value' }),
    }),
    response: EmptyList,
    handler: async ({ params }) => {
      await services.directory.updateGroup(params.groupid, params.key, params.value);
      return [];
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: '/cloud/groups/:groupid',
    auth: 'admin',
    summary: 'Delete a group (not admin)',
    params: Type.Object({ groupid }),
    response: EmptyList,
    handler: async ({ params, ctx }) => {
      await prov.deleteGroup(params.groupid, ctx.userId);
      return [];
    },
  });

  // `/cloud/groups/{groupid}` is Nextcloud's deprecated spelling of the members list.
  for (const path of ['/cloud/groups/:groupid/users', '/cloud/groups/:groupid']) {
    ocsRoute(app, services, {
      method: 'GET',
      path,
      auth: 'admin',
      summary: 'Members of a group',
      params: Type.Object({ groupid }),
      response: UserIds,
      handler: ({ params }) => prov.groupMembers(params.groupid),
    });
  }
}
