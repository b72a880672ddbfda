/**
 * Incremental sync: keeps each issuer's OCF package current while pulling only what changed.
 *
 * The first pass of an issuer pulls everything. Later passes ask only for records modified on or after
 * the issuer's high-water mark minus an overlap window: the service returns records in no particular
 * order and its filter is inclusive (source-api.md §6), and a record committed late can carry an
 * earlier modification time, so the cursor moves only after a complete pass and the window re-reads
 * the recent past. Changed records are merged into the previous pass's snapshot of raw records, the
 * whole issuer is re-mapped and its package rewritten (an OCF package cannot be mapped back).
 *
 * The service has no deletions feed: only a full pass (`full`, or every `fullEvery`-th pass) sees
 * that a record vanished.
 *
 * Crash safety: package folders are replaced atomically (`commitPackageFolder`), the snapshot is
 * written under a new name, and the state file, written atomically last, is the commit point. A sync
 * killed anywhere leaves the previous state naming the previous snapshot; the next run pulls again
 * from the previous cursor, which covers the interrupted work. A killed full pass is redone as full.
 */
import pLimit from "p-limit";
import { dirname, join } from "node:path";
import { withDeadline } from "../client/abort.js";
import type { ApiClient } from "../client/create-client.js";
import { epochMsToUtcDateTime, toFilterDateTime, utcDateTimeToEpochMs, utcNowRfc3339, type UtcDateTime } from "../dates.js";
import { exportIssuer, type ExportOptions, type IssuerExport } from "../export/export-issuer.js";
import { acquireOutputLock } from "../export/output-lock.js";
import { makeFolder } from "../io/folders.js";
import type { HeldLock } from "../io/lock-file.js";
import type { IssuerProfile, StakeholderEntry } from "../mapping/types.js";
import { packageNameFor, recoverPackageFolders } from "../ocf/package-folder.js";
import type { PullEvent } from "../pull/events.js";
import { streamIssuerRecords, type PullItem } from "../pull/pull-issuer.js";
import { SourceRecordError } from "../source/errors.js";
import type { RecordKind } from "../source/kinds.js";
import { parseRecord } from "../source/parse.js";
import { diffPackageObjects, jsonEqual, readPackageObjects, type OcfChangeSet, type PackageObjects } from "./change-set.js";
import { acquireSyncLock, type LockOwner, type StaleLock } from "./lock.js";
import {
  readSnapshot,
  readSyncState,
  removeOtherSnapshots,
  snapshotFolderOf,
  snapshotNameFor,
  writeSnapshot,
  writeSyncState,
  type FullPassReason,
  type IssuerSyncState,
  type SnapshotRecord,
  type SyncState,
} from "./state.js";

/** Default of `overlapSeconds`: five minutes of late-committed changes are re-read on every pass. */
export const DEFAULT_OVERLAP_SECONDS = 300;
/** Default of `fullEvery`: with nightly syncs, a full pass (which sees deletions) once a week. */
export const DEFAULT_FULL_EVERY = 7;

/** Options of `sync`. Every export option applies to the packages it writes. */
export interface SyncOptions extends Omit<ExportOptions, "records" | "onEvent"> {
  /**
   * The state file (JSON, written atomically). Next to it: `<stateFile>.lock` while a sync runs, and
   * `<stateFile>.snapshots/` with the raw records of each issuer's last complete pass.
   */
  stateFile: string;
  /** Pull every record of every issuer this time (and so detect deleted records). @default false */
  full?: boolean;
  /**
   * Every `fullEvery`-th pass of an issuer is a full one; `1` makes every pass full, `0` never
   * (only `full` or a first pass). @default 7
   */
  fullEvery?: number;
  /** How far before the high-water mark an incremental pass starts reading, in seconds. @default 300 */
  overlapSeconds?: number;
  /** Issuers synced at the same time; all share the client (so one rate limiter). @default 4 */
  concurrency?: number;
  /** Records per page requested. @default the client's (50) */
  pageSize?: number;
  /** The issuer profile of each issuer, when they differ (takes precedence over `issuerProfile`). */
  issuerProfileOf?: (issuerId: string) => IssuerProfile | undefined;
  /** The stakeholder directory of each issuer, when they differ (takes precedence over `stakeholders`). */
  stakeholdersOf?: (issuerId: string) => ReadonlyMap<string, StakeholderEntry> | undefined;
  /**
   * The longest the whole sync may take, in milliseconds; past it, what is under way stops (issuers
   * keep their previous package and state) and the iteration throws `DeadlineExceededError`.
   * @default no deadline
   */
  deadlineMs?: number;
}

