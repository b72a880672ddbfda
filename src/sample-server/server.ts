/**
 * The embedded sample API: a real HTTP server (node:http) that behaves like Carta's Issuer API for the
 * four RSA/RSU endpoints (source-api.md), with optional bearer auth, an OAuth client-credentials
 * token endpoint, the service's rate limiter, latency and seeded fault injection. The demo and every
 * test of ocf-sync run against it, on loopback only.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { describeValue } from "../errors.js";
import { silentLogger, type Logger } from "../logger.js";
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  RPC_CODE,
  handleApiRequest,
  matchApiRoute,
  notFound,
  rpcStatus,
} from "./api.js";
import { loadSampleData, type SampleData } from "./data.js";
import { ListIndexes } from "./list-index.js";
import { SampleServerOptionsError, createFaultPlan, type FaultKind, type FaultOptions, type FaultPlan } from "./faults.js";
import { jsonPieces } from "./json-pieces.js";
import { TOKEN_PATH, TokenAuthority, type JsonReply, type OAuthServerOptions } from "./oauth.js";
import { FixedWindowQuota, NOMINAL_QUOTA, type QuotaLimits } from "./quota.js";

/**
 * Options of `startSampleServer`.
 *
 * @category Testing
 */
export interface SampleServerOptions {
  /**
   * Interface to listen on. Keep it on loopback: the server has no real security.
   * @default "127.0.0.1"
   */
  host?: string;
  /**
   * Port to listen on; 0 picks a free one (read it back from `SampleServer.port`).
   * @default 0
   */
  port?: number;
  /**
   * Directory of issuer files to serve (see `samples/README.md`). Ignored when `data` is given.
   * @default the package's `samples/api`
   */
  dataDir?: string;
  /**
   * Records to serve instead of files. The server reads this object afresh on every request, so a
   * test may change it between requests (add an issuer, edit or remove a record). Pages come from an
   * index built once per collection, which notices such changes (`list-index.ts`).
   */
  data?: SampleData;
  /** When set, every API call needs `Authorization: Bearer <token>` (401 otherwise). */
  token?: string;
  /**
   * Serves `POST /o/access_token/` (client-credentials flow, source-api.md §2.1); the tokens it mints
   * are accepted by the API (and make a bearer token required, as `token` does).
   */
  oauth?: OAuthServerOptions;
  /**
   * Delay added before each response, in milliseconds.
   * @default 0
   */
  latencyMs?: number;
  /** Fault injection: with probability `rate` per API request, one of `kinds` (seeded when `seed` is set). */
  faults?: FaultOptions;
  /**
   * Refuse requests over these limits with 429 `{"message":"API rate limit exceeded"}`. When false,
   * requests are still counted and the headers report the nominal 10/s and 300/min.
   * @default false
   */
  quota?: QuotaLimits | false;
  /**
   * Page size of list calls that give none (or give 0 or less); at most 50.
   * @default 25 (as the real service)
   */
  defaultPageSize?: number;
  /**
   * How long a `slow-body` fault stalls before the socket is destroyed, in milliseconds.
   * @default 60000
   */
  slowBodyStallMs?: number;
  /**
   * The clock of the rate limiter and of token expiry, in epoch milliseconds. Tests inject a fixed
   * or stepped clock to make window boundaries deterministic.
   * @default Date.now
   */
  now?: () => number;
  /**
   * Receives one debug line per request (method, path, status, fault); never headers or secrets.
   * @default silentLogger
   */
  logger?: Logger;
  /** Aborting it closes the server (and makes a pending start reject). */
  signal?: AbortSignal;
}

/**
 * Counters of what the server has done since it started.
 *
 * @category Testing
 */
export interface SampleServerStats {
  /** API requests received (the token endpoint is not counted). */
  requests: number;
  /** API requests answered with an injected fault. */
  faults: number;
  /** Injected faults by kind. */
  faultsByKind: Partial<Record<FaultKind, number>>;
  /** API requests refused by the enforced quota (injected 429 faults are not counted here). */
  rateLimited: number;
  /** API requests refused with 401 or 403. */
  unauthorized: number;
  /** Tokens minted by the token endpoint. */
  tokensIssued: number;
  /** API requests by raw request path (still percent-encoded, without the query). */
  byPath: Record<string, number>;
}

/**
 * A running sample server.
 *
 * @category Testing
 */
export interface SampleServer {
  /** Base URL, e.g. `http://127.0.0.1:54321` (no trailing slash); API paths go below it. */
  readonly url: string;
  /** The port actually listened on. */
  readonly port: number;
  /** The ids of the issuers currently served. */
  readonly issuers: string[];
  /** The data being served; mutate it to change what later requests see. */
  readonly data: SampleData;
  /** A snapshot of the counters. */
  stats(): SampleServerStats;
  /** Stops listening and destroys every open connection, stalled responses included. Idempotent. */
  close(): Promise<void>;
}

/** The flat body of the gateway's 429 (source-api.md §7.2). */
const RATE_LIMITED_BODY = { message: "API rate limit exceeded" };
const MAX_FORM_BYTES = 64 * 1024;

