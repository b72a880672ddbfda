/**
 * Writes an OCF package to disk, streaming, with memory that does not grow with the number of
 * records: transactions and vesting terms are serialized as the records are mapped and gathered in a
 * bounded buffer; a full buffer is sorted and written to disk as one run (one large write, not one
 * per object); at the end the runs are merged in the canonical order straight into the package
 * files, which are split at `maxFileBytes` (`Transactions.ocf.json`, `Transactions.2.ocf.json`, …).
 * Nothing per record stays in memory: a record replaced by a later copy is left out at the merge by
 * its key, and only keys that were replaced are remembered.
 *
 * The bytes are exactly those of `buildPackageFiles` for the same objects and bound (two-space JSON,
 * final newline, the same splitting), so an export and a golden package can be compared byte for byte.
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, rm, type FileHandle } from "node:fs/promises";
import { fileSystemError } from "../errors.js";
import { BufferedFile, bufferPair, type BufferPair } from "../io/buffered-file.js";
import { join } from "node:path";
import { compareText, transactionKindRank } from "./order.js";
import {
  DEFAULT_MAX_PACKAGE_FILE_BYTES,
  ITEM_SEPARATOR,
  ITEMS_FILE_TAIL,
  ItemsFileSplitter,
  PACKAGE_FILE_NAMES,
  PACKAGE_LISTS,
  buildManifest,
  itemText,
  itemTexts,
  itemsFileHead,
  packageFileName,
  serializeOcfJson,
  type ManifestFileLists,
  type PackageList,
} from "./package-files.js";
import {
  type OcfFileReference,
  type OcfIssuer,
  type OcfManifest,
  type OcfStakeholder,
  type OcfStockClass,
  type OcfStockPlan,
  type OcfTransaction,
  type OcfVestingTerms,
} from "./schemas.js";

/**
 * A file written by the package writer, with the MD5 of its bytes.
 *
 * @category OCF
 */
export interface WrittenPackageFile {
  path: string;
  md5: string;
  bytes: number;
}

/** The objects known only once every record is mapped (all small: one per stakeholder, class, plan). */
export interface PackageHead {
  issuer: OcfIssuer;
  asOf: string;
  stakeholders: readonly OcfStakeholder[];
  stockClasses: readonly OcfStockClass[];
  stockPlans: readonly OcfStockPlan[];
  /** The manifest's first `comments`. */
  manifestComments?: readonly string[];
}

/** Options of `StreamingPackageWriter.open`. */
export interface PackageWriterOptions {
  /** See `PackageFileOptions.maxFileBytes`. @default DEFAULT_MAX_PACKAGE_FILE_BYTES (64 MiB) */
  maxFileBytes?: number;
  /**
   * How many bytes of serialized objects are gathered before they are sorted and written to disk as
   * one run: the bound on the writer's memory.
   * @default DEFAULT_RUN_BYTES (16 MiB)
   */
  runBytes?: number;
}

/** Default of `runBytes`: a few thousand records' objects; the merge then reads each run 256 KiB at a time. */
export const DEFAULT_RUN_BYTES = 16 * 1024 * 1024;

/** What a written package holds. */
export interface FinishedPackage {
  manifest: OcfManifest;
  /** The manifest first, then the files it lists, in manifest order. */
  files: WrittenPackageFile[];
  /** Transactions written (those of replaced and withdrawn records left out). */
  transactions: number;
}

/** Each of the two buffers a file is written through. */
const OUTPUT_BUFFER_BYTES = 1 << 20;

/** Creates the new file `path` to write it; a failure is a `FileSystemError` naming it. */
async function openNew(path: string): Promise<FileHandle> {
  try {
    return await open(path, "wx");
  } catch (error) {
    throw fileSystemError("create", path, error);
  }
}

/** A package file: written through a `BufferedFile`, hashed (MD5) as it goes. */
class HashingFile {
  private readonly hash: Hash = createHash("md5");
  private readonly file: BufferedFile;

