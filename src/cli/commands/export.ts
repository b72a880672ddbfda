import { createApiClient } from "../../client/create-client.js";
import { isOcfSyncError } from "../../errors.js";
import { exportIssuers, shardOf, type IssuerExportResult } from "../../export/export-issuers.js";
import type { OnInvalid } from "../../pull/pull-issuer.js";
import { parseCommandArgs } from "../args.js";
import { CLIENT_FLAGS, CLIENT_FLAGS_HELP, clientOptionsFromFlags } from "../client-flags.js";
import { UsageError, writeLine, type CliIo } from "../io.js";
import { JOB_FLAGS, PACKAGE_FLAGS, readJobFlags, readPackageFlags } from "../job-flags.js";
import type { DirectoryLookup, ProfileLookup } from "../options-files.js";
import { createReporter, formatDuration, type LogMode } from "../progress.js";
import { renderTable } from "../table.js";

export const EXPORT_HELP = `Usage: ocf-sync export --base-url URL (--issuer ID ... | --issuers-file FILE) --out DIR [options]

Pulls every restricted stock award and unit of each issuer, maps them to OCF 1.2.0, validates the
package and writes it atomically to DIR/<name>/ (Manifest.ocf.json and its files), with --zip also
DIR/<name>.ocf.zip, and DIR/<name>.report.json (counts, warnings, quarantined records). <name> is the
issuer id when it is plain (lower-case letters, digits, - and _), else a slug plus a hash of the id.

Options:
  --issuer ID              an issuer to export; repeat for more
  --issuers-file FILE      one issuer id per line (# starts a comment)
  --out DIR                where packages go (required)
  --zip                    also write one flat .ocf.zip per issuer
  --concurrency N          issuers exported at once (default 4); all share one rate limiter
  --shard K/N              export only the K-th of N slices of the issuer list (by a hash of each id),
                           to split a batch across machines or CI jobs with no coordination
  --as-of DATE             the manifest's as_of (YYYY-MM-DD); default: the date of --generated-at (today)
  --issuer-profile FILE    JSON: { "<issuerId>": { "legalName", "formationDate", "countryOfFormation",
                           "dba", "countrySubdivisionOfFormation" }, "*": { ...for every other issuer } }
  --stakeholders FILE      JSON: { "<stakeholderId>": { "legalName", "type", "firstName", "lastName",
                           "currentRelationship" } }, or the same keyed by issuer id first
  --settlement-class NAME  the stock class RSU settlements deliver (default "Common")
  --on-invalid MODE        fail (default): an invalid record fails its issuer, nothing is written for it;
                           quarantine: leave the record out, list it in the report, and go on
  --generated-at TIME      the manifest's generated_at (RFC 3339); default: now. Fix it for byte-identical reruns
  --validate MODE          re-read each package and run every package check before putting it in place:
                           auto (default: every package; the re-read streams, so memory stays flat), always, never;
                           every object is checked against the OCF schemas as it is mapped in any case
  --no-validate            the same as --validate never
  --log MODE               auto (progress bar on a terminal), plain or json; logs go to stderr

${CLIENT_FLAGS_HELP}

Without --issuer-profile and --stakeholders the Issuer and Stakeholders carry labelled placeholders
(the API gives only ids), each reported as a warning.

Exit status: 0 every issuer exported, 1 some issuer failed (every other issuer is still written),
2 usage error.

Examples:
  ocf-sync export --base-url https://api.carta.com --issuer 144361 --out out --zip
  OCF_SYNC_TOKEN=... ocf-sync export --base-url https://api.carta.com --issuers-file issuers.txt \\
      --out /data/ocf --concurrency 8 --on-invalid quarantine --log json
  ocf-sync export --base-url URL --issuers-file issuers.txt --out out --shard 2/4   # job 2 of 4
  ocf-sync export --base-url URL --issuer 7 --out out --issuer-profile profiles.json --stakeholders people.json`;

export async function exportCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs("export", {
    args: [...argv],
    options: { ...CLIENT_FLAGS, ...JOB_FLAGS, ...PACKAGE_FLAGS, shard: { type: "string" }, help: { type: "boolean", short: "h" } },
    strict: true,
  });
  if (values.help === true) {
    writeLine(io.stdout, EXPORT_HELP);
    return 0;
  }
  const packageSettings = await readPackageFlags(values, io.cwd);
  const clientOptions = clientOptionsFromFlags(values, io.env);
  const job = await readJobFlags(values, io.cwd);
  let issuers = job.issuers;
  if (values.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(values.shard);
    const k = Number(m?.[1]);
    const n = Number(m?.[2]);
    if (m === null || n < 1 || k < 1 || k > n) throw new UsageError(`--shard takes K/N with 1 <= K <= N, such as 2/4, got ${JSON.stringify(values.shard)}`);
    issuers = shardOf(issuers, k, n);
  }
  const { outDir, profileOf, directoryOf, ...packageOptions } = packageSettings;
  const results = await runExport(io, {
    clientOptions,
    issuers,
    outDir,
    logMode: job.logMode,
    exportOptions: { ...packageOptions, concurrency: job.concurrency, onInvalid: job.onInvalid },
    profileOf,
    directoryOf,
  });
  return results.some((r) => !r.ok) ? 1 : 0;
}

