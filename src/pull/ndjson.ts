/**
 * The raw backup format of `ocf-sync pull`: newline-delimited JSON, one line per record exactly as the
 * service sent it, tagged with its kind and issuer. Invalid records are kept too, marked quarantined
 * with their issues, so a backup never loses anything the service returned.
 */
import { OcfSyncError, fileSystemError, isOcfSyncError, terminalSafeJson } from "../errors.js";
import { openStreamInput } from "../io/input-file.js";
import { LineTooLongError, linesOf } from "../io/lines.js";
import { LatestCopies, type IssuerRecordSink } from "./latest-copy.js";
import type { SourceIssue } from "../source/errors.js";
import { RECORD_KINDS, type RecordKind } from "../source/kinds.js";
import { parseRecord, recordIdOf } from "../source/parse.js";
import type { ParsedRecord, RestrictedStockAward, RestrictedStockUnit } from "../source/records.js";
import type { IssuerPull, QuarantinedRecord } from "./pull-issuer.js";

export interface NdjsonRecordLine {
  kind: RecordKind;
  issuerId: string;
  id: string | undefined;
  /** Present and true when the record failed validation. */
  quarantined?: true;
  issues?: SourceIssue[];
  record: unknown;
}

/**
 * The NDJSON line (ending in `\n`) of a valid record: the same JSON as the service sent, with the
 * characters a terminal obeys escaped (`terminalSafeJson`), as the line may be printed on one.
 */
export function recordLine(kind: RecordKind, issuerId: string, id: string, raw: unknown): string {
  const line: NdjsonRecordLine = { kind, issuerId, id, record: raw };
  return `${terminalSafeJson(line)}\n`;
}

/** The NDJSON line (ending in `\n`) of a quarantined record: marked, with its issues. */
export function quarantinedLine(q: QuarantinedRecord): string {
  const line: NdjsonRecordLine = {
    kind: q.kind,
    issuerId: q.issuerId,
    id: q.recordId,
    quarantined: true,
    issues: q.error.issues,
    record: q.raw,
  };
  return `${terminalSafeJson(line)}\n`;
}

/**
 * The NDJSON lines (each ending in `\n`) of one pulled issuer, in a fixed order: valid awards, valid
 * units, quarantined awards, quarantined units, each in the order `pull` lists them (the service's).
 * An issuer's two lists are paged at once, so `pull` may hold them interleaved either way; by kind,
 * the same data gives the same lines.
 */
export function* issuerPullToNdjson(pull: IssuerPull): Generator<string> {
  for (const kind of RECORD_KINDS) {
    for (const record of pull.raw) if (record.kind === kind) yield recordLine(kind, pull.issuerId, record.id, record.raw);
  }
  for (const kind of RECORD_KINDS) {
    for (const q of pull.quarantined) if (q.kind === kind) yield quarantinedLine(q);
  }
}

/** One issuer's records as read back from a pull's NDJSON. */
export interface PulledIssuerRecords {
  issuerId: string;
  awards: RestrictedStockAward[];
  units: RestrictedStockUnit[];
  /** Lines marked quarantined, and lines whose record no longer parses, with why. */
  quarantined: { kind: RecordKind; recordId: string | undefined; message: string }[];
}

/**
 * A file that is not the NDJSON `ocf-sync pull` writes: names the file, the line and what is wrong.
 *
 * @category Errors
 */
export class NdjsonFormatError extends OcfSyncError {
  declare readonly code: "NDJSON_INVALID";
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  constructor(path: string, line: number, message: string, options?: { cause?: unknown }) {
    super("NDJSON_INVALID", `${path} line ${line}: ${message}`, options);
    this.name = "NdjsonFormatError";
    this.path = path;
    this.line = line;
  }
}

/**
 * Reads the NDJSON written by `ocf-sync pull` back into parsed records, per issuer in file order.
 * Each record is parsed again with `parseRecord`; one that no longer parses is listed as quarantined,
 * like the lines the pull marked so. A record listed twice keeps the copy modified last (as the pull
 * does), so backups appended to one another read as the latest state.
 *
 * The file is read as a stream: a regular file or a pipe (`<(ocf-sync pull …)`, a FIFO), whatever
 * its size; a folder, device or socket is refused.
 *
 * @throws {NdjsonFormatError} for a line that is not JSON or not a `{ kind, issuerId, id, record }` line,
 *   or longer than {@link MAX_NDJSON_LINE_BYTES}; {FileSystemError} when the file cannot be read
 *   (missing, a folder, a device, …).
 */
export async function readPulledNdjson(path: string, options: { signal?: AbortSignal } = {}): Promise<Map<string, PulledIssuerRecords>> {
  const issuers = new Map<string, PulledIssuerRecords>();
  await readPulledNdjsonInto(
    path,
    (issuerId) => {
      const lists = issuerRecordLists(issuerId);
      issuers.set(issuerId, lists.records);
      return lists;
    },
    options,
  );
  return issuers;
}