/** A source record, by kind and id (`id` is `undefined` for a quarantined record without one). */
export interface SourceRecordRef {
  kind: RecordKind;
  id: string | undefined;
}

/** What changed among an issuer's source records in one pass. Lists are sorted by kind, then id. */
export interface RecordChanges {
  created: SourceRecordRef[];
  modified: SourceRecordRef[];
  /** Only a full pass can tell: records of the previous pass the service no longer lists. */
  removed: SourceRecordRef[];
  unchanged: number;
}

/** Whether a pass was full or incremental, and why. */
export type PassPlan =
  | { pass: "full"; reason: FullPassReason }
  | { pass: "incremental"; reason: "incremental"; modifiedAfter: string };

/** Events of a sync, in order. */
export type SyncEvent =
  /**
   * The state's lock is held (and, when its lock was stale, the output folder's): `tookOver` says which
   * stale lock was taken over and why (a dead owner, an empty or corrupt file), `tookOverFrom` names
   * the dead sync.
   */
  | { type: "lock-acquired"; lockFile: string; tookOverFrom: LockOwner | undefined; tookOver: StaleLock | undefined }
  /** Previous packages that a killed export or sync had renamed aside were put back. */
  | { type: "packages-recovered"; names: string[] }
  | ({ type: "issuer-started"; issuerId: string } & PassPlan)
  | Extract<PullEvent, { type: "page-fetched" | "record-quarantined" }>
  /** The pull of the issuer is complete: what changed among its source records. */
  | { type: "records-changed"; issuerId: string; pass: "full" | "incremental"; pulled: number; records: RecordChanges }
  /** The issuer's package was rewritten: what changed among its OCF objects. */
  | { type: "package-written"; issuerId: string; folder: string; zip: string | undefined; transactions: number; changes: OcfChangeSet }
  /** The state file was written: after a complete pass of `issuerId`, or as a full pass begins (`fullPending`). */
  | { type: "state-saved"; stateFile: string; issuerId: string; cursor: string | null; fullPending: boolean }
  /** The issuer's pass failed; its package, snapshot and state are those of its previous pass. */
  | { type: "issuer-failed"; issuerId: string; error: unknown }
  | { type: "sync-done"; results: IssuerSyncResult[] };

/** The outcome of one issuer's pass. */
export type IssuerSyncResult =
  | ({
      issuerId: string;
      ok: true;
      pulled: number;
      records: RecordChanges;
      changes: OcfChangeSet;
      export: IssuerExport;
      /** The high-water mark after this pass. */
      cursor: string | null;
    } & PassPlan)
  | { issuerId: string; ok: false; error: unknown };

interface Entry extends SnapshotRecord {
  /** `lastModifiedDatetime` of a valid record, to keep the latest of two copies in one pass. */
  modified: UtcDateTime | undefined;
}

function entryKey(kind: RecordKind, id: string | undefined, raw: unknown): string {
  // A quarantined record without an id can only be told apart by its content.
  return id === undefined ? `${kind}\u0000?${JSON.stringify(raw)}` : `${kind}\u0000${id}`;
}

