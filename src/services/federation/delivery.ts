/**
 * Delivers the outbox rows of topic `federation` (docs/federation.md "Delivery"): OCM shares and
 * notifications, posted to each remote's OCM end point after the change that owed them has
 * committed, so a remote that is slow or down delays nothing here. Network failures, 429 and
 * server errors are retried with the outbox's back-off; a share the remote refuses (any other
 * answer; Talk answers 503 when it does not take federated invitations) removes the invited
 * attendee; a notification the remote does not know (400 RESOURCE_NOT_FOUND) is dropped.
 */
import type { OutboxRow } from '../../db/repositories/outbox.js';
import { OCM_RESOURCE_NOT_FOUND, ocmNotificationBody } from '../../domain/federation/ocm.js';
import type { OutboxHandler, OutboxResult } from '../outbox/worker.js';
import { RemoteUnreachable, type FederationClient } from './remote-client.js';
import { FEDERATION_TOPIC, parseFederationPayload } from './outbox-rows.js';

export interface DeliveryLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
}

export class FederationDelivery implements OutboxHandler {
  readonly topic = FEDERATION_TOPIC;
  /**
   * One remote's shares and notifications arrive in the order they were written (a share before
   * its SHARE_UNSHARED, renames in order), one at a time, by one process at a time
   * (docs/architecture.md#the-outbox).
   */
  readonly ordered = true;

  constructor(
    private readonly client: FederationClient,
    /** A share refused for good: the host removes its attendee. */
    private readonly shareRefused: (attendeeId: number) => Promise<void>,
    private readonly log: DeliveryLogger,
    /** This server as remotes name it (FederationHost.ownServerUrl). */
    private readonly ownServerUrl: string,
  ) {}

  /**
   * A share whose tries are spent (the remote never answered) is refused for good, as one the
   * remote refused: the invited attendee is removed (`federated_user_removed`), so a cloud id
   * that names no reachable server does not stay invited forever.
   */
  async givenUp(rows: OutboxRow[]): Promise<void> {
    for (const row of rows) {
      const payload = parseFederationPayload(row.payload);
      if (payload?.kind !== 'share') continue;
      this.log.warn({ remote: row.destination }, 'federation: the invitation could not be delivered; the attendee is removed');
      await this.shareRefused(payload.attendeeId);
    }
  }

  async deliver(rows: OutboxRow[]): Promise<Map<number, OutboxResult>> {
    const results = new Map<number, OutboxResult>();
    for (const row of rows) results.set(Number(row.id), await this.deliverOne(row));
    return results;
  }

  private async deliverOne(row: OutboxRow): Promise<OutboxResult> {
    const payload = parseFederationPayload(row.payload);
    if (!payload) return 'drop';
    const remote = row.destination;
    const body =
      payload.kind === 'unshare'
        ? ocmNotificationBody('SHARE_UNSHARED', payload.attendeeId, {
            remoteServerUrl: this.ownServerUrl,
            sharedSecret: payload.secret,
            message: 'This room has been unshared',
          })
        : payload.body;
    let status: number;
    let message: unknown;
    try {
      const answer = await this.client.postOcm(remote, payload.kind === 'share' ? 'shares' : 'notifications', body);
      status = answer.status;
      message = (answer.body as { message?: unknown } | undefined)?.message;
    } catch (e) {
      if (e instanceof RemoteUnreachable && e.reason !== 'network') {
        this.log.warn({ remote, kind: payload.kind, reason: e.message }, 'federation: remote refused or not a Talk server; not sent');
        if (payload.kind === 'share') await this.shareRefused(payload.attendeeId);
        return 'drop';
      }
      this.log.warn({ remote, kind: payload.kind, reason: (e as Error).message }, 'federation: remote not reachable; retrying later');
      return 'retry';
    }
    if (status >= 200 && status < 300) return 'sent';
    if (status === 429 || (status >= 500 && status !== 501 && status !== 503)) return 'retry';
    if (payload.kind === 'share') {
      this.log.warn({ remote, status }, 'federation: the remote refused the invitation');
      await this.shareRefused(payload.attendeeId);
    } else if (!(status === 400 && message === OCM_RESOURCE_NOT_FOUND)) {
      this.log.warn({ remote, status, type: body.notificationType }, 'federation: the remote refused a notification');
    }
    return 'drop';
  }
}
