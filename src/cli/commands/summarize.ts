import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileSystemError, terminalSafe } from "../../errors.js";
import { parseCommandArgs } from "../args.js";
import { COMMAND_OPTIONS } from "../command-options.js";
import { UsageError, writeLine, type CliIo } from "../io.js";
import { withJsonDocument } from "../json-output.js";
import { exitStatusOfIssuers, RETRY_EXIT_STATUS } from "../run-record.js";
import { RUN_RECORD_FORMAT, RUN_RECORD_SCHEMA, type RunIssuer, type RunRecord } from "../run-record-schema.js";
import { renderTable } from "../table.js";

export const SUMMARIZE_HELP = `Usage: ocf-sync summarize PATH... [--json]

Merges the run records of several runs (the shards of one job, or its retries) into one report,
failures first. A PATH is a record written by 'export --summary FILE' or 'sync --summary FILE', or a
folder: every *.json file directly in it that is a run record is read (other JSON files are skipped).

Where the records are shards of one job (their shard counts agree), a shard with no record is named:
it did not run, or did not finish. Where an issuer is in several records (a retried shard), its
latest run counts.

Options:
  --json    print the merged report as one JSON document on standard output:
            { "runs": [{ "file", "command", "shard", "outcome", "exitStatus", "startedAt", "endedAt",
            "issuers", "failed", "requests" }], "missingShards": [...], "counts": { "issuers", "ok",
            "failed" }, "requests": { "sent", "rateLimited", "retried" },
            "issuers": [{ "issuerId", "status", "run", ... }] } (failed issuers first), opening
            with "ocfSyncVersion" and "generatedAt" (schemas/summarize.schema.json)

Exit status: 0 every issuer of every run done; 1 some issuer failed on its data or access; 75 retry:
a shard is missing, a run could not run, or every failure was the API's; 2 usage error or a PATH that
holds no run record; 130 or 143 when stopped by SIGINT or SIGTERM.

Examples:
  ocf-sync export --base-url https://api.carta.com --issuers-file issuers.txt --out out --shard 1/2 --summary runs/1.json
  ocf-sync export --base-url https://api.carta.com --issuers-file issuers.txt --out out --shard 2/2 --summary runs/2.json
  ocf-sync summarize runs
  ocf-sync summarize runs --json | jq '.issuers[] | select(.status == "failed") | .issuerId'`;

/** A record read, with the file it came from. */
interface ReadRecord {
  file: string;
  record: RunRecord;
}

/** `ocf-sync summarize PATH... [--json]`. */
export async function summarizeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return withJsonDocument(io, "summarize", argv, (printJson) => summarizeJob(argv, io, printJson), (error) => ({ error }));
}

