/**
 * The admission rate of a saturated process (load-shedding.ts): how many requests per
 * millisecond to let in while the event loop is busy past its threshold, the rest being shed.
 *
 * Why a rate and not a verdict: shedding every request for a whole sample after a saturated one
 * leaves the process nearly idle for that sample (a 503 costs little), then lets the whole
 * offered load in again, which saturates the next sample. Offered twice its passing rate, a
 * process alternating like that served less than that rate in three runs of four, with the
 * queue rebuilt in its sockets at every switch (docs/history/benchmarks-2026-11.md, "Shedding at a rate").
 * Instead, a saturated sample sets the rate below the rate it actually admitted (what the
 * process could do, the cost of the shed requests included), a calm sample in which the rate
 * still had to refuse requests raises it (the load may have eased), and a calm sample in which
 * it refused nothing lifts it: the offered load fits again. The rate never falls below one
 * request per sample.
 *
 * Requests are let in by a token bucket, so admissions are spread over the sample instead of
 * the first ones of each sample taking the whole allowance. Pure: times are passed in (ms).
 */

/** A saturated sample sets the rate to this share of what it admitted: the slack drains the sockets' queue. */
const DECREASE = 0.8;
/**
 * A calm sample that still refused requests raises the rate by the room the loop had left
 * (threshold / utilization), at least by MIN_INCREASE and at most MAX_INCREASE: close to the
 * threshold it probes, far below it (a rate set during a stall) it recovers in a few samples.
 */
const MIN_INCREASE = 1.05;
const MAX_INCREASE = 2;
/** Requests the bucket holds at most, in milliseconds of the rate: a burst read in one loop turn. */
const BURST_MS = 20;

export class AdmissionRate {
  /** Requests per ms let in; undefined while nothing is limited. */
  private rate: number | undefined;
  private tokens = 0;
  private refilledAt = 0;
  private admitted = 0;
  private refused = 0;

  /** Requests per second let in while a rate is in force; undefined while nothing is limited (GET /metrics). */
  get perSecond(): number | undefined {
    return this.rate === undefined ? undefined : this.rate * 1000;
  }

  /** Whether a request arriving at `now` (ms) is let in; counts it either way. */
  admit(now: number): boolean {
    if (this.rate === undefined) {
      this.admitted++;
      return true;
    }
    const burst = Math.max(1, this.rate * BURST_MS);
    this.tokens = Math.min(burst, this.tokens + (now - this.refilledAt) * this.rate);
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      this.admitted++;
      return true;
    }
    this.refused++;
    return false;
  }

  /**
   * The end of a sample of `ms` milliseconds at `now`, in which the event loop was busy for the
   * share `utilization` (0-1) against the share `threshold` past which it is saturated. Adjusts
   * the rate for the next sample.
   */
  sample(now: number, ms: number, utilization: number, threshold: number): void {
    const saturated = utilization > threshold;
    const admittedRate = this.admitted / ms;
    const refused = this.refused;
    this.admitted = 0;
    this.refused = 0;
    // Never below one request per sample, so that a limited process keeps learning.
    const floor = 1 / ms;
    if (saturated) {
      const base = this.rate === undefined ? admittedRate : Math.min(this.rate, admittedRate);
      if (this.rate === undefined) {
        this.tokens = 0;
        this.refilledAt = now;
      }
      this.rate = Math.max(floor, base * DECREASE);
    } else if (this.rate !== undefined) {
      const room = Math.min(MAX_INCREASE, Math.max(MIN_INCREASE, threshold / Math.max(utilization, 0.01)));
      this.rate = refused === 0 ? undefined : Math.max(floor, this.rate * room);
    }
  }
}
