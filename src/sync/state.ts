/**
 * The sync state: one JSON file, written atomically, holding per issuer the cursor of its last complete
 * pass, the files of the records it keeps (`store.ts`, in `<state>.snapshots/<package name>/`) and
 * what its package was last written from. The state file is the commit point: files are written under
 * new names first and only the state names them, so a pass killed before the state is saved leaves the
 * previous state, which names the previous files (and the next run removes the others).
 *
 * A pass commits twice: once its records are stored (the cursor moves; the package is now behind), and
 * once the package is written from them. A pass that fails in between keeps what it pulled: the next
 * run pulls only what changed since, and writes the package.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { OcfSyncError, fileSystemError } from "../errors.js";
import { writeFileAtomic } from "../io/atomic-file.js";

/**
 * Why an issuer's pass pulls everything.
 *
 * @category Sync
 */
export type FullPassReason =
  /** The state knows nothing of the issuer yet. */
  | "first-run"
  /** `full: true` was asked for. */
  | "requested"
  /** The `fullEvery`-th pass since the last full one. */
  | "periodic"
  /** A full pass was started and did not finish; it is redone. */
  | "interrupted-full"
  /** The previous pass saw no record with a modification time, so there is no cursor to filter by. */
  | "no-cursor"
  /** The records the state names are gone (or damaged). */
  | "snapshot-missing"
  /** The state was written by an earlier version of ocf-sync, which kept records another way. */
  | "state-upgraded"
  /** The issuer's entry in the state file could not be read; it was set aside (`SyncState.unreadable`). */
  | "state-unreadable";

/**
 * The records a sync keeps of an issuer: the generation of each shard's files, and of the recent list.
 *
 * @category Sync
 */
export interface IssuerStore {
  /** Per shard, the generation of its files; `0` for an empty shard. The length is the shard count. */
  shards: number[];
  /** The generation of the recent list; `0`: none. */
  recent: number;
  /** The mapping code and options the stored mappings were made with (a digest). */
  mapping: string;
  /**
   * The names the issuer's awards give share class ids (`shareClassId` → `shareClassName`), as the
   * stored units were mapped with: a unit delivers the class an award names (mapping/share-classes.ts).
   */
  classNames?: Record<string, string>;
  /**
   * Per class id of `classNames`, an award that gives it that name (its record id): when that award
   * no longer does, another one is looked for (`class-names.ts`). Absent in a state of an earlier version.
   */
  classNamedBy?: Record<string, string>;
}

/**
 * The package as last written from the store.
 *
 * @category Sync
 */
export interface IssuerPackageState {
  /** The store generation it was written from (also that of its head file). */
  generation: number;
  /** The store's shards then: the change set of the next package is taken against them. */
  shards: number[];
  /** The options it was written with (a digest): other options write it again. */
  build: string;
  /** Where it was written. */
  folder: string;
  zip: string | null;
  /** OCF objects in it (the issuer, stakeholders, classes, plans, vesting terms, transactions). */
  objects: number;
}

/**
 * What the state keeps of one issuer.
 *
 * @category Sync
 */
export interface IssuerSyncState {
  issuerId: string;
  /**
   * The high-water mark: the latest `lastModifiedDatetime` seen by the complete passes so far
   * (`YYYY-MM-DDThh:mm:ss.ffffffZ`), or `null` when no record had one.
   */
  cursor: string | null;
  /** Counts the passes that stored records; names their files. */
  generation: number;
  /** Source records kept. */
  records: number;
  /** Incremental passes since the last full one. */
  incrementalSinceFull: number;
  lastPass: "full" | "incremental";
  /** When the last complete pass ended (RFC 3339 UTC). */
  syncedAt: string;
  /** Set when a full pass starts and cleared when one completes: a killed full pass is redone. */
  fullPending?: boolean;
  /** The records kept; absent in a state of an earlier version (the next pass is full). */
  store?: IssuerStore;
  /** The package as last written; absent before the first one, and when it is behind `generation`. */
  package?: IssuerPackageState;
  /**
   * The pages of the last pass, when it was incremental and every record it pulled was one the store
   * held as it was: `[digest, records, nextPageToken]`, the digest being of the page's bytes. The next pass does not
   * parse a page whose bytes are the same again: its records are still held as they are.
   */
  unchangedPages?: UnchangedPage[];
}

/**
 * A page of which the store holds every record as it is: its digest, its record count, the token after it.
 *
 * @category Sync
 */
