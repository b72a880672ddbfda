import { resolve } from "node:path";
import { createApiClient, type ApiClient } from "../../client/create-client.js";
import { isOcfSyncError } from "../../errors.js";
import { createAtomicWriteStream, type AtomicWriteStream } from "../../io/atomic-file.js";
import { issuerPullToNdjson } from "../../pull/ndjson.js";
import { pullIssuers } from "../../pull/pull-issuers.js";
import { parseCommandArgs } from "../args.js";
import { CLIENT_FLAGS, CLIENT_FLAGS_HELP, clientOptionsFromFlags } from "../client-flags.js";
import { UsageError, writeLine, type CliIo } from "../io.js";
import { JOB_FLAGS, readJobFlags } from "../job-flags.js";
import { createReporter, formatDuration } from "../progress.js";
import { renderTable } from "../table.js";

export const PULL_HELP = `Usage: ocf-sync pull --base-url URL (--issuer ID ... | --issuers-file FILE) [options]

Pulls every restricted stock award and unit of each issuer and writes them as NDJSON: one line per
record, exactly as the service sent it, with its kind and issuer. A raw backup you can keep, and the
--source of 'ocf-sync reconcile'.

Options:
  --issuer ID              an issuer to pull; repeat for more
  --issuers-file FILE      a file with one issuer id per line (# starts a comment)
  --out FILE               write NDJSON here (atomically); default: standard output
  --concurrency N          issuers pulled at once (default 4); all share one rate limiter
  --on-invalid MODE        fail (default): an invalid record fails its issuer;
                           quarantine: keep it in the output marked "quarantined" and go on
  --modified-after TIME    only records modified on or after TIME (YYYY-MM-DDThh:mm:ssZ)
  --modified-before TIME   only records modified on or before TIME
  --log MODE               auto (progress bar on a terminal), plain or json; logs go to stderr

${CLIENT_FLAGS_HELP}

Exit status: 0 all issuers pulled, 1 some issuer failed (the others are still written), 2 usage error.

Examples:
  ocf-sync pull --base-url https://api.carta.com --issuer 144361 --out 144361.ndjson
  OCF_SYNC_TOKEN=... ocf-sync pull --base-url http://127.0.0.1:4010 --issuers-file issuers.txt \\
      --concurrency 8 --on-invalid quarantine --out backup.ndjson
  ocf-sync serve-samples --port 4010 &   # then pull its issuers "7", "144361", ...`;

const FILTER_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export async function pullCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs("pull", {
    args: [...argv],
    options: {
      ...CLIENT_FLAGS,
      ...JOB_FLAGS,
      out: { type: "string" },
      "modified-after": { type: "string" },
      "modified-before": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help === true) {
    writeLine(io.stdout, PULL_HELP);
    return 0;
  }
  const clientOptions = clientOptionsFromFlags(values, io.env);
  const { issuers, concurrency, onInvalid, logMode } = await readJobFlags(values, io.cwd);
  for (const flag of ["modified-after", "modified-before"] as const) {
    const value = values[flag];
    if (value !== undefined && !FILTER_TIME.test(value)) {
      throw new UsageError(`--${flag} takes a UTC time like 2024-07-30T09:31:57Z, got ${JSON.stringify(value)}`);
    }
  }

  const reporter = createReporter(io.stderr, logMode, { env: io.env });
  const client: ApiClient = createApiClient(clientOptions);
  const outPath = values.out === undefined || values.out === "-" ? undefined : resolve(io.cwd, values.out);
  const output: AtomicWriteStream | undefined = outPath === undefined ? undefined : createAtomicWriteStream(outPath);
  const write = async (chunk: string): Promise<void> => {
    if (output === undefined) io.stdout.write(chunk);
    else await output.write(chunk);
  };

  interface Row {
    issuerId: string;
    awards: number;
    units: number;
    quarantined: number;
    warnings: number;
    status: string;
  }
  const rows: Row[] = [];
  let records = 0;
  const started = Date.now();
  try {
    for await (const result of pullIssuers(client, issuers, {
      concurrency,
      onInvalid,
      ...(values["modified-after"] === undefined ? {} : { lastModifiedDatetimeAfter: values["modified-after"] }),
      ...(values["modified-before"] === undefined ? {} : { lastModifiedDatetimeBefore: values["modified-before"] }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      onEvent: (event) => {
        if (event.type === "page-fetched") records += event.records;
        if (event.type === "record-quarantined") {
          reporter.log("warn", `quarantined ${event.error.message}`, { issuerId: event.issuerId, recordId: event.recordId });
        }
        reporter.update({ issuersDone: rows.length, issuersTotal: issuers.length, records, requests: client.stats().requests });
      },
    })) {
      if (result.ok) {
        const { pull } = result;
        for (const line of issuerPullToNdjson(pull)) await write(line);
        for (const warning of pull.warnings) {
          reporter.log("warn", warning.message, { issuerId: pull.issuerId, code: warning.code });
        }
        rows.push({
          issuerId: pull.issuerId,
          awards: pull.awards.length,
          units: pull.units.length,
          quarantined: pull.quarantined.length,
          warnings: pull.warnings.length,
          status: pull.quarantined.length > 0 ? "ok (quarantined records)" : "ok",
        });
        reporter.log("info", `issuer ${JSON.stringify(pull.issuerId)}: ${pull.awards.length} awards, ${pull.units.length} units`, {
          issuerId: pull.issuerId,
          awards: pull.awards.length,
          units: pull.units.length,
          quarantined: pull.quarantined.length,
        });
      } else {
        const message = result.error instanceof Error ? result.error.message : String(result.error);
        const code = isOcfSyncError(result.error) ? result.error.code : "UNEXPECTED";
        rows.push({ issuerId: result.issuerId, awards: 0, units: 0, quarantined: 0, warnings: 0, status: `FAILED ${code}` });
        reporter.log("error", `issuer ${JSON.stringify(result.issuerId)} failed: ${message}`, { issuerId: result.issuerId, code });
      }
      reporter.update({ issuersDone: rows.length, issuersTotal: issuers.length, records, requests: client.stats().requests });
    }
    await output?.commit();
  } catch (error) {
    await output?.abort();
    throw error;
  } finally {
    reporter.done();
    await client.close();
  }

  const position = new Map(issuers.map((id, i) => [id, i]));
  rows.sort((a, b) => (position.get(a.issuerId) ?? 0) - (position.get(b.issuerId) ?? 0));
  const failed = rows.filter((r) => r.status.startsWith("FAILED")).length;
  if (logMode !== "json") {
    const summary = renderTable(rows, [
      { header: "issuer", value: (r) => r.issuerId },
      { header: "awards", value: (r) => String(r.awards), align: "right" },
      { header: "units", value: (r) => String(r.units), align: "right" },
      { header: "quarantined", value: (r) => String(r.quarantined), align: "right" },
      { header: "warnings", value: (r) => String(r.warnings), align: "right" },
      { header: "status", value: (r) => r.status },
    ]);
    writeLine(io.stderr, "");
    writeLine(io.stderr, summary);
    const stats = client.stats();
    writeLine(
      io.stderr,
      `\n${rows.length - failed} of ${rows.length} issuers pulled, ${records} records, ${stats.requests} requests (${stats.retries} retried) in ${formatDuration(Date.now() - started)}` +
        (outPath === undefined ? "" : `; written to ${outPath}`),
    );
  }
  return failed > 0 ? 1 : 0;
}
