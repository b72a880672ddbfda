/**
 * The main job: pull one issuer, map it, write its OCF package, validate it and put it in place
 * atomically. Records stream from the API through the mapping into the package writer, so memory
 * follows the largest record, not the number of records.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { ApiClient } from "../client/create-client.js";
import { parseUtcDateTime, utcNowRfc3339 } from "../dates.js";
import { OcfSyncError, asFileSystemFailure, asOcfSyncError } from "../errors.js";
import { silentLogger } from "../logger.js";
import { openAtomicWriteStream, type AtomicWriteStream } from "../io/atomic-file.js";
import { recordLinesFileIn } from "../io/file-lines.js";
import { IssuerMappingAccumulator, grantKey, type AddOutcome } from "../mapping/accumulator.js";
import {
  commitPackageFolder,
  createTemporaryPackageFolder,
  packageNameFor,
  releaseTemporaryPackageFolder,
  writePackageZip,
} from "../ocf/package-folder.js";
import { StreamingPackageWriter, makeDurable } from "../ocf/package-writer.js";
import { validatePackageAt, type PackageProblem } from "../ocf/validate-package.js";
import { checkKnownKeys, checkNumber, checkOneOf, checkPath, checkWholeNumber, optionError, optionKeys } from "../options.js";
import { isRfc3339DateTime } from "../ocf/primitives.js";
import { pausePoint } from "../pause-point.js";
import { checkPullOptions, duplicateRecordWarning, streamIssuerRecords, type PulledRecord, type PullItem } from "../pull/pull-issuer.js";
import { DeferredRecords } from "./deferred-records.js";
import { exportDigest } from "./resume.js";
import type { ExportOptions, ExportQuarantine, IssuerExport, MappedRecordItem } from "./types.js";
import { stamped } from "../document-stamp.js";
import type { SourceWarning } from "../source/errors.js";

export type { ExportEvent, ExportOptions, ExportQuarantine, IssuerExport, MappedRecordItem } from "./types.js";

/** A record of the pull, parsed (what the mapping takes). */
type RecordItem = Extract<PullItem, { type: "record" }>;

/**
 * Raised when a package that was written fails validation: it is not put in place.
 *
 * @category Errors
 */
export class ExportValidationError extends OcfSyncError {
  declare readonly code: "EXPORT_PACKAGE_INVALID";
  readonly issuerId: string;
  readonly problems: PackageProblem[];
  constructor(issuerId: string, problems: PackageProblem[]) {
    const shown = problems.slice(0, 5).map((p) => `${p.file} ${p.itemId ?? ""} ${p.jsonPath}: ${p.message}`.replace(/\s+/g, " "));
    super(
      "EXPORT_PACKAGE_INVALID",
      `the package of issuer ${JSON.stringify(issuerId)} failed validation and was not written (${problems.length} problem${problems.length === 1 ? "" : "s"}): ${shown.join("; ")}${problems.length > 5 ? "; …" : ""}`,
    );
    this.name = "ExportValidationError";
    this.issuerId = issuerId;
    this.problems = problems;
  }
}

/**
 * Packages up to this size are re-read and fully validated by default (`validate: "auto"`): all of
 * them, since the re-read streams with flat memory. A bound saves the time on very large packages.
 */
export const DEFAULT_VALIDATE_MAX_BYTES = Number.POSITIVE_INFINITY;

/** The `lastModifiedDatetime` of a raw record that failed validation, when it is readable; else "". */
export function rawLastModified(raw: unknown): string {
  const wrapper = (raw as { lastModifiedDatetime?: { value?: unknown } } | null)?.lastModifiedDatetime;
  if (typeof wrapper?.value !== "string") return "";
  try {
    return parseUtcDateTime(wrapper.value);
  } catch {
    return "";
  }
}

/** Every key of {@link ExportOptions}. */
export const EXPORT_OPTION_KEYS = optionKeys<ExportOptions>()([
  "outDir", "zip", "onInvalid", "generatedAt", "validate", "validateMaxBytes", "maxFileBytes", "records", "onMapped", "onEvent", "logger", "signal",
  "issuerProfile", "stakeholders", "settlementStockClassName", "lineage", "asOf", "strict",
]);

/**
 * Refuses, with a `TypeError` naming `fn`, the option and the value, export options that would be
 * used as something else than asked: an `outDir` that is not a non-empty string (an empty one is the
 * working folder), an `onInvalid` typo (it would quarantine), a `validate`, `validateMaxBytes`,
 * `maxFileBytes` or `zip` of the wrong kind, a `generatedAt` that is not an RFC 3339 date-time with a zone.
 */
