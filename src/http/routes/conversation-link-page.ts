/**
 * The page behind a conversation's web link, `/index.php/call/{token}` (also without the
 * `/index.php` prefix, as Nextcloud with pretty URLs): the `link` and "View chat" action of every
 * notification point there. Parley has no web chat, so the page offers the Talk apps' own links
 * (domain/talk-app-links.ts) and says which app to use. It never looks the conversation up: any
 * well-formed token gets the same page, so it tells nobody whether a conversation exists; a
 * malformed token gets a 404 page. Server-rendered, no script.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TOKEN_PATTERN } from '../../domain/constants.js';
import { talkAppLinks } from '../../domain/talk-app-links.js';
import { PRODUCT_NAME } from '../../domain/version.js';
import type { Services } from '../../services/index.js';
import { escapeHtml, page, sendPage } from '../pages/html.js';
import { serverUrl } from '../server-url.js';

function linkPage(server: string, token: string): string {
  const links = talkAppLinks(server, token);
  return page({
    title: 'Open conversation',
    body: `<main class="narrow">
<h1>Open this conversation in Nextcloud Talk</h1>
<p>${escapeHtml(PRODUCT_NAME)} has no chat in the browser. Open the conversation in a Nextcloud Talk app connected to <strong>${escapeHtml(server)}</strong>:</p>
<ul>
<li><a href="${escapeHtml(links.android)}">Open in Talk for Android</a></li>
<li><a href="${escapeHtml(links.ios)}">Open in Talk for iPhone and iPad</a></li>
</ul>
<p>On a computer, open Nextcloud Talk Desktop signed in to this server; the conversation is in its list. The conversation token is <code>${escapeHtml(token)}</code>.</p>
</main>`,
  });
}

const notALinkPage = () =>
  page({
    title: 'Not found',
    body: `<main class="narrow"><h1>Not found</h1><p class="error" role="alert">This is not a link to a conversation.</p></main>`,
  });

export async function conversationLinkPageRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = (request.params as Record<string, string>).token ?? '';
    if (!TOKEN_PATTERN.test(token)) return sendPage(reply, 404, notALinkPage());
    return sendPage(reply, 200, linkPage(serverUrl(services), token));
  };
  for (const url of ['/index.php/call/:token', '/call/:token']) app.get(url, handler);
}
