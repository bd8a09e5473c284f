/**
 * What federation owes other servers, as rows of the one outbox (topic `federation`,
 * docs/architecture.md "The outbox"): an OCM share or notification for one remote, delivered by
 * FederationDelivery. Secrets travel inside the payload, which is never logged.
 */
import type { NewOutboxRow } from '../../db/repositories/outbox.js';
import { parseCloudId } from '../../domain/federation/cloud-id.js';

export const FEDERATION_TOPIC = 'federation';

export type FederationPayload =
  /** An invitation (`POST {endPoint}/shares`); `attendeeId`: the host's attendee, removed if the remote refuses. */
  | { kind: 'share'; attendeeId: number; body: Record<string, unknown> }
  /** A notification (`POST {endPoint}/notifications`). */
  | { kind: 'notification'; body: Record<string, unknown> }
  /** SHARE_UNSHARED for a federated attendee removed here (the body is written as it is sent, with this server's URL). */
  | { kind: 'unshare'; attendeeId: number; secret: string };

export function federationOutboxRow(remote: string, payload: FederationPayload): NewOutboxRow {
  return {
    topic: FEDERATION_TOPIC,
    destination: remote,
    dedupe_key: null,
    payload: JSON.stringify(payload),
    due_at: 0,
    created_at: Math.floor(Date.now() / 1000),
  };
}

/** SHARE_UNSHARED rows for removed federated attendees (those with a secret and a cloud id that parses). */
export function unshareRows(attendees: ReadonlyArray<{ id: number; actor_id: string; access_token: string | null }>): NewOutboxRow[] {
  return attendees.flatMap((a) => {
    const cloud = parseCloudId(a.actor_id);
    return cloud && a.access_token ? [federationOutboxRow(cloud.remote, { kind: 'unshare', attendeeId: a.id, secret: a.access_token })] : [];
  });
}

export function parseFederationPayload(text: string): FederationPayload | undefined {
  try {
    const p = JSON.parse(text) as FederationPayload;
    if (p?.kind === 'unshare') return Number.isInteger(p.attendeeId) && typeof p.secret === 'string' ? p : undefined;
    if (p && typeof p.body === 'object' && p.body !== null && (p.kind === 'notification' || (p.kind === 'share' && Number.isInteger(p.attendeeId)))) return p;
  } catch {
    // malformed: dropped by the caller
  }
  return undefined;
}
