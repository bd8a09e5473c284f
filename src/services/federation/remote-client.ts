/**
 * Requests to other federated servers (docs/reference/federation.md#discovery,
 * docs/reference/federation.md#proxied-requests): finds a server's OCM end point through its
 * discovery document, posts OCM shares and notifications there, and makes Talk's proxied OCS
 * requests with the federated user's cloud id and shared secret. Every request first passes the
 * outbound check (FederationTrust.refusal): https and public addresses only, unless
 * FEDERATION_ALLOW_INSECURE. Redirects are not followed; every request has a timeout. Secrets are
 * never logged.
 */
import { BoundedMap } from '../../domain/bounded-map.js';
import { remoteBaseUrl } from '../../domain/federation/cloud-id.js';
import { TALK_ROOM_RESOURCE } from '../../domain/federation/rules.js';
import type { FederationTrust } from './trust.js';

/** A request that could not be made or answered (refused by the outbound check, network, timeout). */
export class RemoteUnreachable extends Error {
  constructor(
    readonly reason: 'refused' | 'network' | 'discovery',
    message: string,
  ) {
    super(message);
  }
}

export interface RemoteAnswer {
  status: number;
  /** The parsed JSON body, or undefined. */
  body: unknown;
}

/** Largest answer body read from another server. */
const MAX_ANSWER_BYTES = 1_000_000;
/** How long a discovered end point is kept (ms). */
const DISCOVERY_TTL_MS = 5 * 60_000;

export class FederationClient {
  private readonly endpoints = new BoundedMap<string, { endPoint: string; until: number }>(1000);

  constructor(
    private readonly trust: FederationTrust,
    private readonly timeoutMs = 5000,
  ) {}

  /** The OCM end point of `remote` announcing Talk rooms (its `/.well-known/ocm`, else `/ocm-provider/`). */
  async ocmEndPoint(remote: string): Promise<string> {
    const kept = this.endpoints.get(remote);
    if (kept && kept.until > Date.now()) return kept.endPoint;
    const base = remoteBaseUrl(remote);
    let answered = false;
    for (const path of ['/.well-known/ocm', '/ocm-provider/']) {
      let answer: RemoteAnswer;
      try {
        answer = await this.fetchJson(remote, 'GET', `${base}${path}`);
      } catch (e) {
        if (e instanceof RemoteUnreachable && e.reason === 'refused') throw e;
        continue;
      }
      answered = true;
      const doc = answer.body as { enabled?: unknown; endPoint?: unknown; resourceTypes?: unknown } | undefined;
      if (answer.status !== 200 || !doc || typeof doc.endPoint !== 'string') continue;
      const talk = Array.isArray(doc.resourceTypes) && doc.resourceTypes.some((r) => (r as { name?: unknown })?.name === TALK_ROOM_RESOURCE);
      if (doc.enabled === false || !talk) throw new RemoteUnreachable('discovery', 'the server does not offer Talk federation');
      const endPoint = doc.endPoint.replace(/\/+$/, '');
      // The end point is another URL the remote chose: it must be on the same server.
      if (!sameOrigin(endPoint, base)) throw new RemoteUnreachable('discovery', 'the OCM end point is on another server');
      this.endpoints.set(remote, { endPoint, until: Date.now() + DISCOVERY_TTL_MS });
      return endPoint;
    }
    // Not answering at all is a server that is down (retried); answering without a document is not a peer.
    if (!answered) throw new RemoteUnreachable('network', 'the server did not answer');
    throw new RemoteUnreachable('discovery', 'no OCM discovery document');
  }

  /** POST `{endPoint}/shares` or `/notifications` with an OCM body. */
  async postOcm(remote: string, what: 'shares' | 'notifications', body: unknown): Promise<RemoteAnswer> {
    const endPoint = await this.ocmEndPoint(remote);
    return this.fetchJson(remote, 'POST', `${endPoint}/${what}`, { body });
  }

  /**
   * A proxied Talk OCS request (`path` after `/ocs/v2.php/apps/spreed/api/`) as the federated user
   * `cloudId` with its shared secret, as Talk's ProxyRequest makes them.
   */
  async ocs(
    remote: string,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    auth: { cloudId: string; secret: string },
    opts: { query?: Record<string, string | number>; body?: unknown; timeoutMs?: number } = {},
  ): Promise<RemoteAnswer & { headers: Headers }> {
    const url = new URL(`${remoteBaseUrl(remote)}/ocs/v2.php/apps/spreed/api/${path}`);
    url.searchParams.set('format', 'json');
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
    return this.fetchJson(remote, method, url.href, { body: opts.body, headers: proxyHeaders(auth), timeoutMs: opts.timeoutMs });
  }

  /**
   * A proxied GET whose answer is not OCS (a conversation avatar's image): its status, type and
   * bytes (at most MAX_ANSWER_BYTES; a larger answer is unreachable).
   */
  async ocsBytes(remote: string, path: string, auth: { cloudId: string; secret: string }): Promise<{ status: number; contentType: string; body: Buffer }> {
    const url = `${remoteBaseUrl(remote)}/ocs/v2.php/apps/spreed/api/${path}`;
    const { res, buf } = await this.fetchBytes(remote, 'GET', url, { headers: { ...proxyHeaders(auth), Accept: 'image/*' } });
    if (buf === undefined) throw new RemoteUnreachable('network', 'answer too large');
    return { status: res.status, contentType: (res.headers.get('content-type') ?? '').split(';')[0].trim(), body: buf };
  }

  private async fetchJson(
    remote: string,
    method: string,
    url: string,
    opts: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<RemoteAnswer & { headers: Headers }> {
    const { res, buf } = await this.fetchBytes(remote, method, url, opts);
    const text = buf === undefined ? '' : buf.toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, body, headers: res.headers };
  }

  /** The request through the outbound check; the answer's bytes, undefined past MAX_ANSWER_BYTES. */
  private async fetchBytes(
    remote: string,
    method: string,
    url: string,
    opts: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<{ res: Response; buf: Buffer | undefined }> {
    const refusal = await this.trust.refusal(remote);
    if (refusal) throw new RemoteUnreachable('refused', `requests to this server are not allowed (${refusal})`);
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: { Accept: 'application/json', ...(opts.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...opts.headers },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        redirect: 'manual',
        signal: AbortSignal.timeout(opts.timeoutMs ?? this.timeoutMs),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      throw new RemoteUnreachable('network', e.cause?.code ?? e.name ?? 'network error');
    }
    try {
      const buf = Buffer.from(await res.arrayBuffer());
      return { res, buf: buf.length > MAX_ANSWER_BYTES ? undefined : buf };
    } catch {
      throw new RemoteUnreachable('network', 'answer not read');
    }
  }
}

/** The headers of Talk's ProxyRequest: the federated user's cloud id and shared secret. */
function proxyHeaders(auth: { cloudId: string; secret: string }): Record<string, string> {
  return {
    'X-Nextcloud-Federation': 'true',
    'OCS-APIRequest': 'true',
    Authorization: 'Basic ' + Buffer.from(`${encodeURIComponent(auth.cloudId)}:${auth.secret}`).toString('base64'),
  };
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
