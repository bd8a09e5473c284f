/** Shared HTML for Parley's few server-rendered pages: escaping, the page frame, sending, the origin check. */
import type { FastifyReply, FastifyRequest } from 'fastify';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON that is safe inside a <script type="application/json"> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export interface PageOptions {
  title: string;
  body: string;
  /** Extra elements for <head> (module scripts, state). */
  head?: string;
}

/** A complete page; no external resources, so it works without network access. */
export function page({ title, body, head = '' }: PageOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)} · Parley</title>
<link rel="stylesheet" href="/settings/assets/web/admin/admin.css">
${head}
</head>
<body>
${body}
</body>
</html>
`;
}

/** Security headers for every page: nothing from other origins, no framing. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  // Not no-referrer: with it Chromium sends `Origin: null` on form posts, which the login check refuses.
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

/** Sends a page with the security headers (`extra` overrides them, e.g. a wider form-action). */
export function sendPage(reply: FastifyReply, status: number, html: string, extra: Record<string, string> = {}): FastifyReply {
  for (const [k, v] of Object.entries({ ...PAGE_HEADERS, ...extra })) reply.header(k, v);
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

/** A form post from another origin is refused (login CSRF). */
export function foreignOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (!origin || origin === 'null') return origin === 'null';
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}
