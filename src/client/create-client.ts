/**
 * The HTTP client of the source API: GET JSON with auth, client-side rate limiting, bounded retries,
 * timeouts, a response size limit and typed errors. It knows URLs and JSON, nothing about records.
 *
 * Built on undici with its own `Agent` (never the global dispatcher), or a dispatcher the caller
 * injects.
 */
import { ocfSyncVersion } from "../version.js";
import { Agent, type Dispatcher } from "undici";
import { OcfSyncError } from "../errors.js";
import { type Logger, redactingLogger, silentLogger } from "../logger.js";
import { createRedactor, type Redactor } from "../redaction.js";
import { checkKnownKeys, optionKeys } from "../options.js";
import { abortError, isAborted } from "./abort.js";
import { type AuthOptions, type AuthProvider, bearerAuth, oauth2Auth } from "./auth.js";
import { type Clock, systemClock } from "./clock.js";
import {
  ApiError,
  ClientConfigError,
  InvalidJsonError,
  NetworkError,
  type NetworkErrorCode,
  ResponseTooLargeError,
  isAuthError,
  parseErrorBody,
} from "./errors.js";
import { parseJsonBody } from "./json-body.js";
import { type BaseUrl, buildRequestPath, parseBaseUrl } from "./paths.js";
import { type RateLimitPermit, type RateLimiter, createRateLimiter } from "./rate-limiter.js";
import { DEFAULT_RETRY_POLICY, type RetryOptions, type RetryPolicy, isRetryableStatus, parseRateLimitReset, retryDelay } from "./retry-timing.js";
import { ATTEMPT_TIMEOUT_CODE, type RawResponse, sendRaw } from "./transport.js";

/**
 * Something the client did, for progress displays and metrics.
 *
 * @category Client
 */
export type ClientEvent =
  | {
      type: "request";
      method: string;
      /** Path and query. */
      path: string;
      /** HTTP status; `undefined` when no response arrived. */
      status: number | undefined;
      attempt: number;
      durationMs: number;
    }
  | { type: "retry"; path: string; attempt: number; delayMs: number; reason: string }
  | { type: "throttled"; waitMs: number };

/**
 * Counters since the client was created.
 *
 * @category Client
 */
export interface ClientStats {
  /** HTTP requests sent to the API, retries included (token requests not included). */
  requests: number;
  /** Retries started. */
  retries: number;
  /** Time spent waiting for the rate limiter, in ms. */
  throttledMs: number;
  /** 429 responses received. */
  rateLimited: number;
  /** Response body bytes received from the API. */
  bytesReceived: number;
  /** Requests sent to the OAuth2 token endpoint. */
  tokenRequests: number;
}

/**
 * Timeouts of one HTTP request.
 *
 * @category Client
 */
export interface TimeoutOptions {
  /**
   * Time to establish the connection (TCP and TLS). Applies to the client's own agent only: an
   * injected dispatcher brings its own.
   * @default 10000
   */
  connectMs?: number;
  /**
   * Time from sending the request until the response headers have arrived.
   * @default 30000
   */
  headersMs?: number;
  /**
   * Longest silence while the body arrives (between two chunks, not in total: see `attemptMs`).
   * @default 30000
   */
  bodyMs?: number;
  /**
   * The whole attempt, from sending the request to the last byte of the body. A server that trickles
   * its body (a byte a second never trips `bodyMs`) is cut off here; the attempt then counts as a
   * timeout (`API_TIMEOUT`) and is retried like one. Generous by default, so that a slow but honest
   * server still gets its largest page through.
   * @default 120000
   */
  attemptMs?: number;
}

/**
 * Where requests are sent through: any undici `Dispatcher` (an `Agent`, `Pool`, `ProxyAgent` or
 * `MockAgent`). Typed by the one method the client relies on, so that undici's types stay out of
 * ocf-sync's API.
 *
 * @category Client
 */
export interface HttpDispatcher {
  /** undici's `Dispatcher.dispatch`: starts one request. */
  dispatch(options: object, handler: object): boolean;
}

/**
 * Options of {@link createApiClient}.
 *
 * @category Client
 */
