/**
 * Pulling one issuer: every award and unit, parsed record by record. A record that fails validation is
 * either the failure of its issuer (`onInvalid: "fail"`, the default) or set aside with its raw JSON
 * and the full error (`"quarantine"`); it is never dropped.
 */
import type { ApiClient, ApiResponse } from "../client/create-client.js";
import { getRecord } from "../client/endpoints.js";
import { asOcfSyncError, isOcfSyncError } from "../errors.js";
import { parseGetEnvelope } from "../source/envelopes.js";
import { SourceRecordError, type SourceWarning } from "../source/errors.js";
import { RECORD_KINDS, type RecordKind } from "../source/kinds.js";
import { keepableJson } from "../source/json-limits.js";
import { parseRecord, recordIdOf } from "../source/parse.js";
import type { ParsedRecord, RestrictedStockAward, RestrictedStockUnit } from "../source/records.js";
import { checkKnownKeys, checkOneOf, optionError, optionKeys } from "../options.js";
import { interleave } from "./concurrent.js";
import { listPages, type ListOptions, type ListPage } from "./paginate.js";
import type { PullEvent } from "./events.js";

/**
 * What to do with a record that fails validation.
 *
 * @category Source
 */
export type OnInvalid = "fail" | "quarantine";
const ON_INVALID: readonly OnInvalid[] = ["fail", "quarantine"];

/**
 * Options of {@link pullIssuer} and {@link streamIssuerRecords}: paging, filters, invalid records, events.
 *
 * @category Source
 */
export interface PullOptions extends Omit<ListOptions, "signal" | "knownPages"> {
  /** Which record families to pull. @default both */
  kinds?: readonly RecordKind[];
  /** `"fail"` fails the issuer on the first invalid record; `"quarantine"` sets it aside and goes on. @default "fail" */
  onInvalid?: OnInvalid;
  /** Progress events: issuer started, page fetched, record quarantined, issuer done or failed. */
  onEvent?: (event: PullEvent) => void;
  signal?: AbortSignal;
}

/**
 * Refuses, with a `TypeError` naming `fn`, an `onInvalid` other than `"fail"` or `"quarantine"` (a typo
 * would quarantine every invalid record that was meant to fail the issuer) and `kinds` other than
 * record kinds.
 */
export function checkPullOptions(fn: string, options: Pick<PullOptions, "onInvalid" | "kinds">): void {
  // Also called with export options, whose keys are checked on their own.
  checkOneOf(fn, "onInvalid", options.onInvalid, ON_INVALID);
  if (options.kinds !== undefined) {
    if (!Array.isArray(options.kinds)) throw optionError(fn, "kinds", "an array of record kinds", options.kinds);
    for (const kind of options.kinds) checkOneOf(fn, "kinds[]", kind, RECORD_KINDS);
  }
}

/** Every key of {@link PullOptions}. */
export const PULL_OPTION_KEYS = optionKeys<PullOptions>()(["kinds", "onInvalid", "onEvent", "signal", "pageSize", "lastModifiedDatetimeAfter", "lastModifiedDatetimeBefore", "maxPages"]);

/**
 * A valid record with the exact JSON it came from.
 *
 * @category Source
 */
export type PulledRecord = ParsedRecord & { issuerId: string; raw: unknown };

/**
 * A record set aside because it failed validation, kept whole for the report.
 *
 * @category Source
 */
export interface QuarantinedRecord {
  issuerId: string;
  kind: RecordKind;
  recordId: string | undefined;
  raw: unknown;
  error: SourceRecordError;
}

/**
 * One item of an issuer's record stream.
 *
 * @category Source
 */
export type PullItem =
  | ({ type: "record" } & PulledRecord)
  | ({ type: "quarantined" } & QuarantinedRecord)
  | { type: "warning"; warning: SourceWarning };

/**
 * The pages of an issuer's lists of awards and units (`kinds`), as they arrive: the lists are paged at
 * the same time (the client's one rate limiter keeps them within the quota), each in the service's
 * order, with a `page-fetched` event per page. A failing list, or a consumer that stops, stops the
 * other (its request in flight is aborted).
 */
