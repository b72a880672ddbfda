/**
 * The four read-only endpoints of the sample server, as pure functions from a request (decoded path
 * segments and query) to a JSON reply. Transport concerns (auth, quota, faults, latency) live in
 * `server.ts`. Behaviour follows the real service as recorded in source-api.md: envelopes (§4),
 * paging (§5), filters (§6) and error bodies (§7).
 */
import { parseUtcDateTime } from "../dates.js";
import { describeValue } from "../errors.js";
import { COLLECTION_OF, RECORD_KINDS, type RecordKind } from "../source/kinds.js";
import type { SampleData, WireRecord } from "./data.js";
import type { ListIndexes } from "./list-index.js";
import type { JsonReply } from "./oauth.js";
import { decodePageToken, encodePageToken, type PageTokenScope } from "./page-token.js";

/** The service's largest page; larger `pageSize` values are coerced to it (source-api.md §5). */
export const MAX_PAGE_SIZE = 50;
/** The service's page size when none is asked for. */
export const DEFAULT_PAGE_SIZE = 25;

/** gRPC canonical codes used in google.rpc.Status bodies (source-api.md §7.2). */
export const RPC_CODE = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNIMPLEMENTED: 12,
  UNAUTHENTICATED: 16,
} as const;

const ERROR_INFO_TYPE = "type.googleapis.com/carta.proto.publicapi.errors.v1alpha1.ErrorInfo";

/** A google.rpc.Status reply. */
export function rpcStatus(status: number, code: number, message: string, reason?: string): JsonReply {
  const body =
    reason === undefined ? { code, message } : { code, message, details: [{ "@type": ERROR_INFO_TYPE, reason, metadata: {} }] };
  return { status, headers: {}, body };
}

/** The 404 body the service documents; it has no `details`. */
export const notFound = (): JsonReply => rpcStatus(404, RPC_CODE.NOT_FOUND, "Resource not found");

const invalidArgument = (message: string): JsonReply => rpcStatus(400, RPC_CODE.INVALID_ARGUMENT, message);

/** Settings of the list endpoints. */
export interface ApiSettings {
  /** Page size when the request has none (or asks for 0 or less). */
  defaultPageSize: number;
  /** Key that signs page tokens. */
  tokenKey: Buffer;
  /** The indexes pages are served from (one per server). */
  indexes: ListIndexes;
}

/** A request to one of the four endpoints, path already split and percent-decoded. */
export interface ApiRequest {
  issuerId: string;
  kind: RecordKind;
  /** The record id for a get; absent for a list. */
  id?: string;
  query: URLSearchParams;
}

const ISSUERS_PREFIX = ["", "v1alpha1", "issuers"];

/**
 * Matches a raw request path (still percent-encoded) against the four routes. Returns the decoded
 * request, `undefined` for an unknown route, or a 400 reply for malformed percent-encoding.
 */
export function matchApiRoute(rawPath: string, query: URLSearchParams): ApiRequest | JsonReply | undefined {
  const segments = rawPath.split("/");
  if (segments.length < 5 || segments.length > 6) return undefined;
  if (ISSUERS_PREFIX.some((segment, i) => segments[i] !== segment)) return undefined;
  const kind = RECORD_KINDS.find((k) => COLLECTION_OF[k] === segments[4]);
  if (kind === undefined) return undefined;
  const [issuerRaw = "", idRaw] = [segments[3], segments[5]];
  if (issuerRaw === "" || idRaw === "") return undefined;
  try {
    const issuerId = decodeURIComponent(issuerRaw);
    return idRaw === undefined ? { issuerId, kind, query } : { issuerId, kind, id: decodeURIComponent(idRaw), query };
  } catch {
    return invalidArgument(`malformed percent-encoding in path ${describeValue(rawPath)}`);
  }
}

/** Answers a matched request from the current data. */
export function handleApiRequest(data: SampleData, request: ApiRequest, settings: ApiSettings): JsonReply {
  try {
    return request.id === undefined ? listRecords(data, request, settings) : getRecord(data, request, request.id, settings);
  } catch (error) {
    if (error instanceof InvalidArgument) return invalidArgument(error.message);
    throw error;
  }
}