export function checkExportOptions(fn: string, options: ExportOptions): void {
  checkPath(fn, "outDir", options.outDir);
  checkPullOptions(fn, options);
  checkOneOf(fn, "zip", options.zip, [true, false]);
  checkOneOf(fn, "strict", options.strict, [true, false]);
  checkOneOf(fn, "validate", options.validate, [true, false, "auto"]);
  checkNumber(fn, "validateMaxBytes", options.validateMaxBytes, 0, { infinite: true });
  checkWholeNumber(fn, "maxFileBytes", options.maxFileBytes, 1);
  if (options.generatedAt !== undefined && !(typeof options.generatedAt === "string" && isRfc3339DateTime(options.generatedAt))) {
    throw optionError(fn, "generatedAt", "an RFC 3339 date-time with a zone (such as 2026-01-31T12:00:00Z)", options.generatedAt);
  }
}

/**
 * Exports one issuer to `<outDir>/<name>/` (and `.ocf.zip`). The package appears whole or not at all,
 * and a previous package of the issuer is replaced only by a complete, valid one.
 *
 * `onEvent` gets `issuer-started`, the pull's events, `package-written`, then `issuer-done` (or
 * `issuer-failed`), as from `exportIssuers`.
 *
 * @throws {TypeError} for an option of the wrong kind (see the options); the API error, the first
 *   invalid record (`onInvalid: "fail"`), or `ExportValidationError`.
 *
 * @category Export
 */
export async function exportIssuer(client: ApiClient, issuerId: string, options: ExportOptions): Promise<IssuerExport> {
  checkKnownKeys("exportIssuer", options, EXPORT_OPTION_KEYS);
  checkExportOptions("exportIssuer", options);
  return withIssuerEvents(issuerId, options.onEvent, () => exportIssuerOfJob(client, issuerId, options));
}

/**
 * Runs the export of one issuer between its `issuer-started` and `issuer-done` (or `issuer-failed`)
 * events. Rethrows what `work` throws.
 */
export async function withIssuerEvents(issuerId: string, onEvent: ExportOptions["onEvent"], work: () => Promise<IssuerExport>): Promise<IssuerExport> {
  const started = Date.now();
  onEvent?.({ type: "issuer-started", issuerId });
  try {
    const result = await work();
    onEvent?.({
      type: "issuer-done",
      issuerId,
      awards: result.awards,
      units: result.units,
      quarantined: result.quarantined.length,
      warnings: result.warnings.length,
      durationMs: Date.now() - started,
    });
    return result;
  } catch (error) {
    onEvent?.({ type: "issuer-failed", issuerId, error: asOcfSyncError(error), durationMs: Date.now() - started });
    throw error;
  }
}

/**
 * `exportIssuer` as part of a job (`exportIssuers`) that already computed the issuer's `exportDigest`
 * (to check for a package to resume): the report records that digest rather than computing it again.
 * Not part of the public API.
 */
