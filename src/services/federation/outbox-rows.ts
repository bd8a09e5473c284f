/**
 * What federation owes other servers, as rows of the one outbox (topic `federation`,
 * docs/architecture.md "The outbox"): an OCM share or notification for one remote, delivered by
 * FederationDelivery. Secrets travel inside the payload, which is never logged.
 */
import type { NewOutboxRow } from '../../db/repositories/outbox.js';

export const FEDERATION_TOPIC = 'federation';

export type FederationPayload =
  /** An invitation (`POST {endPoint}/shares`); `attendeeId`: the host's attendee, removed if the remote refuses. */
  | { kind: 'share'; attendeeId: number; body: Record<string, unknown> }
  /** A notification (`POST {endPoint}/notifications`). */
  | { kind: 'notification'; body: Record<string, unknown> };

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

export function parseFederationPayload(text: string): FederationPayload | undefined {
  try {
    const p = JSON.parse(text) as FederationPayload;
    if (p && typeof p.body === 'object' && p.body !== null && (p.kind === 'notification' || (p.kind === 'share' && Number.isInteger(p.attendeeId)))) return p;
  } catch {
    // malformed: dropped by the caller
  }
  return undefined;
}
