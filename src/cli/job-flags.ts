/**
 * The checks of the flags `pull`, `export` and `sync` share (declared in `command-options.ts`), in one
 * place: which issuers, how many at once, what to do with invalid records, how to log; and for the
 * commands that write packages, where and how.
 */
import { rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { isCalendarDate } from "../dates.js";
import { FileSystemError, errnoOf, fileSystemError } from "../errors.js";
import { createTemporarySibling, openAtomicWriteStream, type AtomicWriteStream } from "../io/atomic-file.js";
import { makeFolder } from "../io/folders.js";
import { isRfc3339DateTime } from "../ocf/schemas.js";
import type { Lineage } from "../mapping/types.js";
import type { OnInvalid } from "../pull/pull-issuer.js";
import { parseDuration, parseInteger } from "./args.js";
import { UsageError, asArgumentError } from "./io.js";
import { readIssuerList } from "./issuer-list.js";
import { readIssuerProfiles, readStakeholderDirectory, type DirectoryLookup, type ProfileLookup } from "./options-files.js";
import type { LogMode } from "./progress.js";

/** Help of `--log`, shared by the commands that take it. */
export const LOG_HELP = `  --log MODE               auto (progress bar on a terminal), plain or json (one JSON object a line,
                           a usage error too); logs go to standard error`;

/**
 * Help of `--issuers-file`, shared by the commands that take it. Only a whole line is a comment: an id
 * may hold "#" or spaces (it is URL-escaped when sent), so a "#" after an id is taken as part of it.
 */
export const ISSUERS_FILE_HELP = `  --issuers-file FILE      one issuer id per line; blank lines and lines starting with # are skipped
                           (a # after an id is part of the id, which may hold one)`;

/** Help of `--deadline`, shared by the commands that take it. */
export const DEADLINE_HELP = `  --deadline DURATION      stop the whole job after this long (e.g. 90s, 15m, 2h): what is under
                           way stops and is cleaned up, and the exit status is 75 (retry it)`;

/** Help of `--settlement-class` and `--strict`, shared by `export` and `sync`. */
export const CHOICES_HELP = `  --settlement-class NAME  the stock class of the shares a unit's settlements deliver, for units that
                           name no shareClassId (a unit that does delivers that class), of the shares
                           of awards that name neither shareClassName nor shareClassId, and of a plan
                           whose grants name none. Without it they go to the one class the issuer's
                           records name, else to a placeholder class, with a SETTLEMENT_CLASS_ASSUMED
                           warning and a line in the manifest's comments
  --strict                 make every choice ocf-sync makes where the source leaves a fact out an error
                           naming the record and what settles it: the class of the shares of a unit
                           without shareClassId or of an award without shareClassName and
                           shareClassId (--settlement-class); a placeholder class for a shareClassId
                           no award names (--issuer-profile); a cancellation dated with
                           terminationDate (no canceledDate); no shares for a settlement without
                           netSettlementQuantity. The issuer fails, or with --on-invalid quarantine the
                           record is left out and listed in the report. One name chosen for a
                           shareClassId the records name two ways fails the whole issuer`;

/**
 * The lease of the locks `export` and `sync` hold, from `OCF_SYNC_LEASE_SECONDS` (an environment
 * variable, not a flag: it is set once for a fleet, in the pod template or job definition).
 */
export function leaseFromEnvironment(env: Readonly<Record<string, string | undefined>>): { leaseMs?: number } {
  const text = env.OCF_SYNC_LEASE_SECONDS;
  if (text === undefined || text === "") return {};
  const seconds = /^[0-9]+(\.[0-9]+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds >= 1 && seconds <= 86_400)) throw new UsageError(`OCF_SYNC_LEASE_SECONDS takes a number of seconds from 1 to 86400, got ${JSON.stringify(text)}`);
  return { leaseMs: seconds * 1000 };
}

export interface JobSettings {
  issuers: string[];
  concurrency: number;
  onInvalid: OnInvalid;
  logMode: LogMode;
  /** The job's overall deadline in milliseconds (`--deadline`), if any. */
  deadlineMs: number | undefined;
}

/**
 * Reads the job flags of `pull`, `export` and `sync`: the issuers first, handed to `named` as soon as
 * they are known (a `--json` document of a usage error found later lists them), then the other values.
 */
export async function readJobFlags(
  values: {
    issuer?: string[] | undefined;
    "issuers-file"?: string | undefined;
    concurrency?: string | undefined;
    "on-invalid"?: string | undefined;
    log?: string | undefined;
    deadline?: string | undefined;
  },
  cwd: string,
  named: (issuers: string[]) => void = () => {},
): Promise<JobSettings> {
  const issuers = await readIssuerList(cwd, values);
  named(issuers);
  const concurrency = parseInteger("concurrency", values.concurrency, { min: 1, max: 64 }) ?? 4;
  const onInvalid = values["on-invalid"] ?? "fail";
  if (onInvalid !== "fail" && onInvalid !== "quarantine") {
    throw new UsageError(`--on-invalid takes fail or quarantine, got ${JSON.stringify(onInvalid)}`);
  }
  const logMode = values.log ?? "auto";
  if (logMode !== "auto" && logMode !== "plain" && logMode !== "json") {
    throw new UsageError(`--log takes auto, plain or json, got ${JSON.stringify(logMode)}`);
  }
  return { issuers, concurrency, onInvalid, logMode, deadlineMs: parseDuration("deadline", values.deadline) };
}