export interface ApiClientOptions {
  /**
   * The API base URL; a path prefix is kept in front of every request path.
   * @example
   * ```ts
   * "https://api.playground.carta.team"
   * ```
   * @example
   * ```ts
   * "http://127.0.0.1:4010/prefix"
   * ```
   */
  baseUrl: string;
  /** How requests are authorized; none when left out (the service's mock needs none). */
  auth?: AuthOptions;
  /**
   * Client-side throttling. Options build a limiter for this client; pass a {@link RateLimiter}
   * to share one quota between clients; `false` turns throttling off.
   * @default { perSecond: 10, perMinute: 300 }
   */
  rateLimit?: { perSecond?: number; perMinute?: number } | RateLimiter | false;
  /** Retries of failed GETs (429, 5xx, network errors, timeouts, cut-off JSON). */
  retry?: RetryOptions;
  timeouts?: TimeoutOptions;
  /**
   * Largest response body accepted; reading stops there with `API_RESPONSE_TOO_LARGE`.
   * @default 33554432 (32 MiB)
   */
  maxResponseBytes?: number;
  /**
   * The `User-Agent` header (the service rejects some generic ones).
   * @default "ocf-sync/<version> (+node <node version>)"
   */
  userAgent?: string;
  /** The undici dispatcher to send through; the caller keeps ownership. Default: a private `Agent`. */
  dispatcher?: HttpDispatcher;
  /** Receives a debug line per request and a warning per retry; never a secret. Default: silent. */
  logger?: Logger;
  /** @default systemClock */
  clock?: Clock;
  /**
   * Random source in `[0, 1)` for backoff jitter.
   * @default Math.random
   */
  random?: () => number;
  /** Called for every request, retry and rate-limiter wait. */
  onEvent?: (event: ClientEvent) => void;
  /**
   * Where the credentials of `auth` (and every token minted) are added, and what the client redacts
   * with: error messages, and every string of every response body (a record that echoes a token
   * reaches no file or line). Pass the one a program already redacts its own output with, so that
   * tokens minted here are found there too. Default: a redactor of this client's own.
   */
  redactor?: Redactor;
}

/**
 * A parsed JSON response.
 *
 * @category Client
 */
export interface ApiResponse {
  status: number;
  /** The parsed JSON body (`null` for 204). */
  body: unknown;
  /** Response headers, names in lower case. */
  headers: Readonly<Record<string, string>>;
  /** HTTP requests sent for this call, retries included. */
  attempts: number;
  /** Path and query of the request. */
  path: string;
  /**
   * Where a string of the body held a credential (see {@link ApiClientOptions.redactor}), replaced in
   * `body` with `[REDACTED]`: the keys and indexes down to it. Absent when none did.
   */
  redacted?: readonly (readonly (string | number)[])[];
}

/**
 * Options of one `getJson` call.
 *
 * @category Client
 */
export interface GetJsonOptions {
  signal?: AbortSignal;
  /**
   * Sees the body of a successful response before it is parsed, as it arrived (in pieces, which
   * joined are the body): what it returns (other than `undefined`) is the response's `body`, and the
   * body is neither joined nor parsed. Called once per 2xx attempt.
   */
  recognize?: (chunks: readonly Buffer[]) => unknown;
}

/**
 * A client of one API base URL.
 *
 * @category Client
 */
export interface ApiClient {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /**
   * GET JSON at the base URL + the escaped path segments + the query (`undefined` values left out).
   * Throws `INVALID_IDENTIFIER` for a segment that cannot be sent safely (empty, `.` or `..`), the
   * typed errors of `errors.ts` when the call fails, and `ABORTED` when `signal` fires.
   *
   * @example
   * ```ts
   * import { createApiClient } from "ocf-sync";
   * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
   * const page = await client.getJson(["v1alpha1", "issuers", "7", "restrictedStockAwards"], { pageSize: "50" });
   * console.log(page.path, page.status, page.attempts); // page.body: the parsed JSON
   * await client.close();
   * ```
   */
  getJson(
    segments: readonly string[],
    query?: Readonly<Record<string, string | undefined>>,
    options?: GetJsonOptions,
  ): Promise<ApiResponse>;
  /** A snapshot of the counters. */
  stats(): ClientStats;
  /**
   * Closes the client's own agent (an injected dispatcher is left open) and stops any token request
   * under way. With an aborted `signal`, open connections are destroyed instead of drained.
   */
  close(options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * `close()`, for `await using client = createApiClient(...)`: the client is closed when the block
   * ends, however it ends.
   */
  [Symbol.asyncDispose](): Promise<void>;
}

const MIB = 1024 * 1024;
// Error bodies are only read for their message; a large one is cut, never an error of its own.
const ERROR_BODY_LIMIT = 64 * 1024;
const TOKEN_RESPONSE_LIMIT = 64 * 1024;
// undici errors that are the caller's or the client's fault; trying again cannot help.
const NOT_RETRYABLE_UNDICI_CODES: ReadonlySet<string> = new Set([
  "UND_ERR_INVALID_ARG",
  "UND_ERR_INVALID_RETURN_VALUE",
  "UND_ERR_NOT_SUPPORTED",
  "UND_ERR_DESTROYED",
  "UND_ERR_CLOSED",
]);


/** The default `User-Agent`: `ocf-sync/<version> (+node <node version>)`. */
export function defaultUserAgent(): string {
  return `ocf-sync/${ocfSyncVersion()} (+node ${process.versions.node})`;
}

function positiveNumber(option: string, value: number | undefined, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0) || (integer && !Number.isSafeInteger(value))) {
    throw new ClientConfigError(option, value, integer ? "must be a positive integer" : "must be a positive number");
  }
  return value;
}

