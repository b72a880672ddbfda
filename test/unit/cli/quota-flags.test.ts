/**
 * The quota flags (issue 26, item 1): fractional rates, the split among shards, and `--rate-limiter`.
 */
import { describe, expect, it } from "vitest";
import { clientOptionsFromFlags } from "../../../src/cli/client-flags.js";
import type { RedisRateLimiter } from "../../../src/client/redis-rate-limiter.js";
import { quotaShare, shardSlice } from "../../../src/cli/shard-flags.js";

const BASE = { "base-url": "https://api.example.com" };

function usageMessage(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect((error as Error).name).toBe("UsageError");
    return (error as Error).message;
  }
  throw new Error("expected a usage error");
}

describe("quota flags", () => {
  it("take fractional rates", () => {
    expect(clientOptionsFromFlags({ ...BASE, "rate-per-second": "2.5", "rate-per-minute": "0.5" }, {}).rateLimit).toEqual({ perSecond: 2.5, perMinute: 0.5 });
  });

  it("split the quota among shards by their part of the issuers, the default one or the one given", () => {
    expect(clientOptionsFromFlags(BASE, {}, { share: { part: 1, whole: 4 } }).rateLimit).toEqual({ perSecond: 2.5, perMinute: 75 });
    expect(clientOptionsFromFlags({ ...BASE, "rate-per-second": "5" }, {}, { share: { part: 1, whole: 2 } }).rateLimit).toEqual({ perSecond: 2.5, perMinute: 150 });
    expect(clientOptionsFromFlags(BASE, {}, { share: { part: 25, whole: 80 } }).rateLimit).toEqual({ perSecond: 3.125, perMinute: 93.75 });
    expect(clientOptionsFromFlags(BASE, {}).rateLimit).toBeUndefined();
  });

  it("give each shard the part its issuers are of the list, so the parts add up to the whole quota", () => {
    const all = Array.from({ length: 80 }, (_, i) => `issuer-${i}`);
    for (const n of [1, 2, 3, 4, 7, 80, 81]) {
      let parts = 0;
      for (let k = 1; k <= n; k++) {
        const mine = shardSlice(all, { k, n });
        // The list's repeats do not count: the whole is the 80 distinct issuers.
        const share = quotaShare([...all, ...all], mine, { k, n });
        if (mine.length === 0) expect(share).toEqual({ part: 1, whole: n });
        else expect(share).toEqual({ part: mine.length, whole: 80 });
        parts += mine.length;
      }
      expect(parts).toBe(80);
    }
    expect(quotaShare(all, all, undefined)).toBeUndefined();
  });

  it.each([
    [{ "rate-per-second": "0" }, "--rate-per-second takes a number above 0"],
    [{ "rate-per-second": "-1" }, "--rate-per-second takes a number above 0"],
    [{ "rate-per-minute": "1e3" }, "--rate-per-minute takes a number above 0"],
    [{ "rate-limiter": "http://127.0.0.1:6379" }, "--rate-limiter must start with redis://, not http://"],
    [{ "rate-limiter": "rediss://127.0.0.1:6379" }, "--rate-limiter uses TLS (rediss://), which is not supported"],
    [{ "rate-limiter": "redis://127.0.0.1:6379/zero" }, "--rate-limiter takes only a database number after the host"],
  ])("refuse %j", (flags, message) => {
    expect(usageMessage(() => clientOptionsFromFlags({ ...BASE, ...flags }, {}))).toContain(message);
  });

  it("refuse rates split too thin to pace, pointing at --rate-limiter", () => {
    expect(usageMessage(() => clientOptionsFromFlags({ ...BASE, "rate-per-minute": "0.0001" }, {}, { share: { part: 1, whole: 1000 } }))).toContain("share one quota with --rate-limiter");
  });

  it("--rate-limiter (or OCF_SYNC_RATE_LIMITER) shares the whole quota through Redis, not split, and never prints a password", () => {
    const limiter = clientOptionsFromFlags({ ...BASE, "rate-limiter": "redis://:hunter2@127.0.0.1:6379/2" }, {}, { share: { part: 1, whole: 4 } }).rateLimit as RedisRateLimiter;
    expect(limiter.limits).toEqual({ perSecond: 10, perMinute: 300 });
    expect(limiter.address).toBe("redis://127.0.0.1:6379/2");
    limiter.close();
    const fromEnv = clientOptionsFromFlags(BASE, { OCF_SYNC_RATE_LIMITER: "redis://127.0.0.1" }).rateLimit as RedisRateLimiter;
    expect(fromEnv.address).toBe("redis://127.0.0.1/0");
    fromEnv.close();
    expect(usageMessage(() => clientOptionsFromFlags(BASE, { OCF_SYNC_RATE_LIMITER: "redis:///0" }))).toMatch(/^OCF_SYNC_RATE_LIMITER \(from the environment\) /);
  });
});
