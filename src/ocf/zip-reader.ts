/**
 * Reads a zip file's entries by streaming, without holding the zip or an entry in memory: the
 * central directory is read from the end of the file (APPNOTE.TXT §4.3.16), each entry's bytes are
 * read from its local header on and inflated as they come. Stored and deflated entries only; no
 * Zip64 (a zip over 4 GiB or with more than 65,535 entries), no encryption, no multi-part archives:
 * each of those is a clear error, never a wrong read.
 *
 * Every entry is checked as it is read: it must inflate to exactly the size the central directory
 * declares and match its CRC-32, so a truncated or altered zip is caught, not half read.
 */
import { open, type FileHandle } from "node:fs/promises";
import { Readable, pipeline } from "node:stream";
import { crc32, createInflateRaw } from "node:zlib";
import { describeValue } from "../errors.js";

/** A zip that cannot be read as one: truncated, corrupt, or of a kind this reader refuses. */
export class ZipFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ZipFormatError";
  }
}

/** One entry of the central directory. */
export interface ZipEntry {
  /** The name as stored (UTF-8 when the entry says so, else Latin-1, as fflate reads it). */
  name: string;
  /** 0 stored, 8 deflate; anything else cannot be read. */
  method: number;
  encrypted: boolean;
  crc32: number;
  compressedSize: number;
  /** The size it declares once inflated. */
  size: number;
  localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
/** A central directory larger than this is not read: 10,000 entries with long names fit easily. */
const MAX_CENTRAL_DIRECTORY_BYTES = 64 * 1024 * 1024;
const READ_CHUNK = 1 << 20;

/** Options of `ZipReader.open`. */
export interface ZipReaderOptions {
  /** Entries beyond this count make the zip unreadable. */
  maxEntries: number;
  signal?: AbortSignal;
}

/** An open zip file. Close it when done. */
export class ZipReader {
  private constructor(
    private readonly handle: FileHandle,
    /** Where the central directory starts: no entry's data may reach past it. */
    private readonly dataEnd: number,
    readonly entries: readonly ZipEntry[],
  ) {}