function resolveRetryPolicy(retry: RetryOptions | undefined): RetryPolicy {
  return {
    maxAttempts: positiveNumber("retry.maxAttempts", retry?.maxAttempts, DEFAULT_RETRY_POLICY.maxAttempts, true),
    maxElapsedMs: positiveNumber("retry.maxElapsedMs", retry?.maxElapsedMs, DEFAULT_RETRY_POLICY.maxElapsedMs),
    baseDelayMs: positiveNumber("retry.baseDelayMs", retry?.baseDelayMs, DEFAULT_RETRY_POLICY.baseDelayMs),
    maxDelayMs: positiveNumber("retry.maxDelayMs", retry?.maxDelayMs, DEFAULT_RETRY_POLICY.maxDelayMs),
  };
}

function isRateLimiter(value: unknown): value is RateLimiter {
  return typeof value === "object" && value !== null && typeof (value as RateLimiter).acquire === "function";
}

function is2xx(status: number): boolean {
  return status >= 200 && status <= 299;
}

/** What a thrown transport error means: a timeout or another network failure, and whether to retry. */
function classifyTransportError(
  cause: unknown,
  timeouts: Required<TimeoutOptions>,
): { code: NetworkErrorCode; what: string; hint?: string; retryable: boolean } {
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined;
  switch (code) {
    case "UND_ERR_CONNECT_TIMEOUT":
      return { code: "API_TIMEOUT", what: "timed out connecting", retryable: true };
    case "UND_ERR_HEADERS_TIMEOUT":
      return { code: "API_TIMEOUT", what: `timed out waiting for the response headers (${timeouts.headersMs} ms)`, retryable: true };
    case "UND_ERR_BODY_TIMEOUT":
      return { code: "API_TIMEOUT", what: `timed out reading the response body (no data for ${timeouts.bodyMs} ms)`, retryable: true };
    case ATTEMPT_TIMEOUT_CODE:
      return { code: "API_TIMEOUT", what: `timed out: the response (headers and whole body) did not arrive within ${timeouts.attemptMs} ms`, retryable: true };
    case "ERR_SSL_WRONG_VERSION_NUMBER":
      // What OpenSSL says when the server answers a TLS hello in plain HTTP; asking again cannot help.
      return {
        code: "API_NETWORK_ERROR",
        what: `could not start TLS: the server answered in plain HTTP (${code})`,
        hint: "for such a server the base URL starts with http://, not https://",
        retryable: false,
      };
    default: {
      // OpenSSL's messages end in a newline: one line, as every message is.
      const message = (cause instanceof Error ? cause.message || cause.name : String(cause)).replace(/\s+/g, " ").trim();
      const what = typeof code === "string" ? `${message} (${code})` : message;
      return { code: "API_NETWORK_ERROR", what, retryable: typeof code !== "string" || !NOT_RETRYABLE_UNDICI_CODES.has(code) };
    }
  }
}

/** One attempt's result: a response, or an error that may be retried. */
type AttemptResult =
  | { kind: "done"; response: ApiResponse }
  | {
      kind: "retry";
      error: OcfSyncError;
      reason: string;
      status?: number;
      headers?: Record<string, string>;
      /** Retry at once, outside the attempt budget (the one retry after minting a new token). */
      immediate?: boolean;
    };

/** Every option of `createApiClient` (a key not among them is refused: from JavaScript a typo such as `ratelimit` would be ignored). */
const CLIENT_OPTION_KEYS = optionKeys<ApiClientOptions>()(["baseUrl", "auth", "rateLimit", "retry", "timeouts", "maxResponseBytes", "userAgent", "dispatcher", "logger", "clock", "random", "onEvent", "redactor"]);

