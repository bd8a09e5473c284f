/** Requests from chosen client addresses and the throttle's check counter, for brute-force tests. */
import http from 'node:http';

/** One OCS request from a chosen local address (127.0.0.x acts as another client). */
export function requestFrom(
  url: string,
  method: string,
  path: string,
  localAddress: string,
  opts: { authorization?: string; cookie?: string; forwardedFor?: string; form?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
    const headers: Record<string, string> = { 'OCS-APIRequest': 'true' };
    if (opts.authorization) headers.Authorization = opts.authorization;
    if (opts.cookie) headers.Cookie = opts.cookie;
    if (opts.forwardedFor) headers['X-Forwarded-For'] = opts.forwardedFor;
    if (body !== undefined) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    const req = http.request(new URL(`${url}/ocs/v2.php${path}?format=json`), { method, localAddress, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sum of `parley_secret_checks_total` samples for an action, read from GET /metrics. */
export async function secretChecks(url: string, action: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let n = 0;
  for (const line of text.split('\n')) {
    const m = /^parley_secret_checks_total\{([^}]*)\} (\d+)/.exec(line);
    if (m && m[1].includes(`action="${action}"`)) n += Number(m[2]);
  }
  return n;
}