export async function exportIssuerOfJob(client: ApiClient, issuerId: string, options: ExportOptions, jobDigest?: string): Promise<IssuerExport> {
  const { outDir, zip = false, onInvalid = "fail", validate = "auto", validateMaxBytes = DEFAULT_VALIDATE_MAX_BYTES, onEvent, onMapped, signal, logger = silentLogger } = options;
  const generatedAt = options.generatedAt ?? utcNowRfc3339();
  const name = packageNameFor(issuerId);
  const temporary = await createTemporaryPackageFolder(outDir, name);
  let writer: StreamingPackageWriter | undefined;
  let pendingZip: Awaited<ReturnType<typeof writePackageZip>> | undefined;
  let pendingReport: AtomicWriteStream | undefined;
  let committed = false;
  // Units whose class waits for every award (`deferred`), or for every record (`deferredToEnd`).
  const deferred = new DeferredRecords<RecordItem | MappedRecordItem>();
  const deferredToEnd = new DeferredRecords<RecordItem | MappedRecordItem>();
  let accumulator: IssuerMappingAccumulator | undefined;
  /** The package's files being flushed to disk (see `makeDurable`): settled before the folder is touched again. */
  let durable: Promise<unknown> | undefined;
  try {
    const out = await StreamingPackageWriter.open(temporary, options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes });
    writer = out;
    // The package shows the records as of the export (the date of `generatedAt`), unless told otherwise.
    // What it keeps of each record until the end goes to a file in the temporary folder (deleted by
    // finish()), so that memory does not grow with the records.
    const mapper = new IssuerMappingAccumulator(issuerId, { ...options, onInvalid, asOf: options.asOf ?? generatedAt.slice(0, 10) }, { lines: () => recordLinesFileIn(temporary) });
    accumulator = mapper;
    // Records in the package, counted as they come and go (nothing is kept per record here: the
    // writer leaves out a replaced record by its key).
    const live = { awards: 0, units: 0 };
    const count = (key: string, delta: number): void => {
      if (key.startsWith("restrictedStockAward\u0000")) live.awards += delta;
      else live.units += delta;
    };
    // Quarantined units whose delivered shares are in the package: their objects, not records.
    const salvaged = new Set<string>();
    const retract = (key: string): void => {
      out.retract(key);
      if (!salvaged.delete(key)) count(key, -1);
    };
    const warnings: SourceWarning[] = [];
    const sourceQuarantine = new Map<string, ExportQuarantine>();
    const unidentified: ExportQuarantine[] = [];
    // The raw JSON of records that parsed but could not be mapped, for the report.
    const unmappableRaw = new Map<string, unknown>();
    const source =
      options.records ??
      streamIssuerRecords(client, issuerId, {
        onInvalid,
        ...(onEvent === undefined ? {} : { onEvent }),
        ...(signal === undefined ? {} : { signal }),
      });
    const take = async (item: RecordItem | MappedRecordItem): Promise<void> => {
      let outcome: AddOutcome;
      if (item.type === "mapped") {
        warnings.push(...item.warnings);
        outcome = mapper.addMapped(item.mapped, item.lastModified);
      } else {
        outcome = mapper.add(item.kind === "restrictedStockAward" ? { kind: item.kind, record: item.record } : { kind: item.kind, record: item.record });
      }
      if (outcome.status !== "deferred" && outcome.repeated === true) {
        warnings.push(item.type === "mapped" ? duplicateRecordWarning(issuerId, item.mapped.kind, item.mapped.recordId) : duplicateRecordWarning(issuerId, item.kind, item.record.id));
      }
      if (outcome.status === "stale") return;
      if (outcome.status === "deferred") {
        await (outcome.until === "awards" ? deferred : deferredToEnd).push(item);
        return;
      }
      sourceQuarantine.delete(outcome.key);
      if (outcome.status === "quarantined" && item.type !== "mapped") unmappableRaw.set(outcome.key, item.raw);
      else unmappableRaw.delete(outcome.key);
      if (outcome.replaces !== undefined) retract(outcome.replaces);
      if (outcome.status === "mapped") {
        await out.addRecord(outcome.key, outcome.mapped.transactions, outcome.mapped.vestingTerms);
        count(outcome.key, 1);
        pausePoint("pulling");
      } else if (outcome.status === "quarantined" && outcome.mapped !== undefined) {
        await out.addRecord(outcome.key, outcome.mapped.transactions, outcome.mapped.vestingTerms);
        salvaged.add(outcome.key);
      }
    };
    for await (const item of source) {
      signal?.throwIfAborted();
      if (item.type === "warning") {
        warnings.push(item.warning);
      } else if (item.type === "quarantined") {
        logger.warn({ issuerId, kind: item.kind, recordId: item.recordId, code: item.error.code }, item.error.message);
        const entry: ExportQuarantine = {
          kind: item.kind,
          recordId: item.recordId,
          code: item.error.code,
          message: item.error.message,
          issues: item.error.issues,
          raw: item.raw,
        };
        if (item.recordId === undefined) {
          unidentified.push(entry);
          continue;
        }
        // The newest copy of a record counts, valid or not: an invalid newer copy withdraws an older valid one.
        const outcome = mapper.addInvalid(item.kind, item.recordId, rawLastModified(item.raw));
        if (outcome.repeated === true) warnings.push(duplicateRecordWarning(issuerId, item.kind, item.recordId));
        if (outcome.status === "stale") continue;
        if (outcome.replaces !== undefined) retract(outcome.replaces);
        sourceQuarantine.set(outcome.key, entry);
        unmappableRaw.delete(outcome.key);
      } else {
        await take(item);
      }
    }
    // Every award is known now: the units that waited for their share class's name are mapped.
    mapper.awardsComplete();
    for await (const item of deferred.drain()) await take(item);
    // Every record is known now: the units that name no class deliver into the class chosen for them.
    mapper.recordsComplete();
    for await (const item of deferredToEnd.drain()) await take(item);
    const head = mapper.finish();
    onMapped?.(head);
    for (const key of head.withdrawn) retract(key);
    const { awards, units } = live;
    const quarantined: ExportQuarantine[] = [...sourceQuarantine.values(), ...unidentified];
    for (const q of head.quarantined) {
      logger.warn({ issuerId, kind: q.kind, recordId: q.recordId, code: q.error.code }, q.error.message);
      const raw = unmappableRaw.get(grantKey(q.kind, q.recordId));
      quarantined.push({
        kind: q.kind,
        recordId: q.recordId,
        code: q.error.code,
        message: q.error.message,
        ...(raw === undefined ? {} : { raw }),
        ...(q.deliveredShares === undefined ? {} : { deliveredShares: q.deliveredShares }),
      });
    }
    // The files reach the disk (fsync) while they are re-read, and before anything is put in place.
    const { files, transactions } = await out.finish(head, { generatedAt, durable: false, restamp: head.restamped });
    writer = undefined;
    durable = makeDurable(temporary, files);

    const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
    const reread = validate === true || (validate === "auto" && bytes <= validateMaxBytes);
    if (!reread && validate === "auto") {
      logger.info({ issuerId, bytes, validateMaxBytes }, "package larger than validateMaxBytes: not re-read (every object was checked as it was mapped)");
    }
    if (reread) {
      // Read as the package declares its lineage (Manifest.comments), as any reader of it would.
      const report = await validatePackageAt(temporary, signal === undefined ? {} : { signal });
      if (!report.valid) throw new ExportValidationError(issuerId, report.problems);
    }
    const notDurable = await durable;
    durable = undefined;
    if (notDurable !== undefined) throw notDurable;
    const zipPath = zip ? join(outDir, `${name}.ocf.zip`) : undefined;
    // Built now, under a temporary name; put in place right after the folder.
    pendingZip =
      zipPath === undefined
        ? undefined
        : await writePackageZip(
            zipPath,
            files.map((f) => ({ path: f.path, source: join(temporary, f.path) })),
            new Date(generatedAt),
            { signal },
          );
    const result: IssuerExport = {
      issuerId,
      name,
      folder: join(outDir, name),
      zip: zipPath,
      report: join(outDir, `${name}.report.json`),
      awards,
      units,
      transactions,
      files,
      warnings: [...warnings, ...head.warnings],
      quarantined,
      validated: reread,
      bytes,
    };
    // The report is written and flushed before the package is put in place: a report that cannot be
    // written (or serialized) stops the package too, and a package never appears without its report.
    const job = jobDigest ?? (await exportDigest(client, { ...options, generatedAt }));
    pendingReport = await openAtomicWriteStream(result.report, { signal });
    await pendingReport.write(`${JSON.stringify(reportOf(result, generatedAt, job), null, 2)}\n`);
    await pendingReport.flush();
    pausePoint("before-commit");
    await commitPackageFolder(temporary, outDir, name, { signal });
    committed = true;
    // Both are flushed already: from here on, two renames, done even if the signal fires meanwhile.
    // A kill before they are done leaves the previous zip or report beside the new folder, which
    // readers refuse and the next run removes (package-set.ts).
    pausePoint("folder-committed");
    await pendingZip?.commit();
    pendingZip = undefined;
    pausePoint("zip-committed");
    await pendingReport.commit();
    pendingReport = undefined;
    pausePoint("report-committed");
    if (zipPath === undefined) {
      const stale = join(outDir, `${name}.ocf.zip`);
      await rm(stale, { force: true }).catch((error: unknown) => {
        logger.warn({ issuerId, zip: stale, error: String(error) }, "could not remove the zip of an earlier run; it holds another package than the folder");
      });
    }
    onEvent?.({ type: "package-written", issuerId, folder: result.folder, zip: zipPath, transactions });
    logger.info({ issuerId, folder: result.folder, zip: zipPath, transactions, warnings: result.warnings.length, quarantined: result.quarantined.length }, "package written");
    return result;
  } catch (error) {
    // The spill file is closed before the folder that holds it is removed (Windows will not remove an open file).
    accumulator?.dispose();
    await writer?.discardSpools().catch(() => {});
    await durable;
    await pendingZip?.abort().catch(() => {});
    await pendingReport?.abort();
    if (!committed) await rm(temporary, { recursive: true, force: true });
    // A write that failed deep in the package writer (the disk full, the folder gone) names a path.
    throw asFileSystemFailure(error, committed ? join(outDir, name) : temporary);
  } finally {
    accumulator?.dispose();
    await deferred.dispose();
    await deferredToEnd.dispose();
    releaseTemporaryPackageFolder(temporary);
  }
}

function reportOf(result: IssuerExport, generatedAt: string, job: string): unknown {
  // Stamped with the package's generated_at, not the clock: a pinned --generated-at gives the same bytes.
  return stamped({
    issuerId: result.issuerId,
    // What the package depends on besides the source data, for resuming the job (see resume.ts).
    job,
    validated: result.validated,
    package: result.name,
    zip: result.zip === undefined ? null : `${result.name}.ocf.zip`,
    counts: {
      awards: result.awards,
      units: result.units,
      transactions: result.transactions,
      warnings: result.warnings.length,
      quarantined: result.quarantined.length,
    },
    files: result.files,
    warnings: result.warnings,
    quarantined: result.quarantined,
  }, generatedAt);
}
