import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { AtomicWriteStream } from "../../io/atomic-file.js";
import { isS3Url, type ObjectStorageOptions } from "../../io/s3.js";
import { createApiClient } from "../../client/create-client.js";
import { isDeadlineExceededError, terminalSafe } from "../../errors.js";
import { CHANGE_SAMPLE_LIMIT } from "../../sync/change-tally.js";
import { DEFAULT_FULL_EVERY, DEFAULT_OVERLAP_SECONDS, sync, type IssuerSyncResult, type SyncEvent } from "../../sync/sync.js";
import { parseCommandArgs, parseInteger, parseSeconds } from "../args.js";
import { CLIENT_FLAGS_HELP, clientOptionsFromFlags } from "../client-flags.js";
import { COMMAND_OPTIONS } from "../command-options.js";
import { UsageError, failureCodeOf, writeLine, type CliIo } from "../io.js";
import { CHOICES_HELP, DEADLINE_HELP, ISSUERS_FILE_HELP, LOG_HELP, leaseFromEnvironment, openOutputFile, prepareOutputFolder, readJobFlags, readPackageFlags } from "../job-flags.js";
import { everyIssuer } from "../issuer-list.js";
import { withJsonDocument } from "../json-output.js";
import { createReporter, formatDuration, leftoverKeptLine, logIssuerFailure, logNotableWarnings, PageTally } from "../progress.js";
import { quotaShare, readShardFlags, SHARD_HELP, shardSlice, shardStateFile } from "../shard-flags.js";
import { objectStorageOf } from "../s3-location.js";
import { renderTable } from "../table.js";
import { ocfSyncVersion } from "../../version.js";
import { finishRunRecord, jobFailedRunRecord, RETRY_EXIT_STATUS, RunRecordFile, runRecordSlot, syncedIssuer, withRunRecord, type RunRecordSlot } from "../run-record.js";