async function summarizeJob(argv: readonly string[], io: CliIo, printJson: (document: object) => void): Promise<number> {
  const { values, positionals } = parseCommandArgs("summarize", { args: [...argv], options: COMMAND_OPTIONS.summarize, allowPositionals: true, strict: true });
  if (values.help === true) {
    writeLine(io.stdout, SUMMARIZE_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError("takes one or more PATHs: run records (--summary FILE of export or sync), or folders of them");
  const records: ReadRecord[] = [];
  for (const given of positionals) records.push(...(await readRecords(resolve(io.cwd, given))));
  const merged = mergeRuns(records);
  if (values.json === true) printJson(merged);
  else writeLine(io.stdout, summaryText(merged));
  return merged.exitStatus;
}

/** Records a file is too large past this: a run record of 100,000 issuers is about 40 MB. */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;

/** The run records at `path`: the file, or the records directly in the folder. */
async function readRecords(path: string): Promise<ReadRecord[]> {
  const info = await stat(path).catch((error: unknown) => {
    const failure = fileSystemError("read", path, error);
    throw new UsageError(failure instanceof Error ? failure.message : String(failure), { code: "FILE_SYSTEM_ERROR", cause: error });
  });
  if (info.isFile()) return [await readRecord(path, true)].filter((r): r is ReadRecord => r !== undefined);
  if (!info.isDirectory()) throw new UsageError(`${path} is neither a run record nor a folder of them`);
  const names = (await readdir(path)).filter((name) => name.endsWith(".json")).sort();
  const found: ReadRecord[] = [];
  for (const name of names) {
    const record = await readRecord(join(path, name), false);
    if (record !== undefined) found.push(record);
  }
  if (found.length === 0) throw new UsageError(`${path} holds no run record (a *.json file written by --summary FILE)`);
  return found;
}

/** One record; a file named on its own must be one, a file of a folder that is not one is skipped. */
async function readRecord(file: string, named: boolean): Promise<ReadRecord | undefined> {
  const info = await stat(file);
  if (!info.isFile()) return undefined;
  if (info.size > MAX_RECORD_BYTES) {
    if (named) throw new UsageError(`${file} is ${info.size} bytes, more than a run record can be (${MAX_RECORD_BYTES})`);
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    if (!named) return undefined;
    throw new UsageError(`${file} is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if ((json as { format?: unknown } | null)?.format !== RUN_RECORD_FORMAT) {
    if (named) throw new UsageError(`${file} is not a run record: its "format" is not ${JSON.stringify(RUN_RECORD_FORMAT)}`);
    return undefined;
  }
  const parsed = RUN_RECORD_SCHEMA.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${file} is a run record of another shape: ${issue === undefined ? "" : `${issue.path.join(".")}: ${issue.message}`}`);
  }
  return { file, record: parsed.data };
}

/** The merged report (`--json`). */
export interface MergedRuns {
  runs: {
    file: string;
    command: RunRecord["command"];
    shard: RunRecord["shard"];
    outcome: RunRecord["outcome"];
    exitStatus: number;
    startedAt: string;
    endedAt: string;
    issuers: number;
    failed: number;
    requests: RunRecord["requests"];
    error: RunRecord["error"];
  }[];
  /** Shards of the job (0-based) with no record, where the records agree on a shard count. */
  missingShards: number[];
  counts: { issuers: number; ok: number; failed: number };
  requests: { sent: number; rateLimited: number; retried: number };
  issuers: (RunIssuer & { run: string })[];
  exitStatus: number;
}

/** Merges records: an issuer's latest run counts; failures first; the exit status the worst of them. */
export function mergeRuns(records: readonly ReadRecord[]): MergedRuns {
  const sorted = [...records].sort((a, b) => a.record.startedAt.localeCompare(b.record.startedAt));
  const latest = new Map<string, RunIssuer & { run: string }>();
  for (const { file, record } of sorted) for (const issuer of record.issuers) latest.set(issuer.issuerId, { ...issuer, run: file });
  const issuers = [...latest.values()];
  const failed = issuers.filter((i) => i.status === "failed");
  const counts = new Set(sorted.flatMap(({ record }) => (record.shard === null ? [] : [record.shard.count])));
  const [shardCount] = counts;
  const seen = new Set(sorted.flatMap(({ record }) => (record.shard === null ? [] : [record.shard.index])));
  const missingShards = counts.size === 1 && shardCount !== undefined ? Array.from({ length: shardCount }, (_, i) => i).filter((i) => !seen.has(i)) : [];
  const requests = { sent: 0, rateLimited: 0, retried: 0 };
  for (const { record } of sorted) {
    requests.sent += record.requests?.sent ?? 0;
    requests.rateLimited += record.requests?.rateLimited ?? 0;
    requests.retried += record.requests?.retried ?? 0;
  }
  // The last run of each shard (or of the job) decides whether it must be retried.
  const lastOfShard = new Map<string, RunRecord>();
  for (const { record } of sorted) lastOfShard.set(record.shard === null ? "all" : String(record.shard.index), record);
  const jobFailed = [...lastOfShard.values()].some((r) => r.outcome === "job-failed");
  const ofIssuers = exitStatusOfIssuers(issuers);
  const exitStatus = ofIssuers === 1 ? 1 : ofIssuers === RETRY_EXIT_STATUS || jobFailed || missingShards.length > 0 ? RETRY_EXIT_STATUS : 0;
  return {
    runs: sorted.map(({ file, record }) => ({
      file,
      command: record.command,
      shard: record.shard,
      outcome: record.outcome,
      exitStatus: record.exitStatus,
      startedAt: record.startedAt,
      endedAt: record.endedAt,
      issuers: record.counts.issuers,
      failed: record.counts.failed,
      requests: record.requests,
      error: record.error,
    })),
    missingShards,
    counts: { issuers: issuers.length, ok: issuers.length - failed.length, failed: failed.length },
    requests,
    issuers: [...failed, ...issuers.filter((i) => i.status !== "failed")],
    exitStatus,
  };
}

function summaryText(merged: MergedRuns): string {
  const runs = renderTable(merged.runs, [
    { header: "run", value: (r) => r.file },
    { header: "command", value: (r) => r.command },
    { header: "shard", value: (r) => (r.shard === null ? "-" : `${r.shard.index + 1}/${r.shard.count}`) },
    { header: "outcome", value: (r) => (r.error === null ? r.outcome : `${r.outcome} ${r.error.code}`) },
    { header: "issuers", value: (r) => String(r.issuers), align: "right" },
    { header: "failed", value: (r) => String(r.failed), align: "right" },
    { header: "requests", value: (r) => (r.requests === null ? "-" : String(r.requests.sent)), align: "right" },
    { header: "429s", value: (r) => (r.requests === null ? "-" : String(r.requests.rateLimited)), align: "right" },
  ]);
  const lines = [runs];
  if (merged.missingShards.length > 0) {
    const total = merged.runs.find((r) => r.shard !== null)?.shard?.count ?? 0;
    lines.push("", `missing: no record of shard ${merged.missingShards.map((i) => `${i + 1}/${total}`).join(", ")} (it did not run, or did not finish)`);
  }
  const failed = merged.issuers.filter((i) => i.status === "failed");
  if (failed.length > 0) {
    lines.push("", "Failed issuers:");
    lines.push(
      renderTable(failed, [
        { header: "issuer", value: (i) => i.issuerId },
        { header: "code", value: (i) => i.error?.code ?? "-" },
        { header: "run", value: (i) => i.run },
        { header: "message", value: (i) => i.error?.message ?? "" },
      ]),
    );
  }
  const { counts, requests } = merged;
  lines.push(
    "",
    terminalSafe(
      `${counts.ok} of ${counts.issuers} issuers done, ${counts.failed} failed, in ${merged.runs.length} run${merged.runs.length === 1 ? "" : "s"}; ` +
        `${requests.sent} requests, ${requests.rateLimited} refused with 429, ${requests.retried} retried.`,
    ),
  );
  return lines.join("\n");
}
