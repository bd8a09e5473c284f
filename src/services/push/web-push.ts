/**
 * Web Push (RFC 8030, message encryption RFC 8291 `aes128gcm`, VAPID RFC 8292) for browsers and
 * UnifiedPush distributors, in the notifications app's shapes (its WebPushController and
 * its Web Push protocol document; here docs/talk-apps.md "Push notifications"): the server's VAPID key, a
 * subscription per app password that must be activated with the token pushed through it, and
 * delivery of the same notifications and silent deletes as the proxy's, as clear JSON inside
 * the encrypted message. Requests are encrypted and signed by the `web-push` package and sent
 * here (timeouts, no redirects; only the status of the answer is read).
 */
import { randomUUID } from 'node:crypto';
import webpush from 'web-push';
import type { OutboxRow } from '../../db/repositories/outbox.js';
import type { WebpushSubscriptionRow, WebpushSubscriptionsRepository } from '../../db/repositories/webpush-subscriptions.js';
import { badRequest, forbidden, notFound } from '../../domain/errors.js';
import { isTalkApp } from '../../domain/push.js';
import { isWebPushEndpoint, webPushAllows, isP256dh, isAuthSecret } from '../../domain/web-push.js';
import { nowSeconds } from '../../domain/time.js';
import type { NotificationService } from '../notifications/notifications.js';
import type { OutboxSignal } from '../outbox/signal.js';
import type { OutboxHandler, OutboxResult } from '../outbox/worker.js';
import type { RequestContext } from '../platform/request-context.js';
import { resolvesInternally } from '../platform/internal-address.js';
import type { UserStatusService } from '../accounts/user-status.js';
import { parsePushRow, type PushCounters, type PushRow } from './proxy-delivery.js';
import { sessionToken } from './registration.js';

export interface WebPushOptions {
  /** WEB_PUSH: subscriptions may be registered. */
  enabled: boolean;
  /** PUSH_ALLOW_INSECURE: http endpoints on loopback (tests). */
  allowInsecure: boolean;
  /** The VAPID `sub` claim: how push services reach the operator. */
  contact: string;
  baseUrl: string;
  timeoutMs?: number;
}

/** How long a push service keeps a message for an offline browser (seconds). */
const TTL = 4 * 7 * 24 * 3600;

export class WebPushService implements OutboxHandler {
  readonly topic = 'webpush';

  constructor(
    private readonly repo: WebpushSubscriptionsRepository,
    private readonly notifications: NotificationService,
    private readonly userStatus: UserStatusService,
    private readonly counters: PushCounters,
    private readonly signal: OutboxSignal,
    private readonly opts: WebPushOptions,
    private readonly log: { warn(obj: Record<string, unknown>, msg: string): void },
  ) {}

  /** The server's VAPID public key (base64url, uncompressed P-256), generated on first use. */
  async vapidPublicKey(): Promise<string> {
    return (await this.vapid()).public_key;
  }

  private async vapid() {
    const found = await this.repo.vapid();
    if (found) return found;
    const keys = webpush.generateVAPIDKeys();
    return this.repo.keepVapid({ id: 1, public_key: keys.publicKey, private_key: keys.privateKey });
  }

  /**
   * Registers the caller's subscription: 200 when it was active with the same endpoint and keys
   * (only the app types change), 201 otherwise, and the activation token goes out through it.
   */
  async register(ctx: RequestContext, endpoint: string, uaPublicKey: string, auth: string, appTypes: string): Promise<200 | 201> {
    this.requireEnabled();
    if (!isP256dh(uaPublicKey)) throw badRequest('uaPublicKey', 'INVALID_P256DH');
    if (!isAuthSecret(auth)) throw badRequest('auth', 'INVALID_AUTH');
    if (!isWebPushEndpoint(endpoint, this.opts.allowInsecure)) throw badRequest('endpoint', 'INVALID_ENDPOINT');
    if (appTypes.length > 256) throw badRequest('appTypes', 'TOO_MANY_APP_TYPES');
    const appPasswordId = sessionToken(ctx);
    const outcome = await this.repo.register({
      user_id: ctx.userId!,
      app_password_id: appPasswordId,
      endpoint,
      p256dh: uaPublicKey,
      auth,
      app_types: appTypes,
      activation_token: randomUUID(),
      created_at: nowSeconds(),
    });
    if (outcome === 'created') this.signal.kick();
    return outcome === 'created' ? 201 : 200;
  }