  private constructor(
    private readonly handle: FileHandle,
    buffers: BufferPair,
    path: string,
  ) {
    this.file = new BufferedFile(handle, buffers, path, (bytes) => this.hash.update(bytes));
  }

  static async create(path: string, buffers: BufferPair): Promise<HashingFile> {
    return new HashingFile(await openNew(path), buffers, path);
  }

  /** Appends `data`; a promise only when a buffer had to be written out first (see `BufferedFile.write`). */
  write(data: string | Uint8Array): Promise<void> | undefined {
    return this.file.write(data);
  }

  /** Flushes and closes the file; `durable` also makes its bytes durable (fsync) first. */
  async close(durable: boolean): Promise<{ md5: string; bytes: number }> {
    let bytes: number;
    try {
      bytes = await this.file.end();
      if (durable) await this.handle.sync();
    } finally {
      await this.handle.close();
    }
    return { md5: this.hash.digest("hex"), bytes };
  }

  /** Closes the file without finishing it (on an error path), once no write is under way. */
  async abandon(): Promise<void> {
    await this.file.drain().catch(() => {});
    await this.handle.close().catch(() => {});
  }
}

/** One serialized object, with what it sorts by and the record it came from. */
interface Spooled {
  date: string;
  rank: number;
  id: string;
  /** The record's key (see `StreamingPackageWriter.addRecord`). */
  key: string;
  /** The order the record was added in: a copy added before the record was replaced is left out. */
  serial: number;
  /** The object's UTF-8 text (`itemText`). */
  text: Uint8Array;
}

/** A spooled object whose text is still in the sorter's buffer. */
interface Buffered extends Omit<Spooled, "text"> {
  offset: number;
  length: number;
}

/** Canonical order: date, kind, id; the serial settles what only replaced copies could tie on. */
function compareSpooled(a: Omit<Spooled, "text">, b: Omit<Spooled, "text">): number {
  return compareText(a.date, b.date) || a.rank - b.rank || compareText(a.id, b.id) || a.serial - b.serial;
}

/** What the merge of a sorter's runs reads ahead, all runs together. */
const MERGE_READ_BYTES = 8 << 20;

/** Each of the two buffers a run is written through. */
const RUN_WRITE_BYTES = 1 << 20;

/** Fixed part of a run record: serial u32, rank u8, then the byte lengths of date (u16), id, key and text (u32 each). */
const RECORD_HEAD = 4 + 1 + 2 + 4 + 4 + 4;

/**
 * Sorts serialized objects of any total size. Texts go straight into one buffer of `runBytes`
 * outside the JavaScript heap (so they never pile up there for the garbage collector), their sort
 * keys beside it; a full buffer is sorted and written to disk as one run, and the runs are merged at
 * the end. With everything in one buffer, no file is written.
 */
class ExternalSorter {
  /**
   * Where the texts go: `runBytes` from the start when the sorter is `large` (the buffer is only
   * reserved: pages count and cost when first written), else grown up to `runBytes` by doubling (a
   * package with few vesting terms never needs much).
   */
  private bytes: Buffer;
  private used = 0;
  private keys: Buffered[] = [];
  private readonly runs: { path: string; bytes: number }[] = [];
  /** What runs are written through (made with the first run). */
  private runBuffers: BufferPair | undefined;
  private headBuffer: Buffer | undefined;

  constructor(
    private readonly dir: string,
    private readonly name: string,
    private readonly runBytes: number,
    large: boolean,
  ) {
    this.bytes = Buffer.allocUnsafe(large ? runBytes : Math.min(1 << 16, runBytes));
  }

  /** Adds one object; a promise only when a full buffer has to be written first. */
  add(item: Omit<Spooled, "text">, text: string): Promise<void> | undefined {
    const length = Buffer.byteLength(text, "utf8");
    if (this.used + length > this.bytes.length && this.bytes.length < this.runBytes) {
      const larger = Buffer.allocUnsafe(Math.min(this.runBytes, Math.max(this.bytes.length * 2, this.used + length)));
      this.bytes.copy(larger, 0, 0, this.used);
      this.bytes = larger;
    }
    if (length > this.bytes.length || (this.used + length > this.bytes.length && this.keys.length > 0)) return this.addAfterRun(item, text, length);
    this.bytes.write(text, this.used, "utf8");
    this.keys.push({ ...item, offset: this.used, length });
    this.used += length;
    return undefined;
  }

