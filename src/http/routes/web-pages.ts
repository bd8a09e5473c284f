/**
 * Parley's own web pages (docs/operators.md "Admin settings page"): `/` (links to the admin page),
 * the login form, logout, the admin settings page at /settings/admin/talk and its assets. The page
 * saves through the OCS app-config API with the login session cookie; it never receives a secret.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { PRODUCT_NAME } from '../../domain/version.js';
import type { Services } from '../../services/index.js';
import { adminPageState } from '../../services/platform/admin-settings.js';
import { clearedLoginCookie, loginCookie, LOGIN_COOKIE, readCookie } from '../auth/login-session.js';
import { buildContext } from '../ocs/route.js';
import { escapeHtml, foreignOrigin, page, scriptJson, sendPage as send } from '../pages/html.js';
import { webAsset } from '../web-assets.js';

const ADMIN_PAGE_PATH = '/settings/admin/talk';
/** Where the page saves a key (Nextcloud's provisioning app-config API). */
const APP_CONFIG_API = '/ocs/v2.php/apps/provisioning_api/api/v1/config/apps/spreed/';

/** Only same-site paths may be redirect targets (no open redirect). */
function safeRedirect(target: unknown): string {
  return typeof target === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(target) ? target : ADMIN_PAGE_PATH;
}

function loginPage(redirect: string, error = ''): string {
  return page({
    title: 'Log in',
    body: `<main class="narrow">
<h1>${escapeHtml(PRODUCT_NAME)}</h1>
<form method="post" action="/login" class="login">
<input type="hidden" name="redirect_url" value="${escapeHtml(redirect)}">
<label for="user">Account name</label>
<input id="user" name="user" autocomplete="username" required maxlength="255" autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<button type="submit">Log in</button>
</form>
</main>`,
  });
}

const logoutForm = '<form method="post" action="/logout" class="logout"><button type="submit">Log out</button></form>';

export async function webPageRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/', async (_request, reply) =>
    send(
      reply,
      200,
      page({
        title: PRODUCT_NAME,
        body: `<main class="narrow"><h1>${escapeHtml(PRODUCT_NAME)}</h1>
<p>This server speaks the Nextcloud Talk API. Point a Talk client at this address.</p>
<ul><li><a href="${ADMIN_PAGE_PATH}">Talk administration settings</a></li><li><a href="/status.php">Status</a></li></ul></main>`,
      }),
    ),
  );

  app.get('/login', async (request, reply) => {
    const q = request.query as Record<string, unknown>;
    return send(reply, 200, loginPage(safeRedirect(q.redirect_url)));
  });

  app.post('/login', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const redirect = safeRedirect(body.redirect_url);
    if (foreignOrigin(request)) return send(reply, 403, loginPage(redirect, 'This form must be sent from this site.'));
    const user = typeof body.user === 'string' ? body.user.trim().slice(0, 255) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
    try {
      const { token, user: who } = await services.loginSessions.login(user, password, request.ip);
      (request as any).parleyUser = who.id;
      reply.header('Set-Cookie', loginCookie(services, token));
      return reply.code(303).header('Location', redirect).header('Cache-Control', 'no-store').send();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // One message for an unknown account and a wrong password.
      const message = err.status === 429 ? 'Too many failed attempts. Try again later.' : 'Wrong login or password.';
      return send(reply, err.status === 429 ? 429 : 401, loginPage(redirect, message));
    }
  });

  app.post('/logout', async (request, reply) => {
    if (foreignOrigin(request)) return send(reply, 403, loginPage('/', 'This form must be sent from this site.'));
    const token = readCookie(request, LOGIN_COOKIE);
    if (token) await services.loginSessions.logout(token);
    reply.header('Set-Cookie', clearedLoginCookie());
    return reply.code(303).header('Location', '/login').send();
  });

  app.get(ADMIN_PAGE_PATH, async (request, reply) => {
    let ctx;
    try {
      ctx = await buildContext(services, request);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      ctx = undefined;
    }
    if (!ctx?.user) {
      return reply
        .code(303)
        .header('Location', `/login?redirect_url=${encodeURIComponent(ADMIN_PAGE_PATH)}`)
        .header('Cache-Control', 'no-store')
        .send();
    }
    (request as any).parleyUser = ctx.userId;
    if (!(await ctx.isAdmin())) {
      return send(
        reply,
        403,
        page({
          title: 'Forbidden',
          body: `<main class="narrow"><h1>Forbidden</h1><p class="error" role="alert">This page is for administrators only.</p>${logoutForm}</main>`,
        }),
      );
    }
    const state = { ...(await adminPageState(services.appConfig, services.directory)), apiBase: APP_CONFIG_API, user: ctx.userId };
    return send(
      reply,
      200,
      page({
        title: 'Talk settings',
        head: `<script type="application/json" id="parley-state">${scriptJson(state)}</script>
<script type="module" src="/settings/assets/web/admin/admin-page.js"></script>`,
        body: `<header class="top"><h1>Talk settings</h1><span class="who">${escapeHtml(ctx.userId!)}</span>${logoutForm}</header>
<nav id="sections" aria-label="Sections"></nav>
<main id="app"><noscript><p class="error">This page needs JavaScript to save settings.</p></noscript><p class="loading">Loading…</p></main>`,
      }),
    );
  });

  app.get('/settings/assets/*', async (request, reply) => {
    const rel = (request.params as Record<string, string>)['*'] ?? '';
    const asset = await webAsset(rel);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return reply.type(asset.type).header('X-Content-Type-Options', 'nosniff').header('Cache-Control', 'no-cache').send(asset.body);
  });
}
