/**
 * Exporting many issuers: p-limit concurrency across issuers, one client (so one rate limiter), each
 * issuer isolated: a failure is reported as its result and every other issuer is still written.
 */
import { createHash } from "node:crypto";
import { withDeadline, withStop } from "../client/abort.js";
import type { ApiClient } from "../client/create-client.js";
import { asOcfSyncError, type FileSystemError, type OcfSyncError } from "../errors.js";
import { utcNowRfc3339 } from "../dates.js";
import type { IssuerProfile, StakeholderEntry } from "../mapping/types.js";
import { makeFolder } from "../io/folders.js";
import { checkKnownKeys, optionKeys } from "../options.js";
import type { StaleLock } from "../io/lock-file.js";
import { recoverPackageFolders, removeStaleCompanions } from "../ocf/package-folder.js";
import { inCompletionOrder } from "../pull/concurrent.js";
import { type DirectoryJson, directoryJsonOnce } from "./fingerprint.js";
import { EXPORT_OPTION_KEYS, checkExportOptions, exportIssuerOfJob, withIssuerEvents, type ExportOptions, type IssuerExport } from "./export-issuer.js";
import { acquireOutputLock, jobLockOptions } from "./output-lock.js";
import { completedExport, exportDigest, finishJob, startJob, unfinishedJobTime } from "./resume.js";

/**
 * Options of {@link exportIssuers}: those of one issuer's export, and how many issuers at once.
 *
 * @category Export
 */
export interface ExportManyOptions extends ExportOptions {
  /** Issuers exported at the same time. @default 4 */
  concurrency?: number;
  /** Called with the names of packages a killed earlier export had left aside and that were restored. */
  onRecovered?: (names: string[]) => void;
  /** Called when the output folder's lock was stale (left by a killed run, its lease run out, empty or corrupt) and was taken over. */
  onLockTakenOver?: (stale: StaleLock) => void;
  /**
   * Called for each leftover of an interrupted run that could not be deleted (the export goes on
   * without it; it is logged as a warning too).
   */
  onLeftoverKept?: (path: string, error: FileSystemError) => void;
  /**
   * The longest the whole export may take, in milliseconds. When it passes, everything under way stops
   * (its temporary files are removed; packages already written stay), the issuers not finished get a
   * `DEADLINE_EXCEEDED` result, and the iteration then throws that `DeadlineExceededError`.
   * @default no deadline
   */
  deadlineMs?: number;
  /** The issuer profile of each issuer, when they differ (takes precedence over `issuerProfile`). */
  issuerProfileOf?: (issuerId: string) => IssuerProfile | undefined;
  /** The stakeholder directory of each issuer, when they differ (takes precedence over `stakeholders`). */
  stakeholdersOf?: (issuerId: string) => ReadonlyMap<string, StakeholderEntry> | undefined;
  /**
   * Continue the unfinished job of `outDir` (interrupted, stopped by its deadline, or with issuers that
   * failed): an issuer whose package that job already put in place, with the same options, is not
   * exported again (its result has `resumed: true`, read from its report), and the packages still owed
   * get the job's `generatedAt` (unless `generatedAt` is given). With no unfinished job, a new one
   * starts. See `src/export/resume.ts`. @default false
   */
  resume?: boolean;
  /**
   * The lease of the output folder's lock, in milliseconds: the lock is renewed every sixth of it,
   * and a lock of another host not renewed for its lease is taken over (a pod killed and retried
   * under a new host name goes on). See `src/io/lock-file.ts`. @default 60000
   */
  leaseMs?: number;
  /**
   * Called with one line when the lock's renewal fails (it is tried again at the next one; logged as
   * a warning too) or finds the lock taken over by another run. The export goes on.
   */
  onLockRenewalFailed?: (message: string) => void;
}

const EXPORT_MANY_OPTION_KEYS: ReadonlySet<string> = new Set([
  ...EXPORT_OPTION_KEYS,
  ...optionKeys<Omit<ExportManyOptions, keyof ExportOptions>>()(["concurrency", "onRecovered", "onLockTakenOver", "onLeftoverKept", "deadlineMs", "issuerProfileOf", "stakeholdersOf", "resume", "leaseMs", "onLockRenewalFailed"]),
]);

/**
 * The outcome of one issuer: its export, or why it failed. The error is always an
 * {@link OcfSyncError}: switch on its `code` (`API_NOT_FOUND`, `SOURCE_RECORD_INVALID`,
 * `EXPORT_PACKAGE_INVALID`...), or narrow it with the `is*Error` guards.
 *
 * @category Export
 */
export type IssuerExportResult =
  | { issuerId: string; ok: true; export: IssuerExport; /** The package was already in place from earlier in the job (`resume`). */ resumed?: true }
  | { issuerId: string; ok: false; error: OcfSyncError };

/**
 * Exports each issuer and yields its result as it finishes. Takes the lock of `outDir` (one export or
 * sync per folder: `OutputLockedError` when another holds it), then repairs what a killed earlier run
 * left there (its leftover temporary folders, a replacement cut between its two renames). The same `generatedAt` is used for every issuer. Until
 * every issuer is exported, `<outDir>/.ocf-sync-export.json` keeps the job's time, so that `resume`
 * can continue it. Leaving the loop early (`break`) stops the issuers under way (their temporary
 * files removed, their previous packages kept) before the lock is released.
 *
 * @example
 * ```ts
 * import { createApiClient, exportIssuers } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * for await (const result of exportIssuers(client, ["7", "144361"], { outDir: "out", zip: true })) {
 *   console.log(result.issuerId, result.ok ? result.export.folder : result.error);
 * }
 * await client.close();
 * ```
 *
 * @category Export
 */
