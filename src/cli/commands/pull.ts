import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createApiClient, type ApiClient } from "../../client/create-client.js";
import { parseUtcDateTime } from "../../dates.js";
import { fileSystemError, isDeadlineExceededError } from "../../errors.js";
import { openAtomicWriteStream, removeStaleTemporaries, temporaryNameFor, type AtomicWriteStream } from "../../io/atomic-file.js";
import type { PullEvent } from "../../pull/events.js";
import { appendPart, pullIssuerToPart } from "../../pull/ndjson-part.js";
import { eachIssuer } from "../../pull/pull-issuers.js";
import type { SourceWarning } from "../../source/errors.js";
import { parseCommandArgs } from "../args.js";
import { CLIENT_FLAGS_HELP, clientOptionsFromFlags } from "../client-flags.js";
import { COMMAND_OPTIONS } from "../command-options.js";
import { UsageError, asArgumentError, failureCodeOf, writeLine, type CliIo } from "../io.js";
import { DEADLINE_HELP, ISSUERS_FILE_HELP, LOG_HELP, readJobFlags } from "../job-flags.js";
import { exitStatusOfIssuers, isTransientFailure } from "../run-record.js";
import { createReporter, formatDuration, logIssuerFailure, PageTally } from "../progress.js";
import { quotaShare, readShardFlags, SHARD_HELP, shardSlice } from "../shard-flags.js";
import { renderTable } from "../table.js";

export const PULL_HELP = `Usage: ocf-sync pull --base-url URL (--issuer ID ... | --issuers-file FILE) [options]

Pulls every restricted stock award and unit of each issuer and writes them as NDJSON: one line per
record, exactly as the service sent it, with its kind and issuer. A raw backup you can keep, and the
--source of 'ocf-sync reconcile'.

Standard output carries the records only (without --out): the summary table, progress and logs go to
standard error, with --out too. Each issuer's lines come together: it is pulled into part files of its
own (beside FILE, or in the temporary folder), appended whole when done, so memory stays flat however
many records an issuer has. The next pull removes the part files of a pull that was killed (kill -9).

The order is fixed, so the same data gives the same bytes (compare backups with diff or a checksum):
issuers in the order listed; within one, valid awards, valid units, quarantined awards, quarantined
units, each in the service's order.

Options:
  --issuer ID              an issuer to pull; repeat for more
${ISSUERS_FILE_HELP}
  --out FILE               write NDJSON here; default: standard output. FILE is replaced only by
                           a complete pull: when an issuer fails, a previous FILE stays as it was
  --concurrency N          issuers pulled at once (default 4); all share one rate limiter
${SHARD_HELP}
  --on-invalid MODE        fail (default): an invalid record fails its issuer;
                           quarantine: keep it in the output marked "quarantined" and go on
  --modified-after TIME    only records modified on or after TIME (YYYY-MM-DDThh:mm:ssZ, UTC; a
                           date YYYY-MM-DD alone means its midnight UTC)
  --modified-before TIME   only records modified on or before TIME
${LOG_HELP}
${DEADLINE_HELP}

${CLIENT_FLAGS_HELP}

Exit status: 0 all issuers pulled; 1 some issuer failed on its data or access (to standard output the
others are still written; --out FILE is then left as it was); 75 retry it: the deadline passed or
every failure was the API's (unreachable, timeout, 429, 5xx); 2 usage error or an unusable --out;
130 or 143 when stopped by SIGINT or SIGTERM.

Examples:
  ocf-sync serve-samples --port 4010 &   # the sample API, issuers "7", "144361", "acme-robotics", ...
  ocf-sync pull --base-url https://api.carta.com --issuer 144361 --out 144361.ndjson
  printf '7\\nacme-robotics\\n' > issuers.txt   # one issuer id per line
  OCF_SYNC_TOKEN=... ocf-sync pull --base-url http://127.0.0.1:4010 --issuers-file issuers.txt \\
      --concurrency 8 --on-invalid quarantine --out backup.ndjson
  ocf-sync pull --base-url http://127.0.0.1:4010 --issuers-file issuers.txt --shard 1/2 --out part-1.ndjson`;

const FILTER_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z)?$/;

/** A `--modified-*` value as the service's filter takes it, or a usage error: a real instant in UTC. */
function filterTime(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const instant = value.length === 10 ? `${value}T00:00:00Z` : value;
  let valid = FILTER_TIME.test(value);
  try {
    if (valid) parseUtcDateTime(instant);
  } catch {
    valid = false;
  }
  if (!valid) throw new UsageError(`--${flag} takes a real UTC time like 2024-07-30T09:31:57Z (or a date like 2024-07-30), got ${JSON.stringify(value)}`);
  return instant;
}