export const SYNC_HELP = `Usage: ocf-sync sync --base-url URL (--issuer ID ... | --issuers-file FILE) --out DIR --state FILE [options]

Keeps the OCF packages in DIR current while pulling only what changed. The first run of an issuer
pulls everything; later runs pull only records modified since its last complete pass (minus an
overlap window), map only the records that changed, and rewrite the issuer's package from the kept
mappings; an issuer with no changed record costs its list requests and nothing else (its package is
left as it is). Then prints what changed: OCF objects created, changed (with the fields that
changed), removed, unchanged.

The service has no deletions feed: only a full pass (--full, or every --full-every-th run of an
issuer) sees records that vanished and reports their objects as removed.

FILE (the state, written atomically) holds each issuer's cursor; FILE.snapshots/ the records of its
last pass with their mappings, in shards (a change rewrites only its shards); FILE.lock is held while
a sync runs, and DIR/.ocf-sync.lock as for 'ocf-sync export': a second sync on the same state or folder
is refused, and the lock of a killed run (or an empty or corrupt lock file) is taken over, saying so:
on this host at once, from another host (a retried pod) once it is not renewed for its lease (60 s;
OCF_SYNC_LEASE_SECONDS).
A sync killed at any moment leaves the previous packages and state valid; the next run removes what
it left and redoes the interrupted work. A pass that fails once its records are pulled (an invalid
record, a package that fails validation) keeps them: the next run does not pull them again.

Object storage (needs the optional package @aws-sdk/client-s3; settings as for export, docs/cli.md):
  ocf-sync sync --base-url https://api.carta.com --issuers-file issuers.txt \\
      --out s3://my-bucket/ocf --state s3://my-bucket/ocf-sync-state.json
  ocf-sync sync --base-url https://api.carta.com --issuer 7 --out s3://my-bucket/ocf --state state.json
The sync then works in a temporary folder (under TMPDIR, removed at the end). With
--state s3://BUCKET/KEY it reads the state from KEY, and the records it names from KEY.snapshots/.
Each package written is uploaded, then committed by its marker object, as export does. At the end
the new records are uploaded, then the state is written with If-Match on the ETag read
(If-None-Match when there was none): that write commits the sync. A sync killed before it leaves
the previous state, and the next run redoes the work. If another sync committed the state
meanwhile, the write is refused: S3_COMMIT_CONFLICT, exit 75 (run it again). FILE.lock is then
local: syncs on two hosts are kept apart by that conditional write only.

Options:
  --issuer ID              an issuer to sync; repeat for more
${ISSUERS_FILE_HELP}
  --out DIR                where packages go (required), as with 'ocf-sync export'; s3://BUCKET/PREFIX
                           uploads each package written and commits it with its marker object
  --state FILE             the sync state file (required); s3://BUCKET/KEY keeps it in object storage
  --concurrency N          issuers synced at once (default 4); all share one rate limiter
${SHARD_HELP}
                           A shard keeps its own state, FILE.shard-K-of-N, and needs its own --out
  --full                   pull everything this time, and report deleted records as removed
  --full-every N           make every N-th run of an issuer a full one (default ${DEFAULT_FULL_EVERY}; 0: never)
  --overlap TIME           re-read changes this far before the cursor: seconds, or with a unit
                           (90s, 5m, 1h) (default ${DEFAULT_OVERLAP_SECONDS} seconds)
  --json                   print the run record as one JSON document on standard output (the document
                           --summary writes, in the shape of export's), each issuer with its "sync": the
                           pass, the counts of OCF objects created, changed and removed (in all and per
                           object type), the first ${CHANGE_SAMPLE_LIMIT} of each list and how many it leaves
                           out, and the records pulled; also when the whole sync fails (a usage error, an
                           unusable DIR or FILE, a lock), then with "error": { "code", "message" } and
                           every issuer failed by it
  --summary FILE           write the run record to FILE (atomically, also when the sync fails), in the
                           shape of export's (schemas/run-record.schema.json), with each issuer's pass
  --changes FILE           write every OCF object each package written created, changed or removed to
                           FILE, one JSON line each, as the sync finds them (atomically, when the sync
                           ends): {"issuerId","change":"created"|"changed"|"removed","objectType","id"},
                           and "fields" (those that changed) for a changed one
  --zip                    also write one flat .ocf.zip per issuer (without it, the zip of an earlier
                           run is removed when the package is written: it would hold another package)
  --as-of DATE             the manifest's as_of (YYYY-MM-DD); default: the date of --generated-at
  --issuer-profile FILE    issuer profiles, as for 'ocf-sync export'
  --stakeholders FILE      stakeholder directory, as for 'ocf-sync export'
${CHOICES_HELP}
  --lineage MODE           documents (default): a partial cancellation ends the security and its
                           remainder is a new balance issuance (OCF's documents); same-security: the
                           remainder stays on the grant's security (OCF #531)
  --on-invalid MODE        fail (default) or quarantine, as for 'ocf-sync export'
  --generated-at TIME      the manifest's generated_at (RFC 3339); default: now
  --validate MODE          auto (default), always or never, as for 'ocf-sync export'
  --no-validate            the same as --validate never
${LOG_HELP}
${DEADLINE_HELP}

${CLIENT_FLAGS_HELP}

Exit status: 0 every issuer synced; 1 some issuer failed on its data or access (it keeps its previous
package and state; the others are still synced); 75 retry it: another sync holds a lock, the deadline
passed (the summary lists the issuers synced, and those it stopped as FAILED DEADLINE_EXCEEDED),
another sync committed the s3:// state meanwhile, or every failure was the API's or object storage's
(unreachable, timeout, 429, 5xx); 2 usage error or an unusable DIR;
130 or 143 when stopped by SIGINT or SIGTERM.

Examples:
  ocf-sync sync --base-url https://api.carta.com --issuers-file issuers.txt --out /data/ocf \\
      --state /data/ocf-sync-state.json
  ocf-sync sync --base-url http://127.0.0.1:4010 --issuer 7 --out out --state state.json --full --json > changes.json
  ocf-sync sync --base-url http://127.0.0.1:4010 --issuer 7 --out out --state state.json --strict
  ocf-sync sync --base-url http://127.0.0.1:4010 --issuer 7 --out out --state state.json --summary run.json
  ocf-sync sync --base-url http://127.0.0.1:4010 --issuer 7 --out out --state state.json --changes changes.ndjson
  ocf-sync sync --base-url http://127.0.0.1:4010 --issuers-file issuers.txt --out out-1 --state state.json --shard 1/2`;

