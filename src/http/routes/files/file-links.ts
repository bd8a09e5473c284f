/**
 * `/index.php/f/{fileId}`, the `link` of Talk's `{file}` rich object for users
 * (docs/reference/files.md#file-links): Nextcloud opens the file in its files app there. Parley
 * has no files app: a logged-in user (browser session or Basic) who may read the file is sent
 * (302) to its WebDAV URL in their own tree, where it downloads (a folder lists); a missing
 * file and one they may not read are the same 404; without a login, the login page with a
 * `redirect_url` back here, as Nextcloud does.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.js';
import { encodePath } from '../../../domain/files/paths.js';
import type { Services } from '../../../services/index.js';
import { buildContext } from '../../ocs/route.js';

function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).type('text/plain; charset=utf-8').header('Cache-Control', 'no-store').send('File not found');
}

export async function fileLinkRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = (request.params as { fileId?: string }).fileId ?? '';
    let userId: string | undefined;
    try {
      userId = (await buildContext(services, request)).userId;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      // A refused login (bad credentials, throttled): answered as the login would be.
      return reply.code(err.status).type('text/plain; charset=utf-8').header('Cache-Control', 'no-store').send('Login failed');
    }
    if (!userId) {
      const back = `/index.php/f/${encodeURIComponent(raw)}`;
      return reply
        .code(302)
        .header('Location', `/login?redirect_url=${encodeURIComponent(back)}`)
        .header('Cache-Control', 'no-store')
        .send();
    }
    (request as { parleyUser?: string }).parleyUser = userId;
    if (!/^\d{1,15}$/.test(raw)) return notFound(reply);
    const found = await services.shareTargets.pathOf(userId, Number(raw));
    if (!found) return notFound(reply);
    const href = `/remote.php/dav/files/${encodeURIComponent(userId)}/${encodePath(found.path)}${found.isDir && found.path !== '' ? '/' : ''}`;
    return reply.code(302).header('Location', href).header('Cache-Control', 'no-store').send();
  };
  for (const url of ['/index.php/f/:fileId', '/f/:fileId']) app.get(url, handler);
}
