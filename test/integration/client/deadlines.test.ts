/**
 * Every request ends: against real loopback servers that trickle a body one byte at a time, never
 * answer, or reset the connection in the middle of the body, the client gives up within its per-attempt
 * deadline (undici's own timeouts only bound silences), and a job deadline stops everything under way,
 * waits for a retry included. A slow but honest server still gets through with the defaults.
 *
 * No assertion here is about time: each test waits for an outcome (a rejection, a request arriving).
 */
import { describe, expect, it } from "vitest";
import { type ApiClient, type ApiClientOptions, createApiClient } from "../../../src/client/create-client.js";
import { isAbortedError, isNetworkError } from "../../../src/client/errors.js";
import { DeadlineExceededError, isDeadlineExceededError } from "../../../src/errors.js";
import { type IssuerPullResult, pullIssuers } from "../../../src/pull/pull-issuers.js";
import { failure } from "../../helpers/expect-failure.js";
import { resetMidBody, trickle } from "../../helpers/hostile-handlers.js";
import { type LoopbackServer, closedAfterEach, hang, reply } from "../../helpers/loopback-server.js";
import { until } from "../../helpers/spawn-cli.js";

const LIST = ["v1alpha1", "issuers", "7", "restrictedStockAwards"];
const PAGE = JSON.stringify({ restrictedStockAwards: [], nextPageToken: "" });

const { serve, track } = closedAfterEach();

function clientFor(server: LoopbackServer, options: Partial<ApiClientOptions> = {}): ApiClient {
  return track(createApiClient({ baseUrl: server.url, rateLimit: false, retry: { baseDelayMs: 1, maxDelayMs: 1 }, ...options }));
}

describe("the per-attempt deadline", () => {
  it("cuts off a body trickled one byte at a time, which never trips the idle body timeout, and retries it as a timeout", async () => {
    // A byte every 50 ms: the idle timeout (30 s by default) never fires; the whole body would take 3 s.
    const server = await serve(trickle(PAGE, 50));
    const client = clientFor(server, { timeouts: { attemptMs: 300 }, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    const error = await failure(client.getJson(LIST));
    expect(isNetworkError(error)).toBe(true);
    expect(error.code).toBe("API_TIMEOUT");
    expect(error.message).toContain("the response (headers and whole body) did not arrive within 300 ms after 2 attempts");
    expect(server.requests).toHaveLength(2);
  });

  it("ends an attempt whose server never answers", async () => {
    const server = await serve(hang);
    const client = clientFor(server, { timeouts: { headersMs: 60_000, attemptMs: 200 }, retry: { maxAttempts: 1 } });
    const error = await failure(client.getJson(LIST));
    expect(error.code).toBe("API_TIMEOUT");
    expect(error.message).toContain("did not arrive within 200 ms after 1 attempt");
  });

  it("treats a connection reset in the middle of the body as a network error, retried", async () => {
    const failing = await serve(resetMidBody(PAGE));
    const error = await failure(clientFor(failing, { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } }).getJson(LIST));
    expect(error.code).toBe("API_NETWORK_ERROR");
    expect(failing.requests).toHaveLength(2);

    const recovering = await serve([resetMidBody(PAGE), reply(200, PAGE)]);
    const response = await clientFor(recovering).getJson(LIST);
    expect(response).toMatchObject({ status: 200, attempts: 2 });
  });

  it("keeps a slow but honest server working with the defaults", async () => {
    // 40-odd bytes at a byte every 20 ms: slow, but steady.
    const server = await serve(trickle(PAGE, 20));
    const response = await clientFor(server).getJson(LIST);
    expect(response).toMatchObject({ status: 200, attempts: 1, body: { restrictedStockAwards: [] } });
  });

  it("stops a trickling body at once when the caller aborts: ABORTED, not a timeout, and no retry", async () => {
    const server = await serve(trickle(PAGE, 50));
    const client = clientFor(server, { retry: { maxAttempts: 5 } });
    const controller = new AbortController();
    const pending = failure(client.getJson(LIST, undefined, { signal: controller.signal }));
    await until(() => server.requests.length === 1);
    controller.abort(new Error("stop"));
    const error = await pending;
    expect(isAbortedError(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

describe("the job deadline", () => {
  it("stops a pull whose server never answers: the issuer fails with DEADLINE_EXCEEDED and the iteration throws it", async () => {
    const server = await serve(hang);
    const client = clientFor(server);
    const results: Awaited<ReturnType<typeof drain<IssuerPullResult>>> = [];
    const error = await failure(
      (async () => {
        for await (const result of pullIssuers(client, ["7", "8"], { deadlineMs: 300 })) results.push(result);
      })(),
    );
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error.message).toContain("deadline of 300 ms passed");
    expect(results.map((r) => [r.issuerId, r.ok ? "ok" : (r.error as { code?: string }).code])).toEqual(
      expect.arrayContaining([
        ["7", "DEADLINE_EXCEEDED"],
        ["8", "DEADLINE_EXCEEDED"],
      ]),
    );
  });

  it("interrupts the wait before a retry (a Retry-After of a minute): no second request is sent", async () => {
    const server = await serve(reply(503, { code: 14, message: "later" }, { "retry-after": "60" }));
    const client = clientFor(server, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 60_000 } });
    const results = await failure(drain(pullIssuers(client, ["7"], { deadlineMs: 300 })));
    expect(isDeadlineExceededError(results)).toBe(true);
    // The awards and units lists are paged at the same time: each was asked for at most once, never retried.
    const paths = server.requests.map((r) => r.url.replace(/\?.*$/, ""));
    expect(paths.length).toBeGreaterThan(0);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("interrupts the wait for the rate limiter", async () => {
    const server = await serve(reply(200, PAGE));
    const client = clientFor(server, { rateLimit: { perSecond: 1, perMinute: 1 } });
    await client.getJson(LIST); // the minute's only request
    const error = await failure(drain(pullIssuers(client, ["7"], { deadlineMs: 300 })));
    expect(isDeadlineExceededError(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

async function drain<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
