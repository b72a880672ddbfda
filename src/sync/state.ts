/**
 * The sync state: one JSON file, written atomically, holding per issuer the cursor of its last complete
 * pass and the name of the snapshot of the records that pass ended with. The snapshots (NDJSON of the
 * raw records, `src/pull/ndjson.ts` lines) live in `<state>.snapshots/`, never inside a package folder:
 * an OCF package cannot be mapped back to the records, and an incremental pass must re-map the
 * unchanged records together with the changed ones.
 *
 * The state file is the commit point of an issuer's pass: a snapshot is written under a new name
 * (`<package name>.<generation>.ndjson`) first, and only the state names it. A pass killed before the
 * state is saved leaves the previous state, which names the previous snapshot.
 */
import { createReadStream } from "node:fs";
import { mkdir, readFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { OcfSyncError } from "../errors.js";
import { createAtomicWriteStream, writeFileAtomic } from "../io/atomic-file.js";
import { packageNameFor } from "../ocf/package-folder.js";
import type { NdjsonRecordLine } from "../pull/ndjson.js";
import { RECORD_KINDS, type RecordKind } from "../source/kinds.js";

/** Why an issuer's pass pulls everything. */
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
  /** The snapshot the state names is gone. */
  | "snapshot-missing";

/** What the state keeps of one issuer. */
export interface IssuerSyncState {
  issuerId: string;
  /**
   * The high-water mark: the latest `lastModifiedDatetime` seen by the complete passes so far
   * (`YYYY-MM-DDThh:mm:ss.ffffffZ`), or `null` when no record had one.
   */
  cursor: string | null;
  /** The snapshot file (in the snapshot folder) of the records as of the last complete pass. */
  snapshot: string;
  /** Counts the issuer's complete passes; names the next snapshot. */
  generation: number;
  /** Source records in the snapshot. */
  records: number;
  /** Incremental passes since the last full one. */
  incrementalSinceFull: number;
  lastPass: "full" | "incremental";
  /** When the last complete pass ended (RFC 3339 UTC). */
  syncedAt: string;
  /** Set when a full pass starts and cleared when one completes: a killed full pass is redone. */
  fullPending?: boolean;
}

/** The whole state file. */
export interface SyncState {
  version: 1;
  issuers: IssuerSyncState[];
}

const IssuerSyncStateSchema = z.strictObject({
  issuerId: z.string().min(1),
  cursor: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/).nullable(),
  snapshot: z.string().regex(/^[a-z0-9][a-z0-9_.-]*\.\d+\.ndjson$/),
  generation: z.int().min(1),
  records: z.int().min(0),
  incrementalSinceFull: z.int().min(0),
  lastPass: z.enum(["full", "incremental"]),
  syncedAt: z.string(),
  fullPending: z.boolean().optional(),
});

const SyncStateSchema = z.strictObject({ version: z.literal(1), issuers: z.array(IssuerSyncStateSchema) });

/** The state file or a snapshot cannot be used; it is left as it is. */
export class SyncStateError extends OcfSyncError {
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super("SYNC_STATE_INVALID", message, options);
    this.name = "SyncStateError";
    this.path = path;
  }
}

/** The folder of the snapshots that belong to `stateFile`. */
export function snapshotFolderOf(stateFile: string): string {
  return `${stateFile}.snapshots`;
}

