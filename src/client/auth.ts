/**
 * Authorization for API calls: a static bearer token, or OAuth2 client credentials as the service
 * implements them (source-api §2.1): HTTP Basic client authentication, a form body with `grant_type`
 * and `scope`, `expires_in` as a number or a numeric string, no refresh token. Tokens are cached and
 * minted again shortly before they expire; concurrent callers share one mint.
 */
import type { Logger } from "../logger.js";
import { createRedactor, redactUrl, urlSecrets, type Redactor } from "../redaction.js";
import { raceAbort } from "./abort.js";
import type { Clock } from "./clock.js";
import { AuthError, ClientConfigError, parseErrorBody } from "./errors.js";
import type { RawResponse } from "./transport.js";

/**
 * How API calls are authorized.
 *
 * @category Client
 */
export type AuthOptions =
  | {
      type: "bearer";
      /** A ready access token, sent as `Authorization: Bearer <token>`. */
      token: string;
    }
  | {
      type: "oauth2";
      /** The token endpoint, e.g. `https://login.app.carta.com/o/access_token/` (keep its trailing slash). */
      tokenUrl: string;
      clientId: string;
      clientSecret: string;
      /**
       * Scopes to request.
       * @default ["read_issuer_securities"]
       */
      scopes?: readonly string[];
      /**
       * The `grant_type` to send. The service's docs spell it `CLIENT_CREDENTIALS`; both spellings work.
       * @default "client_credentials"
       */
      grantType?: string;
    };

/** What the client needs from an authorization scheme. */
export interface AuthProvider {
  /** The `Authorization` header value for the next request (minting a token if needed). */
  authorization(options?: { signal?: AbortSignal }): Promise<string>;
  /**
   * Called after a 401 that was sent with `authorization`: forgets that token, so that the next
   * {@link authorization} mints a new one. Returns false when no other token can be had (a static one).
   */
  invalidate(authorization: string): boolean;
  /**
   * Replaces every secret this provider knows (client secret, tokens) in `text` with `[REDACTED]`,
   * also when echoed transformed (see `Redactor`).
   */
  redact(text: string): string;
  /** Token requests sent so far. */
  readonly mints: number;
  /** Stops any token request under way. */
  close(): void;
}

/** Posts a form to the token endpoint; the client supplies it so that auth shares its dispatcher. */
export type PostForm = (url: string, headers: Record<string, string>, body: string, signal: AbortSignal) => Promise<RawResponse>;

// The service documents one-hour tokens (source-api §2.1); used only when `expires_in` is left out.
const DOCUMENTED_LIFETIME_S = 3600;
/** The fields of a token response that hold credentials (RFC 6749 §5.1; `id_token` from OpenID Connect). */
const TOKEN_RESPONSE_SECRETS = ["access_token", "refresh_token", "id_token"] as const;
const EARLY_REFRESH_MS = 60_000;

function checkTokenUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ClientConfigError("auth.tokenUrl", redactUrl(text), "not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ClientConfigError("auth.tokenUrl", url.protocol, "only http: and https: are supported");
  }
  if (url.username !== "" || url.password !== "") {
    throw new ClientConfigError("auth.tokenUrl", `${url.protocol}//…@${url.host}`, "credentials belong in clientId and clientSecret");
  }
  return url;
}

