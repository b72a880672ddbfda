/**
 * The run record (`--summary FILE` of `export` and `sync`): one JSON document per run, in one shape for
 * both commands, that an orchestrator or a person reads after the run. It says which version ran,
 * when, on which shard, how many requests it sent (and how many the server refused with 429 or were
 * retried), and per issuer its status, counts, package and error, a failed issuer too. It is written
 * atomically, also when the job fails as a whole. Its JSON Schema is `schemas/run-record.schema.json`
 * in the package; `ocf-sync summarize` merges the records of several runs (the shards of one job).
 *
 * The exit status separates "retry it" from "look at the data": 75 (EX_TEMPFAIL) when the job could
 * not run or every failure was transient (another run holds the lock, the deadline passed, the API
 * could not be reached, timed out, refused with 429 or failed with 5xx), 1 when an issuer failed on
 * its data or permissions.
 */
import { stamped, type DocumentStamp } from "../document-stamp.js";
import { isNetworkError } from "../client/errors.js";
import type { OcfSyncErrorCode } from "../error-codes.js";
import { isInterruptedError, isOcfSyncError } from "../errors.js";
import type { Redactor } from "../redaction.js";
import type { AtomicWriteStream } from "../io/atomic-file.js";
import type { ClientStats } from "../client/create-client.js";
import type { IssuerExport } from "../export/export-issuer.js";
import type { IssuerExportResult } from "../export/export-issuers.js";
import type { OnInvalid } from "../pull/pull-issuer.js";
import { CHANGE_SAMPLE_LIMIT } from "../sync/change-tally.js";
import type { IssuerSyncResult } from "../sync/types.js";
import type { CommandName } from "./command-options.js";
import { UsageError, type CliIo } from "./io.js";
import { openOutputFile } from "./job-flags.js";
import { jobFailureOf } from "./json-output.js";
import { issuerFailureOf } from "./progress.js";
import { RUN_RECORD_FORMAT, type RunIssuer, type RunRecord } from "./run-record-schema.js";

/** Exit status of a job to retry as it is: it could not run, or failed only on transient causes. */
export const RETRY_EXIT_STATUS = 75;

/** Failures of a whole job that are the command line's to fix, as a usage error is (exit status 2): a client option the flags gave that the client refuses. */
export const USAGE_FAILURE_CODES: ReadonlySet<OcfSyncErrorCode> = new Set(["CLIENT_CONFIG_INVALID"]);

/**
 * Failures of a whole job that a retry of the same job can get past (a lock released, more time, a
 * sync's state in object storage committed by another sync meanwhile: the next run starts from it).
 */
export const RETRYABLE_JOB_CODES: ReadonlySet<OcfSyncErrorCode> = new Set(["OUTPUT_LOCKED", "SYNC_LOCKED", "DEADLINE_EXCEEDED", "S3_COMMIT_CONFLICT"]);

/** Failures of an issuer that say nothing of its data: the API was unreachable, slow, refusing or failing. */
export const TRANSIENT_ISSUER_CODES: ReadonlySet<OcfSyncErrorCode> = new Set<OcfSyncErrorCode>([
  ...RETRYABLE_JOB_CODES,
  "API_NETWORK_ERROR",
  "API_TIMEOUT",
  "API_RATE_LIMITED",
  "API_SERVER_ERROR",
]);

/**
 * Whether an issuer's failure says nothing of its data, so that running the job again may get past it:
 * the API unreachable (but not a connection that can never work as configured), slow, refusing with
 * 429 or failing with 5xx, a lock held, the deadline; object storage unreachable, throttling or failing,
 * or another writer committing the same package first.
 */
export function isTransientFailure(error: unknown): boolean {
  if (isOcfSyncError(error) && error.code === "S3_REQUEST_FAILED") {
    // Object storage unreachable, throttling or failing; a refusal (403, 404 bucket) is the setup's to fix.
    const status = (error as { status?: unknown }).status;
    return status === undefined || status === 408 || status === 429 || (typeof status === "number" && status >= 500);
  }
  if (!isOcfSyncError(error) || !TRANSIENT_ISSUER_CODES.has(error.code)) return false;
  return !(isNetworkError(error) && !error.retryable);
}

/** Whether a failure of a whole job (an error's code) is one to retry (exit status 75). */
export function isRetryableJobCode(code: OcfSyncErrorCode): boolean {
  return RETRYABLE_JOB_CODES.has(code);
}

