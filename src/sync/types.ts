/**
 * The options, events and results of a sync, in a file of their own: the pass of one issuer (pass.ts)
 * takes the options and yields the events, and sync.ts runs the passes.
 */
import type { FileSystemError, OcfSyncError } from "../errors.js";
import type { ExportOptions, IssuerExport } from "../export/types.js";
import type { IssuerProfile, StakeholderEntry } from "../mapping/types.js";
import type { PullEvent } from "../pull/events.js";
import type { ObjectStorageOptions } from "../io/s3-location.js";
import type { SourceWarning } from "../source/errors.js";
import type { OcfChangeSummary, OcfObjectChange } from "./change-set.js";
import type { LockOwner, StaleLock } from "./lock.js";
import type { FullPassReason, UnreadableIssuerState } from "./state.js";
import type { RecordChange, RecordChangeSummary } from "./record-changes.js";

/**
 * Options of `sync`. Every export option applies to the packages it writes.
 *
 * @category Sync
 */
export interface SyncOptions extends Omit<ExportOptions, "records" | "onEvent" | "onMapped"> {
  /**
   * The state file (JSON, written atomically). Next to it: `<stateFile>.lock` while a sync runs, and
   * `<stateFile>.snapshots/` with the records of each issuer's last complete pass and their mappings.
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
   * keep their previous package and state), each issuer not done gets an `issuer-stopped` event, every
   * result comes in a `sync-stopped` event, and the iteration then throws `DeadlineExceededError`.
   * @default no deadline
   */
  deadlineMs?: number;
  /**
   * The lease of the state's lock and the output folder's, in milliseconds: each is renewed every
   * sixth of it, and a lock of another host not renewed for its lease is taken over (a pod killed and
   * retried under a new host name goes on). See `src/io/lock-file.ts`. @default 60000
   */
  leaseMs?: number;
  /**
   * Called with one line when a lock's renewal fails (it is tried again at the next one; logged as a
   * warning too) or finds the lock taken over by another run. The sync goes on.
   */
  onLockRenewalFailed?: (message: string) => void;
  /**
   * Keep the packages in object storage, under this `s3://BUCKET/PREFIX`: each package is written in
   * `outDir` (then a local working folder), uploaded, committed by its marker object as
   * `export --out s3://` does, and its local copy removed. A package is current when its committed
   * marker is there. Needs the optional package `@aws-sdk/client-s3`.
   * @default packages are kept in `outDir`
   * @example
   * ```ts
   * { url: "s3://my-bucket/ocf" }
   * ```
   */
  s3Out?: ObjectStorageOptions;
  /**
   * Keep the state in object storage, at this `s3://BUCKET/KEY`, and the records it names under
   * `KEY.snapshots/`. `stateFile` is then the local working copy: replaced by the object's state (and
   * the records it names, downloaded) as the sync starts. When the sync ends, the records it stored
   * are uploaded, then the state object is written with `If-Match` on the ETag read (`If-None-Match: *`
   * when there was none): that write commits the sync. A sync stopped before it leaves the previous
   * state; a sync that finds another one committed meanwhile throws `S3RequestError` with code
   * `S3_COMMIT_CONFLICT` (run it again). Its packages are uploaded before the state is written.
   * @default the state is kept in `stateFile`
   * @example
   * ```ts
   * { url: "s3://my-bucket/ocf/sync-state.json" }
   * ```
   */
  s3State?: ObjectStorageOptions;
}

/**
 * Events of a sync, in order.
 *
 * @category Sync
 */