  /**
   * Opens the zip at `path` and reads its central directory.
   * @throws {ZipFormatError} when it is not a readable zip; file system errors as they are.
   */
  static async open(path: string, options: ZipReaderOptions): Promise<ZipReader> {
    const handle = await open(path, "r");
    try {
      const { size } = await handle.stat();
      const { offset, length, count } = await findCentralDirectory(handle, size);
      if (count > options.maxEntries) throw new ZipFormatError(`more than ${options.maxEntries} entries`);
      options.signal?.throwIfAborted();
      const directory = await readExactly(handle, offset, length);
      return new ZipReader(handle, offset, parseCentralDirectory(directory, count));
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /**
   * The bytes of `entry`, inflated, in chunks; checked against its declared size and CRC-32 as they
   * come. Stop early by leaving the loop.
   * @throws {ZipFormatError} on a corrupt entry.
   */
  async *chunks(entry: ZipEntry, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
    const header = await readExactly(this.handle, entry.localHeaderOffset, 30).catch(() => {
      throw new ZipFormatError(`the local header of entry ${describeValue(entry.name)} is past the end of the file`);
    });
    const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
    if (view.getUint32(0, true) !== LOCAL_SIGNATURE) throw new ZipFormatError(`entry ${describeValue(entry.name)} has no local header where the central directory says`);
    const start = entry.localHeaderOffset + 30 + view.getUint16(26, true) + view.getUint16(28, true);
    if (start + entry.compressedSize > this.dataEnd) throw new ZipFormatError(`entry ${describeValue(entry.name)} runs past the start of the central directory`);
    const raw = readRange(this.handle, start, entry.compressedSize, signal);
    let produced = 0;
    let crc = 0;
    const source = entry.method === 0 ? raw : inflated(raw);
    for await (const chunk of source) {
      produced += chunk.length;
      if (produced > entry.size) throw new ZipFormatError(`entry ${describeValue(entry.name)} inflates to more than the ${entry.size} bytes it declares`);
      crc = crc32(chunk, crc);
      yield chunk;
    }
    if (produced !== entry.size) throw new ZipFormatError(`entry ${describeValue(entry.name)} inflates to ${produced} bytes, not the ${entry.size} it declares`);
    if (crc >>> 0 !== entry.crc32) throw new ZipFormatError(`entry ${describeValue(entry.name)} fails its CRC-32 check`);
  }
}

/** The end of central directory record: where the directory is and how many entries it has. */
async function findCentralDirectory(handle: FileHandle, size: number): Promise<{ offset: number; length: number; count: number }> {
  if (size < EOCD_SIZE) throw new ZipFormatError("too short to be a zip");
  const tailStart = Math.max(0, size - EOCD_SIZE - MAX_COMMENT);
  const tail = await readExactly(handle, tailStart, size - tailStart);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  // The record is the last one whose comment runs exactly to the end of the file.
  for (let at = tail.length - EOCD_SIZE; at >= 0; at--) {
    if (view.getUint32(at, true) !== EOCD_SIGNATURE || at + EOCD_SIZE + view.getUint16(at + 20, true) !== tail.length) continue;
    const disk = view.getUint16(at + 4, true);
    const directoryDisk = view.getUint16(at + 6, true);
    const onDisk = view.getUint16(at + 8, true);
    const count = view.getUint16(at + 10, true);
    const length = view.getUint32(at + 12, true);
    const offset = view.getUint32(at + 16, true);
    const zip64 = at >= 20 && view.getUint32(at - 20, true) === ZIP64_LOCATOR_SIGNATURE;
    if (zip64 || count === 0xffff || length === 0xffffffff || offset === 0xffffffff) throw new ZipFormatError("it is a Zip64 archive, which ocf-sync does not read");
    if (disk !== 0 || directoryDisk !== 0 || onDisk !== count) throw new ZipFormatError("it is one part of a multi-part zip");
    const eocd = tailStart + at;
    if (offset + length > eocd) throw new ZipFormatError("its central directory lies past its end");
    if (length > MAX_CENTRAL_DIRECTORY_BYTES) throw new ZipFormatError(`its central directory has ${length} bytes, over the limit of ${MAX_CENTRAL_DIRECTORY_BYTES}`);
    return { offset, length, count };
  }
  throw new ZipFormatError("no end of central directory record");
}

function parseCentralDirectory(directory: Uint8Array, count: number): ZipEntry[] {
  const view = new DataView(directory.buffer, directory.byteOffset, directory.byteLength);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > directory.length || view.getUint32(at, true) !== CENTRAL_SIGNATURE) throw new ZipFormatError(`central directory entry ${i + 1} of ${count} is missing or damaged`);
    const flags = view.getUint16(at + 8, true);
    const nameLength = view.getUint16(at + 28, true);
    const next = at + 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (next > directory.length) throw new ZipFormatError(`central directory entry ${i + 1} of ${count} is cut short`);
    const nameBytes = directory.subarray(at + 46, at + 46 + nameLength);
    const entry: ZipEntry = {
      name: new TextDecoder(flags & 0x800 ? "utf-8" : "latin1").decode(nameBytes),
      method: view.getUint16(at + 10, true),
      encrypted: (flags & 1) === 1,
      crc32: view.getUint32(at + 16, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localHeaderOffset: view.getUint32(at + 42, true),
    };
    if (!plausibleSizes(entry.method, entry.compressedSize, entry.size)) {
      throw new ZipFormatError(`entry ${describeValue(entry.name)} declares ${entry.size} bytes but holds ${entry.compressedSize} compressed`);
    }
    entries.push(entry);
    at = next;
  }
  return entries;
}

/**
 * Whether an entry's declared sizes can be true. Deflate never grows data by more than zlib's
 * `deflateBound` (about 0.03% plus a few bytes), so more compressed bytes than that betray a lie;
 * a stored entry holds exactly its size. Other methods are refused when read.
 */
function plausibleSizes(method: number, compressedSize: number, size: number): boolean {
  if (method === 0) return compressedSize === size;
  if (method === 8) return compressedSize <= size + Math.ceil(size / 1000) + 64;
  return true;
}

async function readExactly(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) throw new ZipFormatError(`the file ends before byte ${position + length}`);
    filled += bytesRead;
  }
  return buffer;
}

async function* readRange(handle: FileHandle, start: number, length: number, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
  let done = 0;
  while (done < length) {
    signal?.throwIfAborted();
    // A fresh buffer per chunk: the inflater may still hold the previous one.
    const chunk = await readExactly(handle, start + done, Math.min(READ_CHUNK, length - done));
    done += chunk.length;
    yield chunk;
  }
}

async function* inflated(raw: AsyncGenerator<Uint8Array>): AsyncGenerator<Uint8Array> {
  const inflater = createInflateRaw({ chunkSize: 1 << 18 });
  let failure: Error | undefined;
  pipeline(Readable.from(raw), inflater, (error) => {
    failure = error ?? undefined;
  });
  try {
    for await (const chunk of inflater as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    if (error instanceof ZipFormatError || (error as { name?: string }).name === "AbortError") throw error;
    const code = (error as { code?: unknown }).code;
    throw typeof code === "string" && code.startsWith("Z_") ? new ZipFormatError(`a deflated entry is corrupt (${(error as Error).message})`) : error;
  } finally {
    inflater.destroy();
  }
  const failed = failure as Error | undefined;
  if (failed !== undefined && (failed as { code?: string }).code !== "ERR_STREAM_PREMATURE_CLOSE") throw failed;
}
