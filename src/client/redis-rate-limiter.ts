/**
 * One quota for every process of a credential: the {@link RateLimiter} of `rate-limiter.ts`, with its
 * log kept in Redis so that shard processes on many machines draw from one quota instead of each
 * believing it has all of it (issue 26: two shards on one credential got 35% of their requests
 * refused). Each decision is one Lua script, atomic on the server, timed by the server's clock (so the
 * hosts' clocks need not agree):
 *
 * - the log of each window is a sorted set of grants scored by when the server counted them at the
 *   latest: a permit (`acquirePermit`, what the client uses) is held in a third set while its request
 *   is in flight, counting as "now" in every window, and moves to the logs when its answer is in, as
 *   in the local limiter; a permit whose process died leaves the in-flight set after `inFlightLeaseMs`;
 * - a grant is allowed when neither window holds its count, and when no pause is set; otherwise the
 *   script returns how long to wait, and the waiter asks again then (at most a second later, so a
 *   pause or a freed slot is seen soon);
 * - a 429 (`pauseUntil`) pauses every process, not just this one. The server's `RateLimit-Remaining: 0`
 *   on a response it let through is left aside: the log holds every request of the credential made
 *   through it, so that count says nothing the log does not, only coarser: its reset is in whole
 *   seconds, and pausing every process for it each time one of them saw the server's second full made
 *   4 shards take 1.18x the wall time of one process in `bench/fleet-quota.ts`; 1.02x without.
 *
 * The keys are `ocf-sync:quota:{<key>}:…`, where the key is a hash of the base URL and the
 * credential's identity ({@link quotaKey}): never a secret. Within one process waiters are served
 * first come, first served, and only the first one asks Redis.
 */
import { createHash, randomBytes } from "node:crypto";
import { OcfSyncError } from "../errors.js";
import { type Logger, silentLogger } from "../logger.js";
import { isAborted } from "./abort.js";
import type { AuthOptions } from "./auth.js";
import { type Clock, systemClock } from "./clock.js";
import { ClientConfigError } from "./errors.js";
import { parseBaseUrl } from "./paths.js";
import { type PauseReason, type RateLimitPermit, type RateLimiter, positiveRate, quotaWindow, turns } from "./rate-limiter.js";
import { REDIS_UNAVAILABLE, type RespClient, RespReplyError, createRespClient, parseRedisUrl } from "./resp-client.js";

/**
 * Options of {@link createRedisRateLimiter}.
 *
 * @category Client
 */
export interface RedisRateLimiterOptions {
  /**
   * The Redis server: `redis://[[user]:password@]host[:port][/db]`.
   * @example
   * ```ts
   * "redis://127.0.0.1:6379/0"
   * ```
   */
  url: string;
  /**
   * Which quota: every limiter with the same key shares one. Use {@link quotaKey} for the quota of a
   * base URL and credential.
   */
  key: string;
  /**
   * Most requests in any window of one second, for all processes together; any number > 0.
   * @default 10
   */
  perSecond?: number;
  /**
   * Most requests in any window of sixty seconds, for all processes together; any number > 0.
   * @default 300
   */
  perMinute?: number;
  /**
   * How long a permit counts as in flight at most: a process that dies with requests in flight
   * holds their slots this long.
   * @default 120000
   */
  inFlightLeaseMs?: number;
  /**
   * How long an acquire keeps trying to reach Redis before it fails with `RATE_LIMITER_UNAVAILABLE`.
   * @default 30000
   */
  unavailableAfterMs?: number;
  /** @default systemClock */
  clock?: Clock;
  /** Receives a warning when Redis cannot be reached and the limiter tries again. Default: silent. */
  logger?: Logger;
}

/**
 * A {@link RateLimiter} backed by Redis; `close()` ends its connection (it never holds a process open while idle).
 *
 * @category Client
 */
export interface RedisRateLimiter extends RateLimiter {
  /** The Redis server, without credentials. */
  readonly address: string;
  /** Closes the connection to Redis (a later request opens a new one). */
  close(): void;
}

// KEYS: 1 second log, 2 minute log, 3 in flight, 4 pause. ARGV[1] the operation.
// acquire: member, secCount, secMs, minCount, minMs, lease, mode ("permit" | "plain"), secPad, minPad -> wait ms (0: granted)
// done: member, pad. pause: ms.
const SCRIPT = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local op = ARGV[1]
if op == 'done' then
  local at = now + tonumber(ARGV[3])
  redis.call('ZREM', KEYS[3], ARGV[2])
  redis.call('ZADD', KEYS[1], at, ARGV[2])
  redis.call('ZADD', KEYS[2], at, ARGV[2])
  return 0
