/**
 * Brute-force throttling as Nextcloud does it (docs/reference/envelope-and-errors.md#brute-force-throttle), made a hard cap: attempts
 * are counted per (client subnet, action) within 12 hours. Every attempt that checks a secret
 * is first recorded, in one locked step with the count that decides whether it may run at all
 * (BruteForceRepository.reserve), so simultaneous attempts from one address — in any number of
 * processes — never run more checks than the cap. The n-th attempt waits
 * base delay × 2^(n-2) (none for the first, the base delay for the second, never more than 25 s).
 * A request that presents an already verified credential (cached login password, app password)
 * is refused with 429 as well once the address is at the cap.
 */
import { isIPv4 } from 'node:net';
import type { BruteForceRepository } from '../../db/repositories/brute-force.js';
import { tooManyRequests } from '../../domain/errors.js';
import { Counter } from '../../domain/openmetrics.js';
import { nowSeconds } from '../../domain/time.js';
import { TurnBatch } from '../../cache/turn-batch.js';

export type ThrottleAction = 'login' | 'talkRoomPassword' | 'talkRoomToken' | 'talkSipBridgeSecret' | 'talkSignalingSecret' | 'talkFederationSecret';

export const WINDOW_SECONDS = 12 * 3600;
export const MAX_DELAY_MS = 25_000;

/** /32 for IPv4, /64 for IPv6 (Nextcloud's subnet rule). */
export function subnetOf(ip: string): string {
  const addr = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  if (isIPv4(addr)) return `${addr}/32`;
  const parts = addr.split('::');
  const head = parts[0] ? parts[0].split(':') : [];
  const tail = parts.length > 1 && parts[1] ? parts[1].split(':') : [];
  const full = [...head, ...Array(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail];
  return `${full
    .slice(0, 4)
    .map((h) => (h || '0').toLowerCase())
    .join(':')}::/64`;
}

/** Wait before an attempt that has `earlier` attempts in the window before it. */
export function delayFor(earlier: number, baseDelayMs: number): number {
  if (earlier === 0) return 0;
  return Math.min(MAX_DELAY_MS, baseDelayMs * 2 ** Math.min(earlier - 1, 30));
}

export class BruteForceService {
  /** Secret checks that ran past the throttle (GET /metrics); lets tests count real checks. */
  readonly checks = new Counter('parley_secret_checks', 'Password and secret checks run past the brute-force throttle, by action and result');
  /** assertBelowCap's reads, one per address and action per batch (by action, then subnet). */
  private readonly capChecks: TurnBatch<string, boolean>;

  /** @param gatherReads statements are round trips (PostgreSQL): gather the cap checks of arriving requests */
  constructor(
    private readonly repo: BruteForceRepository,
    private readonly baseDelayMs: number,
    private readonly maxAttempts: number,
    gatherReads = true,
  ) {
    this.capChecks = new TurnBatch(async (action, subnets) => {
      const since = nowSeconds() - WINDOW_SECONDS;
      return new Map(await Promise.all(subnets.map(async (subnet) => [subnet, await this.repo.atCap(subnet, action, since, this.maxAttempts)] as const)));
    }, gatherReads);
  }

  /**
   * Runs `check` (a password or secret comparison) as one counted attempt: 429 when the address
   * is at the cap (the check does not run), else the attempt's delay, then the check. A failed
   * check stays counted; a passed one clears the address's count for `action`.
   */
  async guard(ip: string, action: ThrottleAction, check: () => Promise<boolean>): Promise<boolean> {
    await this.reserve(ip, action);
    const ok = await check();
    this.checks.inc({ action, result: ok ? 'pass' : 'fail' });
    if (ok) await this.repo.reset(subnetOf(ip), action);
    return ok;
  }

  /**
   * Counts a failure that needed no secret check (a token miss, a malformed or wrong signature):
   * 429 past the cap, else the delay. Either way the caller then answers its error.
   */
  async failure(ip: string, action: ThrottleAction): Promise<void> {
    await this.reserve(ip, action);
  }

  /**
   * 429 when the address is at the cap; for credentials verified earlier (no new check runs).
   * On PostgreSQL the checks arriving together for the same address and action are answered by
   * one read sent after all of them were asked (turn-batch.ts): a burst of requests from one
   * address costs a statement per batch, and each still sees every attempt committed before it
   * asked.
   */
  async assertBelowCap(ip: string, action: ThrottleAction): Promise<void> {
    if (await this.capChecks.get(action, subnetOf(ip))) throw tooManyRequests();
  }

  async reset(ip: string, action: ThrottleAction): Promise<void> {
    await this.repo.reset(subnetOf(ip), action);
  }

  private async reserve(ip: string, action: ThrottleAction): Promise<void> {
    const now = nowSeconds();
    const earlier = await this.repo.reserve(subnetOf(ip), action, now, now - WINDOW_SECONDS, this.maxAttempts);
    if (earlier === undefined) throw tooManyRequests();
    const delay = delayFor(earlier, this.baseDelayMs);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  }
}
