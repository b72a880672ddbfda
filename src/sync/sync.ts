/**
 * Incremental sync: keeps each issuer's OCF package current while pulling, mapping and writing only
 * what changed.
 *
 * The first pass of an issuer pulls everything. Later passes ask only for records modified on or after
 * the issuer's high-water mark minus an overlap window: the service returns records in no particular
 * order and its filter is inclusive (source-api.md §6), and a record committed late can carry an
 * earlier modification time, so the cursor moves only after a complete pass and the window re-reads
 * the recent past. Each issuer's records are kept beside the state with their mappings (`store.ts`), so
 * a pass maps only the records that changed and writes the package from the kept mappings, and a pass
 * in which nothing changed writes nothing but the state (`pass.ts`).
 *
 * The service has no deletions feed: only a full pass (`full`, or every `fullEvery`-th pass) sees
 * that a record vanished.
 *
 * Crash safety: package folders are replaced atomically (`commitPackageFolder`), store files are
 * written under new names, and the state file, written atomically, is the commit point. A sync killed
 * anywhere leaves the previous state naming the previous files; the next run removes what the killed
 * one left, and pulls again from the committed cursor, which covers the interrupted work. A killed full
 * pass is redone as full. In object storage (`s3Out`, `s3State`), packages are committed by their
 * markers and the state by one conditional write at the end (`object-storage.ts`).
 */
import { rm, rmdir } from "node:fs/promises";
import pLimit from "p-limit";
import { basename, dirname, join } from "node:path";
import { withDeadline } from "../client/abort.js";
import type { ApiClient } from "../client/create-client.js";
import { AbortedError } from "../client/errors.js";
import { utcNowRfc3339 } from "../dates.js";
import { asOcfSyncError, isOcfSyncError, type FileSystemError, type OcfSyncError } from "../errors.js";
import { EXPORT_OPTION_KEYS, checkExportOptions, type ExportOptions } from "../export/export-issuer.js";
import { checkKnownKeys, checkNumber, checkPath, checkWholeNumber, optionKeys } from "../options.js";
import { acquireOutputLock, jobLockOptions } from "../export/output-lock.js";
import { makeFolder } from "../io/folders.js";
import type { HeldLock } from "../io/lock-file.js";
import { packageNameFor, recoverPackageFolders, removeStaleCompanions } from "../ocf/package-folder.js";
import { directoryJsonOnce, mappingCodeDigest } from "../export/fingerprint.js";
import { acquireSyncLock } from "./lock.js";
import { localOutlet, syncIssuer, storeFilesOf } from "./pass.js";
import { readSyncState, snapshotFolderOf, writeSyncState, type SyncState } from "./state.js";
import { listFolder, removeAllBut } from "./store.js";
import type { IssuerSyncResult, SyncEvent, SyncOptions } from "./types.js";
import { commitSyncState, fetchSyncState, objectStorageOutlet } from "./object-storage.js";
import { openObjectStorage, parseS3Url, type ObjectStorageOptions, type S3Target } from "../io/s3.js";

export { DEFAULT_FULL_EVERY, DEFAULT_OVERLAP_SECONDS, planPass } from "./pass.js";
export type { IssuerSyncResult, PassPlan, SyncEvent, SyncOptions, SyncedPackage } from "./types.js";
export type { RecordRef as SourceRecordRef } from "./record-changes.js";

/** Events queued for the consumer before a pass waits for it to take them. */
const EVENTS_QUEUED = 256;

const SYNC_OPTION_KEYS: ReadonlySet<string> = new Set([
  ...[...EXPORT_OPTION_KEYS].filter((key) => key !== "records" && key !== "onEvent" && key !== "onMapped"),
  ...optionKeys<Omit<SyncOptions, keyof ExportOptions>>()(["stateFile", "full", "fullEvery", "overlapSeconds", "concurrency", "pageSize", "issuerProfileOf", "stakeholdersOf", "deadlineMs", "leaseMs", "onLockRenewalFailed", "s3Out", "s3State"]),
]);

/**
 * Removes what killed runs left in the state's folders: temporary files of the state, store files and
 * folders that the state does not name.
 */
async function removeLeftovers(stateFile: string, state: SyncState): Promise<string[]> {
  const removed: string[] = [];
  const stateDir = dirname(stateFile);
  const temporary = `.${basename(stateFile)}.tmp-`;
  for (const entry of await listFolder(stateDir)) {
    if (!entry.startsWith(temporary)) continue;
    await rm(join(stateDir, entry), { force: true });
    removed.push(join(stateDir, entry));
  }
  const snapshots = snapshotFolderOf(stateFile);
  const stores = new Map(state.issuers.filter((s) => s.store !== undefined).map((s) => [packageNameFor(s.issuerId), s]));
  for (const entry of await removeAllBut(snapshots, new Set(stores.keys()))) removed.push(join(snapshots, entry));
  for (const [name, issuer] of stores) {
    for (const entry of await removeAllBut(join(snapshots, name), storeFilesOf(issuer))) removed.push(join(snapshots, name, entry));
  }
  return removed;
}

