/**
 * Login Flow v2 and v1 (docs/reference/accounts-and-login.md#login-flow-v2, docs/reference/accounts-and-login.md#login-flow-v1), the way Talk apps get an app password:
 *
 * v2 (Talk Android): `POST /index.php/login/v2` → `{poll: {token, endpoint}, login}`; the
 * browser opens `login` (`GET /index.php/login/v2/flow/{loginToken}`), logs in, grants; the app
 * polls `POST /index.php/login/v2/poll` (404 `[]` until granted, then once the credentials).
 * v1 (Talk iOS, Talk Desktop): a webview opens `GET /index.php/login/flow` with
 * `OCS-APIRequest: true`, logs in, grants, and is redirected to
 * `nc://login/server:…&user:…&password:…`.
 *
 * The pages are plain HTML forms (no script), one column for phones. CSRF: the state token sits
 * in an HttpOnly cookie and in each form, both must match a live flow, and the Origin must be
 * this site. Every path also answers without the `/index.php` prefix, as Nextcloud with pretty
 * URLs does.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { PRODUCT_NAME } from '../../domain/version.js';
import type { LoginFlowRow } from '../../db/repositories/login-flows.js';
import type { LoginFlowKind } from '../../services/accounts/login-flows.js';
import type { Services } from '../../services/index.js';
import { loginSessionUser, readCookie } from '../auth/login-session.js';
import { escapeHtml, foreignOrigin, page, PAGE_HEADERS, sendPage } from '../pages/html.js';
import { serverUrl } from '../server-url.js';

export const FLOW_COOKIE = 'parley_flow';
const V2 = '/index.php/login/v2';
const V1 = '/index.php/login/flow';
const baseOf = (kind: LoginFlowKind) => (kind === 'v2' ? V2 : V1);
/** The v1 grant ends in a redirect to the app's nc:// scheme, which the form-action must allow (docs/reference/accounts-and-login.md#login-flow-v1). */
const V1_CSP = { 'Content-Security-Policy': PAGE_HEADERS['Content-Security-Policy'].replace("form-action 'self'", "form-action 'self' nc:") };

function flowCookie(services: Services, state: string): string {
  const secure = serverUrl(services).startsWith('https:') ? '; Secure' : '';
  // Lax, not Strict: the first page is opened from an app (a cross-site top-level navigation).
  return `${FLOW_COOKIE}=${state}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${services.loginFlows.lifetimeSeconds}${secure}`;
}
const clearedFlowCookie = `${FLOW_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;

function frame(title: string, inner: string): string {
  return page({ title, body: `<main class="narrow">\n<h1>${escapeHtml(PRODUCT_NAME)}</h1>\n${inner}\n</main>` });
}

function stateField(state: string): string {
  return `<input type="hidden" name="stateToken" value="${escapeHtml(state)}">`;
}

/** `user`: the account name typed before (a wrong password keeps it, as Nextcloud's form does). */
function loginForm(kind: LoginFlowKind, state: string, client: string, error = '', user = ''): string {
  return frame(
    'Connect to your account',
    `<p>Log in to connect <strong>${escapeHtml(client)}</strong> to your account.</p>
<form method="post" action="${baseOf(kind)}/login" class="login">
${stateField(state)}
<label for="user">Account name</label>
<input id="user" name="user" autocomplete="username" autocapitalize="none" required maxlength="255"${user ? ` value="${escapeHtml(user)}"` : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"${user ? ' autofocus' : ''}>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<button type="submit">Log in</button>
</form>`,
  );
}

function grantForm(kind: LoginFlowKind, state: string, client: string, userId: string): string {
  return frame(
    'Grant access',
    `<form method="post" action="${baseOf(kind)}/grant" class="login grant">
${stateField(state)}
<p>You are about to grant <strong>${escapeHtml(client)}</strong> access to the account <strong>${escapeHtml(userId)}</strong>.</p>
<p>The app gets its own app password; you can revoke it at any time without changing your password.</p>
<button type="submit">Grant access</button>
</form>`,
  );
}

const donePage = () => frame('Account connected', '<p role="status" class="done">Account connected. You can close this window and return to the app.</p>');

function problemPage(reply: FastifyReply, status: number, message: string): FastifyReply {
  return sendPage(reply, status, frame('Access forbidden', `<p class="error" role="alert">${escapeHtml(message)}</p>`));
}

/** PHP's urlencode (Nextcloud's): only letters, digits and `-_.` stay, a space becomes `+`. */
function phpUrlencode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/**
 * The v1 grant's redirect, as Nextcloud's core/Controller/ClientFlowLoginController.php builds
 * it: the server as configured (an `&` in its path escaped, so it cannot start another field),
 * user and password urlencoded.
 */
export function ncLoginRedirect(server: string, loginName: string, appPassword: string): string {
  return `nc://login/server:${server.replace(/&/g, '%26')}&user:${phpUrlencode(loginName)}&password:${phpUrlencode(appPassword)}`;
}

/** Registers `path` with and without the /index.php prefix. */
function both(app: FastifyInstance, method: 'GET' | 'POST', path: string, handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) {
  app.route({ method, url: path, handler });
  app.route({ method, url: path.replace(/^\/index\.php/, ''), handler });
}