export interface PackageSettings {
  outDir: string;
  zip: boolean;
  validate: boolean | "auto";
  asOf?: string;
  generatedAt?: string;
  settlementStockClassName?: string;
  lineage?: Lineage;
  strict?: boolean;
  profileOf: ProfileLookup;
  directoryOf: DirectoryLookup;
}

export async function readPackageFlags(
  values: {
    out?: string | undefined;
    zip?: boolean | undefined;
    "as-of"?: string | undefined;
    "issuer-profile"?: string | undefined;
    stakeholders?: string | undefined;
    "settlement-class"?: string | undefined;
    lineage?: string | undefined;
    strict?: boolean | undefined;
    "generated-at"?: string | undefined;
    validate?: string | undefined;
    "no-validate"?: boolean | undefined;
  },
  cwd: string,
): Promise<PackageSettings> {
  if (values.out === undefined || values.out === "") throw new UsageError("--out DIR is required: the folder the packages are written to");
  const asOf = values["as-of"];
  if (asOf !== undefined && !isCalendarDate(asOf)) throw new UsageError(`--as-of takes a real date YYYY-MM-DD, got ${JSON.stringify(asOf)}`);
  const generatedAt = values["generated-at"];
  if (generatedAt !== undefined && !isRfc3339DateTime(generatedAt)) {
    throw new UsageError(`--generated-at takes an RFC 3339 date-time with a zone, such as 2025-06-30T00:00:00Z, got ${JSON.stringify(generatedAt)}`);
  }
  const asked = values.validate ?? "auto";
  if (asked !== "auto" && asked !== "always" && asked !== "never") {
    throw new UsageError(`--validate takes auto, always or never, got ${JSON.stringify(asked)}`);
  }
  // --no-validate is --validate never: with another --validate value the two contradict each other.
  if (values["no-validate"] === true && values.validate !== undefined && values.validate !== "never") {
    throw new UsageError(`--no-validate contradicts --validate ${values.validate}: give one of them`);
  }
  const mode = values["no-validate"] === true ? "never" : asked;
  const lineage = values.lineage;
  if (lineage !== undefined && lineage !== "documents" && lineage !== "same-security") {
    throw new UsageError(`--lineage takes documents or same-security, got ${JSON.stringify(lineage)}`);
  }
  return {
    outDir: resolve(cwd, values.out),
    ...(lineage === undefined ? {} : { lineage }),
    zip: values.zip === true,
    validate: mode === "auto" ? "auto" : mode === "always",
    ...(asOf === undefined ? {} : { asOf }),
    ...(generatedAt === undefined ? {} : { generatedAt }),
    ...(values["settlement-class"] === undefined ? {} : { settlementStockClassName: values["settlement-class"] }),
    ...(values.strict === true ? { strict: true } : {}),
    profileOf: await readIssuerProfiles(cwd, values["issuer-profile"]),
    directoryOf: await readStakeholderDirectory(cwd, values.stakeholders),
  };
}

/**
 * Makes sure an output folder can be used, before any work: created if missing, then written to (the
 * file a lock is written to first, `createTemporarySibling`, created and removed); a file where the
 * folder (or one of its parents) should be, a place where no folder can be made, or a folder that
 * takes no new file (read-only, not permitted, `/proc`) is a usage error, whether the folder was there
 * or not. The probe is named as a temporary file is, so that the cleanup of a later run removes it
 * should this one be killed in between.
 */
export async function prepareOutputFolder(option: string, outDir: string, signal: AbortSignal | undefined): Promise<void> {
  try {
    await makeFolder(outDir, { signal });
    let probe: string;
    try {
      probe = await createTemporarySibling(join(outDir, ".ocf-sync-probe"), "");
    } catch (error) {
      throw errnoOf(error) === "ENOENT"
        ? new FileSystemError("write in the folder", outDir, "the file system does not allow new files in it (ENOENT)", { errno: "ENOENT", cause: error })
        : fileSystemError("write in the folder", outDir, error);
    }
    await rm(probe, { force: true });
  } catch (error) {
    throw asArgumentError(option, error);
  }
}

/**
 * The file an option names (`--summary FILE`, `--changes FILE`), opened to be written atomically: its
 * folder made first where missing (as `--out` is), so that a path that cannot be written is a usage
 * error found before any work.
 */
export async function openOutputFile(option: string, path: string, signal: AbortSignal | undefined): Promise<AtomicWriteStream> {
  await prepareOutputFolder(option, dirname(path), signal);
  try {
    return await openAtomicWriteStream(path);
  } catch (error) {
    throw asArgumentError(option, error);
  }
}
