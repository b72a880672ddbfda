/**
 * The list and get response envelopes (source-api.md §4). The service is grpc-gateway style: proto3
 * JSON leaves out an empty repeated field, so a page without its array key is an empty page. Items are
 * returned raw: each is parsed on its own with `parseRecord`, so that one bad record never fails its
 * page.
 */
import { describeValue } from "../errors.js";
import { COLLECTION_OF, RECORD_KINDS, type RecordKind } from "./kinds.js";
import { REDACTED } from "../redaction.js";
import { SECRET_REDACTED_MESSAGE, SourceEnvelopeError, UNKNOWN_FIELD_MESSAGE, describeRecord, sourceWarning, type SourceWarning } from "./errors.js";
import { recordIdOf } from "./parse.js";
import { isJsonObject } from "./wire.js";
import { keepableJson } from "./json-limits.js";

/** Where a response came from, for errors and warnings. */
export interface EnvelopeContext {
  /** The issuer the request was for. */
  issuerId: string;
  /** The request path (already percent-encoded), e.g. `/v1alpha1/issuers/7/restrictedStockAwards`. */
  path: string;
  /** Where the client redacted a credential in the body (`ApiResponse.redacted`): each is warned about. */
  redacted?: readonly (readonly (string | number)[])[] | undefined;
}

/** A list page with its items still raw. */
export interface ListPage {
  /** The raw records, in the order received; `[]` when the array key is missing or `null`. */
  items: unknown[];
  /** The token of the next page; `undefined` at the end (missing, `null` or `""`; source-api.md §5). */
  nextPageToken: string | undefined;
  /** Envelope keys this version does not know. */
  warnings: SourceWarning[];
}

/**
 * Reads a list response body (`{ restrictedStockAwards: [...], nextPageToken }`).
 *
 * @throws {SourceEnvelopeError} when the body is not an object, the array key holds something else than
 * an array, the body carries the other kind's array instead, or `nextPageToken` is not a string.
 */
export function parseListEnvelope(kind: RecordKind, body: unknown, ctx: EnvelopeContext): ListPage {
  const fail = (problem: string): SourceEnvelopeError =>
    new SourceEnvelopeError({ issuerId: ctx.issuerId, kind, path: ctx.path, problem });
  if (!isJsonObject(body)) throw fail(`the body ${describeValue(body)} is not a JSON object`);
  const key = COLLECTION_OF[kind];
  const items = body[key];
  if (items === undefined || items === null) {
    // An empty page may omit its array, but a page of the other kind means a wrong URL or a routing
    // fault; reading it as "no records" would silently drop them.
    const otherKey = RECORD_KINDS.map((k) => COLLECTION_OF[k]).find((k) => k !== key && Array.isArray(body[k]));
    if (otherKey !== undefined) throw fail(`it holds ${JSON.stringify(otherKey)} instead of ${JSON.stringify(key)}`);
  } else if (!Array.isArray(items)) {
    throw fail(`${JSON.stringify(key)} is ${describeValue(items)}, not an array`);
  }
  const token = body["nextPageToken"];
  if (token !== undefined && token !== null && typeof token !== "string") {
    throw fail(`nextPageToken ${describeValue(token)} is not a string`);
  }
  const warnings = [...unknownKeys(body, new Set([key, "nextPageToken"]), kind, ctx, "list"), ...redactionWarnings(body, key, kind, ctx, "list")];
  return {
    items: Array.isArray(items) ? items : [],
    nextPageToken: typeof token === "string" && token !== "" ? token : undefined,
    warnings,
  };
}

/**
 * Reads a get response body (`{ restrictedStockAward: {...} }`) and returns the raw record. A missing
 * resource key is a protocol error, not "not found": not-found is an HTTP 404, decided before this.
 *
 * @param ctx.onWarning receives a warning for each envelope key this version does not know.
 * @throws {SourceEnvelopeError} when the body is not an object or the resource is missing or not an object.
 */
export function parseGetEnvelope(
  kind: RecordKind,
  body: unknown,
  ctx: EnvelopeContext & { onWarning?: (warning: SourceWarning) => void },
): unknown {
  const fail = (problem: string): SourceEnvelopeError =>
    new SourceEnvelopeError({ issuerId: ctx.issuerId, kind, path: ctx.path, problem });
  if (!isJsonObject(body)) throw fail(`the body ${describeValue(body)} is not a JSON object`);
  const record = body[kind];
  if (record === undefined || record === null) throw fail(`the body has no ${JSON.stringify(kind)}`);
  if (!isJsonObject(record)) throw fail(`${JSON.stringify(kind)} is ${describeValue(record)}, not an object`);
  for (const warning of [...unknownKeys(body, new Set([kind]), kind, ctx, "get"), ...redactionWarnings(body, kind, kind, ctx, "get")]) ctx.onWarning?.(warning);
  return record;
}

/**
 * A `SECRET_REDACTED` warning for each string of the body in which the client found a credential
 * and put `[REDACTED]` (`ctx.redacted`): about the record it is in (under `key`, the list's array or
 * the get response's record), else about the response.
 */
function redactionWarnings(body: Record<string, unknown>, key: string, kind: RecordKind, ctx: EnvelopeContext, operation: "list" | "get"): SourceWarning[] {
  return (ctx.redacted ?? []).map((at) => {
    const inList = operation === "list" && at[0] === key && typeof at[1] === "number" && Array.isArray(body[key]);
    const inRecord = inList || (operation === "get" && at[0] === key && at.length > 1);
    const record = !inRecord ? undefined : inList ? (body[key] as unknown[])[at[1] as number] : body[key];
    const recordId = record === undefined ? undefined : recordIdOf(record);
    return sourceWarning({
      code: "SECRET_REDACTED",
      issuerId: ctx.issuerId,
      kind,
      recordId,
      subject: inRecord ? describeRecord(kind, recordId, ctx.issuerId) : `${operation} response of GET ${ctx.path}`,
      path: inRecord ? at.slice(inList ? 2 : 1) : at,
      value: REDACTED,
      message: SECRET_REDACTED_MESSAGE,
    });
  });
}

function unknownKeys(
  body: Record<string, unknown>,
  known: ReadonlySet<string>,
  kind: RecordKind,
  ctx: EnvelopeContext,
  operation: "list" | "get",
): SourceWarning[] {
  return Object.entries(body)
    .filter(([key]) => !known.has(key))
    .map(([key, value]) =>
      sourceWarning({
        code: "UNKNOWN_FIELD",
        issuerId: ctx.issuerId,
        kind,
        recordId: undefined,
        subject: `${operation} response of GET ${ctx.path}`,
        path: [key],
        // Kept for the report: a value too deep to serialize is cut (describeValue copes with any depth).
        value: keepableJson(value),
        message: UNKNOWN_FIELD_MESSAGE(value),
      }),
    );
}
