/**
 * Writes an OCF package to disk, streaming: transactions and vesting terms go to a spool file as the
 * records are mapped, with only their sort keys kept in memory, and the package files are written from
 * the spool in the canonical order at the end. Memory grows with the largest record, not with the
 * number of records (plus a few dozen bytes of sort key per transaction).
 *
 * The bytes are exactly those of `buildPackageFiles` for the same objects (two-space JSON, final
 * newline), so an export and a golden package can be compared byte for byte.
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { compareText, TRANSACTION_KIND_ORDER } from "../mapping/order.js";
import { PACKAGE_FILE_NAMES, buildManifest, serializeOcfJson } from "./package-files.js";
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

const KIND_RANK: ReadonlyMap<string, number> = new Map(TRANSACTION_KIND_ORDER.map((kind, rank) => [kind, rank]));

/** Where one spooled object lives, and what it sorts by. */
interface SpoolEntry {
  date: string;
  rank: number;
  id: string;
  offset: number;
  length: number;
  /** Set when a later copy of the same source record replaced it. */
  dead?: true;
}

function compareEntries(a: SpoolEntry, b: SpoolEntry): number {
  return compareText(a.date, b.date) || a.rank - b.rank || compareText(a.id, b.id);
}

/** A file written by the package writer, with the MD5 of its bytes. */
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

/** Indents every line but the first of a pretty-printed JSON value, to nest it in `items`. */
function nested(json: string): string {
  return `    ${json.replaceAll("\n", "\n    ")}`;
}

/** Writes all of `buffer` at `position`, however many calls the file system needs (a short write is not an error). */
async function writeAll(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, done, buffer.length - done, position + done);
    if (bytesWritten === 0) throw new Error("the file system accepted no bytes (disk full?)");
    done += bytesWritten;
  }
}

/** Appends text to a file, hashing it; returns the bytes written. */
class HashingFile {
  private readonly hash: Hash = createHash("md5");
  private position = 0;
  private pending: string[] = [];
  private pendingBytes = 0;
  private constructor(private readonly handle: FileHandle) {}

  static async create(path: string): Promise<HashingFile> {
    return new HashingFile(await open(path, "wx"));
  }

  async write(text: string): Promise<void> {
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (this.pendingBytes >= 1 << 16) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const buffer = Buffer.from(this.pending.join(""), "utf8");
    this.pending = [];
    this.pendingBytes = 0;
    this.hash.update(buffer);
    await writeAll(this.handle, buffer, this.position);
    this.position += buffer.length;
  }

  async close(): Promise<{ md5: string; bytes: number }> {
    try {
      await this.flush();
      await this.handle.sync();
    } finally {
      await this.handle.close();
    }
    return { md5: this.hash.digest("hex"), bytes: this.position };
  }

  /** Closes the file without finishing it (on an error path). */
  async abandon(): Promise<void> {
    await this.handle.close().catch(() => {});
  }
}

/** The spool: an append-only file of pretty-printed objects plus their keys in memory. */
class Spool {
  readonly entries: SpoolEntry[] = [];
  private position = 0;
  private constructor(private readonly handle: FileHandle) {}

  static async create(path: string): Promise<Spool> {
    return new Spool(await open(path, "w+"));
  }

  async add(object: { id: string; object_type: string; date?: string }): Promise<SpoolEntry> {
    const buffer = Buffer.from(nested(JSON.stringify(object, null, 2)), "utf8");
    await writeAll(this.handle, buffer, this.position);
    const entry: SpoolEntry = {
      date: object.date ?? "",
      rank: KIND_RANK.get(object.object_type) ?? TRANSACTION_KIND_ORDER.length,
      id: object.id,
      offset: this.position,
      length: buffer.length,
    };
    this.position += buffer.length;
    this.entries.push(entry);
    return entry;
  }

