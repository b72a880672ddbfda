/**
 * When to retry and how long to wait. Pure functions of the attempt number, the response headers,
 * the current time and a random source, so that every delay can be checked on a fake clock.
 *
 * The order of preference for the wait follows source-api §8: `Retry-After` (seconds or HTTP date,
 * RFC 9110 §10.2.3) when sent, then `RateLimit-Reset` (seconds, sent on every response by the
 * service's gateway) for a 429, then exponential backoff with full jitter
 * (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/). Every wait is capped.
 */
import { epochMsToUtcDateTime, parseUtcDateTime, utcDateTimeToEpochMs } from "../dates.js";

/**
 * How often and for how long a failed GET is retried.
 *
 * @category Client
 */
export interface RetryOptions {
  /**
   * Most HTTP requests sent for one call, the first included.
   * @default 6
   */
  maxAttempts?: number;
  /**
   * No retry is started that would end later than this after the call began.
   * @default 120000
   */
  maxElapsedMs?: number;
  /**
   * Backoff cap of the first retry; it doubles with each further retry (full jitter picks a wait
   * between 0 and the cap).
   * @default 500
   */
  baseDelayMs?: number;
  /**
   * Longest single wait, whether from backoff or from a `Retry-After` / `RateLimit-Reset` header.
   * @default 30000
   */
  maxDelayMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  maxElapsedMs: 120_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** True for the statuses worth a retry: 429, 500, 502, 503, 504. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * Exponential backoff with full jitter: a wait in `[0, min(maxDelayMs, baseDelayMs * 2^(retry-1)))`.
 * @param retry - 1 for the first retry.
 * @param random - a source in `[0, 1)`, like `Math.random`.
 */
export function backoffDelay(retry: number, policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(Math.min(Math.max(random(), 0), 1) * cap);
}

const DELAY_SECONDS = /^\d+$/;
// A reset value this large is an epoch time, not a wait (a wait of 31 years is not meant).
const EPOCH_SECONDS_THRESHOLD = 1_000_000_000;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function instantOf(year: number, monthName: string, day: string, hours: string, minutes: string, seconds: string): number | undefined {
  const month = MONTHS.indexOf(monthName) + 1;
  if (month === 0) return undefined;
  const date = `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${day.trim().padStart(2, "0")}`;
  // A leap second (60) is read as the end of that minute.
  const leap = seconds === "60";
  let epochMs: number;
  try {
    epochMs = utcDateTimeToEpochMs(parseUtcDateTime(`${date}T${hours}:${minutes}:${leap ? "59" : seconds}Z`));
  } catch {
    return undefined;
  }
  return leap ? epochMs + 1000 : epochMs;
}

/**
 * Parses an HTTP date (RFC 9110 §5.6.7: IMF-fixdate and the two obsolete forms) to epoch
 * milliseconds; `undefined` for anything else.
 */
export function parseHttpDate(value: string, nowMs: number): number | undefined {
  const text = value.trim();
  let m = IMF_FIXDATE.exec(text);
  if (m !== null) return instantOf(Number(m[3]), m[2]!, m[1]!, m[4]!, m[5]!, m[6]!);
  m = RFC850_DATE.exec(text);
  if (m !== null) {
    // RFC 9110: a two-digit year more than 50 years ahead belongs to the previous century.
    const nowYear = Number(epochMsToUtcDateTime(nowMs).slice(0, 4));
    let year = Math.floor(nowYear / 100) * 100 + Number(m[3]);
    if (year > nowYear + 50) year -= 100;
    return instantOf(year, m[2]!, m[1]!, m[4]!, m[5]!, m[6]!);
  }
  m = ASCTIME_DATE.exec(text);
  if (m !== null) return instantOf(Number(m[6]), m[1]!, m[2]!, m[3]!, m[4]!, m[5]!);
  return undefined;
}

/** `Retry-After` as a wait in milliseconds (delay-seconds or an HTTP date; a past date is 0). */
export function parseRetryAfter(value: string, nowMs: number): number | undefined {
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  const at = parseHttpDate(text, nowMs);
  return at === undefined ? undefined : Math.max(0, at - nowMs);
}

/** `RateLimit-Reset` (seconds to wait; an epoch time in seconds is accepted too) as a wait in milliseconds. */
export function parseRateLimitReset(value: string, nowMs: number): number | undefined {
  const text = value.trim();
  if (!DELAY_SECONDS.test(text)) return undefined;
  const seconds = Number(text);
  return seconds >= EPOCH_SECONDS_THRESHOLD ? Math.max(0, seconds * 1000 - nowMs) : seconds * 1000;
}

/** Where a retry delay came from. */
export type DelaySource = "retry-after" | "ratelimit-reset" | "backoff";

/**
 * The wait before retry number `retry` (1 for the first). Header names in `headers` must be lower
 * case. `RateLimit-Reset` is used only for a 429: on other statuses it describes the quota window,
 * not the failure.
 */
export function retryDelay(input: {
  retry: number;
  status: number | undefined;
  headers: Readonly<Record<string, string>> | undefined;
  nowMs: number;
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">;
  random: () => number;
}): { delayMs: number; source: DelaySource } {
  const { headers, policy } = input;
  const retryAfter = headers?.["retry-after"];
  if (retryAfter !== undefined) {
    const ms = parseRetryAfter(retryAfter, input.nowMs);
    if (ms !== undefined) return { delayMs: Math.min(ms, policy.maxDelayMs), source: "retry-after" };
  }
  const reset = headers?.["ratelimit-reset"];
  if (input.status === 429 && reset !== undefined) {
    const ms = parseRateLimitReset(reset, input.nowMs);
    if (ms !== undefined) return { delayMs: Math.min(ms, policy.maxDelayMs), source: "ratelimit-reset" };
  }
  return { delayMs: backoffDelay(input.retry, policy, input.random), source: "backoff" };
}