/** The exit status of a run that ran: 0 every issuer done, 75 every failure transient, else 1. */
export function exitStatusOfIssuers(issuers: readonly Pick<RunIssuer, "status" | "retry">[]): number {
  const failures = issuers.filter((i) => i.status === "failed");
  if (failures.length === 0) return 0;
  return failures.every((i) => i.retry) ? RETRY_EXIT_STATUS : 1;
}

/** What a command knows of its run, gathered as it goes, for the record. */
export interface RunFacts {
  command: "export" | "sync";
  version: string;
  startedAt: number;
  shard: { index: number; count: number } | null;
  outDir: string | null;
  /** The issuers named (the shard's), for a job that failed before any was done. */
  named: readonly string[];
  stats: ClientStats | undefined;
}

/** The record of a run that ran (its issuers' results, as entries). */
export function runRecord(facts: RunFacts, issuers: readonly RunIssuer[], endedAt: number, jobError?: { code: string; message: string; exitStatus: number }): RunRecord {
  const failed = issuers.filter((i) => i.status === "failed");
  const exitStatus = jobError?.exitStatus ?? exitStatusOfIssuers(issuers);
  // Stamped as of its end: the record says what the run did until then.
  return stamped<Omit<RunRecord, keyof DocumentStamp>>({
    format: RUN_RECORD_FORMAT,
    tool: { name: "ocf-sync", version: facts.version },
    command: facts.command,
    startedAt: new Date(facts.startedAt).toISOString(),
    endedAt: new Date(endedAt).toISOString(),
    durationMs: Math.max(0, endedAt - facts.startedAt),
    shard: facts.shard,
    outDir: facts.outDir,
    requests:
      facts.stats === undefined
        ? null
        : { sent: facts.stats.requests, rateLimited: facts.stats.rateLimited, retried: facts.stats.retries, tokenRequests: facts.stats.tokenRequests },
    outcome: jobError !== undefined ? "job-failed" : failed.length > 0 ? "issuers-failed" : "ok",
    exitStatus,
    counts: { issuers: issuers.length, ok: issuers.length - failed.length, failed: failed.length },
    issuers: [...failed, ...issuers.filter((i) => i.status !== "failed")],
    error: jobError === undefined ? null : { code: jobError.code, message: jobError.message },
  }, endedAt);
}

/** The record of a job that failed as a whole: every issuer named failed by the failure. */
export function failedRunRecord(facts: RunFacts, failure: { code: string; message: string }, exitStatus: number, endedAt: number): RunRecord {
  const issuers: RunIssuer[] = facts.named.map((issuerId) => ({ issuerId, status: "failed", retry: exitStatus === RETRY_EXIT_STATUS, package: null, counts: null, error: failure }));
  return runRecord(facts, issuers, endedAt, { ...failure, exitStatus });
}

/**
 * The `--summary FILE` of a run: opened before any work (a path that cannot be written is a usage
 * error, found at once), written once at the end, atomically.
 */
export class RunRecordFile {
  private constructor(private readonly stream: AtomicWriteStream) {}

  /** Opens FILE (see `openOutputFile`). */
  static async open(path: string, signal: AbortSignal | undefined): Promise<RunRecordFile> {
    return new RunRecordFile(await openOutputFile("summary", path, signal));
  }

  /** Writes `record`, every string in it redacted of the run's secrets (an error message may quote a server). */
  async write(record: RunRecord, redactor: Redactor | undefined): Promise<void> {
    await this.stream.write(`${JSON.stringify(redactor === undefined ? record : redactor.redactValue(record), null, 2)}\n`);
    await this.stream.commit();
  }

  async abort(): Promise<void> {
    await this.stream.abort();
  }
}

/** The exit status a failure of a whole job ends with, as the CLI's error boundary decides it. */
export function jobFailureExitStatus(error: unknown, usage: boolean): number {
  if (usage) return 2;
  // Object storage unreachable or failing as the job reads or commits a sync's state: retry it too.
  const retry = isOcfSyncError(error) && (isRetryableJobCode(error.code) || (error.code === "S3_REQUEST_FAILED" && isTransientFailure(error)));
  return retry ? RETRY_EXIT_STATUS : 1;
}

/** An export's issuer in a run record. */
export function exportedIssuer(result: IssuerExportResult, onInvalid: OnInvalid): RunIssuer {
  if (!result.ok) return failedIssuer(result.issuerId, result.error, onInvalid);
  const e = result.export;
  return {
    issuerId: result.issuerId,
    status: "ok",
    retry: false,
    package: { name: e.name, folder: e.folder, zip: e.zip ?? null, report: e.report, written: result.resumed !== true, validated: e.validated, bytes: e.bytes },
    counts: packageCounts(e),
    error: null,
  };
}