/** `expires_in` in seconds, from a number or a numeric string; `undefined` when unusable. */
export function parseExpiresIn(value: unknown): number | undefined {
  let seconds: number | undefined;
  if (typeof value === "number") seconds = value;
  else if (typeof value === "string" && /^\s*\d+(\.\d+)?\s*$/.test(value)) seconds = Number(value);
  return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

interface CachedToken {
  header: string;
  /** When to mint the next one (clock ms). */
  refreshAt: number;
}

/**
 * A provider for a fixed token. The token is added to `redactor` (a new one by default), which is
 * then the provider's `redact`.
 */
export function bearerAuth(token: string, redactor: Redactor = createRedactor()): AuthProvider {
  if (token.trim() === "") throw new ClientConfigError("auth.token", "", "the bearer token is empty");
  const header = `Bearer ${token}`;
  redactor.add(token);
  return {
    authorization: async () => header,
    invalidate: () => false,
    redact: (text) => redactor.redact(text),
    mints: 0,
    close: () => {},
  };
}

/**
 * A provider for OAuth2 client credentials. The client secret, the token URL's query values and every
 * token and refresh token the endpoint answers with are added to `deps.redactor` (a new one by
 * default), which is then the provider's `redact`.
 */
export function oauth2Auth(
  options: Extract<AuthOptions, { type: "oauth2" }>,
  deps: { post: PostForm; clock: Clock; logger: Logger; redactor?: Redactor },
): AuthProvider {
  const href = checkTokenUrl(options.tokenUrl).href;
  // The URL requests go to, and the one messages and log lines show.
  const tokenUrl = redactUrl(href);
  if (options.clientId === "") throw new ClientConfigError("auth.clientId", "", "the client id is empty");
  if (options.clientSecret === "") throw new ClientConfigError("auth.clientSecret", "", "the client secret is empty");
  const scopes = options.scopes ?? ["read_issuer_securities"];
  if (scopes.length === 0 || scopes.some((s) => s === "" || /\s/.test(s))) {
    throw new ClientConfigError("auth.scopes", scopes, "give at least one scope, each without spaces");
  }
  const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`, "utf8").toString("base64");
  const form = new URLSearchParams({ grant_type: options.grantType ?? "client_credentials", scope: scopes.join(" ") }).toString();
  const { post, clock, logger, redactor = createRedactor() } = deps;
  // Every token stays known: a late error body may still echo an older one. (The Basic credentials'
  // base64 is found as the client secret's.)
  redactor.add(options.clientSecret, ...urlSecrets(href));
  const redact = (text: string): string => redactor.redact(text);
  const closing = new AbortController();
  let cached: CachedToken | undefined;
  let inflight: Promise<CachedToken> | undefined;
  let mints = 0;

  function fail(detail: string, extra: { failure: AuthError["failure"]; status?: number; oauthError?: string; cause?: unknown }): AuthError {
    const oauthError = extra.oauthError === undefined ? {} : { oauthError: redact(extra.oauthError) };
    return new AuthError({ tokenUrl, detail: redact(detail), ...extra, ...oauthError });
  }

  async function mint(): Promise<CachedToken> {
    mints += 1;
    const started = clock.now();
    let response: RawResponse;
    try {
      response = await post(
        href,
        {
          authorization: `Basic ${basic}`,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        form,
        closing.signal,
      );
    } catch (cause) {
      const what = cause instanceof Error ? cause.message : "unknown error";
      throw fail(`could not reach the token endpoint (${what})`, { failure: "TOKEN_ENDPOINT_NETWORK", cause });
    }
    // Parsed as sent; `fail` redacts whatever part of it ends up in a message.
    const text = response.body.toString("utf8");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const body = typeof json === "object" && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
    // Whatever the answer is, its credentials are known before any part of it is shown.
    for (const key of TOKEN_RESPONSE_SECRETS) {
      const value = body[key];
      if (typeof value === "string") redactor.add(value);
    }
    const { status } = response;
    if (status < 200 || status > 299) {
      const oauthError = typeof body["error"] === "string" ? body["error"] : undefined;
      const description = typeof body["error_description"] === "string" ? body["error_description"] : undefined;
      const parsed = parseErrorBody(text);
      const detail = description ?? parsed.grpcMessage ?? parsed.bodyText ?? "no details given";
      const hint =
        status === 400 || status === 401
          ? "; check the client id and secret, and that they belong to this environment (playground credentials fail against production)"
          : "";
      throw fail(`${detail}${hint}`, {
        failure: "TOKEN_ENDPOINT_STATUS",
        status,
        ...(oauthError === undefined ? {} : { oauthError }),
      });
    }
    const accessToken = body["access_token"];
    if (typeof accessToken !== "string" || accessToken.trim() === "") {
      throw fail(`the ${status} response has no access_token`, { failure: "INVALID_TOKEN_RESPONSE", status });
    }
    const tokenType = body["token_type"];
    if (tokenType !== undefined && (typeof tokenType !== "string" || tokenType.toLowerCase() !== "bearer")) {
      throw fail(`token_type ${JSON.stringify(tokenType)} is not Bearer`, { failure: "INVALID_TOKEN_RESPONSE", status });
    }
    const granted = body["scope"];
    // The service grants a token with no scope when the app is not registered for a requested scope;
    // every data call would then be 403 (source-api §2.2). An absent `scope` means "as requested" (RFC 6749 §5.1).
    if (granted === null || (typeof granted === "string" && granted.trim() === "")) {
      throw fail(
        `the token was granted with an empty scope, so every data call would be answered 403; requested ${JSON.stringify(scopes.join(" "))}: check that the app is registered for these scopes`,
        { failure: "EMPTY_SCOPE", status },
      );
    }
    const grantedScopes = typeof granted === "string" ? granted.trim().split(/\s+/) : [...scopes];
    const missing = scopes.filter((s) => !grantedScopes.includes(s));
    if (missing.length > 0) {
      logger.warn({ tokenUrl, requested: scopes, granted: grantedScopes }, "OAuth2 token granted without some requested scopes");
    }
    let lifetimeS = parseExpiresIn(body["expires_in"]);
    if (body["expires_in"] !== undefined && lifetimeS === undefined) {
      throw fail(`expires_in ${JSON.stringify(body["expires_in"])} is not a positive number of seconds`, {
        failure: "INVALID_TOKEN_RESPONSE",
        status,
      });
    }
    lifetimeS ??= DOCUMENTED_LIFETIME_S;
    const lifetimeMs = lifetimeS * 1000;
    // Mint again 60 s before expiry, or at half-life for short-lived tokens; count from the request
    // start, since the server's clock started no earlier.
    const refreshAt = started + lifetimeMs - Math.min(EARLY_REFRESH_MS, lifetimeMs / 2);
    logger.debug({ tokenUrl, expiresInS: lifetimeS, scope: grantedScopes.join(" ") }, "OAuth2 token minted");
    return { header: `Bearer ${accessToken}`, refreshAt };
  }

  return {
    async authorization(callOptions: { signal?: AbortSignal } = {}): Promise<string> {
      if (cached !== undefined && clock.now() < cached.refreshAt) return cached.header;
      if (inflight === undefined) {
        const current: Promise<CachedToken> = mint()
          .then((token) => {
            cached = token;
            return token;
          })
          .finally(() => {
            if (inflight === current) inflight = undefined;
          });
        // Every waiter may have given up (aborted): the rejection is theirs to see, never unhandled.
        current.catch(() => {});
        inflight = current;
      }
      return (await raceAbort(inflight, callOptions.signal)).header;
    },
    invalidate(authorization: string): boolean {
      if (cached?.header === authorization) cached = undefined;
      return true;
    },
    redact,
    get mints() {
      return mints;
    },
    close(): void {
      closing.abort(new Error("client closed"));
    },
  };
}