/** Shared by `export` and `demo`: runs the export with a progress display and prints the summary. */
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
    };
    profileOf?: ProfileLookup;
    directoryOf?: DirectoryLookup;
  },
): Promise<IssuerExportResult[]> {
  const { issuers, outDir, logMode } = job;
  const reporter = createReporter(io.stderr, logMode);
  const client = createApiClient(job.clientOptions);
  const results: IssuerExportResult[] = [];
  let records = 0;
  const started = Date.now();
  const progress = (): void =>
    reporter.update({ issuersDone: results.length, issuersTotal: issuers.length, records, requests: client.stats().requests });
  const report = (result: IssuerExportResult): void => {
    if (result.ok) {
      const e = result.export;
      reporter.log("info", `issuer ${JSON.stringify(e.issuerId)}: ${e.transactions} transactions from ${e.awards} awards and ${e.units} units -> ${e.folder}`, {
        issuerId: e.issuerId,
        folder: e.folder,
        zip: e.zip,
        transactions: e.transactions,
        warnings: e.warnings.length,
        quarantined: e.quarantined.length,
      });
    } else {
      const code = isOcfSyncError(result.error) ? result.error.code : "UNEXPECTED";
      const message = result.error instanceof Error ? result.error.message : String(result.error);
      reporter.log("error", `issuer ${JSON.stringify(result.issuerId)} failed: ${message}`, { issuerId: result.issuerId, code });
    }
  };
  try {
    for await (const result of exportIssuers(client, issuers, {
      outDir,
      ...job.exportOptions,
      ...(job.profileOf === undefined ? {} : { issuerProfileOf: job.profileOf }),
      ...(job.directoryOf === undefined ? {} : { stakeholdersOf: job.directoryOf }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      onRecovered: (names) => reporter.log("warn", `restored ${names.length} previous package(s) that an interrupted export had set aside: ${names.join(", ")}`),
      onEvent: (event) => {
        if (event.type === "page-fetched") records += event.records;
        if (event.type === "record-quarantined") reporter.log("warn", `quarantined ${event.error.message}`, { issuerId: event.issuerId, recordId: event.recordId });
        progress();
      },
    })) {
      results.push(result);
      report(result);
      progress();
    }
  } finally {
    reporter.done();
    await client.close();
  }

  const position = new Map(issuers.map((id, i) => [id, i]));
  results.sort((a, b) => (position.get(a.issuerId) ?? 0) - (position.get(b.issuerId) ?? 0));
  const failed = results.filter((r) => !r.ok).length;
  if (logMode !== "json") {
    writeLine(io.stderr, "");
    writeLine(
      io.stderr,
      renderTable(results, [
        { header: "issuer", value: (r) => r.issuerId },
        { header: "awards", value: (r) => (r.ok ? String(r.export.awards) : "-"), align: "right" },
        { header: "units", value: (r) => (r.ok ? String(r.export.units) : "-"), align: "right" },
        { header: "transactions", value: (r) => (r.ok ? String(r.export.transactions) : "-"), align: "right" },
        { header: "warnings", value: (r) => (r.ok ? String(r.export.warnings.length) : "-"), align: "right" },
        { header: "quarantined", value: (r) => (r.ok ? String(r.export.quarantined.length) : "-"), align: "right" },
        { header: "status", value: (r) => (r.ok ? (r.export.validated ? "ok, valid" : "ok, objects checked") : `FAILED ${isOcfSyncError(r.error) ? r.error.code : ""}`.trim()) },
        { header: "package", value: (r) => (r.ok ? r.export.name : "") },
      ]),
    );
    const stats = results.length;
    writeLine(
      io.stderr,
      `\n${stats - failed} of ${stats} issuers exported to ${outDir} in ${formatDuration(Date.now() - started)}` +
        (failed > 0 ? `; ${failed} failed (see above)` : "") +
        (failed < stats ? ". Warnings and quarantined records are listed in each <package>.report.json." : "."),
    );
  }
  return results;
}