/** Reads the state file; a missing file is an empty state. @throws {SyncStateError} when it is not a state file */
export async function readSyncState(stateFile: string, options: { signal?: AbortSignal } = {}): Promise<SyncState> {
  options.signal?.throwIfAborted();
  let text: string;
  try {
    text = await readFile(stateFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, issuers: [] };
    throw new SyncStateError(stateFile, `cannot read the sync state ${stateFile}: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SyncStateError(stateFile, `the sync state ${stateFile} is not JSON (${(error as Error).message}); it was left as it is`, { cause: error });
  }
  const parsed = SyncStateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SyncStateError(
      stateFile,
      `the sync state ${stateFile} is not a state file of this version of ocf-sync (at ${issue?.path.join(".") || "the top"}: ${issue?.message ?? "invalid"}); it was left as it is`,
    );
  }
  const seen = new Set<string>();
  for (const issuer of parsed.data.issuers) {
    if (seen.has(issuer.issuerId)) throw new SyncStateError(stateFile, `the sync state ${stateFile} lists issuer ${JSON.stringify(issuer.issuerId)} twice`);
    seen.add(issuer.issuerId);
  }
  return parsed.data as SyncState;
}

/** Writes the state file atomically (a reader sees the previous state or this one, never a mix). */
export async function writeSyncState(stateFile: string, state: SyncState, options: { signal?: AbortSignal } = {}): Promise<void> {
  options.signal?.throwIfAborted();
  const sorted: SyncState = { version: 1, issuers: [...state.issuers].sort((a, b) => (a.issuerId < b.issuerId ? -1 : a.issuerId > b.issuerId ? 1 : 0)) };
  await writeFileAtomic(stateFile, `${JSON.stringify(sorted, null, 2)}\n`);
}

/** A source record as a snapshot keeps it: exactly as the service sent it. */
export interface SnapshotRecord {
  kind: RecordKind;
  /** The record's id; `undefined` for a quarantined record without a usable id. */
  id: string | undefined;
  raw: unknown;
}

/** The snapshot file name of an issuer's `generation`-th pass (`packageNameFor` keeps it a safe name). */
export function snapshotNameFor(issuerId: string, generation: number): string {
  return `${packageNameFor(issuerId)}.${generation}.ndjson`;
}

/** Writes a snapshot atomically, one NDJSON line per record. */
export async function writeSnapshot(
  folder: string,
  name: string,
  issuerId: string,
  records: Iterable<SnapshotRecord>,
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  options.signal?.throwIfAborted();
  await mkdir(folder, { recursive: true });
  const output = createAtomicWriteStream(join(folder, name));
  try {
    for (const { kind, id, raw } of records) {
      options.signal?.throwIfAborted();
      const line: NdjsonRecordLine = { kind, issuerId, id, record: raw };
      await output.write(`${JSON.stringify(line)}\n`);
    }
    await output.commit();
  } catch (error) {
    await output.abort();
    throw error;
  }
}

/**
 * Reads a snapshot; `undefined` when the file does not exist.
 * @throws {SyncStateError} for a line that is not a snapshot record of `issuerId`
 */
export async function readSnapshot(folder: string, name: string, issuerId: string, options: { signal?: AbortSignal } = {}): Promise<SnapshotRecord[] | undefined> {
  const path = join(folder, name);
  const records: SnapshotRecord[] = [];
  const input = createReadStream(path, { encoding: "utf8" });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      options.signal?.throwIfAborted();
      lineNumber += 1;
      if (line === "") continue;
      let parsed: Partial<NdjsonRecordLine>;
      try {
        parsed = JSON.parse(line) as Partial<NdjsonRecordLine>;
      } catch (error) {
        throw new SyncStateError(path, `snapshot ${path} line ${lineNumber} is not JSON: ${(error as Error).message}`, { cause: error });
      }
      if (
        typeof parsed !== "object" ||
        parsed === null ||
        !RECORD_KINDS.includes(parsed.kind as RecordKind) ||
        parsed.issuerId !== issuerId ||
        !(parsed.id === undefined || typeof parsed.id === "string") ||
        !("record" in parsed)
      ) {
        throw new SyncStateError(path, `snapshot ${path} line ${lineNumber} is not a record of issuer ${JSON.stringify(issuerId)}`);
      }
      records.push({ kind: parsed.kind as RecordKind, id: parsed.id, raw: parsed.record });
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  } finally {
    lines.close();
    input.destroy();
  }
  return records;
}

/**
 * Deletes the snapshots of `issuerId` other than `keep`: those of earlier passes, and those a killed
 * pass wrote but never named in the state.
 */
export async function removeOtherSnapshots(folder: string, issuerId: string, keep: string, options: { signal?: AbortSignal } = {}): Promise<void> {
  options.signal?.throwIfAborted();
  const name = packageNameFor(issuerId);
  let entries: string[];
  try {
    entries = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  for (const entry of entries) {
    if (entry === keep || !entry.startsWith(`${name}.`)) continue;
    // `\d+` cannot hold a dot, so the snapshots of issuer "x" never match those of "x.<hash>".
    if (/^\d+\.ndjson$/.test(entry.slice(name.length + 1))) await rm(join(folder, entry), { force: true });
  }
}