end
if op == 'pause' then
  local ms = tonumber(ARGV[2])
  local current = tonumber(redis.call('GET', KEYS[4]) or '0')
  if now + ms > current then redis.call('SET', KEYS[4], now + ms, 'PX', ms + 1000) end
  return 0
end
local secCount, secMs = tonumber(ARGV[3]), tonumber(ARGV[4])
local minCount, minMs = tonumber(ARGV[5]), tonumber(ARGV[6])
local lease = tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - secMs)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - minMs)
local inflight = redis.call('ZCARD', KEYS[3])
local wait = 0
local paused = tonumber(redis.call('GET', KEYS[4]) or '0')
if paused > now then wait = paused - now end
local function windowWait(key, count, ms)
  local n = redis.call('ZCARD', key) + inflight
  if n < count then return 0 end
  if inflight >= count then return ms end
  local r = redis.call('ZREVRANGE', key, count - inflight - 1, count - inflight - 1, 'WITHSCORES')
  return tonumber(r[2]) + ms - now
end
wait = math.max(wait, windowWait(KEYS[1], secCount, secMs), windowWait(KEYS[2], minCount, minMs))
if wait > 0 then return math.ceil(wait) end
if ARGV[8] == 'permit' then
  redis.call('ZADD', KEYS[3], now + lease, ARGV[2])
