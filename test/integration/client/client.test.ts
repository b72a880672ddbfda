import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { type ApiClient, type ApiClientOptions, type ClientEvent, createApiClient } from "../../../src/client/create-client.js";
import {
  type ApiError,
  isAbortedError,
  isApiError,
  isInvalidIdentifierError,
  isInvalidJsonError,
  isNetworkError,
  isResponseTooLargeError,
} from "../../../src/client/errors.js";
import { createRateLimiter } from "../../../src/client/rate-limiter.js";
import { collectingLogger } from "../../helpers/collecting-logger.js";
import { failure } from "../../helpers/expect-failure.js";
import { type Handler, type LoopbackServer, hang, reply, resetConnection, startLoopbackServer } from "../../helpers/loopback-server.js";
import { until } from "../../helpers/spawn-cli.js";
import { SteppingClock, VirtualClock } from "../../helpers/virtual-clock.js";

const OK: Handler = reply(200, { ok: true });
const LIST = ["v1alpha1", "issuers", "7", "restrictedStockAwards"];

const open: { servers: LoopbackServer[]; clients: ApiClient[] } = { servers: [], clients: [] };
afterEach(async () => {
  await Promise.all(open.clients.splice(0).map((c) => c.close()));
  await Promise.all(open.servers.splice(0).map((s) => s.close()));
});

async function serve(handlers: Handler | readonly Handler[]): Promise<LoopbackServer> {
  const server = await startLoopbackServer(handlers);
  open.servers.push(server);
  return server;
}

/** A client on a stepping clock (waits cost nothing and are recorded), jitter fixed at one half. */
function clientFor(server: LoopbackServer, options: Partial<ApiClientOptions> = {}): { client: ApiClient; clock: SteppingClock; events: ClientEvent[] } {
  const clock = new SteppingClock();
  const events: ClientEvent[] = [];
  const client = createApiClient({
    baseUrl: server.url,
    rateLimit: false,
    clock,
    random: () => 0.5,
    onEvent: (e) => events.push(e),
    ...options,
  });
  open.clients.push(client);
  return { client, clock, events };
}

describe("requests", () => {
  it("sends Accept, a User-Agent and the bearer token, and returns the parsed body", async () => {
    const server = await serve(reply(200, { restrictedStockAwards: [], nextPageToken: "ODMxMw==" }, { "x-extra": "1" }));
    const { client } = clientFor(server, { auth: { type: "bearer", token: "tok-static-123" } });
    const response = await client.getJson(LIST, { pageSize: "50" });
    expect(response).toMatchObject({
      status: 200,
      body: { restrictedStockAwards: [], nextPageToken: "ODMxMw==" },
      attempts: 1,
      path: "/v1alpha1/issuers/7/restrictedStockAwards?pageSize=50",
    });
    expect(response.headers["x-extra"]).toBe("1");
    const [sent] = server.requests;
    expect(sent?.method).toBe("GET");
    expect(sent?.headers["accept"]).toBe("application/json");
    expect(sent?.headers["authorization"]).toBe("Bearer tok-static-123");
    expect(sent?.headers["user-agent"]).toMatch(/^ocf-sync\/\d+\.\d+\.\d+\S* \(\+node \d+\.\d+\.\d+\)$/);
  });

  it("sends a custom User-Agent and no Authorization without auth", async () => {
    const server = await serve(OK);
    const { client } = clientFor(server, { userAgent: "my-app/2.0" });
    await client.getJson(["x"]);
    expect(server.requests[0]?.headers["user-agent"]).toBe("my-app/2.0");
    expect(server.requests[0]?.headers["authorization"]).toBeUndefined();
  });

  it("escapes every segment on the wire and keeps the base path prefix", async () => {
    const server = await serve(OK);
    const { client } = clientFor(server, { baseUrl: `${server.url}/prefix/` });
    await client.getJson(["v1alpha1", "issuers", "../x", "a/b", "%", "Zürich", "?#"], { q: "a b&c" });
    expect(server.requests[0]?.url).toBe("/prefix/v1alpha1/issuers/..%2Fx/a%2Fb/%25/Z%C3%BCrich/%3F%23?q=a%20b%26c");
    expect(client.baseUrl).toBe(`${server.url}/prefix`);
  });

  it.each([".", "..", ""])("rejects the segment %j without sending anything", async (segment) => {
    const server = await serve(OK);
    const { client } = clientFor(server);
    const error = await failure(client.getJson(["v1alpha1", "issuers", segment]));
    expect(isInvalidIdentifierError(error)).toBe(true);
    expect(error.message).toContain(JSON.stringify(segment));
    expect(server.requests).toHaveLength(0);
  });

  it("logs a debug line per request, with method, path, status, attempt and ms", async () => {
    const server = await serve([reply(503, ""), OK]);
    const logger = collectingLogger();
    const { client } = clientFor(server, { logger });
    await client.getJson(["x"]);
    const debug = logger.lines.filter((l) => l.level === "debug");
    expect(debug.map((l) => l.fields)).toEqual([
      { method: "GET", path: "/x", status: 503, attempt: 1, ms: 0 },
      { method: "GET", path: "/x", status: 200, attempt: 2, ms: 0 },
    ]);
    expect(logger.lines.filter((l) => l.level === "warn").map((l) => l.fields)).toEqual([
      { method: "GET", path: "/x", attempt: 1, delayMs: 250, reason: "status 503" },
    ]);
  });
});

