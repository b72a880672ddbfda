/**
 * Building request URLs from untrusted identifiers. Every path segment is percent-encoded on its own,
 * so an id such as `../x` or `a/b` stays one segment. `.` and `..` cannot be made safe by escaping:
 * WHATWG URL parsing treats `%2E` and `%2e%2E` as dot segments too and would resolve them away
 * (https://url.spec.whatwg.org/#single-dot-path-segment), so they are rejected instead.
 */
import { redactUrl } from "../redaction.js";
import { ClientConfigError, InvalidIdentifierError } from "./errors.js";

/** A base URL, checked and split: `origin` plus a path prefix without a trailing slash (`""` for none). */
export interface BaseUrl {
  /** The base URL as given, without a trailing slash. */
  readonly href: string;
  readonly origin: string;
  /** Path prefix kept in front of every request path, e.g. `/prefix`; `""` when there is none. */
  readonly prefix: string;
}

/** The version segment every request path of the service starts with (source-api §3). */
export const API_VERSION = "v1alpha1";

/**
 * Checks a base URL: `http:` or `https:`, no credentials, query or fragment (they would end up in
 * error messages and logs, or be silently dropped), and no API version in its path: the client adds
 * `/v1alpha1/...` itself, so a base URL copied from a request URL could only give 404s.
 */
export function parseBaseUrl(text: string): BaseUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new ClientConfigError("baseUrl", redactUrl(text), `not an absolute URL (${cause instanceof Error ? cause.message : "unparsable"})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ClientConfigError("baseUrl", url.protocol, "only http: and https: are supported");
  }
  if (url.username !== "" || url.password !== "") {
    // Do not echo the URL: it holds credentials.
    throw new ClientConfigError("baseUrl", `${url.protocol}//…@${url.host}`, "credentials in the URL are not supported; give them as a bearer token or OAuth2 client credentials (auth)");
  }
  if (url.search !== "" || url.hash !== "") {
    // Shown with its query's names and without their values: a key may be one (`?api_key=...`).
    throw new ClientConfigError("baseUrl", redactUrl(text), "a base URL cannot have a query or fragment");
  }
  const prefix = url.pathname.replace(/\/+$/, "");
  const version = prefix.split("/").indexOf(API_VERSION);
  if (version !== -1) {
    const root = `${url.origin}${prefix.split("/").slice(0, version).join("/")}`;
    throw new ClientConfigError("baseUrl", text, `requests already start with /${API_VERSION}/: give the API's root, ${root}`);
  }
  return { href: `${url.origin}${prefix}`, origin: url.origin, prefix };
}

// String.prototype.isWellFormed is ES2024; the project targets the ES2023 library.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * Percent-encodes one path segment. Throws `INVALID_IDENTIFIER` for an empty segment, `.` or `..`,
 * and for strings with unpaired surrogates (they have no UTF-8 form).
 */
export function encodePathSegment(segment: string): string {
  if (segment === "") throw new InvalidIdentifierError(segment, "an empty path segment would change the path");
  if (segment === "." || segment === "..") {
    throw new InvalidIdentifierError(segment, "dot segments are resolved by URL parsing even when percent-encoded");
  }
  if (!isWellFormed(segment)) throw new InvalidIdentifierError(segment, "it contains an unpaired surrogate (not valid Unicode)");
  return encodeURIComponent(segment);
}

/**
 * The query string (with its leading `?`, or `""`) for the given parameters, in the given order;
 * parameters whose value is `undefined` are left out. Keys and values are percent-encoded with
 * `%20` for a space, which every server reads the same way (`+` is ambiguous outside form bodies).
 */
export function buildQuery(query: Readonly<Record<string, string | undefined>> | undefined): string {
  if (query === undefined) return "";
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (!isWellFormed(key) || !isWellFormed(value)) {
      throw new ClientConfigError(`query parameter ${key}`, value, "it contains an unpaired surrogate (not valid Unicode)");
    }
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}

/** The absolute path (base prefix kept) and query for the segments: `/prefix/a/b%2Fc?x=1`. */
export function buildRequestPath(
  base: BaseUrl,
  segments: readonly string[],
  query?: Readonly<Record<string, string | undefined>>,
): string {
  return `${base.prefix}/${segments.map(encodePathSegment).join("/")}${buildQuery(query)}`;
}