else
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[9]), ARGV[2])
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[10]), ARGV[2])
end
redis.call('PEXPIRE', KEYS[1], secMs + lease + 60000)
redis.call('PEXPIRE', KEYS[2], minMs + lease + 60000)
redis.call('PEXPIRE', KEYS[3], lease + 60000)
return 0
`;
const SCRIPT_SHA = createHash("sha1").update(SCRIPT).digest("hex");

// The longest a waiter sleeps before asking again: a pause or a slot freed by another process is seen
// within it.
const LONGEST_POLL_MS = 1000;

/**
 * The key of the quota of a base URL and credential, for {@link RedisRateLimiterOptions.key}: a
 * SHA-256 of the base URL and of the credential's identity (the OAuth2 token URL and client id, or a
 * hash of a static token), so that neither a secret nor a client id is written to Redis.
 *
 * @example
 * ```ts
 * import { createApiClient, createRedisRateLimiter, quotaKey, type AuthOptions } from "ocf-sync";
 * const baseUrl = "https://api.carta.com";
 * const auth: AuthOptions = { type: "bearer", token: process.env.CARTA_TOKEN ?? "" };
 * console.log(quotaKey({ baseUrl, auth })); // 64 hex digits; the same in every process with this URL and token
 * const limiter = createRedisRateLimiter({ url: "redis://127.0.0.1:6379/0", key: quotaKey({ baseUrl, auth }) });
 * const client = createApiClient({ baseUrl, auth, rateLimit: limiter }); // Redis is reached on the first request
 * await client.close();
 * limiter.close();
 * ```
 *
 * @category Client
 */
export function quotaKey(options: { baseUrl: string; auth?: AuthOptions }): string {
  const { auth } = options;
  const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");
  const credential =
    auth === undefined ? ["none"] : auth.type === "bearer" ? ["bearer", sha256(auth.token)] : ["oauth2", auth.tokenUrl, auth.clientId];
  return sha256(JSON.stringify([parseBaseUrl(options.baseUrl).href, ...credential])).slice(0, 32);
}

function positiveMs(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new ClientConfigError(option, value, "must be a whole number of milliseconds >= 1");
  return value;
}

/**
 * A rate limiter whose quota every process with the same `key` shares, through the Redis server at
 * `url`. It connects on the first request.
 *
 * @example
 * ```ts no-run: needs a Redis server
 * import { createApiClient, createRedisRateLimiter, exportIssuers, quotaKey, type AuthOptions } from "ocf-sync";
 * const baseUrl = process.env.CARTA_BASE_URL ?? "https://api.carta.com";
 * const auth: AuthOptions = { type: "bearer", token: process.env.CARTA_TOKEN ?? "" };
 * const limiter = createRedisRateLimiter({ url: "redis://redis:6379/0", key: quotaKey({ baseUrl, auth }) });
 * const client = createApiClient({ baseUrl, auth, rateLimit: limiter });
 * for await (const result of exportIssuers(client, ["7"], { outDir: "out" })) console.log(result.issuerId, result.ok);
 * await client.close();
 * limiter.close();
 * ```
 *
 * @category Client
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RedisRateLimiter {
  try {
    parseRedisUrl(options.url);
  } catch (error) {
    throw new ClientConfigError("rateLimit.url", "(a Redis URL)", error instanceof Error ? error.message : String(error));
  }
  if (typeof options.key !== "string" || options.key === "") throw new ClientConfigError("rateLimit.key", options.key, "must be a non-empty string");
  const perSecond = positiveRate("rateLimit.perSecond", options.perSecond ?? 10, 1000);
  const perMinute = positiveRate("rateLimit.perMinute", options.perMinute ?? 300, 60_000);
  const second = quotaWindow(perSecond, 1000);
  const minute = quotaWindow(perMinute, 60_000);
  const lease = positiveMs("rateLimit.inFlightLeaseMs", options.inFlightLeaseMs, 120_000);
  const unavailableAfterMs = positiveMs("rateLimit.unavailableAfterMs", options.unavailableAfterMs, 30_000);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const redis: RespClient = createRespClient(options.url);
  const prefix = `ocf-sync:quota:{${options.key}}`;
  const keys = [`${prefix}:second`, `${prefix}:minute`, `${prefix}:in-flight`, `${prefix}:pause`];
  const memberPrefix = `${process.pid}.${randomBytes(6).toString("hex")}`;
  let members = 0;
  let pausedUntil = Number.NEGATIVE_INFINITY;
  // Since when Redis has been out of reach (`undefined` while it answers).
  let unreachableSince: number | undefined;
  const inTurn = turns();

  async function run(args: readonly (string | number)[], signal: AbortSignal | undefined): Promise<number> {
    const signalOption = signal === undefined ? {} : { signal };
    let reply;
    try {
      reply = await redis.command(["EVALSHA", SCRIPT_SHA, keys.length, ...keys, ...args], signalOption);
    } catch (error) {
      if (!(error instanceof RespReplyError && error.message.startsWith("NOSCRIPT"))) throw error;
      // The server does not have the script (restarted, flushed): EVAL sends it, and caches it again.
      reply = await redis.command(["EVAL", SCRIPT, keys.length, ...keys, ...args], signalOption);
    }
    return typeof reply === "number" ? reply : Number(reply);
  }

  /**
   * Runs the script, trying again while Redis cannot be reached, until it has been out of reach for
   * `unavailableAfterMs`: counted across calls, so that once it has, every waiter fails after one try
   * (a batch of thousands of issuers ends in seconds, not in thousands of waits).
   */
  async function runPatiently(args: readonly (string | number)[], signal: AbortSignal | undefined): Promise<number> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const reply = await run(args, signal);
        unreachableSince = undefined;
        return reply;
      } catch (error) {
        if (isAborted(signal)) throw error;
        if (!(error instanceof OcfSyncError && error.code === REDIS_UNAVAILABLE)) throw error;
        const now = clock.now();
        unreachableSince ??= now;
        if (now - unreachableSince >= unavailableAfterMs) throw error;
        const delayMs = Math.min(2000, 100 * 2 ** (attempt - 1));
        logger.warn({ redis: redis.address, attempt, delayMs, error: error.message }, "the shared rate limiter's Redis cannot be reached; trying again");
        await clock.sleep(delayMs, signal);
      }
    }
  }

  /** Waits for this process's turn, then for a grant from Redis; returns the grant's member. */
  function grant(signal: AbortSignal | undefined, mode: "permit" | "plain"): Promise<string> {
    return inTurn(signal, async () => {
      members += 1;
      const member = `${memberPrefix}.${members}`;
      for (;;) {
        const localWait = pausedUntil - clock.now();
        if (localWait > 0) {
          await clock.sleep(Math.min(localWait, LONGEST_POLL_MS), signal);
          continue;
        }
        const wait = await runPatiently(["acquire", member, second.count, second.ms, minute.count, minute.ms, lease, mode, 25, 250], signal);
        if (wait <= 0) return member;
        await clock.sleep(Math.min(wait, LONGEST_POLL_MS), signal);
      }
    });
  }

  /** Fire and forget: a lost `done` or `pause` costs at most a lease or a 429, never the run. */
  function send(args: readonly (string | number)[]): void {
    run(args, undefined).catch((error: unknown) => {
      logger.warn({ redis: redis.address, operation: args[0], error: error instanceof Error ? error.message : String(error) }, "the shared rate limiter's Redis missed an update");
    });
  }

  return {
    address: redis.address,
    async acquire(acquireOptions = {}) {
      await grant(acquireOptions.signal, "plain");
    },
    async acquirePermit(acquireOptions = {}): Promise<RateLimitPermit> {
      const member = await grant(acquireOptions.signal, "permit");
      let done = false;
      return {
        done() {
          if (done) return;
          done = true;
          send(["done", member, 1]);
        },
      };
    },
    pauseUntil(epochMs: number, reason?: PauseReason): void {
      if (!Number.isFinite(epochMs) || reason === "server-count") return;
      const ms = Math.ceil(epochMs - clock.now());
      if (epochMs <= pausedUntil || ms <= 0) return;
      pausedUntil = epochMs;
      send(["pause", ms]);
    },
    limits: { perSecond, perMinute },
    close() {
      redis.close();
    },
  };
}