  /** Activates the caller's subscription with the token pushed to it: 202, 200 when it was active already. */
  async activate(ctx: RequestContext, token: string): Promise<200 | 202> {
    this.requireEnabled();
    const appPasswordId = sessionToken(ctx);
    const sub = await this.repo.find(ctx.userId!, appPasswordId);
    if (!sub) throw notFound('subscription', 'NO_PUSH_SUBSCRIPTION');
    if (sub.activated) return 200;
    if (!(await this.repo.activate(ctx.userId!, appPasswordId, token))) throw badRequest('activationToken', 'INVALID_ACTIVATION_TOKEN');
    return 202;
  }

  /** Removes the caller's subscription (allowed while Web Push is off): whether there was one. */
  async unregister(ctx: RequestContext): Promise<boolean> {
    return this.repo.remove(ctx.userId!, sessionToken(ctx));
  }

  private requireEnabled(): void {
    if (!this.opts.enabled) throw forbidden('webpush', 'WEBPUSH_DISABLED');
  }

  // ---- delivery (outbox topic `webpush`) ----

  async deliver(rows: OutboxRow[]): Promise<Map<number, OutboxResult>> {
    const results = new Map<number, OutboxResult>();
    const drop = (row: OutboxRow, reason: string) => {
      results.set(Number(row.id), 'drop');
      this.counters.dropped.inc({ channel: 'webpush', reason });
    };
    const parsed: PushRow[] = [];
    for (const row of rows) {
      const p = parsePushRow(row);
      if (p) parsed.push(p);
      else drop(row, 'malformed');
    }
    const subs = new Map((await this.repo.forDelivery([...new Set(parsed.map((p) => p.device))])).map((s) => [Number(s.id), s]));
    // Only the activation token goes to a subscription not yet activated.
    const live = parsed.filter((p) => {
      const sub = subs.get(p.device);
      if (sub && (sub.activated || p.kind === 'activate')) return true;
      drop(p.row, 'gone');
      return false;
    });
    const vapid = await this.vapid();
    const users = [...new Set(live.map((p) => subs.get(p.device)!.user_id))];
    const statuses = await this.userStatus.forUsers(users);

    /** One message to one subscription; the rows share its fate. */
    const messages: Array<{ sub: WebpushSubscriptionRow; json: string; urgency: 'high' | 'normal'; topic?: string; rows: PushRow[] }> = [];
    for (const p of live.filter((x) => x.kind === 'activate')) {
      const sub = subs.get(p.device)!;
      messages.push({ sub, json: JSON.stringify({ activationToken: sub.activation_token }), urgency: 'high', rows: [p] });
    }
    const mineOf = (userId: string) => live.filter((p) => subs.get(p.device)!.user_id === userId && p.kind !== 'activate');
    const dnd = (userId: string) => statuses.get(userId)?.status === 'dnd';
    // Every user's notifications of the batch in a fixed number of statements, whatever the number of users.
    const records = await this.notifications.recordsForPush(
      users
        .map((userId) => ({
          userId,
          ids: [
            ...new Set(
              mineOf(userId)
                .filter((p) => p.kind === 'notify')
                .map((p) => p.nid),
            ),
          ],
          importantOnly: dnd(userId),
        }))
        .filter((w) => w.ids.length),
      this.opts.baseUrl,
    );
    for (const userId of users) {
      const mine = mineOf(userId);
      const notify = mine.filter((p) => p.kind === 'notify');
      if (notify.length) {
        for (const p of notify) {
          const record = records.get(p.nid);
          const sub = subs.get(p.device)!;
          if (!record) drop(p.row, dnd(userId) ? 'dnd' : 'read');
          else if (!webPushAllows(sub.app_types, record.app)) drop(p.row, 'filtered');
          else {
            const json = JSON.stringify({
              nid: p.nid,
              app: record.app,
              subject: record.subject.slice(0, 2000),
              type: record.object_type,
              id: record.object_id,
            });
            messages.push({ sub, json, urgency: isTalkApp(record.app) ? 'high' : 'normal', topic: `nid${p.nid}`, rows: [p] });
          }
        }
      }
      const deletes = new Map<number, PushRow[]>();
      for (const p of mine) if (p.kind !== 'notify') deletes.set(p.device, [...(deletes.get(p.device) ?? []), p]);
      for (const [subId, list] of deletes) {
        const sub = subs.get(subId)!;
        if (list.some((p) => p.kind === 'delete-all')) {
          messages.push({ sub, json: JSON.stringify({ 'delete-all': true }), urgency: 'normal', rows: list });
        } else if (list.length === 1) {
          messages.push({ sub, json: JSON.stringify({ nid: list[0].nid, delete: true }), urgency: 'normal', topic: `nid${list[0].nid}`, rows: list });
        } else {
          messages.push({ sub, json: JSON.stringify({ nids: [...new Set(list.map((p) => p.nid))], 'delete-multiple': true }), urgency: 'normal', rows: list });
        }
      }
    }

    const expired: number[] = [];
    for (const m of messages) {
      const outcome = await this.send(m.sub, m.json, m.urgency, m.topic, vapid);
      if (outcome === 'expired') expired.push(Number(m.sub.id));
      const result: OutboxResult = outcome === 'sent' ? 'sent' : outcome === 'retry' ? 'retry' : 'drop';
      for (const p of m.rows) results.set(Number(p.row.id), result);
      if (result === 'sent')
        this.counters.sent.inc({ channel: 'webpush', kind: m.rows[0].kind === 'notify' ? 'notify' : m.rows[0].kind === 'activate' ? 'activate' : 'delete' });
      else this.counters.failed.inc({ channel: 'webpush', reason: outcome }, m.rows.length);
    }
    await this.repo.deleteIds(expired);
    return results;
  }