const SHOWN_PER_LIST = 20;

/** The human summary: a table, then the objects of each issuer that changed. */
export function changeSetSummary(results: readonly IssuerSyncResult[]): string {
  const table = renderTable(results, [
    { header: "issuer", value: (r) => r.issuerId },
    { header: "pass", value: (r) => (r.ok ? (r.pass === "full" ? `full (${r.reason})` : "incremental") : "-") },
    { header: "pulled", value: (r) => (r.ok ? String(r.pulled) : "-"), align: "right" },
    { header: "created", value: (r) => (r.ok ? String(r.changes.created) : "-"), align: "right" },
    { header: "changed", value: (r) => (r.ok ? String(r.changes.changed) : "-"), align: "right" },
    { header: "removed", value: (r) => (r.ok ? String(r.changes.removed) : "-"), align: "right" },
    { header: "unchanged", value: (r) => (r.ok ? String(r.changes.unchanged) : "-"), align: "right" },
    { header: "status", value: (r) => (r.ok ? "ok" : `FAILED ${r.error.code}`) },
  ]);
  // One entry a line; ids and messages come from the server, so each is shown terminal-safe.
  const lines: string[] = [];
  for (const r of results) {
    if (!r.ok) {
      lines.push("", `${r.issuerId}: failed: ${r.error instanceof Error ? r.error.message : String(r.error)} [${failureCodeOf(r.error)}]`);
      continue;
    }
    const { created, changed, removed, unchanged, sample } = r.changes;
    if (created + changed + removed === 0) continue;
    if (changed + removed + unchanged === 0) {
      // Counted as `validate` counts a package: the objects in its files, the issuer (in the manifest) apart.
      const inFiles = created - (r.changes.byType.ISSUER?.created ?? 0);
      const issuer = inFiles < created ? "the issuer and " : "";
      lines.push("", `${r.issuerId}: a new package of ${issuer}${inFiles} object${inFiles === 1 ? "" : "s"}`);
      continue;
    }
    lines.push("", `${r.issuerId}:`);
    const list = (sign: string, count: number, items: readonly { objectType: string; id: string; fields?: string[] }[]): void => {
      const shown = items.slice(0, SHOWN_PER_LIST);
      for (const o of shown) lines.push(`  ${sign} ${o.objectType} ${o.id}${o.fields === undefined ? "" : ` (${o.fields.join(", ")})`}`);
      if (count > shown.length) lines.push(`  ${sign} … and ${count - shown.length} more (see --changes FILE)`);
    };
    list("+", created, sample.created);
    list("~", changed, sample.changed);
    list("-", removed, sample.removed);
  }
  return [table, ...lines.map(terminalSafe)].join("\n");
}

/** A line of `--changes FILE`: the event less its type. */
function changeLine(event: Extract<SyncEvent, { type: "object-changed" }>): string {
  const { type: _type, ...line } = event;
  return `${JSON.stringify(line)}\n`;
}

export async function syncCommand(argv: readonly string[], io: CliIo): Promise<number> {
  // What is known of the run as it goes: its run record, which --json prints too, of a failure as well.
  const record = runRecordSlot("sync", ocfSyncVersion());
  return withJsonDocument(
    io,
    "sync",
    argv,
    (printJson) => withRunRecord(io, "sync", record, () => syncJob(argv, io, record, printJson)),
    (_failure, error) => jobFailedRunRecord(io, "sync", record, error),
  );
}