/** A `filterTime` instant as text that sorts as the instants do: its fraction of a second padded to nine digits. */
function instantKey(instant: string): string {
  const [whole = "", fraction = ""] = instant.slice(0, -1).split(".");
  return `${whole}.${fraction.padEnd(9, "0")}`;
}

export async function pullCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs("pull", {
    args: [...argv],
    options: COMMAND_OPTIONS.pull,
    strict: true,
  });
  if (values.help === true) {
    writeLine(io.stdout, PULL_HELP);
    return 0;
  }
  const shard = readShardFlags(values, io.env);
  const { issuers: listed, concurrency, onInvalid, logMode, deadlineMs } = await readJobFlags(values, io.cwd);
  const issuers = shardSlice(listed, shard);
  const clientOptions = clientOptionsFromFlags(values, io.env, { redactor: io.redactor, share: quotaShare(listed, issuers, shard) });
  const modifiedAfter = filterTime("modified-after", values["modified-after"]);
  const modifiedBefore = filterTime("modified-before", values["modified-before"]);
  if (modifiedAfter !== undefined && modifiedBefore !== undefined && instantKey(modifiedAfter) > instantKey(modifiedBefore)) {
    // Both bounds are inclusive: the same instant twice is a range (of that instant), a later start none.
    throw new UsageError(
      `--modified-after ${values["modified-after"]} is after --modified-before ${values["modified-before"]}: no record can match; give a start on or before the end`,
    );
  }

  const outPath = values.out === undefined || values.out === "-" ? undefined : resolve(io.cwd, values.out);
  // Each issuer is pulled into part files of its own, then appended to the output whole: memory does
  // not grow with an issuer's records. The parts are in a folder of this run, a temporary sibling of
  // --out (else of `ocf-sync-pull` in the system's temporary folder), removed with all it holds however
  // the pull ends. What a pull killed before it could clean up (kill -9, a power cut) left there under
  // those names, its parts and unfinished output, is removed first, once its process is gone.
  const partsOf = outPath ?? join(tmpdir(), "ocf-sync-pull");
  const stale = await removeStaleTemporaries(partsOf);
  let output: AtomicWriteStream | undefined;
  try {
    // Opened now: an --out that cannot be written fails before anything is pulled.
    output = outPath === undefined ? undefined : await openAtomicWriteStream(outPath, io.signal === undefined ? {} : { signal: io.signal });
  } catch (error) {
    throw asArgumentError("out", error);
  }
  const partsDir = temporaryNameFor(partsOf);
  await mkdir(partsDir).catch(async (error: unknown) => {
    await output?.abort();
    throw outPath === undefined ? fileSystemError("create the temporary folder", partsDir, error) : asArgumentError("out", fileSystemError("write", outPath, error));
  });
  let parts = 0;
  const partBase = (): string => join(partsDir, String(++parts));
  const reporter = createReporter(io.stderr, logMode, { env: io.env });
  for (const path of stale) reporter.log("info", `removed ${path}, left by a pull that was killed`, { path });
  const client: ApiClient = createApiClient(clientOptions);
  const write = async (chunk: Uint8Array): Promise<void> => {
    if (output === undefined) await writeToStream(io.stdout, chunk);
    else await output.write(chunk);
  };

  /** An issuer's row of the summary; a failed issuer has no counts (shown "-", as export shows them). */
  interface Row {
    issuerId: string;
    /** Whether the issuer failed on a cause a new run may get past (see `isTransientFailure`). */
    retry?: boolean;
    counts?: { awards: number; units: number; quarantined: number; warnings: number };
    status: string;
  }
  const rows: Row[] = [];
  const tally = new PageTally();
  let deadlinePassed: unknown;
  const started = Date.now();
  const progress = (): void => reporter.update({ issuersDone: rows.length, issuersTotal: issuers.length, ...tally.state(), requests: client.stats().requests });
  try {
    const pullOptions = {
      onInvalid,
      ...(modifiedAfter === undefined ? {} : { lastModifiedDatetimeAfter: modifiedAfter }),
      ...(modifiedBefore === undefined ? {} : { lastModifiedDatetimeBefore: modifiedBefore }),
      onEvent: (event: PullEvent) => {
        tally.see(event);
        if (event.type === "record-quarantined") {
          reporter.log("warn", `quarantined ${event.error.message}`, { issuerId: event.issuerId, recordId: event.recordId });
        }
        progress();
      },
      onWarning: (warning: SourceWarning) => reporter.log("warn", warning.message, { issuerId: warning.issuerId, code: warning.code }),
    };
    // In the issuers' order, not as they finish: the same data gives the same bytes.
    const jobOptions = { concurrency, order: "input" as const, ...(io.signal === undefined ? {} : { signal: io.signal }), ...(deadlineMs === undefined ? {} : { deadlineMs }) };
    for await (const result of eachIssuer(issuers, jobOptions, (issuerId, signal) => pullIssuerToPart(client, issuerId, partBase(), { ...pullOptions, ...signal }))) {
      if (result.ok) {
        const part = result.value;
        await appendPart(part, write);
        rows.push({
          issuerId: part.issuerId,
          counts: { awards: part.awards, units: part.units, quarantined: part.quarantined, warnings: part.warnings },
          status: part.quarantined > 0 ? "ok (quarantined records)" : "ok",
        });
        reporter.log("info", `issuer ${JSON.stringify(part.issuerId)}: ${part.awards} awards, ${part.units} units`, {
          issuerId: part.issuerId,
          awards: part.awards,
          units: part.units,
          quarantined: part.quarantined,
        });
      } else {
        const code = failureCodeOf(result.error);
        rows.push({ issuerId: result.issuerId, retry: isTransientFailure(result.error), status: `FAILED ${code}` });
        logIssuerFailure(reporter, result.issuerId, result.error, { onInvalid });
      }
      progress();
    }
  } catch (error) {
    // The deadline: what was pulled is summed up below; anything else (an interrupt) ends here.
    if (!isDeadlineExceededError(error)) {
      await output?.abort();
      throw error;
    }
    deadlinePassed = error;
  } finally {
    reporter.done();
    await client.close();
    await rm(partsDir, { recursive: true, force: true });
  }
  const complete = deadlinePassed === undefined && rows.every((r) => !r.status.startsWith("FAILED"));
  try {
    // A backup is replaced only by a complete one: a failed issuer leaves the previous file as it was.
    if (complete) await output?.commit();
    else await output?.abort();
  } catch (error) {
    await output?.abort();
    throw error;
  }

  const position = new Map(issuers.map((id, i) => [id, i]));
  rows.sort((a, b) => (position.get(a.issuerId) ?? 0) - (position.get(b.issuerId) ?? 0));
  const failed = rows.filter((r) => r.status.startsWith("FAILED")).length;
  if (logMode !== "json") {
    const summary = renderTable(rows, [
      { header: "issuer", value: (r) => r.issuerId },
      { header: "awards", value: (r) => String(r.counts?.awards ?? "-"), align: "right" },
      { header: "units", value: (r) => String(r.counts?.units ?? "-"), align: "right" },
      { header: "quarantined", value: (r) => String(r.counts?.quarantined ?? "-"), align: "right" },
      { header: "warnings", value: (r) => String(r.counts?.warnings ?? "-"), align: "right" },
      { header: "status", value: (r) => r.status },
    ]);
    writeLine(io.stderr, "");
    writeLine(io.stderr, summary);
    const stats = client.stats();
    writeLine(
      io.stderr,
      `\n${rows.length - failed} of ${rows.length} issuers pulled, ${tally.records} records, ${stats.requests} requests (${stats.retries} retried) in ${formatDuration(Date.now() - started)}` +
        (outPath === undefined ? "" : complete ? `; written to ${outPath}` : `; ${outPath} was not written (a previous file there is as it was)`),
    );
  }
  if (logMode === "json" && !complete && outPath !== undefined) {
    reporter.log("error", `${outPath} was not written (a previous file there is as it was)`, { out: outPath });
  }
  if (deadlinePassed !== undefined) throw deadlinePassed;
  // 75 when every failure was the API's (retry it), 1 when an issuer failed on its data or access.
  return exitStatusOfIssuers(rows.map((r) => ({ status: r.retry === undefined ? "ok" : "failed", retry: r.retry === true })));
}

/**
 * Writes to a stream such as standard output and waits until the system has taken the chunk: memory
 * stays flat when the reader is slow, and a stream that failed (a full disk, a reader gone) rejects the
 * write instead of leaving it waiting for a `drain` that never comes.
 */
async function writeToStream(stream: NodeJS.WritableStream, chunk: Uint8Array): Promise<void> {
  await new Promise<void>((resolveWrite, reject) => {
    stream.write(chunk, (error?: Error | null) => (error === undefined || error === null ? resolveWrite() : reject(error)));
  });
}
