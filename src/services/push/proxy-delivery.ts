/**
 * Delivery to push proxies (nextcloud/notifications lib/Push.php; docs/talk-apps.md "Push
 * notifications"), the outbox handler of topic `push`. Each claimed row owes one device either
 * a notification (`notify`) or a silent delete (`delete`). For a notification the subject JSON
 * (`nid`, `app`, `subject`, `type`, `id`) is encrypted with the device's RSA key (PKCS#1 v1.5
 * padding) and signed with the account's key (SHA-512); deletes of one device are merged into
 * `delete` / `delete-multiple` (ten ids each) / `delete-all`. Everything for one proxy goes in
 * one `POST {proxy}/notifications`.
 *
 * Rows are dropped (not sent) when their device or app password is gone, the notification was
 * read or removed meanwhile, the user is on "do not disturb" (unless the conversation is one
 * they marked important, as Talk's priority notifications), the notification is for another
 * kind of app (Talk's go to the Talk apps when the user has one), or the user's rate is used up.
 * A proxy that does not answer, answers 5xx or 429 gets the rows again later (the worker's
 * back-off); its `unknown` devices are unregistered.
 */
import { constants, createPrivateKey, createPublicKey, publicEncrypt, sign, type KeyObject } from 'node:crypto';
import { BoundedMap } from '../../domain/bounded-map.js';
import { promisify } from 'node:util';
import type { OutboxRow } from '../../db/repositories/outbox.js';
import type { PushDeviceRow, PushDevicesRepository } from '../../db/repositories/push-devices.js';
import type { UserRateLimitsRepository } from '../../db/repositories/user-rate-limits.js';
import { Counter } from '../../domain/openmetrics.js';
import { deletePayloads, devicesFor, proxyFormBody, pushPriority, pushSubjectJson } from '../../domain/push.js';
import { PUSH_RATE } from '../../domain/rate-limits.js';
import { nowSeconds } from '../../domain/time.js';
import type { NotificationService } from '../notifications/notifications.js';
import type { UserStatusService } from '../accounts/user-status.js';
import type { OutboxHandler, OutboxResult } from '../outbox/worker.js';
import type { PushKeys } from './keys.js';

/** What one outbox row of the push topics says (written by the triggers of migration 0821). */
export interface PushRow {
  row: OutboxRow;
  /** `activate`: a Web Push subscription's activation token. */
  kind: 'notify' | 'delete' | 'delete-all' | 'activate';
  device: number;
  nid: number;
}

/** The row's payload, or undefined when it cannot be read (dropped). */
export function parsePushRow(row: OutboxRow): PushRow | undefined {
  try {
    const p = JSON.parse(row.payload) as { kind?: unknown; device?: unknown; nid?: unknown };
    if (!['notify', 'delete', 'delete-all', 'activate'].includes(p.kind as string) || typeof p.device !== 'number') return undefined;
    return { row, kind: p.kind as PushRow['kind'], device: p.device, nid: typeof p.nid === 'number' ? p.nid : 0 };
  } catch {
    return undefined;
  }
}

/** Counters of /metrics shared by both push channels. */
/** crypto.sign with a callback: the signature is computed on the thread pool. */
const signOffLoop = promisify(sign) as (algorithm: string, data: Buffer, key: KeyObject) => Promise<Buffer>;

export class PushCounters {
  readonly sent = new Counter('parley_push_sent', 'Pushes handed to a push proxy or Web Push endpoint, by channel and kind (notify, delete)');
  readonly failed = new Counter('parley_push_failed', 'Pushes a push proxy or endpoint refused or that could not be sent for good, by channel and reason');
  readonly dropped = new Counter('parley_push_dropped', 'Pushes not sent by decision, by channel and reason (gone, read, dnd, rate_limited, filtered)');
}

export interface ProxyDeliveryOptions {
  /** Per-request timeout (ms). */
  timeoutMs?: number;
}

/** At most this much of a proxy's answer is read. */
const MAX_ANSWER_BYTES = 64 * 1024;

export class ProxyDelivery implements OutboxHandler {
  readonly topic = 'push';

  constructor(
    private readonly devices: PushDevicesRepository,
    private readonly keys: PushKeys,
    private readonly notifications: NotificationService,
    private readonly userStatus: UserStatusService,
    private readonly rateLimits: UserRateLimitsRepository,
    private readonly counters: PushCounters,
    private readonly baseUrl: string,
    private readonly log: { warn(obj: Record<string, unknown>, msg: string): void },
    private readonly opts: ProxyDeliveryOptions = {},
  ) {}

  /**
   * Parsed keys, so that a push costs no PEM parsing (about a millisecond for an RSA private
   * key): users' private keys by user and creation time, devices' public keys by device and key
   * hash. The keys name every input, so an entry is never stale, only possibly forgotten.
   */
  private readonly parsed = new BoundedMap<string, KeyObject>(20_000);