  /** Encrypts (aes128gcm) and signs (VAPID) one message and posts it to the subscription's endpoint. */
  private async send(
    sub: WebpushSubscriptionRow,
    json: string,
    urgency: 'high' | 'normal',
    topic: string | undefined,
    vapid: { public_key: string; private_key: string },
  ): Promise<'sent' | 'retry' | 'expired' | 'refused'> {
    const details = webpush.generateRequestDetails({ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, json, {
      vapidDetails: { subject: this.opts.contact, publicKey: vapid.public_key, privateKey: vapid.private_key },
      TTL,
      urgency,
      topic,
      contentEncoding: 'aes128gcm',
    });
    // The endpoint was checked as written when it registered; what its name resolves to now must
    // be public too, or a subscription could make Parley post into its own network.
    if (!this.opts.allowInsecure && (await resolvesInternally(new URL(details.endpoint).hostname))) {
      this.log.warn({ endpoint: new URL(sub.endpoint).host }, 'web push endpoint resolves to an internal address; not sent');
      return 'refused';
    }
    let res: Response;
    try {
      res = await fetch(details.endpoint, {
        method: 'POST',
        headers: Object.fromEntries(Object.entries(details.headers).map(([k, v]) => [k, String(v)])),
        body: details.body ? new Uint8Array(details.body) : undefined,
        redirect: 'error',
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
      await res.body?.cancel();
    } catch (err) {
      this.log.warn({ endpoint: new URL(sub.endpoint).host, error: (err as Error)?.message ?? String(err) }, 'web push endpoint not reachable; retrying later');
      return 'retry';
    }
    if (res.status >= 200 && res.status < 300) return 'sent';
    // RFC 8030 §7.3: the subscription is gone for good.
    if (res.status === 404 || res.status === 410) return 'expired';
    if (res.status === 429 || res.status >= 500) return 'retry';
    this.log.warn({ endpoint: new URL(sub.endpoint).host, status: res.status }, 'web push endpoint refused the message');
    return 'refused';
  }
}
