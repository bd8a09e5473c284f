/**
 * Open Cloud Mesh (docs/reference/federation.md#discovery, docs/reference/federation.md#notifications):
 * the discovery document at `/ocm-provider/` and `/.well-known/ocm` (Talk's `talk-room` while
 * federation is on), and the end points other servers post to, `/ocm/shares` and
 * `/ocm/notifications`. Plain JSON, not OCS, as Nextcloud answers them: 201 on success, the OCM
 * error `{message, validationErrors?}` otherwise. Bodies are limited to 64 KiB.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import type { Services } from '../../services/index.js';

const BODY_LIMIT = 64 * 1024;

function sendJson(reply: FastifyReply, status: number, data: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').header('Cache-Control', 'no-store').send(JSON.stringify(data));
}

export async function federationOcmRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const discovery = async (_req: FastifyRequest, reply: FastifyReply) => sendJson(reply, 200, await services.federation.discovery.document());
  app.get('/ocm-provider/', discovery);
  app.get('/.well-known/ocm', discovery);

  const ocm = (handle: (ip: string, body: unknown) => Promise<unknown>) => async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      return sendJson(reply, 201, await handle(request.ip, request.body));
    } catch (e) {
      if (e instanceof ApiError) {
        const data = e.data as { message?: string; error?: string } | null;
        // Errors from the shared catalog (the throttle's 429) carry `error`: said as an OCM message.
        return sendJson(reply, e.status, data && 'message' in data && !('error' in data) ? data : { message: data?.error ?? 'Request refused' });
      }
      throw e;
    }
  };
  app.post(
    '/ocm/shares',
    { bodyLimit: BODY_LIMIT },
    ocm((ip, body) => services.federation.inbox.share(ip, body)),
  );
  app.post(
    '/ocm/notifications',
    { bodyLimit: BODY_LIMIT },
    ocm((ip, body) => services.federation.inbox.notification(ip, body)),
  );
}
