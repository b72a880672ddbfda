import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createApiClient, type ClientStats } from "../../client/create-client.js";
import { type DeadlineExceededError, isDeadlineExceededError, terminalSafe } from "../../errors.js";
import { exportIssuers, type IssuerExportResult } from "../../export/export-issuers.js";
import type { IssuerExport } from "../../export/export-issuer.js";
import { placePackage, type S3Target } from "../../export/s3-package.js";
import { asOcfSyncError } from "../../errors.js";
import { isS3Url } from "../../io/s3.js";
import { s3TargetOf } from "../s3-location.js";
import type { OnInvalid } from "../../pull/pull-issuer.js";
import { parseCommandArgs } from "../args.js";
import { CLIENT_FLAGS_HELP, clientOptionsFromFlags } from "../client-flags.js";
import { COMMAND_OPTIONS } from "../command-options.js";
import { UsageError, writeLine, type CliIo } from "../io.js";
import type { Lineage } from "../../mapping/types.js";
import { CHOICES_HELP, DEADLINE_HELP, ISSUERS_FILE_HELP, LOG_HELP, leaseFromEnvironment, prepareOutputFolder, readJobFlags, readPackageFlags } from "../job-flags.js";
import type { DirectoryLookup, ProfileLookup } from "../options-files.js";
import { createReporter, formatDuration, leftoverKeptLine, logIssuerFailure, logNotableWarnings, PageTally, type LogMode } from "../progress.js";
import { everyIssuer } from "../issuer-list.js";
import { withJsonDocument } from "../json-output.js";
import { quotaShare, readShardFlags, SHARD_HELP, shardSlice } from "../shard-flags.js";
import { renderTable } from "../table.js";
import { ocfSyncVersion } from "../../version.js";
import { exportedIssuer, finishRunRecord, jobFailedRunRecord, RETRY_EXIT_STATUS, RunRecordFile, runRecordSlot, withRunRecord, type RunRecordSlot } from "../run-record.js";