function compareRefs(a: SourceRecordRef, b: SourceRecordRef): number {
  const ka = `${a.kind}\u0000${a.id ?? ""}`;
  const kb = `${b.kind}\u0000${b.id ?? ""}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}


/**
 * Decides an issuer's pass from its state. Exported for tests.
 *
 * @param previous the issuer's state, `undefined` before its first pass
 * @param snapshotFound whether the snapshot the state names could be read
 */
export function planPass(
  previous: IssuerSyncState | undefined,
  snapshotFound: boolean,
  options: { full?: boolean; fullEvery?: number; overlapSeconds?: number },
): PassPlan {
  const fullEvery = options.fullEvery ?? DEFAULT_FULL_EVERY;
  const overlapSeconds = options.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
  if (previous === undefined) return { pass: "full", reason: "first-run" };
  if (!snapshotFound) return { pass: "full", reason: "snapshot-missing" };
  if (options.full === true) return { pass: "full", reason: "requested" };
  if (previous.fullPending === true) return { pass: "full", reason: "interrupted-full" };
  if (fullEvery > 0 && previous.incrementalSinceFull + 1 >= fullEvery) return { pass: "full", reason: "periodic" };
  if (previous.cursor === null) return { pass: "full", reason: "no-cursor" };
  // The filter takes whole seconds and is inclusive: truncating down never skips a record.
  const modifiedAfter = toFilterDateTime(epochMsToUtcDateTime(utcDateTimeToEpochMs(previous.cursor) - overlapSeconds * 1000));
  return { pass: "incremental", reason: "incremental", modifiedAfter };
}

/** The records of the merged pass, each parsed again, as the stream `exportIssuer` maps. */
async function* parsedItems(issuerId: string, entries: readonly Entry[], onInvalid: "fail" | "quarantine"): AsyncGenerator<PullItem, void, undefined> {
  for (const { kind, id, raw } of entries) {
    let result: ReturnType<typeof parseRecord>;
    try {
      result = parseRecord(kind, raw, { issuerId });
    } catch (error) {
      if (!(error instanceof SourceRecordError) || onInvalid === "fail") throw error;
      yield { type: "quarantined", issuerId, kind, recordId: id, raw, error };
      continue;
    }
    for (const warning of result.warnings) yield { type: "warning", warning };
    yield { type: "record", ...result.parsed, issuerId, raw };
  }
}

/**
 * Brings the packages of `issuerIds` up to date, as an async generator of events. Issuers run
 * `concurrency` at a time, so events of different issuers interleave (each carries its `issuerId`);
 * a failed issuer is reported (`issuer-failed`) and keeps its previous package and state, and the
 * others go on. The last event is `sync-done` with every issuer's result, in the order given.
 * Leaving the loop early stops the issuers under way (as an abort would) before the lock is released.
 *
 * @throws {SyncLockedError} when another sync holds the state's lock; {SyncStateError} for a state
 *   file that cannot be used; the signal's reason when aborted.
 * @example
 * for await (const event of sync(client, ["7"], { outDir: "out", stateFile: "out/sync-state.json" })) {
 *   if (event.type === "package-written") console.log(event.issuerId, event.changes.changed.length, "changed");
 * }
 */
export async function* sync(client: ApiClient, issuerIds: Iterable<string>, options: SyncOptions): AsyncGenerator<SyncEvent, void, undefined> {
  const { stateFile, concurrency = 4 } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a whole number of at least 1, got ${concurrency}`);
  const job = withDeadline(options.signal, options.deadlineMs);
  const signalOption = job.signal === undefined ? {} : { signal: job.signal };
  let lock;
  try {
    await makeFolder(dirname(stateFile), signalOption);
    lock = await acquireSyncLock(stateFile, signalOption);
  } catch (error) {
    job.dispose();
    throw error;
  }
  let outLock: HeldLock | undefined;
  // Stops the issuers under way when the consumer leaves early, so none writes after the lock is released.
  const stop = new AbortController();
  const signal = job.signal === undefined ? stop.signal : AbortSignal.any([job.signal, stop.signal]);
  const running: Promise<void>[] = [];
  try {
    yield { type: "lock-acquired", lockFile: lock.lockFile, tookOverFrom: lock.tookOverFrom, tookOver: lock.tookOver };
    const state = await readSyncState(stateFile, signalOption);
    await makeFolder(options.outDir, signalOption);
    // One export or sync per output folder, as for exportIssuers.
    outLock = await acquireOutputLock(options.outDir, signalOption);
    if (outLock.tookOver !== undefined) yield { type: "lock-acquired", lockFile: outLock.lockFile, tookOverFrom: outLock.tookOver.owner, tookOver: outLock.tookOver };
    const restored = await recoverPackageFolders(options.outDir);
    if (restored.length > 0) yield { type: "packages-recovered", names: restored };
    const generatedAt = options.generatedAt ?? utcNowRfc3339();

    // One writer of the state file at a time, each writing the latest state: a later write never
    // lands before an earlier one.
    let stateWrites: Promise<void> = Promise.resolve();
    const saveState = (): Promise<void> => {
      stateWrites = stateWrites.catch(() => {}).then(() => writeSyncState(stateFile, state, { signal }));
      return stateWrites;
    };

    const ids = [...new Set(issuerIds)];
    const results = new Map<string, IssuerSyncResult>();
    const queue: SyncEvent[] = [];
    let wake: (() => void) | undefined;
    let aborted: { error: unknown } | undefined;
    let settled = 0;
    const push = (event: SyncEvent): void => {
      queue.push(event);
      wake?.();
    };
    const limit = pLimit(concurrency);
    for (const issuerId of ids) {
      running.push(
        limit(async () => {
          try {
            signal.throwIfAborted();
            const pass = syncIssuer(client, issuerId, state, saveState, { ...options, generatedAt, signal });
            for (let step = await pass.next(); ; step = await pass.next()) {
              if (step.done === true) {
                results.set(issuerId, step.value);
                break;
              }
              push(step.value);
            }
          } catch (error) {
            if (signal.aborted) {
              aborted ??= { error: signal.reason ?? error };
            } else {
              results.set(issuerId, { issuerId, ok: false, error });
              push({ type: "issuer-failed", issuerId, error });
            }
          } finally {
            settled += 1;
            wake?.();
          }
        }),
      );
    }
    for (;;) {
      if (aborted !== undefined) throw aborted.error;
      const event = queue.shift();
      if (event !== undefined) {
        yield event;
        continue;
      }
      if (settled === ids.length) break;
      // No await between the check above and this: a task cannot settle unseen.
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    yield { type: "sync-done", results: ids.flatMap((id) => results.get(id) ?? []) };
  } finally {
    stop.abort(new Error("the sync was stopped"));
    await Promise.allSettled(running);
    await outLock?.release();
    await lock.release();
    job.dispose();
  }
}