  private async addAfterRun(item: Omit<Spooled, "text">, text: string, length: number): Promise<void> {
    if (this.keys.length > 0) await this.writeRun();
    if (length > this.bytes.length) {
      // An object larger than the whole buffer makes a run of its own.
      this.keys.push({ ...item, offset: 0, length });
      await this.writeRun(Buffer.from(text, "utf8"));
      return;
    }
    this.bytes.write(text, 0, "utf8");
    this.keys.push({ ...item, offset: 0, length });
    this.used = length;
  }

  /** Every object added, in canonical order, those for which `live` is false left out. */
  async *sorted(live: (item: Omit<Spooled, "text">) => boolean): AsyncGenerator<Spooled> {
    if (this.runs.length === 0) {
      for (const key of this.keys.sort(compareSpooled)) {
        if (live(key)) yield { ...key, text: this.bytes.subarray(key.offset, key.offset + key.length) };
      }
      this.keys = [];
      this.used = 0;
      return;
    }
    if (this.keys.length > 0) await this.writeRun();
    // The run buffers are not needed for the merge: let them go before the readers take theirs, whose
    // total is bounded however many runs there are (a run is read 64 KiB to 1 MiB at a time).
    this.bytes = Buffer.alloc(0);
    const readerBytes = Math.max(1 << 16, Math.min(1 << 20, Math.floor(MERGE_READ_BYTES / this.runs.length)));
    const readers: RunReader[] = [];
    try {
      for (const run of this.runs) readers.push(await RunReader.open(join(this.dir, run.path), run.bytes, readerBytes));
      const heap = new MergeHeap();
      for (const reader of readers) {
        const first = await reader.next();
        if (first !== undefined) heap.push({ item: first, reader });
      }
      for (let top = heap.pop(); top !== undefined; top = heap.pop()) {
        if (live(top.item)) yield top.item;
        const next = await top.reader.next();
        if (next !== undefined) heap.push({ item: next, reader: top.reader });
      }
    } finally {
      for (const reader of readers) await reader.close();
    }
  }

  /** Sorts what is buffered and writes it as one run, through the sorter's two write buffers. */
  private async writeRun(alone?: Buffer): Promise<void> {
    const keys = this.keys.sort(compareSpooled);
    const texts = alone ?? this.bytes;
    const path = `.${this.name}.run-${this.runs.length + 1}`;
    const handle = await openNew(join(this.dir, path));
    let bytes: number;
    try {
      this.runBuffers ??= bufferPair(RUN_WRITE_BYTES);
      const file = new BufferedFile(handle, this.runBuffers, join(this.dir, path));
      const head = (this.headBuffer ??= Buffer.allocUnsafe(RUN_WRITE_BYTES));
      for (const key of keys) {
        const dateBytes = Buffer.byteLength(key.date);
        const idBytes = Buffer.byteLength(key.id);
        const keyBytes = Buffer.byteLength(key.key);
        if (RECORD_HEAD + dateBytes + idBytes + keyBytes > head.length) {
          throw new Error("a sort key of the package writer is longer than its write buffer");
        }
        let at = head.writeUInt32LE(key.serial, 0);
        at = head.writeUInt8(key.rank, at);
        at = head.writeUInt16LE(dateBytes, at);
        at = head.writeUInt32LE(idBytes, at);
        at = head.writeUInt32LE(keyBytes, at);
        at = head.writeUInt32LE(key.length, at);
        at += head.write(key.date, at, "utf8");
        at += head.write(key.id, at, "utf8");
        at += head.write(key.key, at, "utf8");
        const wroteHead = file.write(head.subarray(0, at));
        if (wroteHead !== undefined) await wroteHead;
        const wroteText = file.write(texts.subarray(key.offset, key.offset + key.length));
        if (wroteText !== undefined) await wroteText;
      }
      bytes = await file.end();
    } finally {
      await handle.close();
    }
    this.keys = [];
    this.used = 0;
    this.runs.push({ path, bytes });
  }

