/**
 * The shared quota (issue 26, item 1): limiters of one key in Redis, each a stand-in for a process,
 * draw from one quota, against a real `redis-server` started for the file and the sample server
 * enforcing the quota with 429s. Skipped with one line when `redis-server` is not installed.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ApiClient, createApiClient } from "../../../src/client/create-client.js";
import { isAbortedError } from "../../../src/client/errors.js";
import { systemClock } from "../../../src/client/clock.js";
import { createRateLimiter } from "../../../src/client/rate-limiter.js";
import { createRedisRateLimiter, quotaKey, type RedisRateLimiter } from "../../../src/client/redis-rate-limiter.js";
import { createRespClient } from "../../../src/client/resp-client.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { describeGated } from "../../helpers/gate.js";
import { redisGate } from "../../helpers/gates.js";
import { type RedisServer, startRedisServer } from "../../helpers/redis-server.js";

const gate = redisGate();

describeGated(gate, "the Redis rate limiter", () => {
  let redis: RedisServer;
  const opened: { close(): void }[] = [];
  beforeAll(async () => {
    redis = await startRedisServer(gate.found!);
  });
  afterAll(async () => {
    for (const o of opened) o.close();
    await redis.close();
  });

  function limiter(key: string, limits: { perSecond: number; perMinute: number }, url = redis.url): RedisRateLimiter {
    const l = createRedisRateLimiter({ url, key, ...limits });
    opened.push(l);
    return l;
  }

  /** `requests` GETs from each client at once, every client through its own limiter; the server's 429 count after. */
  async function burst(server: SampleServer, limiters: readonly ReturnType<typeof createRateLimiter>[], requests: number): Promise<number> {
    const clients: ApiClient[] = limiters.map((rateLimit) => createApiClient({ baseUrl: server.url, rateLimit, retry: { maxAttempts: 10 } }));
    try {
      const issuer = server.issuers[0]!;
      await Promise.all(
        clients.flatMap((client) => Array.from({ length: requests }, () => client.getJson(["v1alpha1", "issuers", issuer, "restrictedStockAwards"], { pageSize: "1" }))),
      );
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    return server.stats().rateLimited;
  }

  it("two processes of one credential share its quota: no 429 from a server enforcing it (separate limiters get some)", async () => {
    const quota = { perSecond: 4, perMinute: 1000 };
    const shared = await startSampleServer({ quota });
    try {
      const key = quotaKey({ baseUrl: shared.url, auth: { type: "bearer", token: "t" } });
      expect(await burst(shared, [limiter(key, quota), limiter(key, quota)], 8)).toBe(0);
      expect(shared.stats().requests).toBe(16);
    } finally {
      await shared.close();
    }
    // What happened before: each process with the whole quota to itself.
    const separate = await startSampleServer({ quota });
    try {
      expect(await burst(separate, [createRateLimiter(quota), createRateLimiter(quota)], 8)).toBeGreaterThan(0);
    } finally {
      await separate.close();
    }
  });

  it("different keys (another credential) have their own quotas", async () => {
    const a = limiter("key-a", { perSecond: 1, perMinute: 1 });
    const b = limiter("key-b", { perSecond: 1, perMinute: 1 });
    (await a.acquirePermit!()).done();
    // b's first grant comes at once; a second one on a would wait a minute (aborted below).
    (await b.acquirePermit!()).done();
    const controller = new AbortController();
    const waiting = a.acquire({ signal: controller.signal }).catch((error: unknown) => error);
    controller.abort(new Error("enough"));
    expect(isAbortedError(await waiting)).toBe(true);
  });

  it("a pause set by one process holds the others", async () => {
    const key = "pause-key";
    const first = limiter(key, { perSecond: 100, perMinute: 1000 });
    (await first.acquirePermit!()).done();
    first.pauseUntil(Date.now() + 60_000);
    // Redis has the pause once a command sent after it is answered (one connection, in order).
    const probe = createRespClient(redis.url);
    opened.push(probe);
    await expect.poll(async () => Number(await probe.command(["PTTL", `ocf-sync:quota:{${key}}:pause`]))).toBeGreaterThan(0);
    // The other process, with a clock that records its first wait and stops it there.
    const controller = new AbortController();
    const sleeps: number[] = [];
    const clock = {
      now: () => Date.now(),
      sleep: (ms: number, signal?: AbortSignal) => {
        sleeps.push(ms);
        controller.abort(new Error("enough"));
        return Promise.reject(signal?.reason as Error);
      },
    };
    const second = createRedisRateLimiter({ url: redis.url, key, perSecond: 100, perMinute: 1000, clock });
    opened.push(second);
    const error = await second.acquire({ signal: controller.signal }).catch((e: unknown) => e);
    expect(isAbortedError(error)).toBe(true);
    // Told to wait (a minute, asked again within a second), not granted.
    expect(sleeps).toEqual([1000]);
  });

  it("leaves aside the server's count (RateLimit-Remaining: 0): the shared log already holds every request", async () => {
    const key = "server-count-key";
    const first = limiter(key, { perSecond: 100, perMinute: 1000 });
    first.pauseUntil(Date.now() + 60_000, "server-count");
    // Granted at once, and no pause in Redis afterwards (a command after it on the same connection).
    (await first.acquirePermit!()).done();
    const probe = createRespClient(redis.url);
    opened.push(probe);
    expect(await probe.command(["EXISTS", `ocf-sync:quota:{${key}}:pause`])).toBe(0);
  });

  it("the key is a hash: neither the token nor the client secret reaches Redis", async () => {
    const key = quotaKey({ baseUrl: "https://api.example.com", auth: { type: "oauth2", tokenUrl: "https://login.example.com/o/access_token/", clientId: "my-client", clientSecret: "s3cret-value" } });
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(key).toBe(quotaKey({ baseUrl: "https://api.example.com/", auth: { type: "oauth2", tokenUrl: "https://login.example.com/o/access_token/", clientId: "my-client", clientSecret: "other" } }));
    expect(key).not.toBe(quotaKey({ baseUrl: "https://api.example.com", auth: { type: "oauth2", tokenUrl: "https://login.example.com/o/access_token/", clientId: "other-client", clientSecret: "s3cret-value" } }));
    const l = limiter(key, { perSecond: 10, perMinute: 300 });
    (await l.acquirePermit!()).done();
    const probe = createRespClient(redis.url);
    opened.push(probe);
    const keys = (await probe.command(["KEYS", "*"])) as string[];
    expect(keys.some((k) => k.includes(key))).toBe(true);
    expect(keys.join(" ")).not.toMatch(/s3cret|my-client/);
  });

  it("reconnects after Redis restarts, and an acquire waits for it meanwhile", async () => {
    const l = limiter("restart-key", { perSecond: 100, perMinute: 1000 });
    (await l.acquirePermit!()).done();
    await redis.stop();
    const pending = l.acquirePermit!();
    await redis.restart();
    (await pending).done();
    (await l.acquirePermit!()).done();
  });

  it("fails with RATE_LIMITER_UNAVAILABLE once Redis stays unreachable, naming it without a password", async () => {
    const sleeps: number[] = [];
    const clock = {
      now: () => systemClock.now(),
      sleep: (ms: number, signal?: AbortSignal) => {
        sleeps.push(ms);
        return systemClock.sleep(ms, signal);
      },
    };
    const l = createRedisRateLimiter({ url: "redis://:hunter2@127.0.0.1:9/0", key: "k", unavailableAfterMs: 300, clock });
    opened.push(l);
    const error = (await l.acquire().catch((e: unknown) => e)) as { code?: string; message?: string };
    expect(error.code).toBe("RATE_LIMITER_UNAVAILABLE");
    expect(error.message).toContain("redis://127.0.0.1:9/0");
    expect(error.message).not.toContain("hunter2");
    expect(sleeps.length).toBeGreaterThan(0);
    // Once it has been out of reach that long, the next waiters fail after one try each, waiting for nothing.
    sleeps.length = 0;
    const next = await Promise.all([l.acquire().catch((e: unknown) => e), l.acquire().catch((e: unknown) => e)]);
    expect(next.map((e) => (e as { code?: string }).code)).toEqual(["RATE_LIMITER_UNAVAILABLE", "RATE_LIMITER_UNAVAILABLE"]);
    expect(sleeps).toEqual([]);
  });
});