async function syncJob(argv: readonly string[], io: CliIo, record: RunRecordSlot, printJson: (document: object) => void): Promise<number> {
  const { values } = parseCommandArgs("sync", {
    args: [...argv],
    options: COMMAND_OPTIONS.sync,
    strict: true,
  });
  if (values.help === true) {
    writeLine(io.stdout, SYNC_HELP);
    return 0;
  }
  // The issuers first: a usage error in any other value fails every one of them (--json lists them).
  const { issuers: listed, concurrency, onInvalid, logMode, deadlineMs } = await readJobFlags(values, io.cwd, (ids) => {
    record.facts.named = ids;
  });
  const shard = readShardFlags(values, io.env);
  const issuers = shardSlice(listed, shard);
  record.facts.named = issuers;
  record.facts.shard = shard === undefined ? null : { index: shard.k - 1, count: shard.n };
  const packageSettings = await readPackageFlags(values, io.cwd);
  if (values.state === undefined || values.state === "") throw new UsageError("--state FILE is required: where the sync keeps its cursor between runs");
  // Each shard keeps a state of its own: the shards' cursors move apart.
  const stateArg = shard === undefined ? values.state : shardStateFile(values.state, shard);
  const s3Out = values.out !== undefined && isS3Url(values.out) ? await objectStorageOf("--out", values.out, io) : undefined;
  const s3State = isS3Url(stateArg) ? await objectStorageOf("--state", stateArg, io, true) : undefined;
  // With s3://, the sync works in a temporary folder: the packages before they are uploaded, the
  // state's local copy and the records it names. Removed when the sync ends.
  const work = s3Out === undefined && s3State === undefined ? undefined : await mkdtemp(join(tmpdir(), "ocf-sync-work-"));
  try {
    return await syncInto(values, io, record, printJson, { listed, issuers, shard, onInvalid, logMode, deadlineMs, concurrency, stateArg, s3Out, s3State, work, packageSettings });
  } finally {
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  }
}

type SyncValues = ReturnType<typeof parseCommandArgs<{ options: typeof COMMAND_OPTIONS.sync }>>["values"];