export const EXPORT_HELP = `Usage: ocf-sync export --base-url URL (--issuer ID ... | --issuers-file FILE) --out DIR [options]

Pulls every restricted stock award and unit of each issuer, maps them to OCF 1.2.0, validates the
package and writes it atomically to DIR/<name>/ (Manifest.ocf.json and its files), with --zip also
DIR/<name>.ocf.zip, and DIR/<name>.report.json (counts, warnings, quarantined records). <name> is the
issuer id when it is plain (lower-case letters, digits, - and _), else a slug plus a hash of the id:
issuer "7" gives out/7, issuer "north wind/eu" gives out/north-wind-eu.85249f7815.

The summary (a table, or one JSON document with --json) goes to standard output; progress and logs
go to standard error.

Options:
  --issuer ID              an issuer to export; repeat for more
${ISSUERS_FILE_HELP}
  --out DIR                where packages go (required); s3://BUCKET/PREFIX uploads each package to
                           object storage (needs the optional package @aws-sdk/client-s3; docs/cli.md)
  --zip                    also write one flat .ocf.zip per issuer (without it, the zip of an earlier
                           run is removed when the package is written: it would hold another package)
  --concurrency N          issuers exported at once (default 4); all share one rate limiter
${SHARD_HELP}
  --resume                 continue the export last run into DIR that was interrupted or had failed
                           issuers: a package it already wrote with the same options is kept, not
                           exported again ("ok, resumed"), and the rest get its --generated-at
  --as-of DATE             the manifest's as_of (YYYY-MM-DD); default: the date of --generated-at (today)
  --issuer-profile FILE    JSON: { "<issuerId>": { "legalName", "formationDate", "countryOfFormation",
                           "dba", "countrySubdivisionOfFormation", "shareClasses", "stockPlans" },
                           "*": { ...for every other issuer } } (docs/cli.md shows every field)
  --stakeholders FILE      JSON: { "<stakeholderId>": { "legalName", "type", "firstName", "lastName",
                           "currentRelationship" } }, or the same keyed by issuer id first
${CHOICES_HELP}
  --lineage MODE           documents (default): a partial cancellation ends the security and its
                           remainder is a new balance issuance (OCF's documents); same-security: the
                           remainder stays on the grant's security (OCF #531)
  --on-invalid MODE        fail (default): an invalid record fails its issuer, nothing is written for it;
                           quarantine: leave the record out, list it in the report, and go on
  --generated-at TIME      the manifest's generated_at (RFC 3339); default: now. Fix it for byte-identical reruns
  --validate MODE          re-read each package and run every package check before putting it in place:
                           auto (default: every package; the re-read streams, so memory stays flat), always, never;
                           every object is checked against the OCF schemas as it is mapped in any case
  --no-validate            the same as --validate never
  --json                   print the run record as one JSON document on standard output (the document
                           --summary writes; sync's has the same shape): { "ocfSyncVersion", "generatedAt",
                           "outcome", "counts", "issuers": [{ "issuerId", "status", "package", "counts",
                           "error" }], ... }; also when the whole export fails (a usage error, an unusable
                           DIR, the lock), then with "error": { "code", "message" } and every issuer failed
  --summary FILE           write the run record to FILE (atomically, also when the job fails): version,
                           start and end, shard, requests, 429s and retries, and each issuer's status,
                           counts, package and error; the same shape for sync (schemas/run-record.schema.json)
${LOG_HELP}
${DEADLINE_HELP}

${CLIENT_FLAGS_HELP}

One export or sync at a time writes to DIR: DIR/.ocf-sync.lock is held while it runs (a second one is
refused). The lock is a lease, renewed every 10 s: the lock of a run that was killed is taken over, on
this host at once, from another host (a retried pod) once it is not renewed for 60 s (its lease; set
OCF_SYNC_LEASE_SECONDS to change it). Each run removes the temporary files and folders that killed
runs left in DIR. Until every issuer of an export is written, DIR/.ocf-sync-export.json
keeps the time it started, for --resume.

Without --issuer-profile and --stakeholders the Issuer and Stakeholders carry labelled placeholders
(the API gives only ids), each reported as a warning.

Exit status: 0 every issuer exported; 1 some issuer failed on its data or access (every other issuer
is still written); 75 retry it: another run holds DIR, the deadline passed, or every failure was the
API's (unreachable, timeout, 429, 5xx); 2 usage error or an unusable DIR; 130 or 143 when stopped by
SIGINT or SIGTERM (packages already written stay; the one under way is not written).

Examples:
  ocf-sync export --base-url https://api.carta.com --issuer 144361 --out out --zip
  printf '144361\\n7\\n' > issuers.txt   # one issuer id per line
  OCF_SYNC_TOKEN=... ocf-sync export --base-url https://api.carta.com --issuers-file issuers.txt \\
      --out /data/ocf --concurrency 8 --on-invalid quarantine --log json --json > summary.json
  ocf-sync export --base-url https://api.carta.com --issuers-file issuers.txt --out out --shard 2/4 \\
      --summary runs/2-of-4.json   # job 2 of 4, with its run record ('ocf-sync summarize runs' merges them)
  JOB_COMPLETION_INDEX=1 OCF_SYNC_SHARD_COUNT=4 ocf-sync export --base-url https://api.carta.com \\
      --issuers-file issuers.txt --out out --shard auto   # the same job in a Kubernetes Indexed Job
  ocf-sync export --base-url https://api.carta.com --issuers-file issuers.txt --out out \\
      --shard-index 1 --shard-count 4   # the same, 0-based as orchestrators count
  ocf-sync export --base-url https://api.carta.com --issuers-file issuers.txt --out out --resume   # after Ctrl-C
  ocf-sync export --base-url http://127.0.0.1:4010 --issuer 7 --out out --settlement-class Common
  ocf-sync export --base-url http://127.0.0.1:4010 --issuer 7 --out out --strict --on-invalid quarantine
  echo '{ "7": { "legalName": "Seven Robotics, Inc.", "formationDate": "2014-03-01", "countryOfFormation": "US" } }' > profiles.json
  echo '{ "5120": { "legalName": "Ada Lovelace", "type": "INDIVIDUAL", "currentRelationship": "EMPLOYEE" } }' > people.json
  ocf-sync export --base-url http://127.0.0.1:4010 --issuer 7 --out out --issuer-profile profiles.json --stakeholders people.json
  ocf-sync validate out/7`;