/**
 * Creates a client. It holds a connection pool (unless `dispatcher` is given): call `close()` when done.
 *
 * @example
 * ```ts
 * import { createApiClient } from "ocf-sync";
 * const client = createApiClient({
 *   baseUrl: process.env.CARTA_BASE_URL ?? "https://api.playground.carta.team",
 *   auth: {
 *     type: "oauth2",
 *     tokenUrl: process.env.CARTA_TOKEN_URL ?? "https://login.playground.carta.team/o/access_token/",
 *     clientId: process.env.CARTA_CLIENT_ID ?? "",
 *     clientSecret: process.env.CARTA_CLIENT_SECRET ?? "",
 *   },
 * });
 * const awards = await client.getJson(["v1alpha1", "issuers", "7", "restrictedStockAwards"]); // the first call fetches a token
 * console.log(awards.status, client.stats());
 * await client.close();
 * ```
 *
 * @category Client
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  checkKnownKeys("createApiClient", options, CLIENT_OPTION_KEYS);
  const base: BaseUrl = parseBaseUrl(options.baseUrl);
  const authType: unknown = options.auth?.type;
  if (options.auth !== undefined && authType !== "bearer" && authType !== "oauth2") {
    throw new ClientConfigError("auth.type", authType, 'must be "bearer" or "oauth2"');
  }
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const redactor = options.redactor ?? createRedactor();
  const logger = redactingLogger(options.logger ?? silentLogger, redactor);
  const emit = options.onEvent ?? ((): void => {});
  const policy = resolveRetryPolicy(options.retry);
  const timeouts: Required<TimeoutOptions> = {
    connectMs: positiveNumber("timeouts.connectMs", options.timeouts?.connectMs, 10_000),
    headersMs: positiveNumber("timeouts.headersMs", options.timeouts?.headersMs, 30_000),
    bodyMs: positiveNumber("timeouts.bodyMs", options.timeouts?.bodyMs, 30_000),
    attemptMs: positiveNumber("timeouts.attemptMs", options.timeouts?.attemptMs, 120_000),
  };
  const maxResponseBytes = positiveNumber("maxResponseBytes", options.maxResponseBytes, 32 * MIB, true);
  const userAgent = options.userAgent ?? defaultUserAgent();
  const ownAgent =
    options.dispatcher === undefined
      ? new Agent({ connectTimeout: timeouts.connectMs, headersTimeout: timeouts.headersMs, bodyTimeout: timeouts.bodyMs })
      : undefined;
  // Any undici Dispatcher satisfies HttpDispatcher; it is used as the Dispatcher it is.
  const dispatcher: Dispatcher = (options.dispatcher as Dispatcher | undefined) ?? ownAgent!;
  const limiter: RateLimiter | undefined =
    options.rateLimit === false
      ? undefined
      : isRateLimiter(options.rateLimit)
        ? options.rateLimit
        : createRateLimiter({ ...options.rateLimit, clock });
  const stats: Omit<ClientStats, "tokenRequests"> = { requests: 0, retries: 0, throttledMs: 0, rateLimited: 0, bytesReceived: 0 };
  let closed = false;

  function postForm(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<RawResponse> {
    return sendRaw(dispatcher, {
      url,
      method: "POST",
      headers: { ...headers, "user-agent": userAgent },
      body,
      signal,
      headersTimeoutMs: timeouts.headersMs,
      bodyTimeoutMs: timeouts.bodyMs,
      attemptTimeoutMs: timeouts.attemptMs,
      maxBodyBytes: () => TOKEN_RESPONSE_LIMIT,
      failFastOnLength: () => false,
    });
  }

  const auth: AuthProvider | undefined =
    options.auth === undefined
      ? undefined
      : options.auth.type === "bearer"
        ? bearerAuth(options.auth.token, redactor)
        : oauth2Auth(options.auth, { post: postForm, clock, logger, redactor });

  /** Server-supplied text may echo a credential back (a debugging gateway, say): never pass it on. */
  function redact(text: string): string {
    return redactor.redact(text);
  }

  /**
   * The body with every string that holds a credential redacted, and where they were. The bytes are
   * looked at first: a walk of the parsed body costs more, and is needed only when they hold one.
   */
  function redactBody(body: unknown, chunks: readonly Buffer[]): { body: unknown; redacted?: (string | number)[][] } {
    if (!redactor.holdsIn(chunks)) return { body };
    const redacted: (string | number)[][] = [];
    const shown = redactor.redactValue(body, (at) => redacted.push([...at]));
    return redacted.length === 0 ? { body } : { body: shown, redacted };
  }

  /** Waits for the limiter, counting the wait; the permit's `done()` is for when the response is in. */
  async function throttle(signal: AbortSignal | undefined): Promise<RateLimitPermit | void> {
    if (limiter === undefined) return;
    const before = clock.now();
    const acquireOptions = signal === undefined ? {} : { signal };
    const permit = limiter.acquirePermit === undefined ? await limiter.acquire(acquireOptions) : await limiter.acquirePermit(acquireOptions);
    const waited = clock.now() - before;
    if (waited > 0) {
      stats.throttledMs += waited;
      emit({ type: "throttled", waitMs: waited });
    }
    return permit;
  }

  /**
   * The server's count, on every response: when it says a window is spent (`RateLimit-Remaining: 0`,
   * the trio describing the window closest to its limit, or `X-RateLimit-Remaining-Minute: 0`), no
   * request goes before `RateLimit-Reset`. Processes that share a credential without sharing a limiter
   * each see the others' requests there, so they wait instead of spending retries on 429s.
   */
  function honourQuotaHeaders(headers: Record<string, string>): void {
    if (limiter === undefined) return;
    const spent = headers["ratelimit-remaining"]?.trim() === "0" || headers["x-ratelimit-remaining-minute"]?.trim() === "0";
    if (!spent) return;
    const reset = headers["ratelimit-reset"];
    const waitMs = reset === undefined ? undefined : parseRateLimitReset(reset, clock.now());
    // Without a reset time the limiter's own log is the best guide; a 429 would still pause it.
    if (waitMs !== undefined) limiter.pauseUntil(clock.now() + Math.min(waitMs, 60_000), "server-count");
  }

  async function attemptOnce(
    path: string,
    attempt: number,
    reminted: boolean,
    signal: AbortSignal | undefined,
    recognize: GetJsonOptions["recognize"],
  ): Promise<AttemptResult> {
    const method = "GET";
    const context = { method, path, attempts: attempt };
    // The server has counted the request once its answer (or a failure) is in: `permit.done()`.
    const permit = await throttle(signal);
    let authorization: string | undefined;
    if (auth !== undefined) {
      try {
        authorization = await auth.authorization(signal === undefined ? {} : { signal });
      } catch (error) {
        permit?.done();
        if (isAuthError(error) && error.retryable && !isAborted(signal)) {
          return { kind: "retry", error, reason: `AUTH_FAILED${error.status === undefined ? "" : ` ${error.status}`}` };
        }
        throw error;
      }
    }
    const headers: Record<string, string> = { accept: "application/json", "user-agent": userAgent };
    if (authorization !== undefined) headers["authorization"] = authorization;
    stats.requests += 1;
    const sentAt = clock.now();
    let raw: RawResponse;
    try {
      raw = await sendRaw(dispatcher, {
        url: `${base.origin}${path}`,
        method,
        headers,
        signal,
        headersTimeoutMs: timeouts.headersMs,
        bodyTimeoutMs: timeouts.bodyMs,
        attemptTimeoutMs: timeouts.attemptMs,
        maxBodyBytes: (status) => (is2xx(status) ? maxResponseBytes : Math.min(maxResponseBytes, ERROR_BODY_LIMIT)),
        failFastOnLength: is2xx,
      });
    } catch (cause) {
      permit?.done();
      if (isAborted(signal)) throw cause;
      const durationMs = clock.now() - sentAt;
      const failure = classifyTransportError(cause, timeouts);
      logger.debug({ method, path, status: undefined, attempt, ms: durationMs, error: failure.code }, "api request failed");
      emit({ type: "request", method, path, status: undefined, attempt, durationMs });
      const error = new NetworkError({ ...context, code: failure.code, what: redact(failure.what), hint: failure.hint, cause, retryable: failure.retryable });
      if (!failure.retryable) throw error;
      return { kind: "retry", error, reason: failure.code };
    }
    permit?.done();
    const { status } = raw;
    const durationMs = clock.now() - sentAt;
    stats.bytesReceived += raw.size;
    logger.debug({ method, path, status, attempt, ms: durationMs }, "api request");
    emit({ type: "request", method, path, status, attempt, durationMs });
    honourQuotaHeaders(raw.headers);

    if (is2xx(status)) {
      if (raw.truncated) throw new ResponseTooLargeError({ ...context, status, limit: maxResponseBytes });
      // The headers a caller gets are redacted as the body is (the client's own reading above saw them as sent).
      const headers = redactor.redactValue(raw.headers);
      if (status === 204) return { kind: "done", response: { status, body: null, headers, attempts: attempt, path } };
      try {
        const recognized = recognize?.(raw.chunks);
        const parsed = recognized !== undefined ? { body: recognized } : redactBody(parseJsonBody(raw.chunks, raw.size), raw.chunks);
        return { kind: "done", response: { status, headers, attempts: attempt, path, ...parsed } };
      } catch (cause) {
        // A cut-off body is a transport failure in disguise: ask again.
        const detail = redact(cause instanceof Error ? cause.message : String(cause));
        const error = new InvalidJsonError({ ...context, status, bytes: raw.size, detail });
        return { kind: "retry", error, reason: error.code, status, headers: raw.headers };
      }
    }

    const body = parseErrorBody(redact(raw.body.toString("utf8")));
    if (status === 401 && auth !== undefined && authorization !== undefined && !reminted && auth.invalidate(authorization)) {
      const error = new ApiError({ ...context, status, body });
      return { kind: "retry", error, reason: "401: minting a new token", immediate: true };
    }
    const hint =
      status === 404
        ? `check the issuer id, and that the base URL ${base.href} is the API's root (such as https://api.carta.com)`
        : status !== 401
          ? undefined
          : auth === undefined
            ? "no credentials were given (auth: a bearer token, or OAuth2 client credentials; on the command line --token or OCF_SYNC_TOKEN, or --token-url, --client-id and --client-secret)"
            : reminted
              ? "a newly minted token was rejected too"
              : "the configured bearer token was rejected";
    const error = new ApiError({ ...context, status, body, ...(hint === undefined ? {} : { hint }) });
    if (status === 429) stats.rateLimited += 1;
    if (!isRetryableStatus(status)) throw error;
    return { kind: "retry", error, reason: `status ${status}`, status, headers: raw.headers };
  }

  async function getJson(
    segments: readonly string[],
    query?: Readonly<Record<string, string | undefined>>,
    callOptions: GetJsonOptions = {},
  ): Promise<ApiResponse> {
    const { signal, recognize } = callOptions;
    const path = buildRequestPath(base, segments, query);
    const started = clock.now();
    let reminted = false;
    for (let attempt = 1; ; attempt += 1) {
      // Checked per attempt too: a client closed during a backoff wait sends nothing more.
      if (closed) throw new OcfSyncError("CLIENT_CLOSED", `GET ${path} was not sent: the client is closed`);
      let result: AttemptResult;
      try {
        if (isAborted(signal)) throw signal?.reason;
        result = await attemptOnce(path, attempt, reminted, signal, recognize);
      } catch (error) {
        if (isAborted(signal)) throw abortError(`GET ${path}`, signal);
        throw error;
      }
      if (result.kind === "done") return result.response;
      let delayMs = 0;
      if (result.immediate === true) {
        reminted = true;
      } else {
        delayMs = retryDelay({ retry: attempt, status: result.status, headers: result.headers, nowMs: clock.now(), policy, random }).delayMs;
        // The quota is spent for everyone using this limiter, not just for this call.
        if (result.status === 429) limiter?.pauseUntil(clock.now() + delayMs, "rate-limited");
        if (attempt >= policy.maxAttempts || clock.now() - started + delayMs > policy.maxElapsedMs) throw result.error;
      }
      stats.retries += 1;
      emit({ type: "retry", path, attempt, delayMs, reason: result.reason });
      logger.warn({ method: "GET", path, attempt, delayMs, reason: result.reason }, "retrying request");
      if (delayMs === 0) continue;
      try {
        await clock.sleep(delayMs, signal);
      } catch (error) {
        if (isAborted(signal)) throw abortError(`GET ${path}`, signal);
        throw error;
      }
    }
  }

  const client: ApiClient = {
    baseUrl: base.href,
    getJson,
    stats: () => ({ ...stats, tokenRequests: auth?.mints ?? 0 }),
    [Symbol.asyncDispose]: () => client.close(),
    async close(closeOptions: { signal?: AbortSignal } = {}): Promise<void> {
      if (closed) return;
      closed = true;
      auth?.close();
      if (ownAgent === undefined) return;
      const { signal } = closeOptions;
      if (isAborted(signal)) {
        await ownAgent.destroy();
        return;
      }
      const onAbort = (): void => void ownAgent.destroy();
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        await ownAgent.close();
      } finally {
        signal?.removeEventListener("abort", onAbort);
      }
    },
  };
  return client;
}