  private parsedKey(cacheKey: string, pem: string, kind: 'private' | 'public'): KeyObject {
    let key = this.parsed.get(cacheKey);
    if (!key) this.parsed.set(cacheKey, (key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem)));
    return key;
  }

  async deliver(rows: OutboxRow[]): Promise<Map<number, OutboxResult>> {
    const results = new Map<number, OutboxResult>();
    const drop = (r: PushRow | OutboxRow, reason: string) => {
      const row = 'row' in r ? r.row : r;
      results.set(Number(row.id), 'drop');
      this.counters.dropped.inc({ channel: 'proxy', reason });
    };
    const parsed: PushRow[] = [];
    for (const row of rows) {
      const p = parsePushRow(row);
      if (p) parsed.push(p);
      else drop(row, 'malformed');
    }
    const devices = new Map((await this.devices.forDelivery([...new Set(parsed.map((p) => p.device))])).map((d) => [Number(d.id), d]));
    const live = parsed.filter((p) => (devices.has(p.device) ? true : (drop(p, 'gone'), false)));
    const users = [...new Set(live.map((p) => devices.get(p.device)!.user_id))];
    const [keys, statuses, userDevices] = await Promise.all([this.keys.ofUsers(users), this.userStatus.forUsers(users), this.devicesOf(users)]);

    // Per proxy: the payloads, and the rows whose fate is that proxy's answer.
    const batches = new Map<string, { payloads: string[]; rows: PushRow[] }>();
    // Sealed payloads in the order they were made; signed off the event loop (below).
    const sealed: Array<Promise<{ device: PushDeviceRow; payload: string; rowsOf: PushRow[] }>> = [];
    const add = (device: PushDeviceRow, payload: Promise<string>, rowsOf: PushRow[]) => {
      sealed.push(payload.then((p) => ({ device, payload: p, rowsOf })));
    };

    const mineOf = new Map<string, PushRow[]>();
    for (const p of live) {
      const userId = devices.get(p.device)!.user_id;
      mineOf.set(userId, [...(mineOf.get(userId) ?? []), p]);
    }
    const notifyOf = (userId: string) => (keys.has(userId) ? (mineOf.get(userId) ?? []).filter((p) => p.kind === 'notify') : []);
    const dnd = (userId: string) => statuses.get(userId)?.status === 'dnd';
    // The notifications of every user of the batch, rendered as their users read them now (gone or
    // read: missing), and the users' push rates taken: a fixed number of statements for the batch
    // whatever the number of users (docs/benchmarks.md "Push to a large conversation").
    const records = await this.notifications.recordsForPush(
      users.map((userId) => ({ userId, ids: [...new Set(notifyOf(userId).map((p) => p.nid))], importantOnly: dnd(userId) })).filter((w) => w.ids.length),
      this.baseUrl,
    );
    // Which notifications to push: there, and to a device of the right kind; one unit of the
    // user's rate each (their first ones in the batch while the rate lasts).
    const wanted = new Map<string, number[]>();
    const verdict = new Map<PushRow, 'dnd' | 'read' | 'filtered' | 'push'>();
    for (const userId of users) {
      for (const p of notifyOf(userId)) {
        const record = records.get(p.nid);
        if (!record) verdict.set(p, dnd(userId) ? 'dnd' : 'read');
        else if (!devicesFor(userDevices.get(userId) ?? [], record.app).some((d) => Number(d.id) === p.device)) verdict.set(p, 'filtered');
        else {
          verdict.set(p, 'push');
          const nids = wanted.get(userId) ?? [];
          if (!nids.includes(p.nid)) wanted.set(userId, [...nids, p.nid]);
        }
      }
    }
    const granted = await this.rateLimits.takeMany(new Map([...wanted].map(([u, nids]) => [u, nids.length])), PUSH_RATE, nowSeconds());
    const allowed = new Set<number>();
    for (const [userId, nids] of wanted) for (const nid of nids.slice(0, granted.get(userId) ?? 0)) allowed.add(nid);

    for (const userId of users) {
      const key = keys.get(userId);
      const mine = mineOf.get(userId) ?? [];
      if (!key) {
        for (const p of mine) drop(p, 'gone');
        continue;
      }
      // The user's key parsed once (and kept); each RSA signature is made on libuv's thread pool, so a
      // fan-out to a large conversation does not stall every other request of this process
      // (docs/benchmarks.md "Push to a large conversation").
      const privateKey = this.parsedKey(`u:${userId}:${key.created_at}`, key.private_key, 'private');
      const seal = async (device: PushDeviceRow, json: string) => {
        const publicKey = this.parsedKey(`d:${device.id}:${device.device_public_key_hash}`, device.device_public_key, 'public');
        const subject = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(json));
        return { subject: subject.toString('base64'), signature: (await signOffLoop('sha512', subject, privateKey)).toString('base64') };
      };
      const envelope = async (device: PushDeviceRow, json: string, priority: string, type: string) =>
        JSON.stringify({ deviceIdentifier: device.device_identifier, pushTokenHash: device.push_token_hash, ...(await seal(device, json)), priority, type });

      for (const p of notifyOf(userId)) {
        const v = verdict.get(p)!;
        if (v !== 'push') drop(p, v);
        else if (!allowed.has(p.nid)) drop(p, 'rate_limited');
        else {
          const record = records.get(p.nid)!;
          const device = devices.get(p.device)!;
          const { priority, type } = pushPriority(record.app, record.object_type);
          const json = pushSubjectJson({ nid: p.nid, app: record.app, subject: record.subject, type: record.object_type, id: record.object_id });
          add(device, envelope(device, json, priority, type), [p]);
        }
      }

      // Deletes, merged per device: everything at once when a delete-all is among them.
      const deletes = new Map<number, PushRow[]>();
      for (const p of mine) if (p.kind === 'delete' || p.kind === 'delete-all') deletes.set(p.device, [...(deletes.get(p.device) ?? []), p]);
      for (const [deviceId, list] of deletes) {
        const device = devices.get(deviceId)!;
        const all = list.some((p) => p.kind === 'delete-all');
        const payloads = deletePayloads(all ? null : [...new Set(list.map((p) => p.nid))]);
        payloads.forEach((json, i) => add(device, envelope(device, json, 'normal', 'background'), i === 0 ? list : []));
      }
    }

    for (const { device, payload, rowsOf } of await Promise.all(sealed)) {
      const batch = batches.get(device.proxy_server) ?? { payloads: [], rows: [] };
      batch.payloads.push(payload);
      batch.rows.push(...rowsOf);
      batches.set(device.proxy_server, batch);
    }
    for (const [proxy, batch] of batches) {
      const outcome = await this.post(proxy, batch.payloads);
      for (const p of batch.rows) results.set(Number(p.row.id), outcome.result);
      const kind = (p: PushRow) => (p.kind === 'notify' ? 'notify' : 'delete');
      if (outcome.result === 'sent') for (const p of batch.rows) this.counters.sent.inc({ channel: 'proxy', kind: kind(p) });
      else this.counters.failed.inc({ channel: 'proxy', reason: outcome.reason ?? 'error' }, batch.rows.length);
      if (outcome.unknown.length) await this.devices.deleteByIdentifiers(outcome.unknown);
    }
    return results;
  }

  /** Every registered device of these users whose app password exists. */
  private async devicesOf(userIds: string[]): Promise<Map<string, PushDeviceRow[]>> {
    const out = new Map<string, PushDeviceRow[]>();
    for (const d of await this.devices.forUsers(userIds)) out.set(d.user_id, [...(out.get(d.user_id) ?? []), d]);
    return out;
  }

  /** One POST to the proxy; retried later on a network error, a timeout, 429 and 5xx. */
  private async post(proxy: string, payloads: string[]): Promise<{ result: OutboxResult; reason?: string; unknown: string[] }> {
    let res: Response;
    try {
      res = await fetch(`${proxy}/notifications`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': 'Parley push' },
        body: proxyFormBody(payloads),
        redirect: 'error',
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
    } catch (err) {
      this.log.warn({ proxy, error: (err as Error)?.message ?? String(err) }, 'push proxy not reachable; retrying later');
      return { result: 'retry', reason: 'unreachable', unknown: [] };
    }
    const text = await readCapped(res);
    if (res.status === 429 || res.status >= 500) {
      this.log.warn({ proxy, status: res.status }, 'push proxy refused for now; retrying later');
      return { result: 'retry', reason: res.status === 429 ? 'rate_limited' : 'proxy_error', unknown: [] };
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const answer = body && typeof body === 'object' ? (body as { unknown?: unknown; failed?: unknown }) : undefined;
    const unknown = Array.isArray(answer?.unknown) ? answer.unknown.filter((u): u is string => typeof u === 'string') : [];
    if (res.status !== 200 && !(answer && 'unknown' in answer && 'failed' in answer)) {
      // Push.php logs a refusal and moves on: the proxy will not take these later either.
      this.log.warn({ proxy, status: res.status }, 'push proxy refused the notifications');
      return { result: 'drop', reason: 'refused', unknown };
    }
    return { result: 'sent', unknown };
  }
}

/** The answer's text, at most MAX_ANSWER_BYTES of it. */
async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_ANSWER_BYTES);
}