export async function loginFlowRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const flows = services.loginFlows;

  /** The flow's state goes into its cookie and the browser on to the flow's grant page. */
  const toGrantPage = (reply: FastifyReply, state: string, kind: LoginFlowKind) =>
    reply
      .code(303)
      .header('Set-Cookie', flowCookie(services, state))
      .header('Cache-Control', 'no-store')
      .header('Location', `${baseOf(kind)}/grant`)
      .send();

  /** The flow of the request's cookie (and, for posts, the matching form field), or undefined. */
  async function flowOf(request: FastifyRequest, kind: LoginFlowKind, fromForm: boolean): Promise<{ flow: LoginFlowRow; state: string } | undefined> {
    const state = readCookie(request, FLOW_COOKIE);
    if (!state) return undefined;
    if (fromForm) {
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (foreignOrigin(request) || body.stateToken !== state) return undefined;
    }
    const flow = await flows.flowForState(state, kind);
    return flow ? { flow, state } : undefined;
  }

  const expired = (reply: FastifyReply) => problemPage(reply, 403, 'This login request is invalid or has expired. Start again from the app.');

  // ---- v2: init and poll (plain JSON, no CSRF: docs/reference/accounts-and-login.md#login-flow-v2) ----
  both(app, 'POST', V2, async (request, reply) => {
    const { pollToken, loginToken } = await flows.initV2(request.headers['user-agent']);
    const server = serverUrl(services);
    return reply
      .header('Cache-Control', 'no-store')
      .type('application/json; charset=utf-8')
      .send({ poll: { token: pollToken, endpoint: `${server}${V2}/poll` }, login: `${server}${V2}/flow/${loginToken}` });
  });

  both(app, 'POST', `${V2}/poll`, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const creds = await flows.poll(body.token ?? query.token);
    reply.header('Cache-Control', 'no-store').type('application/json; charset=utf-8');
    return creds ? reply.send({ server: creds.server, loginName: creds.loginName, appPassword: creds.appPassword }) : reply.code(404).send('[]');
  });

  // ---- entry pages ----
  both(app, 'GET', `${V2}/flow/:loginToken`, async (request, reply) => {
    const { loginToken } = request.params as { loginToken: string };
    let state: string;
    try {
      state = await flows.openV2(loginToken);
    } catch (err) {
      if (err instanceof ApiError) return expired(reply);
      throw err;
    }
    // The token leaves the address bar; the flow continues on the cookie.
    return toGrantPage(reply, state, 'v2');
  });

  both(app, 'GET', V1, async (request, reply) => {
    // Without the header this is not a client's webview (Nextcloud: "Access forbidden").
    const h = request.headers['ocs-apirequest'];
    if (typeof h !== 'string' || h.trim() === '') return problemPage(reply, 403, 'Access forbidden: invalid request. Open this page from a Talk app.');
    return toGrantPage(reply, await flows.startV1(request.headers['user-agent']), 'v1');
  });

  for (const kind of ['v2', 'v1'] as const) {
    const base = baseOf(kind);
    const csp = kind === 'v1' ? V1_CSP : {};

    // The page: the login form, or (once logged in, or with a Parley browser session) the grant.
    both(app, 'GET', `${base}/grant`, async (request, reply) => {
      const found = await flowOf(request, kind, false);
      if (!found) return expired(reply);
      const { flow, state } = found;
      const user = await flows.userOrBrowserUser(flow, () => loginSessionUser(request, services));
      if (!user) return sendPage(reply, 200, loginForm(kind, state, flow.client_name), csp);
      return sendPage(reply, 200, grantForm(kind, state, flow.client_name, user.id), csp);
    });

    both(app, 'POST', `${base}/login`, async (request, reply) => {
      const found = await flowOf(request, kind, true);
      if (!found) return expired(reply);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const login = typeof body.user === 'string' ? body.user.trim().slice(0, 255) : '';
      const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
      try {
        const user = await flows.logIn(found.flow, login, password, request.ip);
        (request as any).parleyUser = user.id;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // One message for an unknown account and a wrong password.
        const tooMany = err.status === 429;
        const message = tooMany ? 'Too many failed attempts. Try again later.' : 'Wrong login or password.';
        return sendPage(reply, tooMany ? 429 : 401, loginForm(kind, found.state, found.flow.client_name, message, login), csp);
      }
      return reply.code(303).header('Cache-Control', 'no-store').header('Location', `${base}/grant`).send();
    });

    both(app, 'POST', `${base}/grant`, async (request, reply) => {
      const found = await flowOf(request, kind, true);
      if (!found) return expired(reply);
      let creds;
      try {
        creds = await flows.grant(found.flow, serverUrl(services));
      } catch (err) {
        if (err instanceof ApiError) return expired(reply);
        throw err;
      }
      reply.header('Set-Cookie', clearedFlowCookie);
      if (!creds) return sendPage(reply, 200, donePage());
      // docs/reference/accounts-and-login.md#login-flow-v1: the webview intercepts this redirect; the password is never shown on a page.
      const target = ncLoginRedirect(creds.server, creds.loginName, creds.appPassword);
      for (const [k, v] of Object.entries({ ...PAGE_HEADERS, ...csp })) reply.header(k, v);
      return reply.code(303).header('Location', target).send();
    });
  }
}
