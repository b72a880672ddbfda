import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  isRetryableStatus,
  parseHttpDate,
  parseRateLimitReset,
  parseRetryAfter,
  retryDelay,
} from "../../../src/client/retry-timing.js";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0); // 2026-01-01T12:00:00Z, a Thursday
const policy = { baseDelayMs: 500, maxDelayMs: 30_000 };

describe("isRetryableStatus", () => {
  it("retries 429 and the transient 5xx, nothing else", () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([200, 301, 400, 401, 403, 404, 409, 501, 505].some(isRetryableStatus)).toBe(false);
  });
});

describe("parseHttpDate", () => {
  it("reads the three HTTP-date forms of RFC 9110", () => {
    const expected = Date.UTC(2026, 0, 1, 12, 0, 30);
    expect(parseHttpDate("Thu, 01 Jan 2026 12:00:30 GMT", NOW)).toBe(expected);
    expect(parseHttpDate("Thursday, 01-Jan-26 12:00:30 GMT", NOW)).toBe(expected);
    expect(parseHttpDate("Thu Jan  1 12:00:30 2026", NOW)).toBe(expected);
  });

  it("rejects impossible dates and other text", () => {
    expect(parseHttpDate("Thu, 31 Feb 2026 12:00:30 GMT", NOW)).toBeUndefined();
    expect(parseHttpDate("Thu, 01 Jan 2026 25:00:30 GMT", NOW)).toBeUndefined();
    expect(parseHttpDate("2026-01-01T12:00:30Z", NOW)).toBeUndefined();
    expect(parseHttpDate("soon", NOW)).toBeUndefined();
  });
});

describe("parseRetryAfter and parseRateLimitReset", () => {
  it("read delay-seconds and dates as milliseconds to wait", () => {
    expect(parseRetryAfter("3", NOW)).toBe(3000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter("Thu, 01 Jan 2026 12:00:07 GMT", NOW)).toBe(7000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 11:59:00 GMT", NOW)).toBe(0); // in the past: no wait
    expect(parseRetryAfter("-1", NOW)).toBeUndefined();
    expect(parseRetryAfter("1.5", NOW)).toBeUndefined();
    expect(parseRateLimitReset("2", NOW)).toBe(2000);
    expect(parseRateLimitReset(String(NOW / 1000 + 4), NOW)).toBe(4000); // an epoch-seconds reset
    expect(parseRateLimitReset("soon", NOW)).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("property: full jitter stays in [0, min(max, base * 2^(retry-1)))", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 120_000 }),
        (retry, r, baseDelayMs, maxDelayMs) => {
          const delay = backoffDelay(retry, { baseDelayMs, maxDelayMs }, () => r);
          const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(Math.max(cap, 1));
          expect(delay).toBe(Math.floor(r * cap));
        },
      ),
    );
  });

  it("doubles the cap per retry until maxDelayMs", () => {
    const almostOne = (): number => 0.999999;
    expect([1, 2, 3, 4, 10].map((n) => backoffDelay(n, policy, almostOne))).toEqual([499, 999, 1999, 3999, 29_999]);
  });
});

describe("retryDelay", () => {
  const input = { retry: 1, nowMs: NOW, policy, random: () => 0.5 };

  it("prefers Retry-After, then RateLimit-Reset (429 only), then backoff", () => {
    expect(retryDelay({ ...input, status: 429, headers: { "retry-after": "4", "ratelimit-reset": "9" } })).toEqual({
      delayMs: 4000,
      source: "retry-after",
    });
    expect(retryDelay({ ...input, status: 429, headers: { "ratelimit-reset": "9" } })).toEqual({
      delayMs: 9000,
      source: "ratelimit-reset",
    });
    // On a 503 the reset header describes the quota window, not the outage.
    expect(retryDelay({ ...input, status: 503, headers: { "ratelimit-reset": "9" } })).toEqual({ delayMs: 250, source: "backoff" });
    expect(retryDelay({ ...input, status: 503, headers: { "retry-after": "Thu, 01 Jan 2026 12:00:02 GMT" } })).toEqual({
      delayMs: 2000,
      source: "retry-after",
    });
    expect(retryDelay({ ...input, status: undefined, headers: undefined })).toEqual({ delayMs: 250, source: "backoff" });
  });

  it("falls back to backoff when the header is unreadable, and caps header waits at maxDelayMs", () => {
    expect(retryDelay({ ...input, status: 429, headers: { "retry-after": "later" } }).source).toBe("backoff");
    expect(retryDelay({ ...input, status: 429, headers: { "retry-after": "3600" } }).delayMs).toBe(policy.maxDelayMs);
  });

  it("has the documented defaults", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxAttempts: 6, maxElapsedMs: 120_000, baseDelayMs: 500, maxDelayMs: 30_000 });
  });
});
