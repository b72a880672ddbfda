/**
 * Client-side throttling to the service's quota: at most 10 requests in any second and 300 in any
 * rolling minute (source-api §8). One limiter serves every request of a client, and can be shared by
 * several clients that use the same credentials, so a batch over many issuers stays inside the quota
 * instead of bouncing off 429s.
 *
 * It keeps an exact log of the last grants (a sliding-window log), not a token bucket: a grant is
 * allowed once the grant `perSecond` places back is a full second old (and the one `perMinute` places
 * back a full minute old). That uses the whole quota, and never more, in every window a server could
 * count, fixed or sliding.
 */
import { abortError, isAborted, raceAbort } from "./abort.js";
import { type Clock, systemClock } from "./clock.js";
import { ClientConfigError } from "./errors.js";

/** Grants request slots within a quota. */
export interface RateLimiter {
  /**
   * Resolves when a request may be sent, and counts it. Waiters are served first come, first served.
   * Rejects with `ABORTED` when `signal` fires before then (the slot is not used).
   */
  acquire(options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Grants nothing before `epochMs` (on the limiter's clock): used when the server says the quota is
   * spent (a 429, or `X-RateLimit-Remaining-Minute: 0`). A pause never shortens an earlier one.
   */
  pauseUntil(epochMs: number): void;
  /** The configured quota. */
  readonly limits: { readonly perSecond: number; readonly perMinute: number };
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /**
   * Most requests in any window of one second.
   * @default 10
   */
  perSecond?: number;
  /**
   * Most requests in any window of sixty seconds.
   * @default 300
   */
  perMinute?: number;
  /**
   * Extra wait added to the one-second window, so that jitter between granting a request and its
   * arrival (network, or this process's event loop busy parsing another page) cannot bring two
   * requests the limiter spaced a full window apart into one window of the server's.
   * @default 25
   */
  safetyMarginMs?: number;
  /**
   * The same for the sixty-second window. Larger, because there a late request only needs to slip
   * past one window edge to make the server count 301; and cheap, because it costs 0.4% of a minute.
   * @default 250
   */
  minuteSafetyMarginMs?: number;
  /** @default systemClock */
  clock?: Clock;
}

const SECOND_MS = 1_000;
const MINUTE_MS = 60_000;

function positiveInteger(option: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new ClientConfigError(option, value, "must be a positive integer");
  return value;
}

/**
 * A sliding-window-log limiter.
 *
 * @example
 * const limiter = createRateLimiter({ perSecond: 10, perMinute: 300 });
 * const a = createApiClient({ baseUrl, rateLimit: limiter });
 * const b = createApiClient({ baseUrl: otherUrl, rateLimit: limiter }); // same credentials, one quota
 */
export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const perSecond = positiveInteger("rateLimit.perSecond", options.perSecond ?? 10);
  const perMinute = positiveInteger("rateLimit.perMinute", options.perMinute ?? 300);
  const margin = options.safetyMarginMs ?? 25;
  if (!Number.isFinite(margin) || margin < 0) throw new ClientConfigError("rateLimit.safetyMarginMs", margin, "must be a number >= 0");
  const minuteMargin = options.minuteSafetyMarginMs ?? 250;
  if (!Number.isFinite(minuteMargin) || minuteMargin < 0) {
    throw new ClientConfigError("rateLimit.minuteSafetyMarginMs", minuteMargin, "must be a number >= 0");
  }
  const clock = options.clock ?? systemClock;
  const keep = Math.max(perSecond, perMinute);
  // Times of the most recent grants, oldest first; never longer than `keep`.
  const grants: number[] = [];
  let pausedUntil = Number.NEGATIVE_INFINITY;
  // The turn of the last waiter: each acquire waits for the one before it.
  let tail: Promise<void> = Promise.resolve();

  function earliestGrant(): number {
    let at = pausedUntil;
    const n = grants.length;
    if (n >= perSecond) at = Math.max(at, grants[n - perSecond]! + SECOND_MS + margin);
    if (n >= perMinute) at = Math.max(at, grants[n - perMinute]! + MINUTE_MS + minuteMargin);
    return at;
  }

  async function acquire(acquireOptions: { signal?: AbortSignal } = {}): Promise<void> {
    const { signal } = acquireOptions;
    if (isAborted(signal)) throw abortError("Waiting for the rate limiter", signal);
    const previous = tail;
    let release!: () => void;
    tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    let hadTurn = false;
    try {
      await raceAbort(previous, signal);
      hadTurn = true;
      // Loop: a pause may arrive while sleeping, and the clock may wake us a little early.
      for (;;) {
        const now = clock.now();
        const wait = earliestGrant() - now;
        if (wait <= 0) {
          grants.push(now);
          if (grants.length > keep) grants.splice(0, grants.length - keep);
          return;
        }
        await clock.sleep(wait, signal);
      }
    } catch (error) {
      if (isAborted(signal)) throw abortError("Waiting for the rate limiter", signal);
      throw error;
    } finally {
      // An aborted waiter hands its turn on only when its own turn comes, so that order is kept.
      if (hadTurn) release();
      else void previous.then(release);
    }
  }

  return {
    acquire,
    pauseUntil(epochMs: number): void {
      if (Number.isFinite(epochMs)) pausedUntil = Math.max(pausedUntil, epochMs);
    },
    limits: { perSecond, perMinute },
  };
}