function recordsOf(data: SampleData, issuerId: string, kind: RecordKind): WireRecord[] | undefined {
  const issuer = data.issuers.get(issuerId);
  if (issuer === undefined) return undefined;
  return kind === "restrictedStockAward" ? issuer.awards : issuer.units;
}

function getRecord(data: SampleData, request: ApiRequest, id: string, settings: ApiSettings): JsonReply {
  const records = recordsOf(data, request.issuerId, request.kind);
  const record = records === undefined ? undefined : settings.indexes.get(records, COLLECTION_OF[request.kind], id);
  if (record === undefined) return notFound();
  return { status: 200, headers: {}, body: { [request.kind]: record } };
}

/** A request the endpoint refuses with 400; caught in `handleApiRequest`. */
class InvalidArgument extends Error {}

const LIST_PARAMS = ["pageSize", "pageToken", "lastModifiedDatetimeAfter", "lastModifiedDatetimeBefore"] as const;
type ListParams = { [K in (typeof LIST_PARAMS)[number]]?: string };

/** The list parameters; a repeated parameter is an error, an empty one is unset (proto3 default). */
function listParams(query: URLSearchParams): ListParams {
  const params: ListParams = {};
  for (const name of LIST_PARAMS) {
    const values = query.getAll(name);
    if (values.length > 1) throw new InvalidArgument(`${name} was given ${values.length} times`);
    const value = values[0];
    if (value !== undefined && value !== "") params[name] = value;
  }
  return params;
}

function parsePageSize(text: string | undefined, defaultPageSize: number): number {
  if (text === undefined) return defaultPageSize;
  // pageSize is an int32: anything else fails to parse, as in grpc-gateway.
  if (!/^[+-]?\d{1,10}$/.test(text) || Math.abs(Number.parseInt(text, 10)) > 2 ** 31 - 1) {
    throw new InvalidArgument(`invalid value for pageSize: ${describeValue(text)} is not a 32-bit integer`);
  }
  const size = Number.parseInt(text, 10);
  if (size <= 0) return defaultPageSize;
  return Math.min(size, MAX_PAGE_SIZE);
}

function parseBound(name: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    return parseUtcDateTime(text);
  } catch {
    throw new InvalidArgument(`invalid value for ${name}: ${describeValue(text)} is not a UTC date-time YYYY-MM-DDThh:mm:ssZ`);
  }
}

function listRecords(data: SampleData, request: ApiRequest, settings: ApiSettings): JsonReply {
  const { query, issuerId, kind } = request;
  const collection = COLLECTION_OF[kind];
  const params = listParams(query);
  const pageSize = parsePageSize(params.pageSize, settings.defaultPageSize);
  const after = parseBound("lastModifiedDatetimeAfter", params.lastModifiedDatetimeAfter);
  const before = parseBound("lastModifiedDatetimeBefore", params.lastModifiedDatetimeBefore);

  const scope: PageTokenScope = { issuerId, collection, pageSize, after, before };
  let offset = 0;
  if (params.pageToken !== undefined) {
    const decoded = decodePageToken(settings.tokenKey, params.pageToken, scope);
    if ("problem" in decoded) {
      throw new InvalidArgument(
        decoded.problem === "mismatch"
          ? "pageToken does not match the other parameters of the request that produced it"
          : "invalid pageToken",
      );
    }
    offset = decoded.offset;
  }

  const records = recordsOf(data, issuerId, kind);
  if (records === undefined) return notFound();
  const { records: page, total } = settings.indexes.page(records, collection, { after, before, offset, pageSize, firstPage: params.pageToken === undefined });

  const body: Record<string, unknown> = {};
  // proto3 JSON leaves out an empty repeated field and an empty string (source-api.md §4).
  if (page.length > 0) body[collection] = page;
  if (offset + pageSize < total) body.nextPageToken = encodePageToken(settings.tokenKey, offset + pageSize, scope);
  return { status: 200, headers: {}, body };
}
