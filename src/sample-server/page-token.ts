/**
 * Page tokens of the sample server. The real service's tokens are opaque and bound to the request:
 * "all other parameters must match the call that provided the page token" (source-api.md §5). These
 * tokens carry an offset and a digest of the other parameters, signed with a per-server key, and are
 * base64url-encoded as a whole. A client that decodes, builds, edits or reuses a token with other
 * parameters gets a 400, as it would from the real service.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** The list parameters a token is bound to (everything but the token itself). */
export interface PageTokenScope {
  issuerId: string;
  collection: string;
  /** The effective page size, after the default and the cap are applied. */
  pageSize: number;
  /** The normalized `lastModifiedDatetimeAfter`, if any. */
  after: string | undefined;
  /** The normalized `lastModifiedDatetimeBefore`, if any. */
  before: string | undefined;
}

/** Why a page token was refused. */
export type PageTokenProblem = "malformed" | "mismatch";

const VERSION = "p1";

function scopeDigest(scope: PageTokenScope): string {
  const canonical = JSON.stringify([scope.issuerId, scope.collection, scope.pageSize, scope.after ?? null, scope.before ?? null]);
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 16);
}

function sign(key: Buffer, payload: string): string {
  return createHmac("sha256", key).update(payload).digest("base64url").slice(0, 22);
}

/** Issues a token for the page that starts at `offset`. */
export function encodePageToken(key: Buffer, offset: number, scope: PageTokenScope): string {
  const payload = `${VERSION}.${offset}.${scopeDigest(scope)}`;
  return Buffer.from(`${payload}.${sign(key, payload)}`, "utf8").toString("base64url");
}

/**
 * Reads a token back. A token that was not issued with `key` (edited, truncated, invented, or from
 * another server) is `malformed`; a genuine token presented with other parameters is a `mismatch`.
 */
export function decodePageToken(
  key: Buffer,
  token: string,
  scope: PageTokenScope,
): { offset: number } | { problem: PageTokenProblem } {
  const bytes = Buffer.from(token, "base64url");
  // Node's decoder skips stray characters; only the exact encoding of the bytes counts as the token.
  if (bytes.toString("base64url") !== token) return { problem: "malformed" };
  const parts = bytes.toString("utf8").split(".");
  if (parts.length !== 4) return { problem: "malformed" };
  const [version = "", offsetText = "", digest = "", signature = ""] = parts;
  const expected = Buffer.from(sign(key, `${version}.${offsetText}.${digest}`));
  const given = Buffer.from(signature);
  if (version !== VERSION || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { problem: "malformed" };
  }
  if (digest !== scopeDigest(scope)) return { problem: "mismatch" };
  return { offset: Number.parseInt(offsetText, 10) };
}
