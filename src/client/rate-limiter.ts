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
 *
 * A server counts a request when it arrives, which can be well after the grant: new connections and
 * an event loop busy parsing another page delayed the first ten requests of a run by tens of
 * milliseconds, the eleventh (granted a second after them) arrived on time, and the server counted
 * eleven in one of its clock seconds (the 429 of the quota benchmark). So a request granted through
 * `acquirePermit` counts as in flight (as if counted right now) until the caller reports its answer in,
 * and from then on at that moment, the latest the server can have counted it. That leaves no jitter
 * for the safety margins to cover: a permit's slot is padded by 1 ms only, for the clock's rounding.
 */
import { abortError, isAborted, raceAbort } from "./abort.js";
import { type Clock, systemClock } from "./clock.js";
import { ClientConfigError } from "./errors.js";

/**
 * A request slot granted by `acquirePermit`.
 *
 * @category Client
 */
export interface RateLimitPermit {
  /** The request's answer (or failure) is in. Call it exactly once per permit, on every path. */
  done(): void;
}

/**
 * Why a limiter is paused: a 429, or the server's count of the quota (`RateLimit-Remaining: 0`).
 *
 * @category Client
 */
export type PauseReason = "rate-limited" | "server-count";

/**
 * Grants request slots within a quota.
 *
 * @category Client
 */
export interface RateLimiter {
  /**
   * Resolves when a request may be sent, and counts it from now. Waiters are served first come, first
   * served. Rejects with `ABORTED` when `signal` fires before then (the slot is not used).
   */
  acquire(options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * As `acquire`, but the slot counts as in flight until `done()`, then from that moment: safe however
   * long the request takes to reach the server. The client uses it when the limiter has it.
   */
  acquirePermit?(options?: { signal?: AbortSignal }): Promise<RateLimitPermit>;
  /**
   * Grants nothing before `epochMs` (on the limiter's clock): used when the server says the quota is
   * spent. A pause never shortens an earlier one. `reason` says how: `"rate-limited"` for a 429,
   * `"server-count"` for `RateLimit-Remaining: 0` on a response that was let through (a limiter that
   * counts every request of the credential itself, as the Redis one does, may leave those aside).
   */
  pauseUntil(epochMs: number, reason?: PauseReason): void;
  /** The configured quota (a share of the service's quota may be fractional: see {@link quotaWindow}). */
  readonly limits: { readonly perSecond: number; readonly perMinute: number };
}

/**
 * Options of {@link createRateLimiter}.
 *
 * @category Client
 */
export interface RateLimiterOptions {
  /**
   * Most requests in any window of one second; any number > 0 (a share of a quota, such as 10 / 4).
   * How a fractional rate is held: {@link quotaWindow}.
   * @default 10
   */
  perSecond?: number;
  /**
   * Most requests in any window of sixty seconds; any number > 0, like `perSecond`.
   * @default 300
   */
  perMinute?: number;
  /**
   * Extra wait added to the one-second window, so that jitter between granting a request and its
   * arrival (network, or this process's event loop busy parsing another page) cannot bring two
   * requests the limiter spaced a full window apart into one window of the server's. For slots from
   * `acquire`; a permit's slot (`acquirePermit`, what the client uses) counts from its answer instead.
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

/**
 * A window of the log: at most `count` grants in any `ms` milliseconds.
 *
 * @category Client
 */
export interface QuotaWindow {
  readonly count: number;
  readonly ms: number;
}

/**
 * The window that holds a rate of `rate` requests per `baseMs` (a second, a minute) without ever
 * exceeding it in a window of `baseMs`, which is what a server counts: a whole number of requests is
 * kept as is; above 1 the fraction is dropped (2.5 a second is 2 in any second: a server's window never
 * holds half a request); below 1 it is one request every `baseMs / rate` (0.5 a second is one every
 * 2 s), rounded up to the millisecond. So the shares of N processes (`rate / N` each) never add up to
 * more than the quota in any window: only a share below 1 can, when the processes' single requests
 * meet in one window, which is what a shared limiter (`createRedisRateLimiter`) is for.
 *
 * @example
 * ```ts
 * import { quotaWindow } from "ocf-sync";
 * console.log(quotaWindow(300 / 7, 60_000)); // { count: 42, ms: 60000 }
 * console.log(quotaWindow(10 / 20, 1000)); // { count: 1, ms: 2000 }
 * ```
 *
 * @category Client
 */
export function quotaWindow(rate: number, baseMs: number): QuotaWindow {
  if (rate >= 1) return { count: Math.floor(rate), ms: baseMs };
  return { count: 1, ms: Math.ceil(baseMs / rate) };
}

// The longest wait a timer holds (2^31 - 1 ms, about 24.8 days): a window longer than that is no rate.
const LONGEST_WINDOW_MS = 2_147_483_647;

/** Checks a rate of requests per `baseMs`: a finite number > 0 whose window a timer can wait out. */
export function positiveRate(option: string, value: number, baseMs: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) throw new ClientConfigError(option, value, "must be a number > 0");
  if (quotaWindow(value, baseMs).ms > LONGEST_WINDOW_MS) throw new ClientConfigError(option, value, "is too small (fewer than one request in 24 days)");
  return value;
}

/**
 * First come, first served turns for the waiters of a limiter: `inTurn(signal, body)` runs `body` once
 * every earlier waiter's body has ended, and rejects with `ABORTED` when `signal` fires first (or
 * while `body` runs).
 */
export function turns(): <T>(signal: AbortSignal | undefined, body: () => Promise<T>) => Promise<T> {
  // The turn of the last waiter: each one waits for the one before it.
  let tail: Promise<void> = Promise.resolve();
  return async <T>(signal: AbortSignal | undefined, body: () => Promise<T>): Promise<T> => {
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
      return await body();
    } catch (error) {
      if (isAborted(signal)) throw abortError("Waiting for the rate limiter", signal);
      throw error;
    } finally {
      // An aborted waiter hands its turn on only when its own turn comes, so that order is kept.
      if (hadTurn) release();
      else void previous.then(release);
    }
  };
}