  async read(entry: SpoolEntry): Promise<string> {
    const buffer = Buffer.allocUnsafe(entry.length);
    let done = 0;
    while (done < entry.length) {
      const { bytesRead } = await this.handle.read(buffer, done, entry.length - done, entry.offset + done);
      if (bytesRead === 0) throw new Error("the spool file ended early");
      done += bytesRead;
    }
    return buffer.toString("utf8");
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/**
 * Streams one package into `dir` (an empty folder the caller owns, normally a temporary one that is
 * renamed into place afterwards; see `commitPackageFolder`).
 */
export class StreamingPackageWriter {
  private constructor(
    private readonly dir: string,
    private readonly transactions: Spool,
    private readonly vestingTerms: Spool,
  ) {}

  /** Opens the spools inside `dir` (they are removed by `finish`). */
  static async open(dir: string): Promise<StreamingPackageWriter> {
    const transactions = await Spool.create(join(dir, ".transactions.spool"));
    try {
      return new StreamingPackageWriter(dir, transactions, await Spool.create(join(dir, ".vesting-terms.spool")));
    } catch (error) {
      await transactions.close().catch(() => {});
      throw error;
    }
  }

  /**
   * Adds one record's transactions and vesting terms. Returns a handle that `retract` takes, for when
   * a later copy of the same source record replaces this one.
   */
  async addRecord(transactions: readonly OcfTransaction[], vestingTerms: readonly OcfVestingTerms[]): Promise<SpoolEntry[]> {
    const added: SpoolEntry[] = [];
    for (const tx of transactions) added.push(await this.transactions.add(tx));
    for (const terms of vestingTerms) added.push(await this.vestingTerms.add(terms));
    return added;
  }

  /** Leaves a previously added record out of the package. */
  retract(entries: readonly SpoolEntry[]): void {
    for (const entry of entries) entry.dead = true;
  }

  /** Number of transactions spooled and still live. */
  get transactionCount(): number {
    return this.transactions.entries.filter((e) => e.dead !== true).length;
  }

  /**
   * Writes every file and the manifest, flushed to disk, and removes the spools. The files are exactly
   * those `buildPackageFiles` would build from the same objects.
   */
  async finish(head: PackageHead, options: { generatedAt: string; comments?: readonly string[] }): Promise<{ manifest: OcfManifest; files: WrittenPackageFile[] }> {
    const files: WrittenPackageFile[] = [];
    const listed = async (path: string, fill: (file: HashingFile) => Promise<void>): Promise<OcfFileReference[]> => {
      const written = await this.writeFile(path, fill);
      files.push(written);
      return [{ filepath: path, md5: written.md5 }];
    };
    const small = async (path: string, fileType: string, items: readonly unknown[]): Promise<OcfFileReference[]> =>
      items.length === 0 ? [] : listed(path, (file) => file.write(serializeOcfJson({ file_type: fileType, items })));
    const spooled = async (path: string, fileType: string, spool: Spool, sort: (a: SpoolEntry, b: SpoolEntry) => number): Promise<OcfFileReference[]> => {
      const live = spool.entries.filter((e) => e.dead !== true).sort(sort);
      if (live.length === 0) return [];
      return listed(path, async (file) => {
        await file.write(`{\n  "file_type": ${JSON.stringify(fileType)},\n  "items": [\n`);
        for (let i = 0; i < live.length; i++) {
          await file.write(await spool.read(live[i] as SpoolEntry));
          await file.write(i === live.length - 1 ? "\n" : ",\n");
        }
        await file.write("  ]\n}\n");
      });
    };
    try {
      const stockPlansFiles = await small(PACKAGE_FILE_NAMES.stockPlans, "OCF_STOCK_PLANS_FILE", head.stockPlans);
      const stockClassesFiles = await small(PACKAGE_FILE_NAMES.stockClasses, "OCF_STOCK_CLASSES_FILE", head.stockClasses);
      const vestingTermsFiles = await spooled(PACKAGE_FILE_NAMES.vestingTerms, "OCF_VESTING_TERMS_FILE", this.vestingTerms, (a, b) => compareText(a.id, b.id));
      const transactionsFiles = await spooled(PACKAGE_FILE_NAMES.transactions, "OCF_TRANSACTIONS_FILE", this.transactions, compareEntries);
      const stakeholdersFiles = await small(PACKAGE_FILE_NAMES.stakeholders, "OCF_STAKEHOLDERS_FILE", head.stakeholders);
      const manifest = buildManifest(head, options, {
        stockPlans: stockPlansFiles,
        stockClasses: stockClassesFiles,
        vestingTerms: vestingTermsFiles,
        transactions: transactionsFiles,
        stakeholders: stakeholdersFiles,
      });
      const written = await this.writeFile(PACKAGE_FILE_NAMES.manifest, (file) => file.write(serializeOcfJson(manifest)));
      return { manifest, files: [written, ...files] };
    } finally {
      await this.discardSpools();
    }
  }

  /** Writes one file of the package, flushed to disk, with its md5; closes it on failure too. */
  private async writeFile(path: string, fill: (file: HashingFile) => Promise<void>): Promise<WrittenPackageFile> {
    const file = await HashingFile.create(join(this.dir, path));
    try {
      await fill(file);
    } catch (error) {
      await file.abandon();
      throw error;
    }
    const { md5, bytes } = await file.close();
    return { path, md5, bytes };
  }

  /** Closes and deletes the spool files (also on failure). */
  async discardSpools(): Promise<void> {
    await this.transactions.close().catch(() => {});
    await this.vestingTerms.close().catch(() => {});
    await rm(join(this.dir, ".transactions.spool"), { force: true });
    await rm(join(this.dir, ".vesting-terms.spool"), { force: true });
  }
}

/** Streams a file's bytes, for the zip writer. */
export function readFileChunks(path: string): AsyncIterable<Buffer> {
  return createReadStream(path, { highWaterMark: 1 << 16 });
}