/** A sync's issuer in a run record; an issuer whose package was already current has no counts. */
export function syncedIssuer(result: IssuerSyncResult, onInvalid: OnInvalid): RunIssuer {
  if (!result.ok) return failedIssuer(result.issuerId, result.error, onInvalid);
  const p = result.package;
  const c = result.changes;
  const r = result.records;
  const e = result.export;
  return {
    issuerId: result.issuerId,
    status: "ok",
    retry: false,
    package: { name: p.name, folder: p.folder, zip: p.zip ?? null, report: e?.report ?? null, written: p.rewritten, validated: e?.validated ?? null, bytes: e?.bytes ?? null },
    counts: e === undefined ? null : packageCounts(e),
    error: null,
    sync: {
      pass: result.pass,
      reason: result.reason,
      modifiedAfter: result.pass === "incremental" ? result.modifiedAfter : null,
      cursor: result.cursor,
      created: c.created,
      changed: c.changed,
      removed: c.removed,
      unchanged: c.unchanged,
      objectTypes: c.byType,
      objects: { ...c.sample, limit: CHANGE_SAMPLE_LIMIT, leftOut: c.leftOut },
      records: { pulled: result.pulled, pages: result.pages, reread: result.reread, created: r.created, modified: r.modified, removed: r.removed, unchanged: r.unchanged },
    },
  };
}

function failedIssuer(issuerId: string, error: unknown, onInvalid: OnInvalid): RunIssuer {
  return { issuerId, status: "failed", retry: isTransientFailure(error), package: null, counts: null, error: issuerFailureOf(error, onInvalid) };
}

function packageCounts(e: IssuerExport): NonNullable<RunIssuer["counts"]> {
  return { awards: e.awards, units: e.units, transactions: e.transactions, warnings: e.warnings.length, quarantined: e.quarantined.length };
}

/** A command's `--summary`: its file once opened, what is known of the run, and whether it was written. */
export interface RunRecordSlot {
  file: RunRecordFile | undefined;
  facts: RunFacts;
  written: boolean;
}

/** A slot for a run starting now, of `command`, by this version of ocf-sync. */
export function runRecordSlot(command: RunFacts["command"], version: string): RunRecordSlot {
  return { file: undefined, facts: { command, version, startedAt: Date.now(), shard: null, outDir: null, named: [], stats: undefined }, written: false };
}

/**
 * Ends a run that ran: its record, printed (`print`: the `--json` document, or nothing) and written to
 * the `--summary` file once; returns the run's exit status.
 */
export async function finishRunRecord(
  io: CliIo,
  slot: RunRecordSlot,
  issuers: readonly RunIssuer[],
  print: (record: RunRecord) => void,
  jobError?: { code: string; message: string; exitStatus: number },
): Promise<number> {
  const record = runRecord(slot.facts, issuers, Date.now(), jobError);
  print(record);
  if (slot.file !== undefined && !slot.written) {
    slot.written = true;
    try {
      await slot.file.write(record, io.redactor);
    } catch (error) {
      await slot.file.abort();
      throw error;
    }
  }
  return record.exitStatus;
}

/**
 * The record of a job that failed as a whole with `error`: what its `--json` document and its
 * `--summary` file say, every issuer named failed by it.
 */
export function jobFailedRunRecord(io: CliIo, command: CommandName, slot: RunRecordSlot, error: unknown): RunRecord {
  const reason: unknown = io.signal?.reason;
  const status = io.signal?.aborted === true && isInterruptedError(reason) ? reason.exitCode : jobFailureExitStatus(error, error instanceof UsageError);
  return failedRunRecord(slot.facts, jobFailureOf(error, io, command), status, Date.now());
}

/**
 * Runs a command that takes `--summary` so that, once its file is open, a record is written whatever
 * happens: the run's own (through `finishRunRecord`), or, when the job fails as a whole (a lock held,
 * a state that cannot be read, a signal), one that says why, every issuer named failed by it.
 */
export async function withRunRecord(io: CliIo, command: CommandName, slot: RunRecordSlot, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (slot.file !== undefined && !slot.written) {
      slot.written = true;
      try {
        await slot.file.write(jobFailedRunRecord(io, command, slot, error), io.redactor);
      } catch {
        // The job's own failure is what the run ends with; the record could not be written either.
      }
    }
    throw error;
  } finally {
    if (slot.file !== undefined && !slot.written) await slot.file.abort();
  }
}
