/**
 * The guest cookie session of a reply (the request side is read in buildContext, ocs/route.ts).
 */

/** Set-Cookie headers for a reply when the service created a cookie session in this request. */
export function newCookieHeaders(before: string | undefined, after: string | undefined, header: (key: string) => string): Record<string, string> {
  return after && after !== before ? { 'Set-Cookie': header(after) } : {};
}
