/**
 * Progress events of a pull, for a progress bar, a log or a metrics sink. Delivered synchronously; a
 * listener that throws is the caller's bug and is not caught.
 */
import type { OcfSyncError } from "../errors.js";
import type { SourceRecordError } from "../source/errors.js";
import type { RecordKind } from "../source/kinds.js";

/**
 * What a pull did, for progress displays and metrics: issuers started and done, pages, quarantined records.
 *
 * @category Source
 */
export type PullEvent =
  | { type: "issuer-started"; issuerId: string }
  | { type: "page-fetched"; issuerId: string; kind: RecordKind; page: number; records: number; attempts: number }
  | { type: "record-quarantined"; issuerId: string; kind: RecordKind; recordId: string | undefined; error: SourceRecordError }
  | {
      type: "issuer-done";
      issuerId: string;
      awards: number;
      units: number;
      quarantined: number;
      warnings: number;
      durationMs: number;
    }
  | { type: "issuer-failed"; issuerId: string; error: OcfSyncError; durationMs: number };
