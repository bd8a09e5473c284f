/**
 * The rate limits' records (domain/rate-limits.ts): hourly, every record older than the longest
 * window is forgotten (HousekeepingService.forgetOldRateLimits).
 */
import type { JobDef } from './runner.js';

export const rateLimitsJob: JobDef = {
  name: 'rate-limits',
  intervalSeconds: 3600,
  description: 'forget rate-limit records older than the longest window',
  async run(services, now) {
    return `${await services.housekeeping.forgetOldRateLimits(now)} records forgotten`;
  },
};