export async function exportCommand(argv: readonly string[], io: CliIo): Promise<number> {
  // What is known of the run as it goes: its run record, which --json prints too, of a failure as well.
  const record = runRecordSlot("export", ocfSyncVersion());
  return withJsonDocument(
    io,
    "export",
    argv,
    (printJson) => withRunRecord(io, "export", record, () => exportJob(argv, io, record, printJson)),
    (_failure, error) => jobFailedRunRecord(io, "export", record, error),
  );
}

async function exportJob(argv: readonly string[], io: CliIo, record: RunRecordSlot, printJson: (document: object) => void): Promise<number> {
  const { values } = parseCommandArgs("export", {
    args: [...argv],
    options: COMMAND_OPTIONS.export,
    strict: true,
  });
  if (values.help === true) {
    writeLine(io.stdout, EXPORT_HELP);
    return 0;
  }
  // The issuers first: a usage error in any other value fails every one of them (--json lists them).
  const job = await readJobFlags(values, io.cwd, (named) => {
    record.facts.named = named;
  });
  const s3 = values.out !== undefined && isS3Url(values.out) ? await s3Output(values.out, values.resume === true, io) : undefined;
  try {
    return await exportInto(s3 === undefined ? values : { ...values, out: s3.localDir }, job, io, record, printJson, s3);
  } finally {
    await s3?.dispose();
  }
}

type ExportValues = ReturnType<typeof parseCommandArgs<{ options: typeof COMMAND_OPTIONS.export }>>["values"];

/** `--out s3://...`: the packages are written to a local temporary folder, then each is uploaded and committed. */
interface S3Output {
  url: string;
  target: S3Target;
  localDir: string;
  dispose(): Promise<void>;
}

async function s3Output(url: string, resume: boolean, io: CliIo): Promise<S3Output> {
  // The local folder is new each run, so there is nothing to resume from (yet).
  if (resume) throw new UsageError("--resume does not work with --out s3:// yet: run the export again (committed packages are replaced whole)");
  const target = await s3TargetOf("--out", url, io);
  const localDir = await mkdtemp(join(tmpdir(), "ocf-sync-s3-"));
  let disposed: Promise<void> | undefined;
  return {
    url,
    target,
    localDir,
    dispose: () => (disposed ??= (async () => {
      target.client.destroy();
      await rm(localDir, { recursive: true, force: true });
    })()),
  };
}

