/**
 * The options, events and results of an export (`exportIssuer`, `exportIssuers`), in a file of their
 * own: resuming a job (resume.ts) reads them, and export-issuer.ts calls resume.ts.
 */
import type { Logger } from "../logger.js";
import type { AccumulatedIssuer } from "../mapping/accumulator.js";
import type { MappingWarning } from "../mapping/errors.js";
import type { DeliveredShares, MappedRecord, MappingOptions } from "../mapping/types.js";
import type { WrittenPackageFile } from "../ocf/package-writer.js";
import type { PullEvent } from "../pull/events.js";
import type { OnInvalid, PullItem } from "../pull/pull-issuer.js";
import type { SourceIssue, SourceWarning } from "../source/errors.js";
import type { RecordKind } from "../source/kinds.js";

/**
 * Options of `exportIssuer` and `exportIssuers`.
 *
 * @category Export
 */
export interface ExportOptions extends MappingOptions {
  // `asOf` (from MappingOptions) defaults here to the date of `generatedAt`: the day the data was pulled.
  /** The folder packages are written to: `<outDir>/<name>/` and, with `zip`, `<outDir>/<name>.ocf.zip`. */
  outDir: string;
  /**
   * Also write one flat `.ocf.zip` per issuer. Without it, a `<name>.ocf.zip` an earlier run left is
   * removed once the new package is in place: it would hold another package than the folder.
   * @default false
   */
  zip?: boolean;
  /**
   * A record that fails validation or mapping: `"fail"` fails its issuer (nothing is written for it);
   * `"quarantine"` leaves it out of the package and lists it, raw JSON and issues, in the issuer's
   * report. @default "fail"
   */
  onInvalid?: OnInvalid;
  /** The manifest's `generated_at` (RFC 3339 with a zone). @default the current time, UTC */
  generatedAt?: string;
  /**
   * Re-read and fully validate each package before it is put in place (schemas, md5 sums, references,
   * dates, quantities, lineage). Every object is always checked against the OCF schemas as it is
   * mapped; this adds the package-level checks. The re-read streams the package object by object, so
   * its memory does not grow with the package. `true` re-reads every package; `"auto"` re-reads
   * packages up to `validateMaxBytes` (every package, unless that is set); `false` never.
   * @default "auto"
   */
  validate?: boolean | "auto";
  /** With `validate: "auto"`, the largest package (bytes on disk) that is re-read. @default no limit */
  validateMaxBytes?: number;
  /**
   * The largest file of objects in the package: a longer list (transactions, …) is split over
   * several files, `Transactions.ocf.json`, `Transactions.2.ocf.json`, … in order.
   * @default DEFAULT_MAX_PACKAGE_FILE_BYTES (64 MiB)
   */
  maxFileBytes?: number;
  /**
   * Where the records come from instead of the API (`client` is then not used): an incremental sync
   * feeds the records it keeps, most of them already mapped (`MappedRecordItem`). @default pulled from the API
   */
  records?: AsyncIterable<PullItem | MappedRecordItem>;
  /** Called once every record is in, with the issuer-level objects and verdicts the package is written from. */
  onMapped?: (issuer: AccumulatedIssuer) => void;
  /**
   * Progress: per issuer `issuer-started`, the pull's `page-fetched` and `record-quarantined`,
   * `package-written`, then `issuer-done` or `issuer-failed`.
   */
  onEvent?: (event: ExportEvent) => void;
  /** A pino-shaped logger: quarantined records (warn), packages written (info). Silent by default. */
  logger?: Logger;
  signal?: AbortSignal;
}

/**
 * A record that an earlier run parsed and mapped with the same options (a sync keeps them): written as
 * if it had been pulled and mapped now.
 *
 * @category Export
 */
export interface MappedRecordItem {
  type: "mapped";
  mapped: MappedRecord;
  /** The record's `lastModifiedDatetime` (normalized), `""` when it has none. */
  lastModified: string;
  /** What parsing the record raised. */
  warnings: SourceWarning[];
}

/**
 * Progress events of an export.
 *
 * @category Export
 */
export type ExportEvent =
  | PullEvent
  | { type: "package-written"; issuerId: string; folder: string; zip: string | undefined; transactions: number };

/**
 * A record left out of a package, with everything needed to find and fix it at the source.
 *
 * @category Export
 */
export interface ExportQuarantine {
  kind: RecordKind;
  recordId: string | undefined;
  /** `SOURCE_RECORD_INVALID` (failed the API schema) or a `MAPPING_*` code. */
  code: string;
  message: string;
  issues?: SourceIssue[];
  raw?: unknown;
  /**
   * A unit: the shares its settlements delivered, kept in the package although the unit is not
   * (`kept`, their security ids), and those that could not be (`notKept`, why).
   */
  deliveredShares?: DeliveredShares;
}

/**
 * What one issuer's export produced.
 *
 * @category Export
 */
export interface IssuerExport {
  issuerId: string;
  /** The package's folder and zip base name (see `packageNameFor`). */
  name: string;
  folder: string;
  zip: string | undefined;
  /** The issuer's report: counts, warnings and quarantined records as JSON. */
  report: string;
  awards: number;
  units: number;
  transactions: number;
  files: WrittenPackageFile[];
  warnings: (SourceWarning | MappingWarning)[];
  quarantined: ExportQuarantine[];
  /** Whether the package was re-read and validated before being put in place. */
  validated: boolean;
  /** Total bytes of the package's files. */
  bytes: number;
}
