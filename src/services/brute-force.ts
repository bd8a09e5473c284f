/**
 * Brute-force throttling as Nextcloud does it (talk-behaviour.md §2): each recorded failure
 * for (client subnet, action) doubles a delay that starts at the base delay; once the number
 * of attempts within 12 hours reaches the cap, the request is refused with 429 instead.
 */
import { isIPv4 } from 'node:net';
import type { BruteForceRepository } from '../db/repositories/brute-force.js';
import { tooManyRequests } from '../domain/errors.js';
import { nowSeconds } from '../domain/time.js';

export type ThrottleAction = 'login' | 'talkRoomPassword' | 'talkRoomToken' | 'talkSipBridgeSecret' | 'talkSignalingSecret';

const WINDOW_SECONDS = 12 * 3600;
const MAX_DELAY_MS = 25_000;

/** /32 for IPv4, /64 for IPv6 (Nextcloud's subnet rule). */
export function subnetOf(ip: string): string {
  const addr = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  if (isIPv4(addr)) return `${addr}/32`;
  const parts = addr.split('::');
  const head = parts[0] ? parts[0].split(':') : [];
  const tail = parts.length > 1 && parts[1] ? parts[1].split(':') : [];
  const full = [...head, ...Array(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail];
  return `${full.slice(0, 4).map((h) => (h || '0').toLowerCase()).join(':')}::/64`;
}

export class BruteForceService {
  constructor(
    private readonly repo: BruteForceRepository,
    private readonly baseDelayMs: number,
    private readonly maxAttempts: number,
  ) {}

  /** Sleeps for the current delay, or throws 429 when the cap is reached. */
  async throttle(ip: string, action: ThrottleAction): Promise<void> {
    const now = nowSeconds();
    const attempts = await this.repo.count(subnetOf(ip), action, now - WINDOW_SECONDS);
    if (attempts === 0) return;
    if (attempts >= this.maxAttempts) throw tooManyRequests();
    const delay = Math.min(MAX_DELAY_MS, this.baseDelayMs * 2 ** attempts);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  }

  async recordFailure(ip: string, action: ThrottleAction): Promise<void> {
    await this.repo.record(subnetOf(ip), action, nowSeconds());
  }

  async reset(ip: string, action: ThrottleAction): Promise<void> {
    await this.repo.reset(subnetOf(ip), action);
  }
}