export async function* exportIssuers(
  client: ApiClient,
  issuerIds: Iterable<string>,
  options: ExportManyOptions,
): AsyncGenerator<IssuerExportResult, void, undefined> {
  checkKnownKeys("exportIssuers", options, EXPORT_MANY_OPTION_KEYS);
  checkExportOptions("exportIssuers", options);
  const { concurrency = 4, onRecovered, onLockTakenOver, onLeftoverKept, deadlineMs, issuerProfileOf, stakeholdersOf, resume = false, leaseMs, onLockRenewalFailed, ...exportOptions } = options;
  const job = withDeadline(options.signal, deadlineMs);
  const signal = job.signal === undefined ? {} : { signal: job.signal };
  try {
    await makeFolder(options.outDir, signal);
    const lock = await acquireOutputLock(options.outDir, jobLockOptions({ ...options, ...signal }));
    try {
      if (lock.tookOver !== undefined) {
        options.logger?.warn({ outDir: options.outDir, lockFile: lock.lockFile, reason: lock.tookOver.reason }, `took over a stale lock: ${lock.tookOver.description}`);
        onLockTakenOver?.(lock.tookOver);
      }
      const restored = await recoverPackageFolders(options.outDir, {
        ...signal,
        onKept: (path, error) => {
          options.logger?.warn({ outDir: options.outDir, path, errno: error.errno }, `left in place a leftover of an interrupted run: ${error.message}`);
          onLeftoverKept?.(path, error);
        },
      });
      if (restored.length > 0) {
        options.logger?.warn({ outDir: options.outDir, restored }, "restored previous packages that an interrupted export had set aside");
        onRecovered?.(restored);
      }
      const stale = await removeStaleCompanions(options.outDir);
      if (stale.length > 0) {
        options.logger?.warn({ outDir: options.outDir, removed: stale }, "removed zips and reports that an interrupted export left beside a newer package folder");
      }
      const resumedTime = resume ? await unfinishedJobTime(options.outDir) : undefined;
      const generatedAt = options.generatedAt ?? resumedTime ?? utcNowRfc3339();
      if (resumedTime !== generatedAt) await startJob(options.outDir, generatedAt, job.signal);
      const unique = [...new Set(issuerIds)];
      let failed = false;
      const directoryJsonOf = directoryJsonOnce();
      // Left early, the loop stops the issuers under way (their temporary files removed) before the lock is released.
      for await (const result of inCompletionOrder(unique, concurrency, (issuerId, stopped) =>
        exportOne(client, issuerId, { ...exportOptions, signal: withStop(job.signal, stopped), generatedAt }, { issuerProfileOf, stakeholdersOf, resume, directoryJsonOf }),
      )) {
        if (!result.ok) failed = true;
        yield result;
      }
      job.signal?.throwIfAborted();
      if (!failed) await finishJob(options.outDir);
    } finally {
      await lock.release();
    }
  } finally {
    job.dispose();
  }
}

async function exportOne(
  client: ApiClient,
  issuerId: string,
  exportOptions: ExportOptions & { generatedAt: string },
  job: {
    issuerProfileOf: ExportManyOptions["issuerProfileOf"];
    stakeholdersOf: ExportManyOptions["stakeholdersOf"];
    resume: boolean;
    /** Serializes each stakeholder directory once a job (`exportDigest` needs it for every issuer). */
    directoryJsonOf: DirectoryJson;
  },
): Promise<IssuerExportResult> {
  let resumed = false;
  try {
    const result = await withIssuerEvents(issuerId, exportOptions.onEvent, async () => {
      const profile = job.issuerProfileOf?.(issuerId);
      const directory = job.stakeholdersOf?.(issuerId);
      const issuerOptions: ExportOptions & { generatedAt: string } = {
        ...exportOptions,
        ...(profile === undefined ? {} : { issuerProfile: profile }),
        ...(directory === undefined ? {} : { stakeholders: directory }),
      };
      // Computed once: checked against a kept report when resuming, and recorded in the new report otherwise.
      const digest = await exportDigest(client, issuerOptions, job.directoryJsonOf);
      // The package this job already put in place, when resuming (checked against its report and manifest).
      const done = job.resume ? await completedExport(exportOptions.outDir, issuerId, digest, exportOptions.zip ?? false) : undefined;
      resumed = done !== undefined;
      return done ?? (await exportIssuerOfJob(client, issuerId, issuerOptions, digest));
    });
    return resumed ? { issuerId, ok: true, export: result, resumed: true } : { issuerId, ok: true, export: result };
  } catch (thrown) {
    const error = asOcfSyncError(thrown);
    exportOptions.logger?.error({ issuerId, code: error.code, message: error.message }, "issuer failed");
    return { issuerId, ok: false, error };
  }
}

/**
 * The deterministic K-th of N slices of an issuer list (K from 1 to N), for splitting a large batch
 * across machines with no coordination (a Kubernetes indexed job, a CI matrix). An issuer's slice is
 * decided by a hash of its id alone, so every machine agrees whatever the order of its list, every
 * issuer lands in exactly one slice, and adding issuers to the list never moves the others.
 *
 * @category Export
 */
export function shardOf(issuerIds: Iterable<string>, k: number, n: number): string[] {
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(k) || k < 1 || k > n) {
    throw new RangeError(`a shard is K/N with 1 <= K <= N, got ${k}/${n}`);
  }
  return [...new Set(issuerIds)].filter((id) => shardIndexOf(id, n) === k);
}

/**
 * The 1-based slice of `issuerId` among `n`.
 *
 * @category Export
 */
export function shardIndexOf(issuerId: string, n: number): number {
  const digest = createHash("sha256").update(issuerId, "utf8").digest();
  return (digest.readUInt32BE(0) % n) + 1;
}
