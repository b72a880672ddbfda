/**
 * The records a sync keeps of each issuer, in `<state>.snapshots/<package name>/`: every source record
 * of the last complete pass, exactly as the service sent it, with what parsing and mapping made of it,
 * so that a later pass re-maps only the records that changed and writes the package from the rest.
 *
 * Records are spread over shards by a hash of their key (kind and id): a shard holds about 256 records
 * (1 to 256 shards, a power of two, chosen as the issuer grows) in two files, sorted by key:
 *
 * - `<shard>.<generation>.out`: per record a header line part (`RecordHeader`, JSON), a tab, and the
 *   record's mapping (`MappedRecord`, JSON; empty for a record that failed parsing or mapping);
 * - `<shard>.<generation>.raw`: per record, in the same order, the hash of its JSON, a tab, its JSON.
 *
 * A pass rewrites only the shards its changes fall in, under the pass's generation; files are never
 * changed once written, so a change to one record rewrites one 256th of a large issuer, and a pass
 * killed half way leaves only files that no state names (removed by the next run). Beside the shards:
 * `recent.<generation>.json`, the records modified inside the overlap window (what the next pass
 * re-reads), so that re-reading them unchanged costs no shard; and `head.<generation>.json`, the
 * issuer-level objects of the package written from that generation, to tell what changed in the next.
 */
import { createHash } from "node:crypto";
import { mkdir, open, readFile, readdir, rm, rmdir, type FileHandle } from "node:fs/promises";
import pLimit from "p-limit";
import { dirname, join } from "node:path";
import { OcfSyncError } from "../errors.js";
import { writeFileAtomic } from "../io/atomic-file.js";
import { readTextLines, writeTextLines } from "../io/lines.js";
import type { AccumulatedIssuer } from "../mapping/accumulator.js";
import type { SourceWarning } from "../source/errors.js";
import type { RecordKind } from "../source/kinds.js";
import type { RecordChange, RecordRef } from "./record-changes.js";

/** The hash space shards split: a shard is a range of buckets. */
const BUCKETS = 256;
/** The shard size a store aims at. */
const RECORDS_PER_SHARD = 256;
/** Staged lines are appended to their bucket's file once this many characters wait. */
const STAGE_FLUSH_CHARS = 1 << 16;

/** What a store keeps of one record beside its JSON and its mapping. */
export interface RecordHeader {
  k: RecordKind;
  /** The record's id; absent for an invalid record without a usable one. */
  i?: string;
  /** The hash of the record's JSON (`hashRaw`). */
  h: string;
  /** Its `lastModifiedDatetime`, normalized (`YYYY-MM-DDThh:mm:ss.ffffffZ`), or `""`. */
  m: string;
  /** What parsing it raised. */
  w?: SourceWarning[];
  /** Why it has no mapping: it failed the API schema, or the mapping. */
  s?: "invalid" | "unmappable";
}

/** One record of a store. */
export interface StoredRecord {
  key: string;
  header: RecordHeader;
  /**
   * The `MappedRecord` as JSON; `""` when the record failed parsing or mapping, or is not mapped yet.
   * An `"unmappable"` unit holds the shares its settlements delivered (the package keeps them), if any.
   */
  mapped: string;
  /** The record exactly as the service sent it, as JSON. */
  raw: string;
}

/** The store's files: the generation of each shard's files (`0`: an empty shard, no files). */
export type ShardGenerations = readonly number[];

/**
 * Raised for a store file that cannot be read back as written.
 *
 * @category Errors
 */
export class SyncStoreError extends OcfSyncError {
  declare readonly code: "SYNC_STORE_DAMAGED";
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super("SYNC_STORE_DAMAGED", `${message}; delete the folder ${dirname(path)} and the next sync pulls the issuer's records again`, options);
    this.name = "SyncStoreError";
    this.path = path;
  }
}

/** The key of a record: kind and id, or kind and content for a record without an id. */
export function recordKey(kind: RecordKind, id: string | undefined, hash: string): string {
  return id === undefined ? `${kind}\u0000?${hash}` : `${kind}\u0000${id}`;
}

/** The hash of a record's JSON: equal hashes, equal records (as sent). */
export function hashRaw(rawJson: string): string {
  return createHash("sha256").update(rawJson).digest("base64url").slice(0, 22);
}

/** FNV-1a: cheap, and fixed forever (a record's bucket is part of the store's format). */
function bucketOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % BUCKETS;
}