function checkOptions(options: SampleServerOptions): void {
  const positiveInteger = (name: string, value: number | undefined): void => {
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      throw new SampleServerOptionsError(`${name} must be a positive integer, got ${describeValue(value)}`);
    }
  };
  positiveInteger("defaultPageSize", options.defaultPageSize);
  if (options.quota) {
    positiveInteger("quota.perSecond", options.quota.perSecond);
    positiveInteger("quota.perMinute", options.quota.perMinute);
  }
  if (options.oauth?.tokenTtlSeconds !== undefined) positiveInteger("oauth.tokenTtlSeconds", options.oauth.tokenTtlSeconds);
  for (const [name, value] of [["latencyMs", options.latencyMs], ["slowBodyStallMs", options.slowBodyStallMs]] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new SampleServerOptionsError(`${name} must be a non-negative number of milliseconds, got ${describeValue(value)}`);
    }
  }
  if (options.token === "") throw new SampleServerOptionsError("token must not be empty");
}

function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on("end", () => resolve(size <= limit ? Buffer.concat(chunks).toString("utf8") : undefined));
    req.on("error", reject);
  });
}

/**
 * Starts the sample API and resolves once it listens.
 * Throws `SAMPLE_SERVER_OPTIONS` for inconsistent options and `SAMPLE_DATA_INVALID` for bad sample files.
 *
 * @example
 * ```ts
 * import { startSampleServer } from "ocf-sync/testing";
 * const server = await startSampleServer({ quota: { perSecond: 10, perMinute: 300 } });
 * const res = await fetch(`${server.url}/v1alpha1/issuers/7/restrictedStockAwards?pageSize=50`);
 * console.log(res.status, await res.json());
 * await server.close();
 * ```
 *
 * @category Testing
 */
