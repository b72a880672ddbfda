/**
 * The typed errors of the HTTP client. Each has a stable `code`; the `is*` guards test the code (not
 * `instanceof`), so they still answer correctly when two copies of the package are loaded.
 *
 * No message or field here ever holds a token or client secret: the client redacts server-supplied
 * text before it gets here, and paths never carry credentials.
 */
import { API_ERROR_CODES, NETWORK_ERROR_CODES, type OcfSyncErrorCode } from "../error-codes.js";
import { OcfSyncError, describeValue, isOcfSyncError } from "../errors.js";

/**
 * The `code` of an {@link ApiError}: one per HTTP status the service answers with, `API_HTTP_ERROR` for others.
 *
 * @category Errors
 */
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/**
 * The `code` of a {@link NetworkError}: the connection failed, or a timeout expired.
 *
 * @category Errors
 */
export type NetworkErrorCode = (typeof NETWORK_ERROR_CODES)[number];

/** The gRPC canonical status names; error bodies carry the number (google.rpc.Status `code`). */
export const GRPC_STATUS_NAMES: readonly string[] = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
];

/**
 * Which request failed: shared by the errors that come from one API call.
 *
 * @category Client
 */
export interface RequestContext {
  /** HTTP method, e.g. `GET`. */
  method: string;
  /** Path and query of the request (never a token or other credential). */
  path: string;
  /** How many HTTP requests were sent for this call, retries included. */
  attempts: number;
}

/**
 * The fields of every client error in plain JSON form (for logs and `JSON.stringify`). `cause` is
 * reduced to its name, code and message so that nothing a dependency attached leaks through.
 */
function errorJson(error: OcfSyncError): Record<string, unknown> {
  const json: Record<string, unknown> = { name: error.name, message: error.message, ...Object.fromEntries(Object.entries(error)) };
  const cause: unknown = error.cause;
  if (cause instanceof Error) {
    json["cause"] = { name: cause.name, message: cause.message, code: (cause as { code?: unknown }).code };
  }
  return json;
}

/** The base of the client's errors: adds a JSON form that never carries more than the fields. */
export abstract class ClientError extends OcfSyncError {
  /** The error's fields (and its cause's name, message and code) for `JSON.stringify`; never a secret. */
  toJSON(): Record<string, unknown> {
    return errorJson(this);
  }
}

function attemptsText(attempts: number): string {
  return `after ${attempts} attempt${attempts === 1 ? "" : "s"}`;
}

/**
 * An error of one API call: says which request (`method`, `path`) and after how many attempts.
 * Messages read `<METHOD> <path> <what happened> after <n> attempt(s)[; <hint>]`.
 */
export abstract class RequestError extends ClientError {
  readonly method: string;
  /** Path and query of the request. */
  readonly path: string;
  /** HTTP requests sent for this call, retries included. */
  readonly attempts: number;