export type UnchangedPage = [digest: string, records: number, nextPageToken: string | null];

/** At most this many pages are kept as unchanged: what an overlap window usually spans, many times over. */
export const UNCHANGED_PAGES_LIMIT = 64;

/**
 * An issuer's entry of the state file that could not be read.
 *
 * @category Sync
 */
export interface UnreadableIssuerState {
  /** The issuer it names, when that much can be read. */
  issuerId: string | undefined;
  /** What is wrong with it, naming where. */
  problem: string;
}

/**
 * The whole state file.
 *
 * @category Sync
 */
export interface SyncState {
  version: 2;
  issuers: IssuerSyncState[];
  /**
   * Entries of the file that could not be read, set aside when it was read: one issuer's damaged entry
   * never stops the others. Such an issuer's next pass is a full one (`"state-unreadable"`); the
   * entries are not written back.
   */
  unreadable?: UnreadableIssuerState[];
}

const generation = z.int().min(0);
/**
 * Class id → class name (or award id): any strings, as the pass writes any the mapping takes (issue 25,
 * item 1: a narrower reader refused what the writer wrote, and so every later sync). Kept as parsed,
 * not copied key by key: a copy would lose an id such as `"__proto__"`.
 */
const stringsSchema = z.custom<Record<string, string>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((name) => typeof name === "string"),
  "is not an object of strings",
);
const digest = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

const IssuerSyncStateSchema = z.strictObject({
  issuerId: z.string().min(1),
  cursor: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/).nullable(),
  generation,
  records: z.int().min(0),
  incrementalSinceFull: z.int().min(0),
  lastPass: z.enum(["full", "incremental"]),
  syncedAt: z.string(),
  fullPending: z.boolean().optional(),
  store: z
    .strictObject({
      shards: z.array(generation).min(1).max(256),
      recent: generation,
      mapping: digest,
      classNames: stringsSchema.optional(),
      classNamedBy: stringsSchema.optional(),
    })
    .optional(),
  package: z
    .strictObject({
      generation,
      shards: z.array(generation).min(1).max(256),
      build: digest,
      folder: z.string().min(1),
      zip: z.string().min(1).nullable(),
      objects: z.int().min(0),
    })
    .optional(),
  unchangedPages: z.array(z.tuple([digest, z.int().min(0), z.string().nullable()])).max(UNCHANGED_PAGES_LIMIT).optional(),
});

/** The file's frame; each issuer's entry is read on its own (`readIssuerEntry`). */
const SyncStateFrameSchema = z.strictObject({ version: z.union([z.literal(1), z.literal(2)]), issuers: z.array(z.unknown()) });

/** A state of version 1: a snapshot file per issuer. Read to keep the cursors; its records are pulled again. */
const V1IssuerSchema = z.strictObject({
  issuerId: z.string().min(1),
  cursor: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/).nullable(),
  snapshot: z.string(),
  generation: z.int().min(1),
  records: z.int().min(0),
  incrementalSinceFull: z.int().min(0),
  lastPass: z.enum(["full", "incremental"]),
  syncedAt: z.string(),
  fullPending: z.boolean().optional(),
});

/** What to do about a state file that cannot be used; every {@link SyncStateError}'s message ends with it. */
export const SYNC_STATE_RECOVERY_ADVICE = "To start afresh, move the state file away or delete it: the next sync is then a full pass of every issuer";

/**
 * The state file cannot be used; it is left as it is. The message says what is wrong with it and ends
 * with how to recover (move the state file away or delete it: the next sync is a full pass).
 *
 * @category Errors
 */
export class SyncStateError extends OcfSyncError {
  declare readonly code: "SYNC_STATE_INVALID";
  /** The state file. */
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super("SYNC_STATE_INVALID", `${message}. ${SYNC_STATE_RECOVERY_ADVICE}`, options);
    this.name = "SyncStateError";
    this.path = path;
  }
}

/** The folder of the snapshots that belong to `stateFile`. */
export function snapshotFolderOf(stateFile: string): string {
  return `${stateFile}.snapshots`;
}

/**
 * Reads the state file; a missing file is an empty state. Each issuer's entry is read on its own: one
 * that cannot be read (or an issuer listed twice) is set aside in `unreadable`, and the rest is used.
 * @throws {SyncStateError} when the file as a whole is not a state file (not JSON, another version);
 *   {FileSystemError} when it cannot be read (permission denied, a folder, a link loop, …), which says
 *   nothing of its content
 *
 * @category Sync
 */