async function* syncIssuer(
  client: ApiClient,
  issuerId: string,
  state: SyncState,
  saveState: () => Promise<void>,
  options: SyncOptions & { generatedAt: string },
): AsyncGenerator<SyncEvent, IssuerSyncResult, undefined> {
  const { stateFile, signal } = options;
  const onInvalid = options.onInvalid ?? "fail";
  const snapshotFolder = snapshotFolderOf(stateFile);
  const previous = state.issuers.find((s) => s.issuerId === issuerId);
  const snapshot = previous === undefined ? undefined : await readSnapshot(snapshotFolder, previous.snapshot, issuerId, signal === undefined ? {} : { signal });
  const plan = planPass(previous, snapshot !== undefined, options);

  if (plan.pass === "full" && previous !== undefined && previous.fullPending !== true) {
    // Without this mark, a full pass killed after its package was written would be followed by an
    // incremental one that brings the deleted records back from the old snapshot.
    replaceIssuerState(state, { ...previous, fullPending: true });
    await saveState();
    yield { type: "state-saved", stateFile, issuerId, cursor: previous.cursor, fullPending: true };
  }
  yield { type: "issuer-started", issuerId, ...plan };

  // Pull: the whole issuer, or what changed since the cursor minus the overlap.
  const pulled = new Map<string, Entry>();
  const pending: SyncEvent[] = [];
  let highWater: UtcDateTime | undefined = previous?.cursor ?? undefined;
  for await (const item of streamIssuerRecords(client, issuerId, {
    onInvalid,
    ...(plan.pass === "incremental" ? { lastModifiedDatetimeAfter: plan.modifiedAfter } : {}),
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    ...(signal === undefined ? {} : { signal }),
    onEvent: (event) => {
      if (event.type === "page-fetched" || event.type === "record-quarantined") pending.push(event);
    },
  })) {
    yield* pending.splice(0);
    if (item.type === "warning") continue; // raised again when the merged records are parsed for the package
    if (item.type === "quarantined") {
      pulled.set(entryKey(item.kind, item.recordId, item.raw), { kind: item.kind, id: item.recordId, raw: item.raw, modified: undefined });
      continue;
    }
    const modified = item.record.lastModifiedDatetime;
    const key = entryKey(item.kind, item.record.id, item.raw);
    const earlier = pulled.get(key);
    // Listed twice in one pass (the service changed while we paged): keep the most recent copy.
    if (earlier?.modified !== undefined && modified !== undefined && earlier.modified > modified) continue;
    pulled.set(key, { kind: item.kind, id: item.record.id, raw: item.raw, modified });
    if (modified !== undefined && (highWater === undefined || modified > highWater)) highWater = modified;
  }
  yield* pending.splice(0);

  // Merge with the previous pass and tell what changed among the source records.
  const before = new Map<string, SnapshotRecord>();
  for (const record of snapshot ?? []) before.set(entryKey(record.kind, record.id, record.raw), record);
  const merged = new Map<string, Entry>();
  if (plan.pass === "incremental") {
    for (const [key, record] of before) merged.set(key, { ...record, modified: undefined });
  }
  const records: RecordChanges = { created: [], modified: [], removed: [], unchanged: 0 };
  for (const [key, entry] of pulled) {
    merged.set(key, entry);
    const old = before.get(key);
    if (old === undefined) records.created.push({ kind: entry.kind, id: entry.id });
    else if (!jsonEqual(old.raw, entry.raw)) records.modified.push({ kind: entry.kind, id: entry.id });
  }
  for (const [key, old] of before) {
    if (!merged.has(key)) records.removed.push({ kind: old.kind, id: old.id });
  }
  records.unchanged = merged.size - records.created.length - records.modified.length;
  records.created.sort(compareRefs);
  records.modified.sort(compareRefs);
  records.removed.sort(compareRefs);
  yield { type: "records-changed", issuerId, pass: plan.pass, pulled: pulled.size, records };

  // Re-map everything and rewrite the package; compare its objects with the previous package's.
  const entries = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry);
  const folder = join(options.outDir, packageNameFor(issuerId));
  let objectsBefore: PackageObjects;
  try {
    objectsBefore = await readPackageObjects(folder, signal === undefined ? {} : { signal });
  } catch (error) {
    // A damaged previous package must not block its own repair: every object then counts as created.
    options.logger?.warn({ issuerId, folder, err: error }, "the previous package could not be read; its objects are not compared");
    objectsBefore = new Map();
  }
  const { stateFile: _stateFile, concurrency: _concurrency, full: _full, fullEvery: _fullEvery, overlapSeconds: _overlap, pageSize: _pageSize, issuerProfileOf, stakeholdersOf, ...exportOptions } = options;
  const profile = issuerProfileOf?.(issuerId);
  const directory = stakeholdersOf?.(issuerId);
  const written = await exportIssuer(client, issuerId, {
    ...exportOptions,
    ...(profile === undefined ? {} : { issuerProfile: profile }),
    ...(directory === undefined ? {} : { stakeholders: directory }),
    records: parsedItems(issuerId, entries, onInvalid),
  });
  const changes = diffPackageObjects(objectsBefore, await readPackageObjects(written.folder, signal === undefined ? {} : { signal }));
  yield { type: "package-written", issuerId, folder: written.folder, zip: written.zip, transactions: written.transactions, changes };

  // Commit: a new snapshot under a new name, then the state that names it.
  const generation = (previous?.generation ?? 0) + 1;
  const snapshotName = snapshotNameFor(issuerId, generation);
  await writeSnapshot(snapshotFolder, snapshotName, issuerId, entries, signal === undefined ? {} : { signal });
  const cursor = highWater ?? null;
  replaceIssuerState(state, {
    issuerId,
    cursor,
    snapshot: snapshotName,
    generation,
    records: entries.length,
    incrementalSinceFull: plan.pass === "full" ? 0 : (previous?.incrementalSinceFull ?? 0) + 1,
    lastPass: plan.pass,
    syncedAt: utcNowRfc3339(),
  });
  await saveState();
  yield { type: "state-saved", stateFile, issuerId, cursor, fullPending: false };
  await removeOtherSnapshots(snapshotFolder, issuerId, snapshotName, signal === undefined ? {} : { signal });
  return { issuerId, ok: true, ...plan, pulled: pulled.size, records, changes, export: written, cursor };
}

function replaceIssuerState(state: SyncState, next: IssuerSyncState): void {
  const index = state.issuers.findIndex((s) => s.issuerId === next.issuerId);
  if (index === -1) state.issuers.push(next);
  else state.issuers[index] = next;
}