/**
 * Brings the packages of `issuerIds` up to date, as an async generator of events. Issuers run
 * `concurrency` at a time, so events of different issuers interleave (each carries its `issuerId`);
 * a failed issuer is reported (`issuer-failed`) and keeps its previous package and state, and the
 * others go on. The last event is `sync-done` with every issuer's result, in the order given; when
 * the deadline or the signal stops the sync, each issuer not done gets `issuer-stopped`, the last event
 * is `sync-stopped` with every result, and the iteration then throws why it stopped.
 * Leaving the loop early stops the issuers under way (as an abort would) before the lock is released.
 * A pass says each source record it created, modified or removed as a `record-changed` event, before
 * its `records-changed`, and a package written is followed by an `object-changed` event per object it
 * created, changed or removed (a first pass: every record and every object); results and summaries
 * keep counts and a bounded sample only. The passes wait while the consumer is 256 events behind, so
 * a slow consumer slows the sync instead of filling the memory.
 *
 * @throws {SyncLockedError} when another sync holds the state's lock; {SyncStateError} for a state
 *   file that cannot be used; the signal's reason when aborted.
 * @example
 * ```ts
 * import { createApiClient, sync } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * for await (const event of sync(client, ["7"], { outDir: "synced", stateFile: "synced/sync-state.json" })) {
 *   if (event.type === "package-written") console.log(event.issuerId, event.changes.changed, "changed");
 * }
 * await client.close();
 * ```
 *
 * @category Sync
 */
