/**
 * The service's rate limiter, as the sample server imitates it. Carta documents 10 requests per
 * second and 300 per minute with Kong-style headers on every response and a flat 429 body
 * (source-api.md §8). Kong's rate-limiting plugin counts in fixed windows aligned to the clock (the
 * current second, the current minute), and a rejected request does not use up quota; this does the same.
 */

/**
 * Requests allowed per fixed window.
 *
 * @category Testing
 */
export interface QuotaLimits {
  /** Requests allowed in each clock second. */
  perSecond: number;
  /** Requests allowed in each clock minute. */
  perMinute: number;
}

/** The limits the service documents; their headers are sent even when the quota is not enforced. */
export const NOMINAL_QUOTA: Readonly<QuotaLimits> = { perSecond: 10, perMinute: 300 };

/** The outcome of counting one request. */
export interface QuotaDecision {
  /** False when the request is over the limit and must get a 429. */
  allowed: boolean;
  /** The rate-limit headers for the response. */
  headers: Record<string, string>;
  /** Seconds until the exhausted window rolls over; set only when `allowed` is false. */
  retryAfterSeconds?: number;
}

/** Counts requests in fixed one-second and one-minute windows. */
export class FixedWindowQuota {
  readonly #limits: QuotaLimits;
  readonly #enforce: boolean;
  readonly #now: () => number;
  #second = Number.NaN;
  #minute = Number.NaN;
  #usedSecond = 0;
  #usedMinute = 0;

  /**
   * @param limits the limits to count against
   * @param enforce when false, requests are counted and reported in headers but never refused
   * @param now the clock, in epoch milliseconds
   */
  constructor(limits: QuotaLimits, enforce: boolean, now: () => number) {
    this.#limits = limits;
    this.#enforce = enforce;
    this.#now = now;
  }

  /** Counts one request (unless it is refused) and returns the decision and the headers to send. */
  take(): QuotaDecision {
    const nowMs = this.#now();
    const second = Math.floor(nowMs / 1000);
    const minute = Math.floor(nowMs / 60_000);
    if (second !== this.#second) {
      this.#second = second;
      this.#usedSecond = 0;
    }
    if (minute !== this.#minute) {
      this.#minute = minute;
      this.#usedMinute = 0;
    }
    const { perSecond, perMinute } = this.#limits;
    const secondFull = this.#usedSecond >= perSecond;
    const minuteFull = this.#usedMinute >= perMinute;
    const allowed = !this.#enforce || (!secondFull && !minuteFull);
    if (allowed) {
      this.#usedSecond += 1;
      this.#usedMinute += 1;
    }
    const remainingSecond = Math.max(0, perSecond - this.#usedSecond);
    const remainingMinute = Math.max(0, perMinute - this.#usedMinute);
    const resetSecond = Math.max(1, Math.ceil(((second + 1) * 1000 - nowMs) / 1000));
    const resetMinute = Math.max(1, Math.ceil(((minute + 1) * 60_000 - nowMs) / 1000));
    // Like Kong, the RateLimit-* trio describes the window closest to its limit.
    const minuteTighter = remainingMinute < remainingSecond;
    const headers: Record<string, string> = {
      "RateLimit-Limit": String(minuteTighter ? perMinute : perSecond),
      "RateLimit-Remaining": String(minuteTighter ? remainingMinute : remainingSecond),
      "RateLimit-Reset": String(minuteTighter ? resetMinute : resetSecond),
      "X-RateLimit-Limit-Second": String(perSecond),
      "X-RateLimit-Remaining-Second": String(remainingSecond),
      "X-RateLimit-Limit-Minute": String(perMinute),
      "X-RateLimit-Remaining-Minute": String(remainingMinute),
    };
    if (allowed) return { allowed, headers };
    return { allowed, headers, retryAfterSeconds: minuteFull ? resetMinute : resetSecond };
  }
}
