/**
 * GET /settings/ajax/checksetup (Nextcloud's path for its admin overview's checks): the setup
 * checks as JSON for the admin page's "Setup checks" section, for administrators only (Basic
 * auth or the admin page's login session). docs/operators.md "parley doctor".
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import type { Services } from '../../services/index.js';
import { buildContext } from '../ocs/route.js';

export const SETUP_CHECKS_PATH = '/settings/ajax/checksetup';

export async function setupCheckRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get(SETUP_CHECKS_PATH, async (request, reply) => {
    reply.header('Cache-Control', 'no-store').type('application/json; charset=utf-8');
    let ctx;
    try {
      ctx = await buildContext(services, request);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return reply.code(err.status).send({ message: err.status === 429 ? 'Too many failed attempts' : 'Current user is not logged in' });
    }
    if (!ctx.user) return reply.code(401).send({ message: 'Current user is not logged in' });
    (request as any).parleyUser = ctx.userId;
    if (!(await ctx.isAdmin())) return reply.code(403).send({ message: 'Administrators only' });
    return reply.send({ checks: await services.setupChecks.run() });
  });
}