export async function* issuerPages(client: ApiClient, issuerId: string, options: PullOptions & Pick<ListOptions, "knownPages"> = {}): AsyncGenerator<ListPage, void, undefined> {
  const stopped = new AbortController();
  const signal = options.signal === undefined ? stopped.signal : AbortSignal.any([options.signal, stopped.signal]);
  const listOptions: ListOptions = {
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    ...(options.maxPages === undefined ? {} : { maxPages: options.maxPages }),
    ...(options.lastModifiedDatetimeAfter === undefined ? {} : { lastModifiedDatetimeAfter: options.lastModifiedDatetimeAfter }),
    ...(options.lastModifiedDatetimeBefore === undefined ? {} : { lastModifiedDatetimeBefore: options.lastModifiedDatetimeBefore }),
    ...(options.knownPages === undefined ? {} : { knownPages: options.knownPages }),
    signal,
  };
  const lists = (options.kinds ?? RECORD_KINDS).map((kind) => listPages(client, kind, issuerId, listOptions));
  for await (const page of interleave(lists, () => stopped.abort(new Error(`the pull of issuer ${JSON.stringify(issuerId)} stopped`)))) {
    options.onEvent?.({ type: "page-fetched", issuerId, kind: page.kind, page: page.page, records: page.known?.records ?? page.items.length, attempts: page.attempts });
    yield page;
  }
}

/**
 * One record of a page, parsed: its warnings then itself, or (`onInvalid: "quarantine"`) its
 * quarantine, with a `record-quarantined` event. Throws its `SourceRecordError` under `"fail"`.
 */
export function* recordItems(kind: RecordKind, raw: unknown, issuerId: string, options: Pick<PullOptions, "onInvalid" | "onEvent"> = {}): Generator<PullItem, void, undefined> {
  let result: ReturnType<typeof parseRecord>;
  try {
    result = parseRecord(kind, raw, { issuerId });
  } catch (error) {
    if (!(error instanceof SourceRecordError) || (options.onInvalid ?? "fail") === "fail") throw error;
    // A record too deep to serialize is kept cut, so that its report line and snapshot can be written.
    const quarantined: QuarantinedRecord = { issuerId, kind, recordId: recordIdOf(raw), raw: keepableJson(raw), error };
    options.onEvent?.({ type: "record-quarantined", issuerId, kind, recordId: quarantined.recordId, error });
    yield { type: "quarantined", ...quarantined };
    return;
  }
  for (const warning of result.warnings) yield { type: "warning", warning };
  yield { type: "record", ...result.parsed, issuerId, raw };
}

/**
 * Streams every record of one issuer, in the order their pages arrive (its lists of awards and units
 * are paged at the same time); within a list,
 * in the service's order. Memory stays at one page per list. Throws the first `SourceRecordError` when
 * `onInvalid` is `"fail"`, and any API error; either stops the other list.
 *
 * @category Source
 */
export async function* streamIssuerRecords(
  client: ApiClient,
  issuerId: string,
  options: PullOptions = {},
): AsyncGenerator<PullItem, void, undefined> {
  checkKnownKeys("streamIssuerRecords", options, PULL_OPTION_KEYS);
  checkPullOptions("streamIssuerRecords", options);
  for await (const page of issuerPages(client, issuerId, options)) {
    for (const warning of page.warnings) yield { type: "warning", warning };
    for (const raw of page.items) yield* recordItems(page.kind, raw, issuerId, options);
  }
}

/** The warning for a record id listed twice in one pass (the service changed while it was paged). */
export function duplicateRecordWarning(issuerId: string, kind: RecordKind, recordId: string | undefined): SourceWarning {
  return {
    code: "DUPLICATE_RECORD",
    issuerId,
    kind,
    ...(recordId === undefined ? {} : { recordId }),
    path: "id",
    value: recordId,
    message: `${kind} ${JSON.stringify(recordId)} was listed twice in one pass; keeping the most recently modified copy`,
  };
}

/**
 * Everything pulled for one issuer.
 *
 * @category Source
 */
export interface IssuerPull {
  issuerId: string;
  awards: RestrictedStockAward[];
  units: RestrictedStockUnit[];
  /** The exact JSON of each valid record, keyed by kind and id, for raw backups. */
  raw: { kind: RecordKind; id: string; raw: unknown }[];
  quarantined: QuarantinedRecord[];
  warnings: SourceWarning[];
}

/**
 * Pulls every award and unit of one issuer into memory. A record id listed twice in one pass (the
 * service changed while we paged) keeps its latest version and adds a `DUPLICATE_RECORD` warning.
 *
 * @category Source
 */
