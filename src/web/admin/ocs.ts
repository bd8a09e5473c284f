/**
 * The admin page's calls to Parley's OCS API (runs in the browser): the login session cookie,
 * `OCS-APIRequest` for the CSRF rule, JSON both ways. A refusal becomes the message to show: the
 * server's own (`data.message`, else `meta.message`, else `data.error`).
 */
export type OcsOutcome = { ok: true; data: any } | { ok: false; message: string };

export async function ocsRequest(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<OcsOutcome> {
  const headers: Record<string, string> = { 'OCS-APIRequest': 'true', Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url + (url.includes('?') ? '&' : '?') + 'format=json', {
      method,
      credentials: 'same-origin',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, message: 'The server could not be reached.' };
  }
  if (res.status === 401) return { ok: false, message: 'Your login session has ended; reload the page and log in again.' };
  let parsed: any;
  try {
    parsed = await res.json();
  } catch {
    parsed = undefined;
  }
  if (res.ok) return { ok: true, data: parsed?.ocs?.data };
  const data = parsed?.ocs?.data;
  return { ok: false, message: String(data?.message ?? parsed?.ocs?.meta?.message ?? data?.error ?? `Refused (HTTP ${res.status})`) };
}
