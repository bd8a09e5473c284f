/**
 * What other servers post to `/ocm/shares` and `/ocm/notifications`
 * (docs/reference/federation.md#notifications): shares go to the invitations; notifications to
 * the host (SHARE_ACCEPTED, SHARE_DECLINED) or the invited side (SHARE_UNSHARED, ROOM_MODIFIED,
 * MESSAGE_POSTED, PARTICIPANT_MODIFIED) by type. Every
 * notification is authenticated by its shared secret; a wrong one counts against the sender's
 * address in the brute-force throttle (action `talkFederationSecret`), and past the cap the
 * address gets 429 before anything is checked.
 */
import { ApiError, ocmRefused } from '../../domain/errors.js';
import { federationSwitches } from '../../domain/federation/rules.js';
import { isRefusal, OCM_RESOURCE_NOT_FOUND, readNotification } from '../../domain/federation/ocm.js';
import type { BruteForceService } from '../accounts/brute-force.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { FederationHost } from './host.js';
import type { FederationInvitations } from './invitations.js';
import type { FederationSync } from './sync.js';

export class OcmInbox {
  constructor(
    private readonly appConfig: AppConfigService,
    private readonly bruteForce: BruteForceService,
    private readonly host: FederationHost,
    private readonly invitations: FederationInvitations,
    private readonly sync: FederationSync,
  ) {}

  async share(ip: string, body: unknown): Promise<{ recipientDisplayName: string }> {
    await this.bruteForce.assertBelowCap(ip, 'talkFederationSecret');
    return this.invitations.receiveShare(body);
  }

  async notification(ip: string, body: unknown): Promise<Record<string, never>> {
    await this.bruteForce.assertBelowCap(ip, 'talkFederationSecret');
    if (!federationSwitches(await this.appConfig.snapshot()).enabled) throw ocmRefused(503, 'Server does not support talk federation');
    const n = readNotification(body);
    if (isRefusal(n)) throw ocmRefused(n.status, n.message, n.validationErrors);
    try {
      switch (n.type) {
        case 'SHARE_ACCEPTED':
          await this.host.shareAccepted(n);
          break;
        case 'SHARE_DECLINED':
          await this.host.shareDeclined(n);
          break;
        case 'SHARE_UNSHARED':
          await this.invitations.shareUnshared(n);
          break;
        case 'ROOM_MODIFIED':
          await this.invitations.roomModified(n);
          break;
        case 'MESSAGE_POSTED':
          await this.sync.messagePosted(n);
          break;
        case 'PARTICIPANT_MODIFIED':
          await this.sync.participantModified(n);
          break;
      }
    } catch (e) {
      if (e instanceof ApiError && e.status === 400 && (e.data as { message?: string }).message === OCM_RESOURCE_NOT_FOUND) {
        await this.bruteForce.failure(ip, 'talkFederationSecret');
      }
      throw e;
    }
    return {};
  }
}