/** The shard count for `records` records: a power of two from 1 to 256. */
export function shardCountFor(records: number): number {
  let count = 1;
  while (count < BUCKETS && count * 2 * RECORDS_PER_SHARD <= records) count *= 2;
  return count;
}

/** The buckets `[from, to)` of shard `shard` of `count`. */
function bucketRange(shard: number, count: number): [number, number] {
  const width = BUCKETS / count;
  return [shard * width, (shard + 1) * width];
}

/** The shard (of `count`) a key belongs to. */
export function shardOf(key: string, count: number): number {
  return Math.floor(bucketOf(key) / (BUCKETS / count));
}

function compareKeys(a: StoredRecord, b: StoredRecord): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

const outName = (shard: number, generation: number): string => `${shard}.${generation}.out`;
const rawName = (shard: number, generation: number): string => `${shard}.${generation}.raw`;
const recentName = (generation: number): string => `recent.${generation}.json`;
const headName = (generation: number): string => `head.${generation}.json`;

/** The names of the files a layout uses. */
export function shardFiles(shards: ShardGenerations): string[] {
  return shards.flatMap((generation, shard) => (generation === 0 ? [] : [outName(shard, generation), rawName(shard, generation)]));
}

export { headName as headFileName, recentName as recentFileName };

function splitOnce(line: string, at: number, path: string): [string, string] {
  const cut = line.indexOf("\t", at);
  if (cut < 0) throw new SyncStoreError(path, `store file ${path} has a line without its tab`);
  return [line.slice(at, cut), line.slice(cut + 1)];
}

function parseHeader(text: string, path: string): RecordHeader {
  try {
    return JSON.parse(text) as RecordHeader;
  } catch (error) {
    throw new SyncStoreError(path, `store file ${path} has a line that is not JSON`, { cause: error });
  }
}

