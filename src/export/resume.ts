/**
 * Resuming an export of many issuers that was interrupted (a signal, a deadline, a lost machine) or
 * that some issuers failed: the issuers whose package the same job already put in place are not
 * exported again.
 *
 * A job is its output folder, its options and the time it started (`generatedAt`, which every package
 * of the job carries). While a job is unfinished, `<out>/.ocf-sync-export.json` holds that time, so a
 * resumed job writes the packages it still owes with the same `generated_at` (and the same default
 * as-of date) as those it wrote before; the file is removed once every issuer of a job is exported.
 * Each issuer's report records a digest of everything its package depends on (source, options, its
 * issuer profile and stakeholders, the time, the mapping code: `exportDigest`); an issuer is skipped
 * only when its report carries this job's digest and the package folder holds the manifest that
 * report lists (same MD5) and every other file it lists (same size), and, with `zip`, its zip is
 * there. Anything else is exported again.
 */
import { createHash } from "node:crypto";
import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { ApiClient } from "../client/create-client.js";
import { errnoOf, fileSystemError } from "../errors.js";
import { writeFileAtomic } from "../io/atomic-file.js";
import type { MappingWarning } from "../mapping/errors.js";
import { PACKAGE_FILE_NAMES } from "../ocf/package-files.js";
import { packageNameFor } from "../ocf/package-folder.js";
import type { WrittenPackageFile } from "../ocf/package-writer.js";
import type { SourceWarning } from "../source/errors.js";
import { type DirectoryJson, digestOf, directoryJson, mappingCodeDigest, mappingDigest } from "./fingerprint.js";
import type { ExportOptions, ExportQuarantine, IssuerExport } from "./types.js";

/** The file that holds an unfinished job's start time, in the output folder. */
export const EXPORT_JOB_FILE = ".ocf-sync-export.json";

/** What the job file holds. */
interface JobFile {
  version: 1;
  generatedAt: string;
}

/** The `generatedAt` of the unfinished job in `outDir`, if there is one (an unreadable file counts as none). */
export async function unfinishedJobTime(outDir: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(join(outDir, EXPORT_JOB_FILE), "utf8");
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return undefined;
    throw fileSystemError("read", join(outDir, EXPORT_JOB_FILE), error);
  }
  try {
    const job = JSON.parse(text) as Partial<JobFile>;
    return job.version === 1 && typeof job.generatedAt === "string" ? job.generatedAt : undefined;
  } catch {
    return undefined;
  }
}

/** Records that the job of `outDir` started at `generatedAt` and is not finished. */
export async function startJob(outDir: string, generatedAt: string, signal?: AbortSignal): Promise<void> {
  const job: JobFile = { version: 1, generatedAt };
  await writeFileAtomic(join(outDir, EXPORT_JOB_FILE), `${JSON.stringify(job)}\n`, { signal });
}

/** Every issuer of the job is exported: nothing is left to resume. */
export async function finishJob(outDir: string): Promise<void> {
  await rm(join(outDir, EXPORT_JOB_FILE), { force: true });
}

/**
 * A digest of everything one issuer's package depends on besides the source data: where it comes
 * from, the mapping code and options (the issuer's own profile and stakeholders included), the time
 * and as-of date, and how it is written and checked. A job of many issuers passes `directoryJsonOnce()`
 * so that a directory shared by its issuers is serialized once, not once per issuer.
 */
export async function exportDigest(client: ApiClient, options: ExportOptions & { generatedAt: string }, directoryJsonOf: DirectoryJson = directoryJson): Promise<string> {
  return digestOf([
    "export-1",
    client.baseUrl,
    mappingDigest(await mappingCodeDigest(), options, directoryJsonOf),
    options.generatedAt,
    options.asOf ?? null,
    options.onInvalid ?? "fail",
    options.zip ?? false,
    options.validate ?? "auto",
    options.validateMaxBytes ?? null,
    options.maxFileBytes ?? null,
  ]);
}

/** The report fields a resumed issuer is read from (see `reportOf` in export-issuer.ts). */
interface StoredReport {
  issuerId: string;
  job?: string;
  validated?: boolean;
  counts: { awards: number; units: number; transactions: number };
  files: WrittenPackageFile[];
  warnings: (SourceWarning | MappingWarning)[];
  quarantined: ExportQuarantine[];
}

/**
 * The export of `issuerId` that the job whose digest is `digest` already put in place in `outDir`, read
 * back from its report; `undefined` when there is none (no report, another job's, a package folder that
 * no longer holds the manifest the report lists or a file of its size, a zip missing).
 */
export async function completedExport(outDir: string, issuerId: string, digest: string, zip: boolean): Promise<IssuerExport | undefined> {
  const name = packageNameFor(issuerId);
  const reportPath = join(outDir, `${name}.report.json`);
  const folder = join(outDir, name);
  const zipPath = join(outDir, `${name}.ocf.zip`);
  let report: StoredReport;
  try {
    report = JSON.parse(await readFile(reportPath, "utf8")) as StoredReport;
  } catch {
    return undefined;
  }
  if (report.job !== digest || report.issuerId !== issuerId || !Array.isArray(report.files)) return undefined;
  const manifest = report.files.find((f) => f.path === PACKAGE_FILE_NAMES.manifest);
  if (manifest === undefined) return undefined;
  try {
    const bytes = await readFile(join(folder, PACKAGE_FILE_NAMES.manifest));
    if (createHash("md5").update(bytes).digest("hex") !== manifest.md5) return undefined;
    // Every other file the report lists is there with its size (a cut or deleted file is exported
    // again); their MD5s are in the manifest just checked, and reading them all is what resuming saves.
    for (const file of report.files) {
      const found = await stat(join(folder, file.path));
      if (!found.isFile() || found.size !== file.bytes) return undefined;
    }
    if (zip && !(await stat(zipPath)).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return {
    issuerId,
    name,
    folder,
    zip: zip ? zipPath : undefined,
    report: reportPath,
    awards: report.counts.awards,
    units: report.counts.units,
    transactions: report.counts.transactions,
    files: report.files,
    warnings: report.warnings,
    quarantined: report.quarantined,
    validated: report.validated === true,
    bytes: report.files.reduce((sum, f) => sum + f.bytes, 0),
  };
}