describe("retries", () => {
  it.each([429, 500, 502, 503, 504])("retries a %i with backoff and succeeds", async (status) => {
    const server = await serve([reply(status, { message: "try again" }), OK]);
    const { client, clock, events } = clientFor(server);
    const response = await client.getJson(["x"]);
    expect(response.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
    // Full jitter with random() = 0.5 on a 500 ms base: 250 ms.
    expect(clock.sleeps).toEqual([250]);
    expect(events.filter((e) => e.type === "retry")).toEqual([{ type: "retry", path: "/x", attempt: 1, delayMs: 250, reason: `status ${status}` }]);
    expect(client.stats()).toMatchObject({ requests: 2, retries: 1, rateLimited: status === 429 ? 1 : 0 });
  });

  it("retries a reset connection", async () => {
    const server = await serve([resetConnection, OK]);
    const { client } = clientFor(server);
    expect((await client.getJson(["x"])).attempts).toBe(2);
  });

  it("retries a body cut off before its Content-Length", async () => {
    const truncated: Handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"restrictedStockAwards":[', () => res.socket?.destroy());
    };
    const server = await serve([truncated, OK]);
    const { client } = clientFor(server);
    expect((await client.getJson(["x"])).attempts).toBe(2);
  });

  it("retries a 200 whose body is not valid JSON, then reports API_INVALID_JSON", async () => {
    const server = await serve(reply(200, '{"restrictedStockAwards":['));
    const { client } = clientFor(server, { retry: { maxAttempts: 2 } });
    const error = await failure(client.getJson(["x"]));
    expect(isInvalidJsonError(error)).toBe(true);
    expect(error.message).toMatch(/^GET \/x returned 200 with a body that is not valid JSON \(26 bytes: .+\) after 2 attempts$/);
    expect(server.requests).toHaveLength(2);
  });

  it("retries after a header timeout", async () => {
    const server = await serve([hang, OK]);
    const { client, events } = clientFor(server, { timeouts: { headersMs: 150 } });
    expect((await client.getJson(["x"])).attempts).toBe(2);
    expect(events.find((e) => e.type === "retry")).toMatchObject({ reason: "API_TIMEOUT" });
  });

  it("retries a body that stalls, and names the timeout when it keeps stalling", async () => {
    const stall: Handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"a":');
    };
    const server = await serve([stall, OK]);
    const { client } = clientFor(server, { timeouts: { bodyMs: 150 } });
    expect((await client.getJson(["x"])).attempts).toBe(2);

    const always = await serve(stall);
    const { client: second } = clientFor(always, { timeouts: { bodyMs: 150 }, retry: { maxAttempts: 2 } });
    const error = await failure(second.getJson(["x"]));
    expect(isNetworkError(error)).toBe(true);
    expect(error.code).toBe("API_TIMEOUT");
    expect(error.message).toBe("GET /x failed: timed out reading the response body (no data for 150 ms) after 2 attempts");
  });

  it("retries a refused connection, then reports API_NETWORK_ERROR with the cause", async () => {
    const server = await startLoopbackServer(OK);
    await server.close();
    const { client } = clientFor(server, { retry: { maxAttempts: 3 } });
    const error = await failure(client.getJson(["x"]));
    expect(error.code).toBe("API_NETWORK_ERROR");
    expect(error.message).toMatch(/ECONNREFUSED.* after 3 attempts$/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("honours Retry-After in seconds", async () => {
    const server = await serve([reply(429, { message: "API rate limit exceeded" }, { "retry-after": "3" }), reply(503, "", { "retry-after": "1" }), OK]);
    const { client, clock } = clientFor(server);
    await client.getJson(["x"]);
    expect(clock.sleeps).toEqual([3000, 1000]);
  });

  it("honours Retry-After as an HTTP date, against the injected clock", async () => {
    // The stepping clock starts at 2026-01-01T00:00:00Z.
    const server = await serve([reply(503, "", { "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" }), OK]);
    const { client, clock } = clientFor(server);
    await client.getJson(["x"]);
    expect(clock.sleeps).toEqual([7000]);
  });

  it("honours RateLimit-Reset on a 429 without Retry-After", async () => {
    const server = await serve([reply(429, { message: "API rate limit exceeded" }, { "ratelimit-reset": "2" }), OK]);
    const { client, clock } = clientFor(server);
    await client.getJson(["x"]);
    expect(clock.sleeps).toEqual([2000]);
  });

  it("caps a header wait at maxDelayMs", async () => {
    const server = await serve([reply(429, "", { "retry-after": "600" }), OK]);
    const { client, clock } = clientFor(server, { retry: { maxDelayMs: 5000 } });
    await client.getJson(["x"]);
    expect(clock.sleeps).toEqual([5000]);
  });

  it.each([
    [400, "API_BAD_REQUEST"],
    [401, "API_UNAUTHORIZED"],
    [403, "API_FORBIDDEN"],
    [404, "API_NOT_FOUND"],
  ])("does not retry a %i (%s)", async (status, code) => {
    const server = await serve([reply(status, { code: 3, message: "no" }), OK]);
    const { client, clock } = clientFor(server, { auth: { type: "bearer", token: "tok-static-123" } });
    const error = await failure(client.getJson(["x"]));
    expect(error.code).toBe(code);
    expect((error as ApiError).attempts).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("stops after maxAttempts, with the attempts in the error", async () => {
    const server = await serve(reply(503, { code: 14, message: "unavailable" }));
    const { client, clock } = clientFor(server, { retry: { maxAttempts: 4 } });
    const error = await failure(client.getJson(["x"]));
    expect(error.code).toBe("API_SERVER_ERROR");
    expect(error.message).toBe("GET /x failed with 503 UNAVAILABLE: unavailable after 4 attempts");
    expect(server.requests).toHaveLength(4);
    expect(clock.sleeps).toEqual([250, 500, 1000]);
  });

  it("starts no retry that would end after maxElapsedMs", async () => {
    const server = await serve(reply(503, "", { "retry-after": "10" }));
    const { client, clock } = clientFor(server, { retry: { maxAttempts: 100, maxElapsedMs: 25_000 } });
    const error = await failure(client.getJson(["x"]));
    expect((error as ApiError).attempts).toBe(3);
    expect(clock.sleeps).toEqual([10_000, 10_000]);
  });
});

describe("errors", () => {
  it("carry status, gRPC code, reasons, path with query and attempts", async () => {
    const body = {
      code: 7,
      message: "Access to resource denied",
      details: [{ "@type": "type.googleapis.com/carta.proto.publicapi.errors.v1alpha1.ErrorInfo", reason: "ACCESS_TO_RESOURCE_RESTRICTED", metadata: {} }],
    };
    const server = await serve(reply(403, body));
    const { client } = clientFor(server);
    const error = await failure(client.getJson(LIST, { pageSize: "50", pageToken: undefined }));
    expect(isApiError(error)).toBe(true);
    expect(error).toMatchObject({
      code: "API_FORBIDDEN",
      status: 403,
      grpcCode: 7,
      grpcMessage: "Access to resource denied",
      reasons: ["ACCESS_TO_RESOURCE_RESTRICTED"],
      method: "GET",
      path: "/v1alpha1/issuers/7/restrictedStockAwards?pageSize=50",
      attempts: 1,
    });
    expect(error.message).toBe(
      "GET /v1alpha1/issuers/7/restrictedStockAwards?pageSize=50 failed with 403 PERMISSION_DENIED (ACCESS_TO_RESOURCE_RESTRICTED): Access to resource denied after 1 attempt",
    );
  });

  it("read a raw-text error body from a gateway", async () => {
    const server = await serve(reply(502, "<html><body>Bad gateway</body></html>", { "content-type": "text/html" }));
    const { client } = clientFor(server, { retry: { maxAttempts: 1 } });
    const error = await failure(client.getJson(["x"]));
    expect(error).toMatchObject({ code: "API_SERVER_ERROR", bodyText: "<html><body>Bad gateway</body></html>" });
    expect(error.message).toBe("GET /x failed with 502: <html><body>Bad gateway</body></html> after 1 attempt");
  });

  it("stop reading a body over maxResponseBytes, with or without Content-Length, and do not retry", async () => {
    const big = JSON.stringify({ data: "x".repeat(5000) });
    const chunked: Handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(big.slice(0, 2000));
      res.end(big.slice(2000));
    };
    for (const handler of [reply(200, big), chunked]) {
      const server = await serve(handler);
      const { client } = clientFor(server, { maxResponseBytes: 1000 });
      const error = await failure(client.getJson(["x"]));
      expect(isResponseTooLargeError(error)).toBe(true);
      expect(error.message).toBe("GET /x returned 200 with a body larger than the 1000-byte limit (maxResponseBytes) after 1 attempt");
      expect(server.requests).toHaveLength(1);
    }
  });
});

describe("abort", () => {
  it("aborts a request in flight and does not retry", async () => {
    const server = await serve(hang);
    const { client } = clientFor(server);
    const controller = new AbortController();
    const pending = client.getJson(["x"], undefined, { signal: controller.signal });
    await until(() => server.requests.length === 1);
    controller.abort(new Error("user pressed ^C"));
    const error = await failure(pending);
    expect(isAbortedError(error)).toBe(true);
    expect(error.message).toBe("GET /x was aborted");
    expect((error.cause as Error).message).toBe("user pressed ^C");
    expect(server.requests).toHaveLength(1);
  });

  /** Starts a call, aborts it once it waits on the (never-ending) virtual clock, returns the error. */
  async function abortWhileWaiting(client: ApiClient, clock: VirtualClock): Promise<Error & { code: string }> {
    const controller = new AbortController();
    const pending = client.getJson(["x"], undefined, { signal: controller.signal });
    while (clock.sleeps.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    return failure(pending);
  }

  it("aborts the backoff wait", async () => {
    const server = await serve(reply(503, ""));
    const clock = new VirtualClock();
    const { client } = clientFor(server, { clock });
    expect(isAbortedError(await abortWhileWaiting(client, clock))).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("aborts the rate-limiter wait", async () => {
    const server = await serve(OK);
    const clock = new VirtualClock();
    const { client } = clientFor(server, { clock, rateLimit: { perSecond: 1 } });
    await client.getJson(["x"]);
    expect(isAbortedError(await abortWhileWaiting(client, clock))).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("sends nothing for a signal that has already fired", async () => {
    const server = await serve(OK);
    const { client } = clientFor(server);
    expect(isAbortedError(await failure(client.getJson(["x"], undefined, { signal: AbortSignal.abort() })))).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});

describe("rate limiting", () => {
  it("pauses when the server says the minute's quota is spent", async () => {
    const server = await serve([reply(200, {}, { "x-ratelimit-remaining-minute": "0", "ratelimit-reset": "20" }), OK]);
    const { client, clock, events } = clientFor(server, { rateLimit: {} });
    await client.getJson(["x"]);
    await client.getJson(["x"]);
    expect(clock.sleeps).toEqual([20_000]);
    expect(events.filter((e) => e.type === "throttled")).toEqual([{ type: "throttled", waitMs: 20_000 }]);
    expect(client.stats().throttledMs).toBe(20_000);
  });

  it("a 429 pauses every client that shares the limiter", async () => {
    const server = await serve([reply(429, { message: "API rate limit exceeded" }, { "retry-after": "5" }), OK]);
    const clock = new SteppingClock();
    const limiter = createRateLimiter({ clock });
    const { client: first } = clientFor(server, { clock, rateLimit: limiter, retry: { maxAttempts: 1 } });
    const { client: second } = clientFor(server, { clock, rateLimit: limiter });
    expect((await failure(first.getJson(["x"]))).code).toBe("API_RATE_LIMITED");
    await second.getJson(["x"]);
    expect(clock.sleeps).toEqual([5000]);
    expect(second.stats().throttledMs).toBe(5000);
    expect(first.stats().rateLimited).toBe(1);
  });
});

describe("lifecycle", () => {
  it("close() ends the client; an injected dispatcher stays open for its owner", async () => {
    const server = await serve(OK);
    const dispatcher = new Agent();
    try {
      const client = createApiClient({ baseUrl: server.url, dispatcher, rateLimit: false });
      await client.getJson(["x"]);
      await client.close();
      expect((await failure(client.getJson(["x"]))).code).toBe("CLIENT_CLOSED");
      const still = await request(`${server.url}/y`, { dispatcher });
      await still.body.dump();
      expect(still.statusCode).toBe(200);
    } finally {
      await dispatcher.close();
    }
  });

  it("await using closes the client when its block ends (Symbol.asyncDispose)", async () => {
    const server = await serve(OK);
    let kept: ReturnType<typeof createApiClient> | undefined;
    {
      await using client = createApiClient({ baseUrl: server.url, rateLimit: false });
      kept = client;
      await client.getJson(["x"]);
    }
    expect((await failure(kept.getJson(["x"]))).code).toBe("CLIENT_CLOSED");
  });

  it("a client closed during a backoff wait sends nothing more", async () => {
    const server = await serve(reply(503, ""));
    const clock = new VirtualClock();
    const { client } = clientFor(server, { clock });
    const pending = failure(client.getJson(["x"]));
    while (clock.sleeps.length === 0) await new Promise((r) => setTimeout(r, 5));
    await client.close();
    await clock.run();
    expect((await pending).code).toBe("CLIENT_CLOSED");
    expect(server.requests).toHaveLength(1);
  });

  it("counts requests, retries and bytes", async () => {
    const server = await serve([reply(500, "oops"), reply(200, { a: 1 })]);
    const { client } = clientFor(server);
    await client.getJson(["x"]);
    expect(client.stats()).toEqual({ requests: 2, retries: 1, throttledMs: 0, rateLimited: 0, bytesReceived: 4 + 7, tokenRequests: 0 });
  });
});