export async function pullIssuer(client: ApiClient, issuerId: string, options: PullOptions = {}): Promise<IssuerPull> {
  checkKnownKeys("pullIssuer", options, PULL_OPTION_KEYS);
  checkPullOptions("pullIssuer", options);
  const started = Date.now();
  options.onEvent?.({ type: "issuer-started", issuerId });
  try {
    const byKey = new Map<string, PulledRecord>();
    const quarantined: QuarantinedRecord[] = [];
    const warnings: SourceWarning[] = [];
    for await (const item of streamIssuerRecords(client, issuerId, options)) {
      if (item.type === "warning") warnings.push(item.warning);
      else if (item.type === "quarantined") {
        const { type: _type, ...rest } = item;
        quarantined.push(rest);
      } else {
        const { type: _type, ...pulled } = item;
        const key = `${pulled.kind}\u0000${pulled.record.id ?? ""}`;
        const previous = byKey.get(key);
        if (previous !== undefined) {
          warnings.push(duplicateRecordWarning(issuerId, pulled.kind, pulled.record.id));
          if ((previous.record.lastModifiedDatetime ?? "") > (pulled.record.lastModifiedDatetime ?? "")) continue;
        }
        byKey.set(key, pulled);
      }
    }
    const awards: RestrictedStockAward[] = [];
    const units: RestrictedStockUnit[] = [];
    const raw: IssuerPull["raw"] = [];
    for (const pulled of byKey.values()) {
      if (pulled.kind === "restrictedStockAward") awards.push(pulled.record);
      else units.push(pulled.record);
      raw.push({ kind: pulled.kind, id: pulled.record.id ?? "", raw: pulled.raw });
    }
    const result: IssuerPull = { issuerId, awards, units, raw, quarantined, warnings };
    options.onEvent?.({
      type: "issuer-done",
      issuerId,
      awards: awards.length,
      units: units.length,
      quarantined: quarantined.length,
      warnings: warnings.length,
      durationMs: Date.now() - started,
    });
    return result;
  } catch (thrown) {
    const error = asOcfSyncError(thrown);
    options.onEvent?.({ type: "issuer-failed", issuerId, error, durationMs: Date.now() - started });
    throw error;
  }
}

/**
 * A single record fetched by id, with the warnings its parsing raised.
 *
 * @category Source
 */
export interface FetchedRecord<T> {
  record: T;
  raw: unknown;
  warnings: SourceWarning[];
}

async function fetchOne(
  client: ApiClient,
  kind: RecordKind,
  issuerId: string,
  id: string,
  options: { signal?: AbortSignal },
): Promise<{ parsed: ParsedRecord; raw: unknown; warnings: SourceWarning[] } | undefined> {
  let body: unknown;
  let path: string;
  let redacted: ApiResponse["redacted"];
  try {
    const response = await getRecord(client, kind, issuerId, id, options);
    body = response.body;
    path = response.path;
    redacted = response.redacted;
  } catch (error) {
    if (isOcfSyncError(error) && error.code === "API_NOT_FOUND") return undefined;
    throw error;
  }
  const envelopeWarnings: SourceWarning[] = [];
  const raw = parseGetEnvelope(kind, body, { issuerId, path, redacted, onWarning: (warning) => envelopeWarnings.push(warning) });
  const { parsed, warnings } = parseRecord(kind, raw, { issuerId });
  return { parsed, raw, warnings: [...envelopeWarnings, ...warnings] };
}

/**
 * Fetches one award by id; `undefined` when the service answers 404. Throws `SourceRecordError` when invalid.
 *
 * @category Source
 */
export async function getAward(
  client: ApiClient,
  issuerId: string,
  id: string,
  options: { signal?: AbortSignal } = {},
): Promise<FetchedRecord<RestrictedStockAward> | undefined> {
  const one = await fetchOne(client, "restrictedStockAward", issuerId, id, options);
  if (one === undefined || one.parsed.kind !== "restrictedStockAward") return undefined;
  return { record: one.parsed.record, raw: one.raw, warnings: one.warnings };
}

/**
 * Fetches one unit by id; `undefined` when the service answers 404. Throws `SourceRecordError` when invalid.
 *
 * @category Source
 */
export async function getUnit(
  client: ApiClient,
  issuerId: string,
  id: string,
  options: { signal?: AbortSignal } = {},
): Promise<FetchedRecord<RestrictedStockUnit> | undefined> {
  const one = await fetchOne(client, "restrictedStockUnit", issuerId, id, options);
  if (one === undefined || one.parsed.kind !== "restrictedStockUnit") return undefined;
  return { record: one.parsed.record, raw: one.raw, warnings: one.warnings };
}