/**
 * A sliding-window-log limiter.
 *
 * @example
 * ```ts
 * import { createApiClient, createRateLimiter, type AuthOptions } from "ocf-sync";
 * const auth: AuthOptions = { type: "bearer", token: process.env.CARTA_TOKEN ?? "" };
 * const limiter = createRateLimiter({ perSecond: 10, perMinute: 300 });
 * const a = createApiClient({ baseUrl: "https://api.carta.com", auth, rateLimit: limiter });
 * const b = createApiClient({ baseUrl: "https://api.carta.com/reporting", auth, rateLimit: limiter }); // same credentials, one quota
 * await Promise.all([a.close(), b.close()]);
 * ```
 *
 * @category Client
 */
export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const perSecond = positiveRate("rateLimit.perSecond", options.perSecond ?? 10, SECOND_MS);
  const perMinute = positiveRate("rateLimit.perMinute", options.perMinute ?? 300, MINUTE_MS);
  const second = quotaWindow(perSecond, SECOND_MS);
  const minute = quotaWindow(perMinute, MINUTE_MS);
  const margin = options.safetyMarginMs ?? 25;
  if (!Number.isFinite(margin) || margin < 0) throw new ClientConfigError("rateLimit.safetyMarginMs", margin, "must be a number >= 0");
  const minuteMargin = options.minuteSafetyMarginMs ?? 250;
  if (!Number.isFinite(minuteMargin) || minuteMargin < 0) {
    throw new ClientConfigError("rateLimit.minuteSafetyMarginMs", minuteMargin, "must be a number >= 0");
  }
  const clock = options.clock ?? systemClock;
  // The grants that can still be in a window ending now or later, in grant order. `at` is when the
  // server has counted the request at the latest (`undefined` while it is in flight: now), and the
  // pads are added to it for each window. (Answers come in any order, so the log is trimmed by time,
  // not by count: an early grant answered late can outlive later ones.)
  const grants: { at: number | undefined; secondPad: number; minutePad: number }[] = [];
  let pausedUntil = Number.NEGATIVE_INFINITY;
  const inTurn = turns();

  /**
   * The `count`-th latest padded time in the log, a request in flight counting as now: a window
   * ending now holds fewer than `count` requests once it starts after that time. Answers come in any
   * order, so the times are sorted unless they are still in grant order (the common case).
   */
  function latest(count: number, now: number, pad: "secondPad" | "minutePad"): number {
    const times = grants.map((g) => (g.at ?? now) + g[pad]);
    for (let i = 1; i < times.length; i += 1) {
      if (times[i - 1]! > times[i]!) {
        times.sort((a, b) => a - b);
        break;
      }
    }
    return times[times.length - count]!;
  }

  /** Drops the answered grants that no window ending now or later can hold. */
  function forgetExpired(now: number): void {
    const live = grants.filter((g) => g.at === undefined || g.at + g.secondPad + second.ms > now || g.at + g.minutePad + minute.ms > now);
    if (live.length !== grants.length) grants.splice(0, grants.length, ...live);
  }

  function earliestGrant(now: number): number {
    let at = pausedUntil;
    const n = grants.length;
    if (n >= second.count) at = Math.max(at, latest(second.count, now, "secondPad") + second.ms);
    if (n >= minute.count) at = Math.max(at, latest(minute.count, now, "minutePad") + minute.ms);
    return at;
  }

  /**
   * Waits for a slot, then logs it. A request in flight counts as now, which never overstates how
   * early the next slot can be: a waiter that wakes too early looks again.
   */
  async function grant(acquireOptions: { signal?: AbortSignal }, inFlight: boolean): Promise<(typeof grants)[number]> {
    const { signal } = acquireOptions;
    return inTurn(signal, async () => {
      // Loop: a pause may arrive while sleeping, and the clock may wake us a little early.
      for (;;) {
        const now = clock.now();
        const wait = earliestGrant(now) - now;
        if (wait <= 0) {
          const entry = inFlight ? { at: undefined, secondPad: 1, minutePad: 1 } : { at: now, secondPad: margin, minutePad: minuteMargin };
          grants.push(entry);
          forgetExpired(now);
          return entry;
        }
        await clock.sleep(wait, signal);
      }
    });
  }

  return {
    async acquire(acquireOptions = {}) {
      await grant(acquireOptions, false);
    },
    async acquirePermit(acquireOptions = {}) {
      const entry = await grant(acquireOptions, true);
      return {
        done() {
          entry.at ??= clock.now();
        },
      };
    },
    pauseUntil(epochMs: number): void {
      if (Number.isFinite(epochMs)) pausedUntil = Math.max(pausedUntil, epochMs);
    },
    limits: { perSecond, perMinute },
  };
}