async function syncInto(
  values: SyncValues,
  io: CliIo,
  record: RunRecordSlot,
  printJson: (document: object) => void,
  job: Pick<Awaited<ReturnType<typeof readJobFlags>>, "onInvalid" | "logMode" | "deadlineMs" | "concurrency"> & {
    listed: string[];
    issuers: string[];
    shard: ReturnType<typeof readShardFlags>;
    stateArg: string;
    s3Out: ObjectStorageOptions | undefined;
    s3State: ObjectStorageOptions | undefined;
    work: string | undefined;
    packageSettings: Awaited<ReturnType<typeof readPackageFlags>>;
  },
): Promise<number> {
  const { listed, issuers, shard, onInvalid, logMode, deadlineMs, concurrency, s3Out, s3State, work } = job;
  const lease = leaseFromEnvironment(io.env);
  const { outDir: given, profileOf, directoryOf, ...packageOptions } = job.packageSettings;
  const outDir = s3Out === undefined || work === undefined ? given : join(work, "out");
  const where = s3Out?.url ?? outDir;
  const clientOptions = clientOptionsFromFlags(values, io.env, { redactor: io.redactor, share: quotaShare(listed, issuers, shard) });
  const fullEvery = parseInteger("full-every", values["full-every"], { min: 0 }) ?? DEFAULT_FULL_EVERY;
  const overlapSeconds = parseSeconds("overlap", values.overlap) ?? DEFAULT_OVERLAP_SECONDS;
  const stateFile = s3State === undefined || work === undefined ? resolve(io.cwd, job.stateArg) : join(work, "state", "sync-state.json");
  await prepareOutputFolder("out", outDir, io.signal);
  await prepareOutputFolder("state", dirname(stateFile), io.signal);
  if ((await stat(stateFile).catch(() => undefined))?.isDirectory() === true) {
    throw new UsageError(`--state: ${stateFile} is a folder; give the file the sync keeps its state in, such as ${join(stateFile, "state.json")}`, { code: "FILE_SYSTEM_ERROR" });
  }
  record.facts.outDir = where;
  if (values.summary !== undefined) record.file = await RunRecordFile.open(resolve(io.cwd, values.summary), io.signal);

  const reporter = createReporter(io.stderr, logMode, { env: io.env });
  const client = createApiClient(clientOptions);
  const started = Date.now();
  let results: IssuerSyncResult[] = [];
  let issuersDone = 0;
  const tally = new PageTally();
  const progress = (): void => reporter.update({ issuersDone, issuersTotal: issuers.length, ...tally.state(), requests: client.stats().requests });
  const onEvent = (event: SyncEvent): void => {
    switch (event.type) {
      case "lock-acquired":
        if (event.tookOver !== undefined) {
          reporter.log("warn", `took over a stale lock: ${event.tookOver.description}; any interrupted work is redone`, { lockFile: event.lockFile, reason: event.tookOver.reason });
        }
        break;
      case "state-entries-set-aside":
        for (const entry of event.entries) {
          const whose = entry.issuerId === undefined ? "an entry that names no issuer" : `the entry of issuer ${JSON.stringify(entry.issuerId)}`;
          const then = entry.issuerId === undefined ? "it is dropped" : "that issuer is synced afresh (a full pass) and the others as the state says";
          reporter.log("warn", `the sync state ${event.stateFile}: ${whose} cannot be read (${entry.problem}); ${then}`, { stateFile: event.stateFile, ...(entry.issuerId === undefined ? {} : { issuerId: entry.issuerId }) });
        }
        break;
      case "packages-recovered":
        reporter.log("warn", `restored ${event.names.length} previous package(s) that an interrupted run had set aside: ${event.names.join(", ")}`);
        break;
      case "leftover-kept":
        reporter.log("warn", leftoverKeptLine(event.error), { path: event.path, errno: event.error.errno });
        break;
      case "issuer-started":
        reporter.log(
          "info",
          `issuer ${JSON.stringify(event.issuerId)}: ${event.pass === "full" ? `full pass (${event.reason})` : `records modified since ${event.modifiedAfter}`}`,
          { issuerId: event.issuerId, pass: event.pass, reason: event.reason },
        );
        break;
      case "page-fetched":
        tally.see(event);
        break;
      case "record-quarantined":
        reporter.log("warn", `quarantined ${event.error.message}`, { issuerId: event.issuerId, recordId: event.recordId });
        break;
      case "records-changed": {
        const r = event.records;
        reporter.log(
          "info",
          `issuer ${JSON.stringify(event.issuerId)}: ${event.pulled} record${event.pulled === 1 ? "" : "s"} pulled in ${event.pages} page${event.pages === 1 ? "" : "s"} (${event.reread} re-read unchanged); ${r.created} new, ${r.modified} modified, ${r.removed} gone, ${r.unchanged} unchanged`,
          { issuerId: event.issuerId, pulled: event.pulled, pages: event.pages, reread: event.reread, created: r.created, modified: r.modified, removed: r.removed, unchanged: r.unchanged },
        );
        logNotableWarnings(reporter, event.warnings);
        break;
      }
      case "package-written":
        issuersDone += 1;
        reporter.log("info", `issuer ${JSON.stringify(event.issuerId)}: package written to ${event.folder}`, { issuerId: event.issuerId, folder: event.folder });
        // The pass's records listed twice were logged with its records-changed event.
        logNotableWarnings(reporter, event.warnings.filter((w) => w.code !== "DUPLICATE_RECORD"));
        break;
      case "package-unchanged":
        issuersDone += 1;
        reporter.log("info", `issuer ${JSON.stringify(event.issuerId)}: nothing changed; package left as it is in ${event.folder}`, { issuerId: event.issuerId, folder: event.folder });
        break;
      case "leftovers-removed":
        reporter.log("warn", `removed ${event.files.length} file(s) that an interrupted run had left beside the state`, { files: event.files.length });
        break;
      case "issuer-failed":
      case "issuer-stopped": {
        issuersDone += 1;
        const what = event.type === "issuer-failed" ? "failed" : "was stopped";
        logIssuerFailure(reporter, event.issuerId, event.error, { onInvalid, what: `${what}, its previous package and state are kept` });
        break;
      }
      case "state-committed":
        reporter.log("info", `state committed to ${event.url}`, { url: event.url });
        break;
      case "sync-done":
      case "sync-stopped":
        results = event.results;
        break;
    }
    progress();
  };
  let deadlinePassed: unknown;
  let jobFailed = false;
  // Every change, written as the sync finds it (the events wait while it is written): none is kept.
  let changes: AtomicWriteStream | undefined;
  try {
    if (values.changes !== undefined) changes = await openOutputFile("changes", resolve(io.cwd, values.changes), io.signal);
    for await (const event of sync(client, issuers, {
      outDir,
      stateFile,
      concurrency,
      fullEvery,
      overlapSeconds,
      onInvalid,
      ...packageOptions,
      issuerProfileOf: profileOf,
      stakeholdersOf: directoryOf,
      ...(values.full === true ? { full: true } : {}),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
      ...lease,
      ...(s3Out === undefined ? {} : { s3Out }),
      ...(s3State === undefined ? {} : { s3State }),
      onLockRenewalFailed: (message) => reporter.log("warn", message),
    })) {
      if (event.type !== "object-changed") onEvent(event);
      else if (changes !== undefined) await changes.write(changeLine(event));
    }
  } catch (error) {
    // The deadline: the issuers synced are summed up, as export does; anything else ends here.
    if (!isDeadlineExceededError(error)) {
      jobFailed = true;
      throw error;
    }
    deadlinePassed = error;
    // Stopped before any issuer began (while taking the locks): each one was stopped all the same.
    results = everyIssuer(issuers, results, (issuerId) => ({ issuerId, ok: false, error }));
  } finally {
    reporter.done();
    await client.close();
    // Also when the sync failed or was stopped: the packages written until then are in place, and their
    // states saved, so that the next run would not say their changes again.
    const file = changes;
    if (file !== undefined && jobFailed) await file.commit().catch(() => file.abort());
    else await file?.commit();
  }

  const printText = (): void => {
    // Its failure lines quote errors: redacted as the --json document is.
    writeLine(io.stdout, io.redactor === undefined ? changeSetSummary(results) : io.redactor.redact(changeSetSummary(results)));
    const failed = results.filter((r) => !r.ok).length;
    writeLine(
      io.stdout,
      `\n${results.length - failed} of ${results.length} issuers synced to ${where} in ${formatDuration(Date.now() - started)}, ${client.stats().requests} API requests` +
        (failed > 0 ? `; ${failed} failed (see above)` : "") +
        ".",
    );
  };
  record.facts.stats = client.stats();
  const status = await finishRunRecord(
    io,
    record,
    results.map((r) => syncedIssuer(r, onInvalid)),
    (document) => (values.json === true ? printJson(document) : printText()),
    deadlinePassed === undefined ? undefined : { code: "DEADLINE_EXCEEDED", message: deadlinePassed instanceof Error ? deadlinePassed.message : String(deadlinePassed), exitStatus: RETRY_EXIT_STATUS },
  );
  // The deadline: the issuers synced are summed up above, then the run ends as a deadline does.
  if (deadlinePassed !== undefined) throw deadlinePassed;
  return status;
}
