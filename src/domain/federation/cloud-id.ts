/**
 * Federated cloud ids (docs/reference/federation.md#cloud-ids): `user@host[:port][/path]`, the
 * way Nextcloud names a user of another server. Parsed strictly, pure: a user part of the
 * characters Nextcloud allows in user ids (split at the last `@`, so the user may contain one),
 * a DNS name, IPv4 address or bracketed IPv6 address, an optional port (1-65535) and an optional
 * path of plain segments. `https://` before the host is dropped; `http://` is kept, as Nextcloud
 * keeps it in the cloud ids of servers reached over plain HTTP (only allowed with
 * FEDERATION_ALLOW_INSECURE, checked where requests are made).
 */
import net from 'node:net';

export interface CloudId {
  /** The user id on the remote server. */
  user: string;
  /** What follows the `@`, normalised: `[http://]host[:port][/path]` (host lower-cased, no https://). */
  remote: string;
  /** The host name or address (IPv6 without brackets), lower-cased. */
  host: string;
  port: number | undefined;
  /** `''` or `/a/b`. */
  path: string;
  /** Plain HTTP (the remote was written with `http://`). */
  insecure: boolean;
  /** `user@remote`: the normalised cloud id. */
  id: string;
}

/** Longest cloud id accepted (attendee actor ids are 255 characters). */
export const CLOUD_ID_MAX_LENGTH = 255;

const USER = /^[A-Za-z0-9_.@\-'+]{1,64}$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const SEGMENT = /^[A-Za-z0-9._~-]+$/;

function validHost(host: string): boolean {
  if (net.isIPv4(host)) return true;
  if (host.length > 253 || /^[0-9.]+$/.test(host)) return false;
  return host.split('.').every((l) => LABEL.test(l));
}

/** The cloud id `value` names, or undefined when it is not one. */
export function parseCloudId(value: string): CloudId | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > CLOUD_ID_MAX_LENGTH) return undefined;
  const at = value.lastIndexOf('@');
  if (at <= 0) return undefined;
  const user = value.slice(0, at);
  const remote = parseRemote(value.slice(at + 1));
  if (!USER.test(user) || !remote) return undefined;
  return { user, ...remote, id: `${user}@${remote.remote}` };
}

/** A server as a cloud id names it (`[http(s)://]host[:port][/path]`), normalised; undefined when malformed. */
export function parseRemote(value: string): Omit<CloudId, 'user' | 'id'> | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > CLOUD_ID_MAX_LENGTH) return undefined;
  let rest = value;
  let insecure = false;
  if (/^https:\/\//i.test(rest)) rest = rest.slice(8);
  else if (/^http:\/\//i.test(rest)) {
    rest = rest.slice(7);
    insecure = true;
  }
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash);
  if (
    path &&
    !path
      .slice(1)
      .split('/')
      .every((s) => SEGMENT.test(s) && s !== '.' && s !== '..')
  )
    return undefined;
  let host: string;
  let portText: string | undefined;
  const v6 = /^\[([0-9A-Fa-f:.]+)\](?::(\d+))?$/.exec(authority);
  if (v6) {
    host = v6[1].toLowerCase();
    portText = v6[2];
    if (!net.isIPv6(host)) return undefined;
  } else {
    const m = /^([^:]+)(?::(\d+))?$/.exec(authority);
    if (!m) return undefined;
    host = m[1].toLowerCase();
    portText = m[2];
    if (!validHost(host)) return undefined;
  }
  let port: number | undefined;
  if (portText !== undefined) {
    if (!/^[1-9]\d{0,4}$/.test(portText) || Number(portText) > 65535) return undefined;
    port = Number(portText);
  }
  const hostPart = net.isIPv6(host) ? `[${host}]` : host;
  const remote = `${insecure ? 'http://' : ''}${hostPart}${port === undefined ? '' : `:${port}`}${path}`;
  return { remote, host, port, path, insecure };
}

/** The base URL requests to a remote go to: `https://` unless the remote was written with `http://`. */
export function remoteBaseUrl(remote: string): string {
  return remote.startsWith('http://') ? remote : `https://${remote}`;
}

/** This server as a cloud id's remote part, from its base URL (https:// dropped, http:// kept). */
export function ownRemote(baseUrl: string): string {
  return baseUrl.replace(/^https:\/\//i, '').replace(/\/+$/, '');
}

/** A local user's own cloud id. */
export function localCloudId(userId: string, baseUrl: string): string {
  return `${userId}@${ownRemote(baseUrl)}`;
}