export type SyncEvent =
  /**
   * The state's lock is held (and, when its lock was stale, the output folder's): `tookOver` says which
   * stale lock was taken over and why (a dead owner, a lease run out, an empty or corrupt file), `tookOverFrom` names
   * the dead sync.
   */
  | { type: "lock-acquired"; lockFile: string; tookOverFrom: LockOwner | undefined; tookOver: StaleLock | undefined }
  /**
   * Issuers' entries of the state file that could not be read, set aside (`SyncState.unreadable`): the
   * other issuers go on as the state says, and each issuer named here gets a full pass
   * (`"state-unreadable"`) when it is synced.
   */
  | { type: "state-entries-set-aside"; stateFile: string; entries: UnreadableIssuerState[] }
  /** Previous packages that a killed export or sync had renamed aside were put back. */
  | { type: "packages-recovered"; names: string[] }
  /** A leftover of an interrupted run in the output folder could not be deleted: the sync goes on without it. */
  | { type: "leftover-kept"; path: string; error: FileSystemError }
  /**
   * Files a killed run left were removed: in the state's folders, temporary files and store files no
   * state names; in the output folder, zips and reports beside a newer package folder.
   */
  | { type: "leftovers-removed"; files: string[] }
  | ({ type: "issuer-started"; issuerId: string } & PassPlan)
  | Extract<PullEvent, { type: "page-fetched" | "record-quarantined" }>
  /**
   * One source record the pass created, modified or removed, as the pass stores it: an event per
   * record, every one of them once, before its `records-changed`, in no set order (shard by shard, see
   * `mergeStaged`). The sync keeps none: a consumer that wants every record changed takes it here. A
   * pass stopped before its records are stored (`state-saved` with `stage: "records"`) keeps the
   * previous ones, and its next pass says these changes again.
   */
  | ({ type: "record-changed"; issuerId: string } & RecordChange)
  /**
   * The pull of the issuer is complete: what changed among its source records, in counts and a
   * bounded sample (`RecordChangeSummary`: every change came before as a `record-changed` event).
   * `pages` counts the list requests, `reread` the records pulled that were kept unchanged (the overlap
   * window's re-reads), `unchangedPages` the pages that were byte for byte those of the previous pass,
   * in which nothing had changed either (not parsed: their records were re-read unchanged again). `warnings`: a
   * `DUPLICATE_RECORD` per record listed twice in the pass (the store keeps its most recently modified
   * copy), as `pull` and `export` warn; a package written in the pass has them in its report too.
   */
  | { type: "records-changed"; issuerId: string; pass: "full" | "incremental"; pulled: number; pages: number; reread: number; unchangedPages: number; records: RecordChangeSummary; warnings: SourceWarning[] }
  /**
   * One OCF object the package just written created, changed (with the fields that differ) or removed:
   * an event per object, every one of them once, after the package is in place and before its
   * `package-written`, in no set order (see `diffStoredPackages`). The sync finds them as it goes and
   * keeps none: a consumer that wants every change takes it here (`sync --changes FILE` writes each as
   * a line). An issuer that then fails keeps its previous state, and its next pass says its changes again.
   */
  | ({ type: "object-changed"; issuerId: string } & OcfObjectChange)
  /**
   * The issuer's package was written: what changed among its OCF objects, in counts and a bounded
   * sample (`OcfChangeSummary`: every change came before as an `object-changed` event), and the
   * warnings of its export (as in its report).
   */
  | { type: "package-written"; issuerId: string; folder: string; zip: string | undefined; transactions: number; changes: OcfChangeSummary; warnings: IssuerExport["warnings"] }
  /** The issuer's package was already current (no record changed): it was left as it is. */
  | { type: "package-unchanged"; issuerId: string; folder: string; objects: number }
  /**
   * The state file was written: as a full pass begins (`full-started`, `fullPending`), once the pass's
   * records are stored (`records`: the cursor moved), and once the package is written (`package`).
   */
  | { type: "state-saved"; stateFile: string; issuerId: string; cursor: string | null; fullPending: boolean; stage: "full-started" | "records" | "package" }
  /**
   * The issuer's pass failed. Its package is that of its previous pass; its records are those of its
   * previous pass, or of this one when the failure came after they were stored (`state-saved` with
   * `stage: "records"`), so that the next run does not pull them again.
   */
  | { type: "issuer-failed"; issuerId: string; error: OcfSyncError }
  /**
   * The sync was stopped (its deadline passed, or its `signal` fired) before the issuer's pass ended.
   * As after `issuer-failed`, its package and records are those of its previous pass, or its records
   * those of this one when they were stored first. `error` is why it stopped: a `DeadlineExceededError`
   * for the deadline, else the signal's reason.
   */
  | { type: "issuer-stopped"; issuerId: string; error: unknown }
  /**
   * `s3State`: the state was committed to its object (and the records it names uploaded), just before
   * `sync-done` (or `sync-stopped` when the deadline stopped the sync).
   */
  | { type: "state-committed"; url: string }
  | { type: "sync-done"; results: IssuerSyncResult[] }
  /**
   * The last event of a sync that was stopped (see `issuer-stopped`), instead of `sync-done`: every
   * issuer's result in the order given, each stopped one failed with `error`. The iteration then
   * throws `error`.
   */
  | { type: "sync-stopped"; error: unknown; results: IssuerSyncResult[] };

/**
 * Whether a pass was full or incremental, and why.
 *
 * @category Sync
 */
export type PassPlan =
  | { pass: "full"; reason: FullPassReason }
  | { pass: "incremental"; reason: "incremental"; modifiedAfter: string };

/**
 * The issuer's package after a pass.
 *
 * @category Sync
 */
export interface SyncedPackage {
  /** The folder and zip base name (see `packageNameFor`). */
  name: string;
  folder: string;
  zip: string | undefined;
  /** Whether this pass wrote it; `false` when it was already current. */
  rewritten: boolean;
}

/**
 * The outcome of one issuer's pass.
 *
 * @category Sync
 */
export type IssuerSyncResult =
  | ({
      issuerId: string;
      ok: true;
      /** Records the pull returned. */
      pulled: number;
      /** List requests that returned a page (retries not counted). */
      pages: number;
      /** Records the pull returned that the store already held as they are (the overlap window's re-reads). */
      reread: number;
      /** What changed among its source records: counts and a bounded sample (every change came as a `record-changed` event). */
      records: RecordChangeSummary;
      /** What changed among its OCF objects: counts and a bounded sample (every change came as an `object-changed` event). */
      changes: OcfChangeSummary;
      package: SyncedPackage;
      /** What writing the package produced; `undefined` when it was already current. */
      export: IssuerExport | undefined;
      /** The high-water mark after this pass. */
      cursor: string | null;
    } & PassPlan)
  /**
   * The issuer failed, or the sync was stopped before it was done. The error is always an
   * `OcfSyncError` (switch on its `code`): one that is not ocf-sync's own (a file-system error, a
   * callback that threw) comes with code `UNEXPECTED` and the original as `cause`; a signal's reason
   * that is not one comes as an `ABORTED` error with the reason as `cause`.
   */
  | { issuerId: string; ok: false; error: OcfSyncError };