export async function startSampleServer(options: SampleServerOptions = {}): Promise<SampleServer> {
  checkOptions(options);
  const { signal } = options;
  signal?.throwIfAborted();
  const data = options.data ?? (await loadSampleData(options.dataDir, signal === undefined ? {} : { signal }));
  const now = options.now ?? Date.now;
  const logger = options.logger ?? silentLogger;
  const latencyMs = options.latencyMs ?? 0;
  const stallMs = options.slowBodyStallMs ?? 60_000;
  const settings = {
    defaultPageSize: Math.min(options.defaultPageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
    tokenKey: randomBytes(32),
    indexes: new ListIndexes(),
  };
  const quota = options.quota
    ? new FixedWindowQuota(options.quota, true, now)
    : new FixedWindowQuota(NOMINAL_QUOTA, false, now);
  const faults: FaultPlan | undefined = options.faults === undefined ? undefined : createFaultPlan(options.faults);
  const authority = new TokenAuthority(options.oauth, options.token, now);

  const counters = { requests: 0, faults: 0, rateLimited: 0, unauthorized: 0 };
  const faultsByKind: Partial<Record<FaultKind, number>> = {};
  const byPath: Record<string, number> = {};
  const sockets = new Set<Socket>();
  const stallTimers = new Set<NodeJS.Timeout>();
  const closing = new AbortController();

  function send(res: ServerResponse, reply: JsonReply, extraHeaders: Record<string, string>, fault?: FaultKind): void {
    if (res.destroyed || res.headersSent) return;
    const isText = typeof reply.body === "string";
    // A list page in pieces, never one large string (see json-pieces.ts).
    const pieces = isText ? [Buffer.from(reply.body as string, "utf8")] : jsonPieces(reply.body);
    res.writeHead(reply.status, {
      ...extraHeaders,
      ...reply.headers,
      "Content-Type": isText ? "text/html; charset=utf-8" : "application/json",
      "Content-Length": String(pieces.reduce((sum, piece) => sum + piece.length, 0)),
    });
    if (fault === "truncated" || fault === "slow-body") {
      const bytes = Buffer.concat(pieces);
      const part = bytes.subarray(0, Math.floor(bytes.length / 2));
      if (fault === "truncated") {
        res.write(part, () => res.socket?.destroy());
      } else {
        res.write(part);
        const timer = setTimeout(() => res.socket?.destroy(), stallMs);
        stallTimers.add(timer);
        res.once("close", () => {
          clearTimeout(timer);
          stallTimers.delete(timer);
        });
      }
      return;
    }
    for (const piece of pieces.slice(0, -1)) res.write(piece);
    res.end(pieces.at(-1));
  }

  /** The response an injected fault replaces the real one with; `undefined` for faults that alter delivery. */
  function faultReply(kind: FaultKind): JsonReply | undefined {
    switch (kind) {
      case "429":
        return { status: 429, headers: { "Retry-After": "1" }, body: RATE_LIMITED_BODY };
      case "429-no-retry-after":
        return { status: 429, headers: {}, body: RATE_LIMITED_BODY };
      case "500":
        return rpcStatus(500, RPC_CODE.INTERNAL, "Internal error");
      case "502":
        return {
          status: 502,
          headers: {},
          body: "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n",
        };
      case "503":
        return { status: 503, headers: {}, body: { message: "failure to get a peer from the ring-balancer" } };
      case "reset":
      case "slow-body":
      case "truncated":
        return undefined;
    }
  }

  function answerApi(req: IncomingMessage, rawPath: string, query: URLSearchParams): JsonReply {
    const check = authority.check(req.headers.authorization);
    if (check !== "ok") {
      counters.unauthorized += 1;
      if (check === "forbidden") {
        return rpcStatus(403, RPC_CODE.PERMISSION_DENIED, "Access to resource denied", "INSUFFICIENT_SCOPE");
      }
      const reply = rpcStatus(401, RPC_CODE.UNAUTHENTICATED, "Unauthorized", "MISSING_OR_INVALID_ACCESS_TOKEN");
      return { ...reply, headers: { "WWW-Authenticate": "Bearer" } };
    }
    const route = matchApiRoute(rawPath, query);
    if (route === undefined) return notFound();
    if ("status" in route) return route;
    if (req.method !== "GET") {
      return { ...rpcStatus(405, RPC_CODE.UNIMPLEMENTED, "Method Not Allowed"), headers: { Allow: "GET" } };
    }
    return handleApiRequest(data, route, settings);
  }

  async function delay(): Promise<boolean> {
    if (latencyMs <= 0) return true;
    try {
      await sleep(latencyMs, undefined, { signal: closing.signal });
      return true;
    } catch {
      return false;
    }
  }

  async function handleToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") {
      req.resume();
      const reply: JsonReply = { status: 405, headers: { Allow: "POST" }, body: { error: "invalid_request", error_description: "use POST" } };
      if (await delay()) send(res, reply, {});
      return;
    }
    const body = await readBody(req, MAX_FORM_BYTES);
    const reply: JsonReply =
      body === undefined
        ? { status: 413, headers: {}, body: { error: "invalid_request", error_description: "body too large" } }
        : authority.mint(req.headers.authorization, req.headers["content-type"], body);
    logger.debug({ method: req.method, path: TOKEN_PATH, status: reply.status }, "sample server token request");
    if (await delay()) send(res, reply, {});
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? "/";
    const queryAt = target.indexOf("?");
    const rawPath = queryAt < 0 ? target : target.slice(0, queryAt);
    const query = new URLSearchParams(queryAt < 0 ? "" : target.slice(queryAt + 1));
    // The token endpoint lives on another host in reality (source-api.md §1): no quota, no faults.
    if (rawPath === TOKEN_PATH && authority.mints) return handleToken(req, res);

    req.resume(); // GETs carry no body; drain anything sent so keep-alive stays usable
    counters.requests += 1;
    byPath[rawPath] = (byPath[rawPath] ?? 0) + 1;
    const decision = quota.take();
    const fault = decision.allowed ? faults?.next() : undefined;
    if (fault !== undefined) {
      counters.faults += 1;
      faultsByKind[fault] = (faultsByKind[fault] ?? 0) + 1;
    }
    if (!(await delay())) return;

    let reply: JsonReply;
    if (!decision.allowed) {
      counters.rateLimited += 1;
      reply = { status: 429, headers: { "Retry-After": String(decision.retryAfterSeconds ?? 1) }, body: RATE_LIMITED_BODY };
    } else if (fault === "reset") {
      logger.debug({ method: req.method, path: rawPath, fault }, "sample server request");
      req.socket.resetAndDestroy();
      return;
    } else {
      reply = (fault === undefined ? undefined : faultReply(fault)) ?? answerApi(req, rawPath, query);
    }
    logger.debug({ method: req.method, path: rawPath, status: reply.status, fault }, "sample server request");
    send(res, reply, decision.headers, fault);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error, method: req.method }, "sample server failed to answer a request");
      if (!res.headersSent && !res.destroyed) send(res, rpcStatus(500, RPC_CODE.INTERNAL, "Internal error"), {});
      else res.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      closing.abort();
      for (const timer of stallTimers) clearTimeout(timer);
      stallTimers.clear();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
    return closed;
  };
  if (signal !== undefined) {
    if (signal.aborted) {
      await close();
      signal.throwIfAborted();
    }
    signal.addEventListener("abort", () => void close(), { once: true });
  }

  const { port } = server.address() as AddressInfo;
  const host = options.host ?? "127.0.0.1";
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  logger.info({ url, issuers: data.issuers.size }, "sample server listening");
  return {
    url,
    port,
    get issuers() {
      return [...data.issuers.keys()];
    },
    data,
    stats: () => ({
      ...counters,
      faultsByKind: { ...faultsByKind },
      tokensIssued: authority.issued,
      byPath: { ...byPath },
    }),
    close,
  };
}

export { loadSampleData, defaultDataDir, issuerFileName, SampleDataError } from "./data.js";
export type { SampleData, SampleIssuer, SampleIssuerFile, WireRecord } from "./data.js";
export { FAULT_KINDS, SampleServerOptionsError } from "./faults.js";
export type { FaultKind, FaultOptions } from "./faults.js";
export type { OAuthServerOptions } from "./oauth.js";
export type { QuotaLimits } from "./quota.js";
