/**
 * The records of one issuer as they are read (a pull's NDJSON read back, a pull's stream), and the
 * choice between copies of one record (listed twice in one pass, or backups appended to one another):
 * the copy modified last wins, and of two modified at the same time the later one, in the place the
 * first copy took.
 */
import type { RecordKind } from "../source/kinds.js";
import type { ParsedRecord } from "../source/records.js";

/** What takes one issuer's records as they are read. */
export interface IssuerRecordSink {
  /** A record not seen before; returns its place among the issuer's records of its kind. */
  add(parsed: ParsedRecord): number;
  /** A later copy of the record `add` put at `slot` of its kind, to take its place. */
  replace(parsed: ParsedRecord, slot: number): void;
  /** A record that could not be parsed (or was marked so by the pull), with why. */
  quarantined(record: { kind: RecordKind; recordId: string | undefined; message: string }): void;
}

/** Per record, where its copy went and when that copy was modified; never the copy itself. */
export class LatestCopies {
  private readonly seen = new Map<string, { slot: number; modified: string }>();

  /**
   * Offers a copy of the record `key`, modified at `modified` (an ISO timestamp, or "" when unknown):
   * added to `sink` when the record is new, put in the earlier copy's place when it is as recent or
   * more, dropped when the earlier copy was modified later.
   */
  offer(key: string, modified: string, parsed: ParsedRecord, sink: IssuerRecordSink): void {
    const earlier = this.seen.get(key);
    if (earlier === undefined) {
      this.seen.set(key, { slot: sink.add(parsed), modified });
    } else if (earlier.modified <= modified) {
      sink.replace(parsed, earlier.slot);
      earlier.modified = modified;
    }
  }
}