export async function* sync(client: ApiClient, issuerIds: Iterable<string>, options: SyncOptions): AsyncGenerator<SyncEvent, void, undefined> {
  // Paths checked by name first: a misspelt option (`statePath`) would otherwise surface as node's
  // ERR_INVALID_ARG_TYPE from deep in the file system calls, naming neither the option nor sync.
  checkKnownKeys("sync", options, SYNC_OPTION_KEYS);
  checkPath("sync", "stateFile", options.stateFile);
  checkExportOptions("sync", options);
  // A negative overlap would start the window after the cursor, and skip the records modified in between.
  checkNumber("sync", "overlapSeconds", options.overlapSeconds, 0);
  checkWholeNumber("sync", "fullEvery", options.fullEvery, 0);
  // Object-storage locations checked before any lock or request (a RangeError says what is wrong).
  if (options.s3Out !== undefined) parseS3Url(options.s3Out.url);
  if (options.s3State !== undefined && parseS3Url(options.s3State.url).prefix === "") {
    throw new RangeError(`sync: s3State.url names the state's object, s3://BUCKET/KEY, got ${JSON.stringify(options.s3State.url)}`);
  }
  const { stateFile, concurrency = 4 } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a whole number of at least 1, got ${concurrency}`);
  const job = withDeadline(options.signal, options.deadlineMs);
  const signalOption = job.signal === undefined ? {} : { signal: job.signal };
  let lock;
  try {
    await makeFolder(dirname(stateFile), signalOption);
    lock = await acquireSyncLock(stateFile, jobLockOptions({ ...options, ...signalOption }));
  } catch (error) {
    job.dispose();
    throw error;
  }
  let outLock: HeldLock | undefined;
  const opened: S3Target[] = [];
  // Stops the issuers under way when the consumer leaves early, so none writes after the lock is released.
  const stop = new AbortController();
  const signal = job.signal === undefined ? stop.signal : AbortSignal.any([job.signal, stop.signal]);
  const running: Promise<void>[] = [];
  try {
    yield { type: "lock-acquired", lockFile: lock.lockFile, tookOverFrom: lock.tookOverFrom, tookOver: lock.tookOver };
    const open = async (where: ObjectStorageOptions): Promise<S3Target> => {
      const target = await openObjectStorage(where);
      opened.push(target);
      return target;
    };
    // The state object, read into the local copy: the previous state until this sync commits its own.
    const remote = options.s3State === undefined ? undefined : await fetchSyncState(await open(options.s3State), stateFile, signalOption);
    const outlet = options.s3Out === undefined ? localOutlet(options.outDir) : objectStorageOutlet(await open(options.s3Out), options.outDir);
    const commit = async function* (commitSignal: AbortSignal | undefined): AsyncGenerator<SyncEvent> {
      if (remote === undefined || options.s3State === undefined) return;
      await commitSyncState(remote, stateFile, commitSignal === undefined ? {} : { signal: commitSignal });
      yield { type: "state-committed", url: options.s3State.url };
    };
    const state = await readSyncState(stateFile, signalOption);
    if (state.unreadable !== undefined) yield { type: "state-entries-set-aside", stateFile, entries: state.unreadable };
    const leftovers = await removeLeftovers(stateFile, state);
    if (leftovers.length > 0) yield { type: "leftovers-removed", files: leftovers };
    await makeFolder(options.outDir, signalOption);
    // One export or sync per output folder, as for exportIssuers.
    outLock = await acquireOutputLock(options.outDir, jobLockOptions({ ...options, ...signalOption }));
    if (outLock.tookOver !== undefined) yield { type: "lock-acquired", lockFile: outLock.lockFile, tookOverFrom: outLock.tookOver.owner, tookOver: outLock.tookOver };
    const kept: { path: string; error: FileSystemError }[] = [];
    const restored = await recoverPackageFolders(options.outDir, { onKept: (path, error) => kept.push({ path, error }) });
    for (const { path, error } of kept) yield { type: "leftover-kept", path, error };
    if (restored.length > 0) yield { type: "packages-recovered", names: restored };
    const stale = await removeStaleCompanions(options.outDir);
    if (stale.length > 0) yield { type: "leftovers-removed", files: stale };
    const generatedAt = options.generatedAt ?? utcNowRfc3339();
    const mappingCode = await mappingCodeDigest();
    const directoryJsonOf = directoryJsonOnce();

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
    // A pass waits while the consumer is behind: a first pass says every record and every object it
    // creates (`record-changed`, `object-changed`), and a consumer that writes them out must not find
    // them all queued.
    let room: (() => void)[] = [];
    const pushInTurn = async (event: SyncEvent): Promise<void> => {
      push(event);
      while (queue.length > EVENTS_QUEUED && !stop.signal.aborted) await new Promise<void>((resolve) => room.push(resolve));
    };
    /** Lets every waiting pass go on (each checks the queue again). */
    const release = (): void => {
      const waiting = room;
      room = [];
      for (const resolve of waiting) resolve();
    };
    const makeRoom = (): void => {
      if (queue.length <= EVENTS_QUEUED) release();
    };
    stop.signal.addEventListener("abort", release);
    const limit = pLimit(concurrency);
    for (const issuerId of ids) {
      running.push(
        limit(async () => {
          try {
            signal.throwIfAborted();
            const pass = syncIssuer(client, issuerId, state, saveState, { ...options, generatedAt, mappingCode, directoryJsonOf, signal, outlet });
            for (let step = await pass.next(); ; step = await pass.next()) {
              if (step.done === true) {
                results.set(issuerId, step.value);
                break;
              }
              await pushInTurn(step.value);
            }
          } catch (error) {
            if (signal.aborted) {
              aborted ??= { error: signal.reason ?? error };
            } else {
              // A file-system failure no layer named is the issuer's package's, where the pass writes.
              const failure = asOcfSyncError(error, join(options.outDir, packageNameFor(issuerId)));
              results.set(issuerId, { issuerId, ok: false, error: failure });
              push({ type: "issuer-failed", issuerId, error: failure });
            }
          } finally {
            settled += 1;
            wake?.();
          }
        }),
      );
    }
    for (;;) {
      const event = queue.shift();
      if (event !== undefined) {
        makeRoom();
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
    if (aborted !== undefined) {
      // Every issuer has settled (the stop ended those under way): say which ones it cut short.
      const { error } = aborted;
      const stopped = isOcfSyncError(error) ? error : new AbortedError("the sync", error);
      for (const issuerId of ids) if (!results.has(issuerId)) yield { type: "issuer-stopped", issuerId, error };
      // The deadline: what the issuers done stored is committed; a sync stopped by its signal commits nothing.
      if (options.signal?.aborted !== true) yield* commit(options.signal);
      yield { type: "sync-stopped", error, results: ids.map((issuerId) => results.get(issuerId) ?? { issuerId, ok: false, error: stopped }) };
      throw error;
    }
    yield* commit(signal);
    yield { type: "sync-done", results: ids.flatMap((id) => results.get(id) ?? []) };
  } finally {
    stop.abort(new Error("the sync was stopped"));
    await Promise.allSettled(running);
    // The snapshots folder, when no issuer stored anything in it (a first sync that was stopped).
    await rmdir(snapshotFolderOf(stateFile)).catch(() => {});
    await outLock?.release();
    await lock.release();
    for (const target of opened) target.client.destroy();
    job.dispose();
  }
}
