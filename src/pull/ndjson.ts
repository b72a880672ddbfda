/**
 * The raw backup format of `ocf-sync pull`: newline-delimited JSON, one line per record exactly as the
 * service sent it, tagged with its kind and issuer. Invalid records are kept too, marked quarantined
 * with their issues, so a backup never loses anything the service returned.
 */
import { OcfSyncError, fileSystemError, isOcfSyncError } from "../errors.js";
import { openToRead } from "../io/lines.js";
import { LatestCopies } from "./latest-copy.js";
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

/** The NDJSON line (ending in `\n`) of a valid record. */
export function recordLine(kind: RecordKind, issuerId: string, id: string, raw: unknown): string {
  const line: NdjsonRecordLine = { kind, issuerId, id, record: raw };
  return `${JSON.stringify(line)}\n`;
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
  return `${JSON.stringify(line)}\n`;
}

/** The NDJSON lines (each ending in `\n`) of one pulled issuer: valid records, then quarantined ones. */
export function* issuerPullToNdjson(pull: IssuerPull): Generator<string> {
  for (const { kind, id, raw } of pull.raw) yield recordLine(kind, pull.issuerId, id, raw);
  for (const q of pull.quarantined) yield quarantinedLine(q);
}

/** One issuer's records as read back from a pull's NDJSON. */
export interface PulledIssuerRecords {
  issuerId: string;
  awards: RestrictedStockAward[];
  units: RestrictedStockUnit[];
  /** Lines marked quarantined, and lines whose record no longer parses, with why. */
  quarantined: { kind: RecordKind; recordId: string | undefined; message: string }[];
}

/** A file that is not the NDJSON `ocf-sync pull` writes: names the file, the line and what is wrong. */
export class NdjsonFormatError extends OcfSyncError {
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
 * With `wanted`, only the records of the issuers it accepts are parsed and kept: every other issuer of
 * the file is in the map with no records (so a file of thousands of issuers costs the memory of the
 * issuers asked for). Every line is still checked to be a record line.
 *
 * @throws {NdjsonFormatError} for a line that is not JSON or not a `{ kind, issuerId, id, record }` line;
 *   {FileSystemError} when the file cannot be read (missing, a folder, …).
 * @example
 * for (const issuer of (await readPulledNdjson("issuer-7.ndjson")).values()) console.log(issuer.issuerId, issuer.awards.length);
 */
export async function readPulledNdjson(
  path: string,
  options: { signal?: AbortSignal; wanted?: (issuerId: string) => boolean } = {},
): Promise<Map<string, PulledIssuerRecords>> {
  const issuers = new Map<string, PulledIssuerRecords>();
  const of = (issuerId: string): PulledIssuerRecords => issuers.get(issuerId) as PulledIssuerRecords;
  await readPulledNdjsonInto(
    path,
    {
      issuer: (issuerId) => void issuers.set(issuerId, { issuerId, awards: [], units: [], quarantined: [] }),
      record: (issuerId, parsed, slot) => {
        const issuer = of(issuerId);
        const list: (RestrictedStockAward | RestrictedStockUnit)[] = parsed.kind === "restrictedStockAward" ? issuer.awards : issuer.units;
        if (slot === undefined) return list.push(parsed.record) - 1;
        list[slot] = parsed.record;
        return slot;
      },
      quarantined: (issuerId, q) => void of(issuerId).quarantined.push(q),
    },
    options,
  );
  return issuers;
}

/** Where `readPulledNdjsonInto` hands what it reads, line by line. */
export interface PulledNdjsonSink {
  /** The first line of an issuer (of any issuer, wanted or not). */
  issuer(issuerId: string): void;
  /**
   * A record of a wanted issuer, parsed: a record not seen before (`slot` undefined; returns the slot
   * it takes among the issuer's records of its kind), or a copy modified as late or later than the
   * one in `slot`, which it replaces (returns `slot`). An older copy is not handed over.
   */
  record(issuerId: string, parsed: ParsedRecord, slot: number | undefined): number;
  /** A line marked quarantined, or a record that no longer parses, of a wanted issuer. */
  quarantined(issuerId: string, record: PulledIssuerRecords["quarantined"][number]): void;
}

/**
 * `readPulledNdjson` without holding the records: each goes to `sink` as it is read (the same
 * records, parsing, quarantines and choice of the copy modified last), so a caller can keep what it
 * needs of each. Holds only, per record, its key and modification time.
 */
export async function readPulledNdjsonInto(path: string, sink: PulledNdjsonSink, options: { signal?: AbortSignal; wanted?: (issuerId: string) => boolean } = {}): Promise<void> {
  const issuers = new Set<string>();
  const copies = new LatestCopies();
  const handle = await openToRead(path);
  try {
    let number = 0;
    for await (const text of handle.readLines()) {
      options.signal?.throwIfAborted();
      number += 1;
      readLine({ path, number, text, issuers, copies, sink, wanted: options.wanted });
    }
  } catch (error) {
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
  issuers: Set<string>;
  copies: LatestCopies;
  sink: PulledNdjsonSink;
  wanted: ((issuerId: string) => boolean) | undefined;
}): void {
  const { path, number, text, sink } = at;
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
  if (!at.issuers.has(issuerId)) {
    at.issuers.add(issuerId);
    sink.issuer(issuerId);
  }
  if (at.wanted !== undefined && !at.wanted(issuerId)) return;
  if (quarantined === true) {
    const why = Array.isArray(issues) ? issues.map((i: unknown) => String((i as { message?: unknown }).message ?? "")).join("; ") : "";
    sink.quarantined(issuerId, { kind: recordKind, recordId: recordIdOf(record), message: why === "" ? "quarantined by the pull" : why });
    return;
  }
  let parsed: ParsedRecord;
  try {
    parsed = parseRecord(recordKind, record, { issuerId }).parsed;
  } catch (error) {
    if (!isOcfSyncError(error)) throw error;
    sink.quarantined(issuerId, { kind: recordKind, recordId: recordIdOf(record), message: error.message });
    return;
  }
  at.copies.offer(JSON.stringify([issuerId, parsed.kind, parsed.record.id]), parsed.record.lastModifiedDatetime ?? "", (slot) => sink.record(issuerId, parsed, slot));
}