/** A sink that keeps an issuer's records in lists, in the order they came (a later copy in the first copy's place). */
export function issuerRecordLists(issuerId: string): IssuerRecordSink & { records: PulledIssuerRecords } {
  const records: PulledIssuerRecords = { issuerId, awards: [], units: [], quarantined: [] };
  const listOf = (parsed: ParsedRecord): (RestrictedStockAward | RestrictedStockUnit)[] => (parsed.kind === "restrictedStockAward" ? records.awards : records.units);
  return {
    records,
    add: (parsed) => listOf(parsed).push(parsed.record) - 1,
    replace: (parsed, slot) => void (listOf(parsed)[slot] = parsed.record),
    quarantined: (q) => void records.quarantined.push(q),
  };
}

/**
 * The longest line read from a pull's NDJSON: 64 MiB, twice the largest response the client takes by
 * default (a record line holds one record of one response). A file without line breaks is refused
 * there instead of being gathered into one string.
 */
export const MAX_NDJSON_LINE_BYTES = 64 * 1024 * 1024;

/**
 * `readPulledNdjson` without holding the records: each issuer's go to the sink `sinkOf` gives for it
 * at its first line (the same records, parsing, quarantines and choice of the copy modified last), so
 * a caller keeps what it needs of each. An issuer `sinkOf` gives no sink for is skipped: its records
 * are not parsed, though every line is still checked to be a record line. Holds only, per record, its
 * key and modification time.
 *
 * @throws as `readPulledNdjson`.
 */
export async function readPulledNdjsonInto(
  path: string,
  sinkOf: (issuerId: string) => IssuerRecordSink | undefined,
  options: { signal?: AbortSignal; maxLineBytes?: number } = {},
): Promise<void> {
  const sinks = new Map<string, IssuerRecordSink | undefined>();
  const copies = new LatestCopies();
  const handle = await openStreamInput(path);
  try {
    let number = 0;
    for await (const { text } of linesOf(handle, options.maxLineBytes ?? MAX_NDJSON_LINE_BYTES)) {
      options.signal?.throwIfAborted();
      number += 1;
      readLine({ path, number, text, sinks, sinkOf, copies });
    }
  } catch (error) {
    if (error instanceof LineTooLongError) {
      throw new NdjsonFormatError(path, error.line, `is longer than ${error.maxLineBytes} bytes, more than a record line of 'ocf-sync pull' holds (is this the NDJSON of a pull?)`, { cause: error });
    }
    throw fileSystemError("read", path, error);
  } finally {
    await handle.close();
  }
}

/** Takes in one line of the file. */
function readLine(at: {
  path: string;
  number: number;
  text: string;
  sinks: Map<string, IssuerRecordSink | undefined>;
  sinkOf: (issuerId: string) => IssuerRecordSink | undefined;
  copies: LatestCopies;
}): void {
  const { path, number, text } = at;
  if (text.trim() === "") return;
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch (error) {
    throw new NdjsonFormatError(path, number, "is not JSON", { cause: error });
  }
  const { kind, issuerId, record, quarantined, issues } = (typeof line === "object" && line !== null ? line : {}) as Partial<Record<keyof NdjsonRecordLine, unknown>>;
  if (typeof kind !== "string" || !(RECORD_KINDS as readonly string[]).includes(kind) || typeof issuerId !== "string" || issuerId === "" || record === undefined) {
    throw new NdjsonFormatError(path, number, "is not a record line of 'ocf-sync pull' (it needs kind, issuerId and record)");
  }
  const recordKind = kind as RecordKind;
  if (!at.sinks.has(issuerId)) at.sinks.set(issuerId, at.sinkOf(issuerId));
  const sink = at.sinks.get(issuerId);
  if (sink === undefined) return;
  if (quarantined === true) {
    const why = Array.isArray(issues) ? issues.map((i: unknown) => String((i as { message?: unknown }).message ?? "")).join("; ") : "";
    sink.quarantined({ kind: recordKind, recordId: recordIdOf(record), message: why === "" ? "quarantined by the pull" : why });
    return;
  }
  let parsed: ParsedRecord;
  try {
    parsed = parseRecord(recordKind, record, { issuerId }).parsed;
  } catch (error) {
    if (!isOcfSyncError(error)) throw error;
    sink.quarantined({ kind: recordKind, recordId: recordIdOf(record), message: error.message });
    return;
  }
  at.copies.offer(JSON.stringify([issuerId, parsed.kind, parsed.record.id]), parsed.record.lastModifiedDatetime ?? "", parsed, sink);
}