async function readLines(path: string): Promise<string[]> {
  let read: { lines: string[]; complete: boolean };
  try {
    read = await readTextLines(path);
  } catch (error) {
    throw new SyncStoreError(path, `cannot read the store file ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (!read.complete) throw new SyncStoreError(path, `store file ${path} is cut short`);
  return read.lines;
}

/** A shard's records without their JSON (`raw` is `""`): what writing a package and telling changes need. */
export async function readShardMappings(dir: string, shard: number, generation: number): Promise<StoredRecord[]> {
  const path = join(dir, outName(shard, generation));
  return (await readLines(path)).map((line) => {
    const [headerText, mapped] = splitOnce(line, 0, path);
    const header = parseHeader(headerText, path);
    return { key: recordKey(header.k, header.i, header.h), header, mapped, raw: "" };
  });
}

/** A shard's records in full. */
export async function readShard(dir: string, shard: number, generation: number): Promise<StoredRecord[]> {
  const records = await readShardMappings(dir, shard, generation);
  const path = join(dir, rawName(shard, generation));
  const lines = await readLines(path);
  if (lines.length !== records.length) throw new SyncStoreError(path, `store file ${path} does not match its .out file`);
  lines.forEach((line, i) => {
    const record = records[i] as StoredRecord;
    const [hash, raw] = splitOnce(line, 0, path);
    if (hash !== record.header.h) throw new SyncStoreError(path, `store file ${path} does not match its .out file`);
    record.raw = raw;
  });
  return records;
}

/**
 * Writes a shard's two files (records sorted by key), not yet flushed to disk: see `flushToDisk`. Their
 * names are new (the pass's generation), so a file cut short by a crash is one no state names.
 */
async function writeShard(dir: string, shard: number, generation: number, records: readonly StoredRecord[]): Promise<string[]> {
  const out = join(dir, outName(shard, generation));
  const raw = join(dir, rawName(shard, generation));
  await writeTextLines(out, records.map((r) => `${JSON.stringify(r.header)}\t${r.mapped}\n`));
  await writeTextLines(raw, records.map((r) => `${r.header.h}\t${r.raw}\n`));
  return [out, raw];
}

/** Files flushed to disk at the same time: their flushes overlap instead of queueing one by one. */
const FLUSH_CONCURRENCY = 8;

/** Flushes files to disk, several at a time; done before the state names them. */
async function flushToDisk(paths: readonly string[]): Promise<void> {
  const flush = pLimit(FLUSH_CONCURRENCY);
  await Promise.all(
    paths.map((path) =>
      flush(async () => {
        const handle = await open(path, "r+");
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      }),
    ),
  );
}

/** A record line as staged: header, mapping and JSON, tab-separated (JSON never holds a raw tab). */
function stageLine(record: StoredRecord): string {
  return `${JSON.stringify(record.header)}\t${record.mapped}\t${record.raw}\n`;
}

function parseStageLine(line: string, path: string): StoredRecord {
  const [headerText, rest] = splitOnce(line, 0, path);
  const [mapped, raw] = splitOnce(rest, 0, path);
  const header = parseHeader(headerText, path);
  return { key: recordKey(header.k, header.i, header.h), header, mapped, raw };
}

/**
 * The records a pass pulled, spilled to one file per bucket as they arrive (in `.staging/` of the
 * store folder), so that a full pass of any size holds at most `STAGE_FLUSH_CHARS` characters waiting
 * per bucket: 256 buckets of 64K characters, about 16 MB, reached at some 16,000 records and no more after.
 */
export class Staging {
  private readonly dir: string;
  private readonly waiting = new Map<number, string[]>();
  private readonly waitingChars = new Map<number, number>();
  /** Bucket files written to, kept open while records arrive. */
  private readonly files = new Map<number, FileHandle>();
  /** Records staged (a record listed twice counts twice). */
  count = 0;

  private constructor(storeDir: string) {
    this.dir = join(storeDir, ".staging");
  }

  /** The store folder, when `open` made it: removed again when left empty. */
  private madeStoreDir: string | undefined;
  /** Whether the staging folder was made (at the first flush: a pass that stages little never needs it). */
  private madeDir = false;

  static async open(storeDir: string): Promise<Staging> {
    const staging = new Staging(storeDir);
    const first = await mkdir(storeDir, { recursive: true });
    if (first !== undefined) staging.madeStoreDir = storeDir;
    return staging;
  }

  async add(record: StoredRecord): Promise<void> {
    const bucket = bucketOf(record.key);
    const line = stageLine(record);
    const lines = this.waiting.get(bucket) ?? [];
    lines.push(line);
    this.waiting.set(bucket, lines);
    const chars = (this.waitingChars.get(bucket) ?? 0) + line.length;
    this.waitingChars.set(bucket, chars);
    this.count += 1;
    if (chars >= STAGE_FLUSH_CHARS) await this.flush(bucket);
  }

  private async flush(bucket: number): Promise<void> {
    const lines = this.waiting.get(bucket);
    if (lines === undefined || lines.length === 0) return;
    this.waiting.delete(bucket);
    this.waitingChars.delete(bucket);
    let file = this.files.get(bucket);
    if (file === undefined) {
      if (!this.madeDir) {
        // What a killed pass left there is not this pass's.
        await rm(this.dir, { recursive: true, force: true });
        await mkdir(this.dir, { recursive: true });
        this.madeDir = true;
      }
      file = await open(join(this.dir, `${bucket}.stage`), "a");
      this.files.set(bucket, file);
    }
    await file.writeFile(lines.join(""));
  }

  /** The staged records of the buckets `[from, to)`, in the order they were staged. */
  async records(from: number, to: number): Promise<StoredRecord[]> {
    const records: StoredRecord[] = [];
    for (let bucket = from; bucket < to; bucket += 1) {
      if (this.files.has(bucket)) {
        const path = join(this.dir, `${bucket}.stage`);
        for (const line of await readLines(path)) records.push(parseStageLine(line, path));
      }
      for (const line of this.waiting.get(bucket) ?? []) records.push(parseStageLine(line.slice(0, -1), this.dir));
    }
    return records;
  }

  /** Whether any record was staged in the buckets `[from, to)`. */
  has(from: number, to: number): boolean {
    for (let bucket = from; bucket < to; bucket += 1) if (this.files.has(bucket) || this.waiting.has(bucket)) return true;
    return false;
  }

  async remove(): Promise<void> {
    for (const file of this.files.values()) await file.close().catch(() => {});
    this.files.clear();
    if (this.madeDir) await rm(this.dir, { recursive: true, force: true });
    this.madeDir = false;
    // The pass got as far as storing: the store folder is its own now.
    this.madeStoreDir = undefined;
  }

  /**
   * Removes the staged records of a pass that did not finish; a store folder this staging made is
   * removed too when empty (a first pass stopped by a deadline or a signal leaves nothing behind).
   */
  async discard(): Promise<void> {
    const made = this.madeStoreDir;
    await this.remove();
    if (made !== undefined) await rmdir(made).catch(() => {});
  }
}

/** How a pass merges: what its records replace, and how to map those that need it. */
export interface MergeOptions {
  storeDir: string;
  /** The previous layout; `undefined` for a new store. */
  previous: ShardGenerations | undefined;
  /** Records in the previous layout. */
  previousRecords: number;
  /** The shard count of the new layout. */
  shardCount: number;
  generation: number;
  /** A full pass: records of the previous layout that were not pulled are gone. */
  full: boolean;
  /** The previous mappings were made by other code or options: every record is mapped again. */
  remapAll: boolean;
  /** Maps a record whose `mapped` is `""` and which has no `s` flag (or all of them, with `remapAll`). */
  map: (record: StoredRecord) => StoredRecord;
  /** Records modified at or after this (normalized) time go into the recent list. */
  recentFrom: string;
  signal?: AbortSignal;
}

/** What a merge did (the records it created, modified and removed it yielded one by one). */
export interface MergeResult {
  shards: number[];
  /** Shards rewritten. */
  rewritten: number;
  records: number;
  /** Records pulled that the store held as they were. */
  unchangedPulled: number;
  /** `[key, hash, modified]` of the records of rewritten shards modified at or after `recentFrom`. */
  recent: [string, string, string][];
}

function refOf(record: StoredRecord): RecordRef {
  return { kind: record.header.k, id: record.header.i };
}

/** The newest copy of each key, valid or not; of two equally new copies, the later staged. */
function newestCopies(staged: readonly StoredRecord[]): Map<string, StoredRecord> {
  const newest = new Map<string, StoredRecord>();
  for (const record of staged) {
    const prior = newest.get(record.key);
    if (prior === undefined || prior.header.m <= record.header.m) newest.set(record.key, record);
  }
  return newest;
}

/**
 * Merges the staged records into the store: each shard of the new layout is rewritten, under
 * `generation`, when its records change (or all of them, when the layout or the mapping changes). The
 * files written are on disk when it returns.
 *
 * Yields each record created, modified or removed as its shard is merged (shard by shard, in no set
 * order): only a shard's records are compared at a time, so no list of a pass's changes is kept.
 */
export async function* mergeStaged(staging: Staging, options: MergeOptions): AsyncGenerator<RecordChange, MergeResult, undefined> {
  const { storeDir, previous, shardCount, generation, full, remapAll, map, recentFrom, signal } = options;
  const relayout = previous !== undefined && previous.length !== shardCount;
  const result: MergeResult = { shards: [], rewritten: 0, records: 0, unchangedPulled: 0, recent: [] };
  let records = options.previousRecords;
  const written: string[] = [];
  for (let shard = 0; shard < shardCount; shard += 1) {
    signal?.throwIfAborted();
    const [from, to] = bucketRange(shard, shardCount);
    const same = previous !== undefined && !relayout ? (previous[shard] ?? 0) : undefined;
    const untouched = same !== undefined && !full && !remapAll && !staging.has(from, to);
    if (untouched) {
      result.shards.push(same);
      continue;
    }
    const before = new Map<string, StoredRecord>();
    for (const [oldShard, oldGeneration] of (previous ?? []).entries()) {
      if (oldGeneration === 0) continue;
      const [oldFrom, oldTo] = bucketRange(oldShard, previous?.length ?? 1);
      if (oldTo <= from || oldFrom >= to) continue;
      for (const record of await readShard(storeDir, oldShard, oldGeneration)) {
        const bucket = bucketOf(record.key);
        if (bucket >= from && bucket < to) before.set(record.key, record);
      }
    }
    const pulled = newestCopies(await staging.records(from, to));
    const after = new Map<string, StoredRecord>();
    let changed = relayout || remapAll;
    for (const [key, old] of before) {
      if (pulled.has(key)) continue;
      if (full) {
        yield { change: "removed", ...refOf(old) };
        changed = true;
      } else {
        after.set(key, remapAll ? map({ ...old, mapped: "" }) : old);
      }
    }
    for (const [key, record] of pulled) {
      const old = before.get(key);
      if (old !== undefined && old.header.h === record.header.h) result.unchangedPulled += 1;
      if (old !== undefined && old.header.h === record.header.h && !remapAll) {
        after.set(key, old); // re-read unchanged: its mapping is kept
        continue;
      }
      if (old === undefined) yield { change: "created", ...refOf(record) };
      else if (old.header.h !== record.header.h) yield { change: "modified", ...refOf(record) };
      after.set(key, record.mapped === "" && record.header.s === undefined ? map(record) : record);
      changed = true;
    }
    records += after.size - before.size;
    if (!changed) {
      result.shards.push(same ?? 0);
      continue;
    }
    const sorted = [...after.values()].sort(compareKeys);
    if (sorted.length > 0) written.push(...(await writeShard(storeDir, shard, generation, sorted)));
    result.shards.push(sorted.length === 0 ? 0 : generation);
    result.rewritten += 1;
    for (const record of sorted) if (record.header.m >= recentFrom) result.recent.push([record.key, record.header.h, record.header.m]);
  }
  await flushToDisk(written);
  result.records = records;
  return result;
}

/** Reads the recent list; an empty one when `generation` is 0. */
export async function readRecent(storeDir: string, generation: number): Promise<Map<string, { h: string; m: string }>> {
  const recent = new Map<string, { h: string; m: string }>();
  if (generation === 0) return recent;
  const path = join(storeDir, recentName(generation));
  let entries: unknown;
  try {
    entries = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new SyncStoreError(path, `cannot read the store file ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (!Array.isArray(entries)) throw new SyncStoreError(path, `store file ${path} is not a list`);
  for (const [key, h, m] of entries as [string, string, string][]) recent.set(key, { h, m });
  return recent;
}

/** At most this many records are listed as recent: the list only saves reading shards. */
const RECENT_LIMIT = 20_000;

/**
 * Writes the recent list of a new generation: the records of rewritten shards modified at or after
 * `from`, and those of the previous list in shards left as they were.
 */
export async function writeRecent(
  storeDir: string,
  generation: number,
  options: { previous: ReadonlyMap<string, { h: string; m: string }>; rewrittenShards: ReadonlySet<number>; shardCount: number; added: readonly [string, string, string][]; from: string },
): Promise<void> {
  const entries = new Map<string, [string, string, string]>();
  for (const [key, { h, m }] of options.previous) {
    if (m >= options.from && !options.rewrittenShards.has(shardOf(key, options.shardCount))) entries.set(key, [key, h, m]);
  }
  for (const entry of options.added) entries.set(entry[0], entry);
  const kept = [...entries.values()].sort((a, b) => (a[2] > b[2] ? -1 : a[2] < b[2] ? 1 : 0)).slice(0, RECENT_LIMIT);
  await writeFileAtomic(join(storeDir, recentName(generation)), JSON.stringify(kept));
}

/** The issuer-level part of a package written from a store, kept to tell what the next one changes. */
export interface PackageHeadFile {
  issuer: AccumulatedIssuer["issuer"];
  stakeholders: AccumulatedIssuer["stakeholders"];
  stockClasses: AccumulatedIssuer["stockClasses"];
  stockPlans: AccumulatedIssuer["stockPlans"];
  /** Keys of records whose objects were left out (they lost an id collision). */
  withdrawn: string[];
  /** The class stored mappings marked `assumedSettlementClass` were moved to in the package. */
  settlementClass?: AccumulatedIssuer["settlementClass"];
  /** Class ids named two ways → the name stored mappings of them were moved to in the package. */
  classNames?: AccumulatedIssuer["classNames"];
}

export async function writeHead(storeDir: string, generation: number, head: PackageHeadFile): Promise<void> {
  await writeFileAtomic(join(storeDir, headName(generation)), JSON.stringify(head));
}

export async function readHead(storeDir: string, generation: number): Promise<PackageHeadFile> {
  const path = join(storeDir, headName(generation));
  try {
    return JSON.parse(await readFile(path, "utf8")) as PackageHeadFile;
  } catch (error) {
    throw new SyncStoreError(path, `cannot read the store file ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** The entries of a folder; none when it does not exist. */
export async function listFolder(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Removes everything in `dir` but `keep`: files of passes that were superseded or never committed, staging, temporary files. */
export async function removeAllBut(dir: string, keep: ReadonlySet<string>): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await listFolder(dir)) {
    if (keep.has(entry)) continue;
    await rm(join(dir, entry), { recursive: true, force: true });
    removed.push(entry);
  }
  return removed;
}

export { bucketRange };