  /** Deletes the run files. */
  async discard(): Promise<void> {
    this.keys = [];
    this.used = 0;
    for (const run of this.runs.splice(0)) await rm(join(this.dir, run.path), { force: true });
  }
}

/** Reads the records of one run in order, `bufferBytes` at a time. */
class RunReader {
  private buffer: Buffer;
  private start = 0;
  private end = 0;
  private position = 0;

  private constructor(
    private readonly handle: FileHandle,
    private readonly size: number,
    bufferBytes: number,
  ) {
    this.buffer = Buffer.allocUnsafe(bufferBytes);
  }

  static async open(path: string, size: number, bufferBytes: number): Promise<RunReader> {
    return new RunReader(await open(path, "r"), size, bufferBytes);
  }

  async next(): Promise<Spooled | undefined> {
    if (!(await this.ensure(RECORD_HEAD))) return undefined;
    const b = this.buffer;
    const at = this.start;
    const serial = b.readUInt32LE(at);
    const rank = b.readUInt8(at + 4);
    const dateBytes = b.readUInt16LE(at + 5);
    const idBytes = b.readUInt32LE(at + 7);
    const keyBytes = b.readUInt32LE(at + 11);
    const textBytes = b.readUInt32LE(at + 15);
    const length = RECORD_HEAD + dateBytes + idBytes + keyBytes + textBytes;
    if (!(await this.ensure(length))) throw new Error("a spool run of the package writer ended early");
    let from = this.start + RECORD_HEAD;
    const take = (n: number): string => this.buffer.toString("utf8", from, (from += n));
    const date = take(dateBytes);
    const id = take(idBytes);
    const key = take(keyBytes);
    // Not a copy: valid until the next call of next(), which may move the buffer's bytes (the merge
    // hands each object on before it asks its run for the next).
    const text = this.buffer.subarray(from, from + textBytes);
    this.start += length;
    return { date, rank, id, key, serial, text };
  }