export async function readSyncState(stateFile: string, options: { signal?: AbortSignal } = {}): Promise<SyncState> {
  options.signal?.throwIfAborted();
  let text: string;
  try {
    text = await readFile(stateFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 2, issuers: [] };
    // Unreadable is not invalid: the file may be a good state behind a permission, a link loop or a
    // failing disk, and deleting it (the advice for an invalid state) would throw that state away.
    throw fileSystemError("read the sync state", stateFile, error);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SyncStateError(stateFile, `the sync state ${stateFile} is not JSON (${(error as Error).message}); it was left as it is`, { cause: error });
  }
  // Parsed once a run: zod's compiled fast path would cost more to compile than it saves (jitless).
  const once = { jitless: true };
  const frame = SyncStateFrameSchema.safeParse(json, once);
  if (!frame.success) {
    const issue = frame.error.issues[0];
    throw new SyncStateError(
      stateFile,
      `the sync state ${stateFile} is not a state file of this version of ocf-sync (at ${issue?.path.join(".") || "the top"}: ${issue?.message ?? "invalid"}); it was left as it is`,
    );
  }
  // Each issuer's entry on its own: one that cannot be read is set aside, and only its issuer is
  // synced afresh (a full pass); the others go on as the file says.
  const read = frame.data.issuers.map((entry, index) => readIssuerEntry(entry, index, frame.data.version, once));
  const counts = new Map<string, number>();
  for (const entry of read) if (entry.issuerId !== undefined) counts.set(entry.issuerId, (counts.get(entry.issuerId) ?? 0) + 1);
  const state: SyncState = { version: 2, issuers: [] };
  const unreadable: UnreadableIssuerState[] = [];
  for (const entry of read) {
    const { issuerId } = entry;
    // Listed twice: neither entry can be told to be the right one.
    if (issuerId !== undefined && (counts.get(issuerId) ?? 0) > 1) {
      if (!unreadable.some((u) => u.issuerId === issuerId)) unreadable.push({ issuerId, problem: `issuer ${JSON.stringify(issuerId)} is listed more than once` });
    } else if (entry.state === undefined) {
      unreadable.push({ issuerId, problem: entry.problem });
    } else {
      state.issuers.push(entry.state);
    }
  }
  if (unreadable.length > 0) state.unreadable = unreadable;
  return state;
}

/** One issuer's entry of the state file: its state, or what is wrong with it (and its issuer, when readable). */
function readIssuerEntry(
  entry: unknown,
  index: number,
  version: 1 | 2,
  once: { jitless: boolean },
): { issuerId: string | undefined; state: IssuerSyncState; problem?: undefined } | { issuerId: string | undefined; state?: undefined; problem: string } {
  const named = typeof entry === "object" && entry !== null ? (entry as { issuerId?: unknown }).issuerId : undefined;
  const issuerId = typeof named === "string" && named !== "" ? named : undefined;
  // A state of version 1 keeps its cursors and counts; without a store, each issuer's next pass is full.
  const earlier = version === 1 ? V1IssuerSchema.safeParse(entry, once) : undefined;
  const parsed =
    earlier === undefined
      ? IssuerSyncStateSchema.safeParse(entry, once)
      : earlier.success
        ? IssuerSyncStateSchema.safeParse((({ snapshot: _snapshot, ...rest }) => rest)(earlier.data), once)
        : earlier;
  if (parsed.success) return { issuerId, state: parsed.data as IssuerSyncState };
  const issue = parsed.error.issues[0];
  return { issuerId, problem: `at issuers.${[index, ...(issue?.path ?? [])].join(".")}: ${issue?.message ?? "invalid"}` };
}

/** Writes the state file atomically (a reader sees the previous state or this one, never a mix); one issuer a line. */
export async function writeSyncState(stateFile: string, state: SyncState, options: { signal?: AbortSignal } = {}): Promise<void> {
  options.signal?.throwIfAborted();
  const issuers = [...state.issuers].sort((a, b) => (a.issuerId < b.issuerId ? -1 : a.issuerId > b.issuerId ? 1 : 0));
  const lines = issuers.map((issuer) => `    ${JSON.stringify(issuer)}`);
  await writeFileAtomic(stateFile, `{\n  "version": 2,\n  "issuers": [${lines.length === 0 ? "" : `\n${lines.join(",\n")}\n  `}]\n}\n`);
}
