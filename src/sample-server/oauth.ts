/**
 * The OAuth 2.0 client-credentials token endpoint of the sample server and the bearer check of its
 * API, modelled on Carta's documented flow (source-api.md §2.1, §2.2):
 * - `POST /o/access_token/` with `Authorization: Basic base64(client_id:client_secret)` and a form
 *   body `grant_type=CLIENT_CREDENTIALS&scope=read_issuer_securities`;
 * - credentials in the form body instead of Basic auth get 401, as reported for the real service;
 * - the answer types `expires_in` as a string, as Carta's docs do;
 * - a scope the client is not registered for makes the whole grant come back with no scope, and such
 *   a token gets 403 `INSUFFICIENT_SCOPE` on the API.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";

/** The scopes that grant access to the four RSA/RSU endpoints (OAS `security`). */
export const SECURITIES_READ_SCOPES = ["read_issuer_securities", "readwrite_issuer_securities"] as const;

/** The path of the token endpoint, trailing slash included as on the real login host. */
export const TOKEN_PATH = "/o/access_token/";

/**
 * Settings of the client-credentials token endpoint.
 *
 * @category Testing
 */
export interface OAuthServerOptions {
  /** The only client id accepted. */
  clientId: string;
  /** The client secret that goes with `clientId`. */
  clientSecret: string;
  /**
   * Lifetime of a minted token, in seconds.
   * @default 3600 (one hour, as Carta documents)
   */
  tokenTtlSeconds?: number;
  /**
   * The scopes the client is registered for; requesting any other scope yields a token with no scope.
   * @default ["read_issuer_securities"]
   */
  scopes?: string[];
}

/** A response the server sends as JSON. */
export interface JsonReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The result of checking an API request's `Authorization` header. */
export type BearerCheck = "ok" | "unauthenticated" | "forbidden";

interface Grant {
  expiresAtMs: number;
  scopes: readonly string[];
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** RFC 6749 §2.3.1 form-encodes the id and secret before Basic encoding; many clients do not. */
function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}

function oauthError(status: number, error: string, description: string): JsonReply {
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  if (status === 401) headers["WWW-Authenticate"] = 'Basic realm="sample-server"';
  return { status, headers, body: { error, error_description: description } };
}

/** Mints tokens and checks bearer headers. Keeps minted tokens in memory only. */
export class TokenAuthority {
  readonly #oauth: OAuthServerOptions | undefined;
  readonly #staticToken: string | undefined;
  readonly #now: () => number;
  readonly #grants = new Map<string, Grant>();
  #issued = 0;

  /**
   * @param oauth the token endpoint's settings, if tokens can be minted
   * @param staticToken a token accepted as is, with full read access
   * @param now the clock, in epoch milliseconds
   */
  constructor(oauth: OAuthServerOptions | undefined, staticToken: string | undefined, now: () => number) {
    this.#oauth = oauth;
    this.#staticToken = staticToken;
    this.#now = now;
  }

  /** True when API calls need a bearer token. */
  get required(): boolean {
    return this.#oauth !== undefined || this.#staticToken !== undefined;
  }

  /** True when the token endpoint is served. */
  get mints(): boolean {
    return this.#oauth !== undefined;
  }

  /** How many tokens the endpoint has minted. */
  get issued(): number {
    return this.#issued;
  }

  /** Handles `POST /o/access_token/`, given the request's headers and its raw body. */
  mint(authorization: string | undefined, contentType: string | undefined, body: string): JsonReply {
    const oauth = this.#oauth;
    if (oauth === undefined) return oauthError(400, "unauthorized_client", "this server mints no tokens");
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "");
    const decoded = basic === null ? "" : Buffer.from(basic[1] ?? "", "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) return oauthError(401, "invalid_client", "client authentication with HTTP Basic is required");
    const id = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    const idOk = sameSecret(id, oauth.clientId) || sameSecret(formDecode(id), oauth.clientId);
    const secretOk = sameSecret(secret, oauth.clientSecret) || sameSecret(formDecode(secret), oauth.clientSecret);
    if (!idOk || !secretOk) return oauthError(401, "invalid_client", "client authentication failed");

    if (!/^application\/x-www-form-urlencoded\b/i.test(contentType ?? "")) {
      return oauthError(400, "invalid_request", "the body must be application/x-www-form-urlencoded");
    }
    const form = new URLSearchParams(body);
    const grantType = form.get("grant_type");
    if (grantType === null || grantType === "") return oauthError(400, "invalid_request", "grant_type is required");
    if (grantType.toLowerCase() !== "client_credentials") {
      return oauthError(400, "unsupported_grant_type", "only client_credentials is supported");
    }
    const requested = (form.get("scope") ?? "").split(" ").filter((s) => s !== "");
    if (requested.length === 0) return oauthError(400, "invalid_request", "scope is required");

    const registered = oauth.scopes ?? ["read_issuer_securities"];
    const granted = requested.every((s) => registered.includes(s)) ? requested : [];
    const ttl = oauth.tokenTtlSeconds ?? 3600;
    const token = randomBytes(24).toString("base64url");
    const nowMs = this.#now();
    for (const [key, grant] of this.#grants) if (grant.expiresAtMs <= nowMs) this.#grants.delete(key);
    this.#grants.set(token, { expiresAtMs: nowMs + ttl * 1000, scopes: granted });
    this.#issued += 1;
    return {
      status: 200,
      headers: { "Cache-Control": "no-store" },
      body: { access_token: token, expires_in: String(ttl), scope: granted.join(" "), token_type: "Bearer" },
    };
  }

  /** Checks an API request's `Authorization` header. */
  check(authorization: string | undefined): BearerCheck {
    if (!this.required) return "ok";
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    const token = bearer?.[1];
    if (token === undefined) return "unauthenticated";
    if (this.#staticToken !== undefined && sameSecret(token, this.#staticToken)) return "ok";
    const grant = this.#grants.get(token);
    if (grant === undefined || grant.expiresAtMs <= this.#now()) return "unauthenticated";
    return grant.scopes.some((s) => (SECURITIES_READ_SCOPES as readonly string[]).includes(s)) ? "ok" : "forbidden";
  }
}
