/**
 * Pagination over the list endpoints as an `AsyncIterable`.
 *
 * The service's rules (source-api.md §5): the end of a list is an absent `nextPageToken`, never a short or
 * empty page; every page request repeats the same `pageSize` and filters; tokens are opaque. A token the
 * service hands out twice would loop forever, so it is an error here, as is passing `maxPages`.
 */
import { createHash } from "node:crypto";
import type { ApiClient } from "../client/create-client.js";
import { listRecordsPage } from "../client/endpoints.js";
import { OcfSyncError } from "../errors.js";
import { parseListEnvelope } from "../source/envelopes.js";
import type { SourceWarning } from "../source/errors.js";
import type { RecordKind } from "../source/kinds.js";

/** The service's maximum page size for these endpoints; larger values are coerced to it anyway. */
export const MAX_PAGE_SIZE = 50;

export interface ListOptions {
  /** Records per page requested. @default 50 */
  pageSize?: number;
  /** Only records last modified on or after this instant (inclusive), `YYYY-MM-DDThh:mm:ssZ`. */
  lastModifiedDatetimeAfter?: string;
  /** Only records last modified on or before this instant (inclusive), `YYYY-MM-DDThh:mm:ssZ`. */
  lastModifiedDatetimeBefore?: string;
  /** A bound on pages per list, against a service that never stops. @default 100000 */
  maxPages?: number;
  signal?: AbortSignal;
  /**
   * Pages the caller already holds, by their digest (`ListPage.digest`): a page whose digest is here is not
   * parsed (it is yielded with `known` and no items). Given, every page carries its digest.
   */
  knownPages?: ReadonlyMap<string, KnownPage>;
}

/** A page the caller already holds: the records it lists and the token that follows it. */
export interface KnownPage {
  records: number;
  nextPageToken: string | undefined;
}

/** One page of a list: its raw records (each still to be parsed) and where it came from. */
export interface ListPage {
  kind: RecordKind;
  issuerId: string;
  /** 1-based page number within this list. */
  page: number;
  items: unknown[];
  nextPageToken: string | undefined;
  warnings: SourceWarning[];
  /** HTTP attempts this page took (more than 1 after retries). */
  attempts: number;
  /** With `knownPages`: a digest of the request and of the body's exact bytes (equal digests, equal pages). */
  digest?: string;
  /** With `knownPages`: the page was one of them (`items` is then empty, unparsed). */
  known?: KnownPage;
}

/** The digest of a page: its kind, the request's parameters, and the body as received. */
function pageDigest(kind: RecordKind, params: readonly (string | number | undefined)[], body: readonly Buffer[]): string {
  const hash = createHash("sha256").update(JSON.stringify([kind, ...params.map((p) => p ?? null)]));
  for (const chunk of body) hash.update(chunk);
  return hash.digest("base64url").slice(0, 22);
}

/** What `recognize` answers for a known page, instead of its parsed JSON. */
const KNOWN: unique symbol = Symbol("a known page");

/**
 * Raised when the service's paging breaks its own rules.
 *
 * @category Errors
 */
export class PaginationError extends OcfSyncError {
  declare readonly code: "PAGINATION_TOKEN_REPEATED" | "PAGINATION_TOO_MANY_PAGES";
  readonly issuerId: string;
  readonly kind: RecordKind;
  readonly page: number;
  constructor(
    code: PaginationError["code"],
    message: string,
    context: { issuerId: string; kind: RecordKind; page: number },
  ) {
    super(code, message);
    this.name = "PaginationError";
    this.issuerId = context.issuerId;
    this.kind = context.kind;
    this.page = context.page;
  }
}

/** Every page of one list, in the order the service gives them. */
export async function* listPages(
  client: ApiClient,
  kind: RecordKind,
  issuerId: string,
  options: ListOptions = {},
): AsyncGenerator<ListPage, void, undefined> {
  const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
  const maxPages = options.maxPages ?? 100_000;
  const seenTokens = new Set<string>();
  let pageToken: string | undefined;
  for (let page = 1; ; page++) {
    if (page > maxPages) {
      throw new PaginationError(
        "PAGINATION_TOO_MANY_PAGES",
        `listing ${kind}s of issuer ${JSON.stringify(issuerId)} passed ${maxPages} pages; stopping`,
        { issuerId, kind, page },
      );
    }
    const { knownPages } = options;
    let digest: string | undefined;
    let known: KnownPage | undefined;
    const request = pageToken;
    const recognize =
      knownPages === undefined
        ? undefined
        : (body: readonly Buffer[]): unknown => {
            digest = pageDigest(kind, [pageSize, options.lastModifiedDatetimeAfter, options.lastModifiedDatetimeBefore, request], body);
            known = knownPages.get(digest);
            return known === undefined ? undefined : KNOWN;
          };
    const response = await listRecordsPage(client, kind, issuerId, {
      pageSize,
      ...(pageToken === undefined ? {} : { pageToken }),
      ...(options.lastModifiedDatetimeAfter === undefined ? {} : { lastModifiedDatetimeAfter: options.lastModifiedDatetimeAfter }),
      ...(options.lastModifiedDatetimeBefore === undefined ? {} : { lastModifiedDatetimeBefore: options.lastModifiedDatetimeBefore }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(recognize === undefined ? {} : { recognize }),
    });
    const envelope = known !== undefined && response.body === KNOWN ? { items: [], nextPageToken: known.nextPageToken, warnings: [] } : parseListEnvelope(kind, response.body, { issuerId, path: response.path, redacted: response.redacted });
    yield {
      kind,
      issuerId,
      page,
      items: envelope.items,
      nextPageToken: envelope.nextPageToken,
      warnings: envelope.warnings,
      attempts: response.attempts,
      ...(digest === undefined ? {} : { digest }),
      ...(known === undefined ? {} : { known }),
    };
    if (envelope.nextPageToken === undefined) return;
    if (seenTokens.has(envelope.nextPageToken)) {
      throw new PaginationError(
        "PAGINATION_TOKEN_REPEATED",
        `the service returned page token ${JSON.stringify(envelope.nextPageToken)} twice while listing ${kind}s of issuer ${JSON.stringify(issuerId)} (page ${page}); stopping instead of looping`,
        { issuerId, kind, page },
      );
    }
    seenTokens.add(envelope.nextPageToken);
    pageToken = envelope.nextPageToken;
  }
}
