/**
 * The four read operations of the source API (source-api §3), as thin calls over the client. They
 * return raw JSON; parsing records is `src/source/`'s job, paging is `src/pull/`'s.
 */
import { COLLECTION_OF, type RecordKind } from "../source/kinds.js";
import type { ApiClient, ApiResponse, GetJsonOptions } from "./create-client.js";
import { ClientConfigError } from "./errors.js";
import { API_VERSION } from "./paths.js";

/** Parameters of a list call; every `pageToken` call must repeat the other parameters unchanged (source-api §5). */
export interface ListRecordsParams {
  /** Records per page; the service defaults to 25 and coerces anything above 50 down to 50. */
  pageSize?: number;
  /** The `nextPageToken` of the previous page. */
  pageToken?: string;
  /** Only records last modified at or after this instant (inclusive), as `YYYY-MM-DDThh:mm:ssZ`. */
  lastModifiedDatetimeAfter?: string;
  /** Only records last modified at or before this instant (inclusive), as `YYYY-MM-DDThh:mm:ssZ`. */
  lastModifiedDatetimeBefore?: string;
  signal?: AbortSignal;
  /** See `GetJsonOptions.recognize`: a page it recognizes from its raw body is not parsed. */
  recognize?: GetJsonOptions["recognize"];
}

/**
 * GET one page of an issuer's awards or units:
 * `/v1alpha1/issuers/{issuerId}/restrictedStockAwards` (or `restrictedStockUnits`).
 * A 404 (unknown issuer) throws `API_NOT_FOUND`.
 */
export function listRecordsPage(client: ApiClient, kind: RecordKind, issuerId: string, params: ListRecordsParams = {}): Promise<ApiResponse> {
  const { pageSize } = params;
  // The service's behaviour for 0 and below is not documented (source-api §5): never send it.
  if (pageSize !== undefined && !(Number.isSafeInteger(pageSize) && pageSize >= 1)) {
    return Promise.reject(new ClientConfigError("pageSize", pageSize, "must be a positive integer"));
  }
  return client.getJson(
    [API_VERSION, "issuers", issuerId, COLLECTION_OF[kind]],
    {
      pageSize: pageSize === undefined ? undefined : String(pageSize),
      pageToken: params.pageToken,
      lastModifiedDatetimeAfter: params.lastModifiedDatetimeAfter,
      lastModifiedDatetimeBefore: params.lastModifiedDatetimeBefore,
    },
    { ...(params.signal === undefined ? {} : { signal: params.signal }), ...(params.recognize === undefined ? {} : { recognize: params.recognize }) },
  );
}

/**
 * GET one award or unit: `/v1alpha1/issuers/{issuerId}/restrictedStockAwards/{id}` (or units).
 * A 404 throws `ApiError` with code `API_NOT_FOUND`; the caller decides whether that means "gone".
 */
export function getRecord(
  client: ApiClient,
  kind: RecordKind,
  issuerId: string,
  id: string,
  options: { signal?: AbortSignal } = {},
): Promise<ApiResponse> {
  return client.getJson([API_VERSION, "issuers", issuerId, COLLECTION_OF[kind], id], undefined, options);
}