  constructor(code: ApiErrorCode | NetworkErrorCode | "API_INVALID_JSON" | "API_RESPONSE_TOO_LARGE", context: RequestContext, what: string, options: { cause?: unknown; hint?: string | undefined } = {}) {
    const hint = options.hint === undefined ? "" : `; ${options.hint}`;
    super(code, `${context.method} ${context.path} ${what} ${attemptsText(context.attempts)}${hint}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.method = context.method;
    this.path = context.path;
    this.attempts = context.attempts;
  }
}

function apiErrorCodeOf(status: number): ApiErrorCode {
  switch (status) {
    case 400:
      return "API_BAD_REQUEST";
    case 401:
      return "API_UNAUTHORIZED";
    case 403:
      return "API_FORBIDDEN";
    case 404:
      return "API_NOT_FOUND";
    case 429:
      return "API_RATE_LIMITED";
    default:
      return status >= 500 && status <= 599 ? "API_SERVER_ERROR" : "API_HTTP_ERROR";
  }
}

/**
 * What could be read from an error body, whatever its shape.
 *
 * @category Client
 */
export interface ErrorBodyInfo {
  /** google.rpc.Status `code` (the gRPC canonical code, not the HTTP status). */
  grpcCode: number | undefined;
  /** google.rpc.Status `message`, or the `message` of a flat `{message}` body. */
  grpcMessage: string | undefined;
  /** `details[].reason` of a google.rpc.Status body, e.g. `INSUFFICIENT_SCOPE`. */
  reasons: readonly string[];
  /** The body as text, whitespace collapsed and cut to a readable length; `undefined` when empty. */
  bodyText: string | undefined;
}

const MAX_BODY_TEXT = 500;

/**
 * Reads an error body leniently, in the order the service uses them (source-api §7.2):
 * google.rpc.Status, a flat `{message}` (the 429 shape), then anything else as raw text. Never throws.
 */
export function parseErrorBody(text: string): ErrorBodyInfo {
  const collapsed = text.replace(/\s+/g, " ").trim();
  const bodyText = collapsed === "" ? undefined : collapsed.length > MAX_BODY_TEXT ? `${collapsed.slice(0, MAX_BODY_TEXT - 1)}…` : collapsed;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { grpcCode: undefined, grpcMessage: undefined, reasons: [], bodyText };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { grpcCode: undefined, grpcMessage: undefined, reasons: [], bodyText };
  }
  const body = parsed as Record<string, unknown>;
  let grpcCode: number | undefined;
  if (typeof body["code"] === "number" && Number.isInteger(body["code"])) grpcCode = body["code"];
  else if (typeof body["code"] === "string" && GRPC_STATUS_NAMES.includes(body["code"])) {
    grpcCode = GRPC_STATUS_NAMES.indexOf(body["code"]);
  }
  const grpcMessage = typeof body["message"] === "string" && body["message"].trim() !== "" ? body["message"].trim() : undefined;
  const reasons: string[] = [];
  if (Array.isArray(body["details"])) {
    for (const detail of body["details"]) {
      const reason: unknown = typeof detail === "object" && detail !== null ? (detail as Record<string, unknown>)["reason"] : undefined;
      if (typeof reason === "string" && reason !== "" && !reasons.includes(reason)) reasons.push(reason);
    }
  }
  return { grpcCode, grpcMessage, reasons, bodyText };
}

/**
 * The API answered with a status that is not success (after any retries). `code` tells the status
 * family apart; `status`, the gRPC fields and `reasons` say exactly what the server said.
 *
 * @example
 * ```ts
 * import { createApiClient, isApiError } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * try {
 *   await client.getJson(["v1alpha1", "issuers", "no-such-issuer", "restrictedStockAwards"]);
 * } catch (error) {
 *   if (!isApiError(error)) throw error;
 *   console.error(error.message); // GET /v1alpha1/issuers/no-such-issuer/restrictedStockAwards failed with 404 NOT_FOUND: … after 1 attempt; check the issuer id, …
 *   console.error(error.code, error.status, error.reasons); // API_NOT_FOUND 404 []
 *   // A token without the scope: … failed with 403 PERMISSION_DENIED (INSUFFICIENT_SCOPE): Access to resource denied after 1 attempt
 * } finally {
 *   await client.close();
 * }
 * ```
 *
 * @category Errors
 */
export class ApiError extends RequestError {
  declare readonly code: ApiErrorCode;
  /** The HTTP status. */
  readonly status: number;
  /** google.rpc.Status `code`, when the body had one. */
  readonly grpcCode: number | undefined;
  /** The server's message: google.rpc.Status `message` or a flat `{message}`. */
  readonly grpcMessage: string | undefined;
  /** `details[].reason` values, e.g. `["INSUFFICIENT_SCOPE"]`; empty when the body had none. */
  readonly reasons: readonly string[];
  /** The body as (collapsed, shortened) text, for bodies that were neither shape. */
  readonly bodyText: string | undefined;

  constructor(context: RequestContext & { status: number; body: ErrorBodyInfo; hint?: string }) {
    const { status, body } = context;
    const grpcName = body.grpcCode === undefined ? undefined : (GRPC_STATUS_NAMES[body.grpcCode] ?? `gRPC code ${body.grpcCode}`);
    const detail = body.grpcMessage ?? body.bodyText;
    const what =
      `failed with ${status}` +
      (grpcName === undefined ? "" : ` ${grpcName}`) +
      (body.reasons.length === 0 ? "" : ` (${body.reasons.join(", ")})`) +
      (detail === undefined ? "" : `: ${detail}`);
    super(apiErrorCodeOf(status), context, what, { hint: context.hint });
    this.name = "ApiError";
    this.status = status;
    this.grpcCode = body.grpcCode;
    this.grpcMessage = body.grpcMessage;
    this.reasons = body.reasons;
    this.bodyText = body.bodyText;
  }
}

/**
 * No HTTP response arrived: connection refused or reset, DNS failure, or a connect/headers/body timeout.
 *
 * @category Errors
 */
export class NetworkError extends RequestError {
  declare readonly code: NetworkErrorCode;
  /**
   * Whether asking again may help: false where the connection can never work as configured (TLS to a
   * server that speaks plain HTTP, a refused certificate), true for a refused or reset connection or a
   * timeout. A CLI run whose only failures may be retried exits with 75.
   */
  readonly retryable: boolean;

  constructor(context: RequestContext & { code: NetworkErrorCode; what: string; cause: unknown; hint?: string | undefined; retryable?: boolean }) {
    super(context.code, context, `failed: ${context.what}`, { cause: context.cause, hint: context.hint });
    this.name = "NetworkError";
    this.retryable = context.retryable ?? true;
  }
}

/**
 * A success response whose body is not valid JSON (typically cut off in transit).
 *
 * @category Errors
 */
export class InvalidJsonError extends RequestError {
  declare readonly code: "API_INVALID_JSON";
  readonly status: number;
  /** How many bytes the body had. */
  readonly bytes: number;

  /**
   * @param context.detail - the parser's complaint. It quotes the body, so the caller redacts it; the
   *   parser's own error is not kept as `cause` for the same reason.
   */
  constructor(context: RequestContext & { status: number; bytes: number; detail: string }) {
    super("API_INVALID_JSON", context, `returned ${context.status} with a body that is not valid JSON (${context.bytes} bytes: ${context.detail})`);
    this.name = "InvalidJsonError";
    this.status = context.status;
    this.bytes = context.bytes;
  }
}

/**
 * The response body is larger than `maxResponseBytes`; reading stopped there. Not retried.
 *
 * @category Errors
 */
export class ResponseTooLargeError extends RequestError {
  declare readonly code: "API_RESPONSE_TOO_LARGE";
  readonly status: number;
  /** The limit in bytes. */
  readonly limit: number;

  constructor(context: RequestContext & { status: number; limit: number }) {
    super(
      "API_RESPONSE_TOO_LARGE",
      context,
      `returned ${context.status} with a body larger than the ${context.limit}-byte limit (maxResponseBytes)`,
    );
    this.name = "ResponseTooLargeError";
    this.status = context.status;
    this.limit = context.limit;
  }
}

/**
 * The caller's `AbortSignal` fired. `cause` is the signal's reason. Never retried.
 *
 * @category Errors
 */
export class AbortedError extends ClientError {
  declare readonly code: "ABORTED";

  /** @param what - what was aborted, e.g. `GET /v1alpha1/issuers/7/restrictedStockAwards`. */
  constructor(what: string, cause: unknown) {
    super("ABORTED", `${what} was aborted`, { cause });
    this.name = "AbortedError";
  }
}

/**
 * Why a token could not be obtained.
 *
 * @category Client
 */
export type AuthFailure =
  /** The token endpoint answered with a non-success status. */
  | "TOKEN_ENDPOINT_STATUS"
  /** The token endpoint could not be reached. */
  | "TOKEN_ENDPOINT_NETWORK"
  /** The token endpoint answered 2xx with something that is not a usable token response. */
  | "INVALID_TOKEN_RESPONSE"
  /** A token was granted with an empty `scope`: every data call would be 403. */
  | "EMPTY_SCOPE";

/**
 * The OAuth2 token could not be obtained. Never contains the client secret or a token.
 *
 * @category Errors
 */
export class AuthError extends ClientError {
  declare readonly code: "AUTH_FAILED";
  readonly failure: AuthFailure;
  /** The token endpoint URL as it may be shown: its query values, user info and fragment are `[REDACTED]`. */
  readonly tokenUrl: string;
  /** HTTP status of the token endpoint's answer, when there was one. */
  readonly status: number | undefined;
  /** The OAuth2 `error` code (RFC 6749 §5.2), e.g. `invalid_client`, when the body had one. */
  readonly oauthError: string | undefined;
  /** True when trying again later may help (network failure, 429 or 5xx from the token endpoint). */
  readonly retryable: boolean;

  constructor(context: {
    failure: AuthFailure;
    tokenUrl: string;
    detail: string;
    status?: number;
    oauthError?: string;
    cause?: unknown;
  }) {
    const { status, oauthError } = context;
    const head =
      status === undefined
        ? `OAuth2 token request to ${context.tokenUrl} failed`
        : `OAuth2 token request to ${context.tokenUrl} failed with ${status}${oauthError === undefined ? "" : ` ${oauthError}`}`;
    super("AUTH_FAILED", `${head}: ${context.detail}`, context.cause === undefined ? undefined : { cause: context.cause });
    this.name = "AuthError";
    this.failure = context.failure;
    this.tokenUrl = context.tokenUrl;
    this.status = status;
    this.oauthError = oauthError;
    this.retryable =
      context.failure === "TOKEN_ENDPOINT_NETWORK" || status === 429 || (status !== undefined && status >= 500 && status <= 599);
  }
}

/**
 * A path segment (issuer id, record id) that cannot be sent safely: empty, `.` or `..`, or not valid Unicode.
 *
 * @category Errors
 */
export class InvalidIdentifierError extends ClientError {
  declare readonly code: "INVALID_IDENTIFIER";
  /** The offending value. */
  readonly value: string;

  constructor(value: string, why: string) {
    super("INVALID_IDENTIFIER", `${describeValue(value)} cannot be used in a request URL: ${why}`);
    this.name = "InvalidIdentifierError";
    this.value = value;
  }
}

/**
 * A client option or call argument is out of range (a base URL with a query, a page size of 0, ...).
 *
 * @category Errors
 */
export class ClientConfigError extends ClientError {
  declare readonly code: "CLIENT_CONFIG_INVALID";
  /** The option or argument, e.g. `baseUrl` or `pageSize`. */
  readonly option: string;

  constructor(option: string, value: unknown, why: string) {
    super("CLIENT_CONFIG_INVALID", `${option} ${describeValue(value)} is invalid: ${why}`);
    this.name = "ClientConfigError";
    this.option = option;
  }
}

/** A type guard that tests the `code`, so that it works across copies of the package. */
function guardFor<T extends OcfSyncError>(codes: readonly OcfSyncErrorCode[]): (error: unknown) => error is T {
  return (error: unknown): error is T => isOcfSyncError(error) && codes.includes(error.code);
}

/**
 * True for an {@link ApiError} (any `API_*` status code).
 *
 * @category Errors
 */
export const isApiError = guardFor<ApiError>(API_ERROR_CODES);
/**
 * True for a {@link NetworkError} (`API_NETWORK_ERROR` or `API_TIMEOUT`).
 *
 * @category Errors
 */
export const isNetworkError = guardFor<NetworkError>(NETWORK_ERROR_CODES);
/**
 * True for an {@link InvalidJsonError}.
 *
 * @category Errors
 */
export const isInvalidJsonError = guardFor<InvalidJsonError>(["API_INVALID_JSON"]);
/**
 * True for a {@link ResponseTooLargeError}.
 *
 * @category Errors
 */
export const isResponseTooLargeError = guardFor<ResponseTooLargeError>(["API_RESPONSE_TOO_LARGE"]);
/**
 * True for an {@link AbortedError}.
 *
 * @category Errors
 */
export const isAbortedError = guardFor<AbortedError>(["ABORTED"]);
/**
 * True for an {@link AuthError}.
 *
 * @category Errors
 */
export const isAuthError = guardFor<AuthError>(["AUTH_FAILED"]);
/**
 * True for an {@link InvalidIdentifierError}.
 *
 * @category Errors
 */
export const isInvalidIdentifierError = guardFor<InvalidIdentifierError>(["INVALID_IDENTIFIER"]);
/**
 * True for a {@link ClientConfigError}.
 *
 * @category Errors
 */
export const isClientConfigError = guardFor<ClientConfigError>(["CLIENT_CONFIG_INVALID"]);