  /** Makes `n` bytes from `start` available; false at the end of the run. */
  private async ensure(n: number): Promise<boolean> {
    if (this.end - this.start >= n) return true;
    if (this.end - this.start === 0 && this.position >= this.size) return false;
    if (n > this.buffer.length) {
      const larger = Buffer.allocUnsafe(n);
      this.buffer.copy(larger, 0, this.start, this.end);
      this.buffer = larger;
    } else {
      this.buffer.copy(this.buffer, 0, this.start, this.end);
    }
    this.end -= this.start;
    this.start = 0;
    while (this.end < n && this.position < this.size) {
      const { bytesRead } = await this.handle.read(this.buffer, this.end, Math.min(this.buffer.length - this.end, this.size - this.position), this.position);
      if (bytesRead === 0) break;
      this.end += bytesRead;
      this.position += bytesRead;
    }
    return this.end >= n;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/** A binary min-heap of run heads, by canonical order. */
class MergeHeap {
  private readonly items: { item: Spooled; reader: RunReader }[] = [];

  push(entry: { item: Spooled; reader: RunReader }): void {
    const items = this.items;
    items.push(entry);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (compareSpooled((items[parent] as typeof entry).item, entry.item) <= 0) break;
      items[i] = items[parent] as typeof entry;
      i = parent;
    }
    items[i] = entry;
  }

  pop(): { item: Spooled; reader: RunReader } | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && compareSpooled((items[right] as typeof last).item, (items[left] as typeof last).item) < 0 ? right : left;
      if (compareSpooled((items[child] as typeof last).item, last.item) >= 0) break;
      items[i] = items[child] as typeof last;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

/**
 * Streams one package into `dir` (an empty folder the caller owns, normally a temporary one that is
 * renamed into place afterwards; see `commitPackageFolder`).
 */
/** An object's text with its `stock_class_id` moved, written as `itemText` writes it (keys keep their order). */
function restamped(text: string | Uint8Array, move: { from: string; to: string }): string | Uint8Array {
  const object = JSON.parse(typeof text === "string" ? text : Buffer.from(text.buffer, text.byteOffset, text.length).toString("utf8")) as { stock_class_id?: string };
  if (object.stock_class_id !== move.from) return text;
  object.stock_class_id = move.to;
  return itemText(object);
}

export class StreamingPackageWriter {
  private serial = 0;
  /** Records replaced or withdrawn: key → the serial from which copies count again. */
  private readonly retracted = new Map<string, number>();
  /** What every file is written through, one after another. */
  private readonly output = bufferPair(OUTPUT_BUFFER_BYTES);

  private constructor(
    private readonly dir: string,
    private readonly maxFileBytes: number,
    private readonly transactions: ExternalSorter,
    private readonly vestingTerms: ExternalSorter,
  ) {}

  /** Prepares a writer into `dir` (its spool runs are removed by `finish`). */
  static async open(dir: string, options: PackageWriterOptions = {}): Promise<StreamingPackageWriter> {
    const runBytes = options.runBytes ?? DEFAULT_RUN_BYTES;
    return new StreamingPackageWriter(
      dir,
      options.maxFileBytes ?? DEFAULT_MAX_PACKAGE_FILE_BYTES,
      new ExternalSorter(dir, "transactions", runBytes, true),
      new ExternalSorter(dir, "vesting-terms", runBytes, false),
    );
  }

  /**
   * Adds one record's transactions and vesting terms under `key` (any string naming the source
   * record, e.g. its kind and id). A later `retract(key)` leaves them out.
   */
  async addRecord(key: string, transactions: readonly OcfTransaction[], vestingTerms: readonly OcfVestingTerms[]): Promise<void> {
    const serial = this.serial++;
    const transactionTexts = itemTexts(transactions);
    for (let i = 0; i < transactions.length; i++) {
      const tx = transactions[i] as OcfTransaction;
      const written = this.transactions.add({ date: tx.date, rank: transactionKindRank(tx.object_type), id: tx.id, key, serial }, transactionTexts[i] as string);
      if (written !== undefined) await written;
    }
    const termsTexts = itemTexts(vestingTerms);
    for (let i = 0; i < vestingTerms.length; i++) {
      const written = this.vestingTerms.add({ date: "", rank: 0, id: (vestingTerms[i] as OcfVestingTerms).id, key, serial }, termsTexts[i] as string);
      if (written !== undefined) await written;
    }
  }

  /** Leaves out everything added so far under `key` (a later copy of the record may be added again). */
  retract(key: string): void {
    this.retracted.set(key, this.serial);
  }

  /**
   * Writes every file and the manifest, flushed to disk, and removes the spool. The files are exactly
   * those `buildPackageFiles` would build from the same objects and `maxFileBytes`. With `durable:
   * false` the files are closed without waiting for the disk: the caller then calls `makeDurable` on
   * them before it relies on them (the export does so while it re-reads the package). `restamp` moves
   * the transactions of the records it names from one `stock_class_id` to another (a class chosen
   * once every record was known: `AccumulatedIssuer.restamped`).
   */
  async finish(
    head: PackageHead,
    options: { generatedAt: string; comments?: readonly string[]; durable?: boolean; restamp?: ReadonlyMap<string, { from: string; to: string }> | undefined },
  ): Promise<FinishedPackage> {
    const { restamp } = options;
    // Whether each file is flushed to disk (fsync) as it is closed.
    const durable = options.durable ?? true;
    const files: WrittenPackageFile[] = [];
    const live = (item: Omit<Spooled, "text">): boolean => item.serial >= (this.retracted.get(item.key) ?? 0);
    let transactions = 0;
    const listed = async (list: PackageList, fileType: string, items: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>): Promise<OcfFileReference[]> => {
      const references: OcfFileReference[] = [];
      const splitter = new ItemsFileSplitter(fileType, this.maxFileBytes);
      let file: { path: string; handle: HashingFile } | undefined;
      const close = async (): Promise<void> => {
        if (file === undefined) return;
        await file.handle.write(ITEMS_FILE_TAIL);
        const written = await this.close(file.path, file.handle, durable);
        files.push(written);
        references.push({ filepath: written.path, md5: written.md5 });
        file = undefined;
      };
      try {
        for await (const text of items) {
          const bytes = typeof text === "string" ? Buffer.byteLength(text, "utf8") : text.length;
          if (splitter.next(bytes)) await close();
          let wrote: Promise<void> | undefined;
          if (file === undefined) {
            const path = packageFileName(list, references.length + 1);
            file = { path, handle: await HashingFile.create(join(this.dir, path), this.output) };
            wrote = file.handle.write(itemsFileHead(fileType));
          } else {
            wrote = file.handle.write(ITEM_SEPARATOR);
          }
          if (wrote !== undefined) await wrote;
          // Awaited only when a buffer had to go to disk first: most objects are copied and go on.
          wrote = file.handle.write(text);
          if (wrote !== undefined) await wrote;
        }
        await close();
      } catch (error) {
        await file?.handle.abandon();
        throw error;
      }
      return references;
    };
    const texts = async function* (sorter: ExternalSorter, count: boolean): AsyncGenerator<string | Uint8Array> {
      for await (const item of sorter.sorted(live)) {
        if (count) transactions += 1;
        const move = restamp?.get(item.key);
        yield move === undefined ? item.text : restamped(item.text, move);
      }
    };
    const sources: Record<PackageList, AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>> = {
      stockPlans: head.stockPlans.map(itemText),
      stockClasses: head.stockClasses.map(itemText),
      vestingTerms: texts(this.vestingTerms, false),
      transactions: texts(this.transactions, true),
      stakeholders: head.stakeholders.map(itemText),
    };
    try {
      const lists = {} as ManifestFileLists;
      for (const [list, fileType] of PACKAGE_LISTS) lists[list] = await listed(list, fileType, sources[list]);
      const manifest = buildManifest(head, options, lists);
      const manifestFile = await HashingFile.create(join(this.dir, PACKAGE_FILE_NAMES.manifest), this.output);
      try {
        await manifestFile.write(serializeOcfJson(manifest));
      } catch (error) {
        await manifestFile.abandon();
        throw error;
      }
      const written = await this.close(PACKAGE_FILE_NAMES.manifest, manifestFile, durable);
      return { manifest, files: [written, ...files], transactions };
    } finally {
      await this.discardSpools();
    }
  }

  private async close(path: string, file: HashingFile, durable: boolean): Promise<WrittenPackageFile> {
    const { md5, bytes } = await file.close(durable);
    return { path, md5, bytes };
  }

  /** Deletes the spool runs (also on failure). */
  async discardSpools(): Promise<void> {
    await this.transactions.discard();
    await this.vestingTerms.discard();
  }
}

/**
 * Makes the bytes of files already written and closed durable: each is opened again and flushed to
 * disk (fsync applies to the file, whichever descriptor asks), all at once. Never rejects: resolves to
 * the first error, if any, once every file is done (so that nothing holds a file open after it).
 */
export async function makeDurable(dir: string, files: readonly { path: string }[]): Promise<unknown> {
  const results = await Promise.allSettled(
    files.map(async ({ path }) => {
      const handle = await open(join(dir, path), "r+");
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }),
  );
  return results.find((r): r is PromiseRejectedResult => r.status === "rejected")?.reason;
}

/** Streams a file's bytes, for the zip writer. */
export function readFileChunks(path: string): AsyncIterable<Buffer> {
  return createReadStream(path, { highWaterMark: 1 << 16 });
}
