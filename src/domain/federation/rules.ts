/**
 * Federation rules (docs/reference/federation.md#switches, docs/reference/federation.md#discovery),
 * pure: which direction the app-config keys allow, whether a remote may be reached at all, the
 * OCM discovery document, and how a trusted server is named.
 */
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import { isInternalAddress } from '../web-push.js';
import { parseRemote } from './cloud-id.js';

/** The OCM resource type of Talk conversations, and its protocol name in shares. */
export const TALK_ROOM_RESOURCE = 'talk-room';
export const TALK_PROTOCOL_NAME = 'nctalk';
/** Where a Talk server answers proxied requests (the resource type's `talk-v1` protocol). */
export const TALK_V1_API = '/ocs/v2.php/apps/spreed/api/';
/** The OCM API version Parley announces. */
export const OCM_API_VERSION = '1.1.0';

export interface FederationSwitches {
  /** `federation_enabled`. */
  enabled: boolean;
  /** Enabled and `federation_incoming_enabled`: users here may be invited. */
  incoming: boolean;
  /** Enabled and `federation_outgoing_enabled`: users here may invite others. */
  outgoing: boolean;
  /** `federation_only_trusted_servers`. */
  onlyTrusted: boolean;
}

export function federationSwitches(cfg: AppConfigSnapshot): FederationSwitches {
  const enabled = cfg.bool('federation_enabled');
  return {
    enabled,
    incoming: enabled && cfg.get('federation_incoming_enabled') === '1',
    outgoing: enabled && cfg.get('federation_outgoing_enabled') === '1',
    onlyTrusted: cfg.get('federation_only_trusted_servers') === '1',
  };
}

/**
 * Why a request to `remote` (a cloud id's remote part) must not be made, or undefined when it
 * may: plain HTTP and internal address literals only with FEDERATION_ALLOW_INSECURE. What a
 * name resolves to is checked where the request is made.
 */
export function outboundRefusal(remote: string, allowInsecure: boolean): 'remote' | 'insecure' | 'internal' | undefined {
  const parsed = parseRemote(remote);
  if (!parsed) return 'remote';
  if (allowInsecure) return undefined;
  if (parsed.insecure) return 'insecure';
  if (isInternalAddress(parsed.host)) return 'internal';
  return undefined;
}

/** How a server is named in the trusted list: its remote part without any scheme, or undefined. */
export function trustedServerName(value: string): string | undefined {
  const parsed = parseRemote(value.trim());
  return parsed ? parsed.remote.replace(/^http:\/\//, '') : undefined;
}

/** The OCM discovery document (`/ocm-provider/`, `/.well-known/ocm`): Talk's resource type while federation is on. */
export function ocmDiscovery(baseUrl: string, enabled: boolean): Record<string, unknown> {
  return {
    enabled,
    apiVersion: OCM_API_VERSION,
    endPoint: `${baseUrl.replace(/\/+$/, '')}/ocm`,
    provider: 'Parley',
    resourceTypes: enabled ? [{ name: TALK_ROOM_RESOURCE, shareTypes: ['user'], protocols: { 'talk-v1': TALK_V1_API } }] : [],
  };
}