async function exportInto(
  values: ExportValues,
  job: Awaited<ReturnType<typeof readJobFlags>>,
  io: CliIo,
  record: RunRecordSlot,
  printJson: (document: object) => void,
  s3: S3Output | undefined,
): Promise<number> {
  const packageSettings = await readPackageFlags(values, io.cwd);
  record.facts.outDir = s3?.url ?? packageSettings.outDir;
  const shard = readShardFlags(values, io.env);
  const lease = leaseFromEnvironment(io.env);
  const issuers = shardSlice(job.issuers, shard);
  // Without a shared limiter (--rate-limiter) the shards split the credential's quota.
  const clientOptions = clientOptionsFromFlags(values, io.env, { redactor: io.redactor, share: quotaShare(job.issuers, issuers, shard) });
  record.facts.shard = shard === undefined ? null : { index: shard.k - 1, count: shard.n };
  record.facts.named = issuers;
  const { outDir, profileOf, directoryOf, ...packageOptions } = packageSettings;
  await prepareOutputFolder("out", outDir, io.signal);
  if (values.summary !== undefined) record.file = await RunRecordFile.open(resolve(io.cwd, values.summary), io.signal);
  const run = await runExport(io, {
    clientOptions,
    issuers,
    outDir,
    logMode: job.logMode,
    exportOptions: {
      ...packageOptions,
      concurrency: job.concurrency,
      onInvalid: job.onInvalid,
      resume: values.resume === true,
      ...lease,
      ...(job.deadlineMs === undefined ? {} : { deadlineMs: job.deadlineMs }),
    },
    profileOf,
    directoryOf,
    ...(s3 === undefined ? {} : { place: (exported: IssuerExport) => placePackage(s3.target, s3.localDir, exported, io.signal === undefined ? {} : { signal: io.signal }) }),
  });
  if (s3 !== undefined) run.outDir = s3.url;
  record.facts.stats = run.stats;
  const entries = run.results.map((r) => exportedIssuer(r, job.onInvalid));
  // The deadline: the packages written are summed up (and in the record), then the run ends as a deadline does.
  const deadline = run.deadlinePassed;
  const status = await finishRunRecord(
    io,
    record,
    entries,
    (document) => (values.json === true ? printJson(document) : writeLine(io.stdout, exportSummaryText(run))),
    deadline === undefined ? undefined : { code: "DEADLINE_EXCEEDED", message: deadline instanceof Error ? deadline.message : String(deadline), exitStatus: RETRY_EXIT_STATUS },
  );
  if (deadline !== undefined) throw deadline;
  return status;
}

/** What an export run did: each issuer's result in the order given, where, and how long it took. */
export interface ExportRun {
  results: IssuerExportResult[];
  outDir: string;
  durationMs: number;
  /** The job's deadline passed before every issuer was done (the error that says so). */
  deadlinePassed?: unknown;
  /** The API client's counters at the end of the run. */
  stats: ClientStats;
}

/** Shared by `export` and `demo`: runs the export, with progress and logs on standard error. */
export async function runExport(
  io: CliIo,
  job: {
    clientOptions: Parameters<typeof createApiClient>[0];
    issuers: string[];
    outDir: string;
    logMode: LogMode;
    exportOptions: {
      zip: boolean;
      concurrency: number;
      onInvalid: OnInvalid;
      validate: boolean | "auto";
      asOf?: string;
      generatedAt?: string;
      settlementStockClassName?: string;
      lineage?: Lineage;
      strict?: boolean;
      deadlineMs?: number;
      resume?: boolean;
      leaseMs?: number;
    };
    profileOf?: ProfileLookup;
    directoryOf?: DirectoryLookup;
    /**
     * Where a package written locally goes next (`--out s3://`: uploaded and committed); what it
     * returns is reported. A failure fails the issuer.
     */
    place?: (exported: IssuerExport) => Promise<IssuerExport>;
  },
): Promise<ExportRun> {
  const { issuers, outDir, logMode } = job;
  const reporter = createReporter(io.stderr, logMode, { env: io.env });
  const client = createApiClient(job.clientOptions);
  const results: IssuerExportResult[] = [];
  const tally = new PageTally();
  const started = Date.now();
  const progress = (): void =>
    reporter.update({ issuersDone: results.length, issuersTotal: issuers.length, ...tally.state(), requests: client.stats().requests });
  const report = (result: IssuerExportResult): void => {
    if (result.ok) {
      const e = result.export;
      const what = result.resumed === true ? "already written by this export (resumed)" : `${e.transactions} transactions from ${e.awards} awards and ${e.units} units`;
      reporter.log("info", `issuer ${JSON.stringify(e.issuerId)}: ${what} -> ${e.folder}`, {
        issuerId: e.issuerId,
        folder: e.folder,
        zip: e.zip,
        transactions: e.transactions,
        warnings: e.warnings.length,
        quarantined: e.quarantined.length,
        ...(result.resumed === true ? { resumed: true } : {}),
      });
      logNotableWarnings(reporter, e.warnings);
    } else {
      logIssuerFailure(reporter, result.issuerId, result.error, { onInvalid: job.exportOptions.onInvalid });
    }
  };
  const place = async (result: IssuerExportResult): Promise<IssuerExportResult> => {
    if (job.place === undefined || !result.ok) return result;
    try {
      return { ...result, export: await job.place(result.export) };
    } catch (error) {
      io.signal?.throwIfAborted();
      return { issuerId: result.issuerId, ok: false, error: asOcfSyncError(error) };
    }
  };
  let deadlinePassed: DeadlineExceededError | undefined;
  try {
    for await (const result of exportIssuers(client, issuers, {
      outDir,
      ...job.exportOptions,
      ...(job.profileOf === undefined ? {} : { issuerProfileOf: job.profileOf }),
      ...(job.directoryOf === undefined ? {} : { stakeholdersOf: job.directoryOf }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      onRecovered: (names) => reporter.log("warn", `restored ${names.length} previous package(s) that an interrupted export had set aside: ${names.join(", ")}`),
      onLeftoverKept: (path, error) => reporter.log("warn", leftoverKeptLine(error), { path, errno: error.errno }),
      onLockTakenOver: (stale) => reporter.log("warn", `took over the lock of ${outDir}: ${stale.description}`, { reason: stale.reason }),
      onLockRenewalFailed: (message) => reporter.log("warn", message),
      onEvent: (event) => {
        tally.see(event);
        if (event.type === "record-quarantined") reporter.log("warn", `quarantined ${event.error.message}`, { issuerId: event.issuerId, recordId: event.recordId });
        progress();
      },
    })) {
      const placed = await place(result);
      results.push(placed);
      report(placed);
      progress();
    }
  } catch (error) {
    // The deadline: the packages written are summed up; anything else ends here.
    if (!isDeadlineExceededError(error)) throw error;
    deadlinePassed = error;
  } finally {
    reporter.done();
    await client.close();
  }
  return {
    // Each issuer the deadline stopped failed by it: the summary accounts for every issuer, as pull's does.
    results: everyIssuer(issuers, results, (issuerId) => (deadlinePassed === undefined ? undefined : { issuerId, ok: false, error: deadlinePassed })),
    outDir,
    durationMs: Date.now() - started,
    ...(deadlinePassed === undefined ? {} : { deadlinePassed }),
    stats: client.stats(),
  };
}

/** The human summary: a table of the issuers, then one line of totals. */
export function exportSummaryText({ results, outDir, durationMs }: ExportRun): string {
  const failed = results.filter((r) => !r.ok).length;
  const table = renderTable(results, [
    { header: "issuer", value: (r) => r.issuerId },
    { header: "awards", value: (r) => (r.ok ? String(r.export.awards) : "-"), align: "right" },
    { header: "units", value: (r) => (r.ok ? String(r.export.units) : "-"), align: "right" },
    { header: "transactions", value: (r) => (r.ok ? String(r.export.transactions) : "-"), align: "right" },
    { header: "warnings", value: (r) => (r.ok ? String(r.export.warnings.length) : "-"), align: "right" },
    { header: "quarantined", value: (r) => (r.ok ? String(r.export.quarantined.length) : "-"), align: "right" },
    { header: "status", value: (r) => (r.ok ? (r.resumed === true ? "ok, resumed" : r.export.validated ? "ok, valid" : "ok, objects checked") : `FAILED ${r.error.code}`) },
    { header: "package", value: (r) => (r.ok ? r.export.name : "") },
  ]);
  const total =
    `${results.length - failed} of ${results.length} issuers exported to ${terminalSafe(outDir)} in ${formatDuration(durationMs)}` +
    (failed > 0 ? `; ${failed} failed (see above)` : "") +
    (failed < results.length ? ". Warnings and quarantined records are listed in each <package>.report.json." : ".");
  return `${table}\n\n${total}`;
}
