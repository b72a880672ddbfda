/**
 * One text line per record, appended and read back by a handle: how the streaming mapper keeps what
 * it must remember of each record until the end of an issuer. In memory for small jobs and library
 * use; in a file (`FileLines`) for exports, so that an issuer of 100k+ records does not hold them in
 * the heap. Reads are rare (a record listed twice, an id collision), so a read costs one `pread`.
 */
import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";

export interface RecordLines {
  /** Stores a line; returns its handle (0, 1, 2, … in order). */
  append(line: string): number;
  read(handle: number): string;
  /** Lets go of every line (and deletes the file, for `FileLines`). Safe to call twice. */
  dispose(): void;
}

export class MemoryLines implements RecordLines {
  private lines: string[] = [];

  append(line: string): number {
    return this.lines.push(line) - 1;
  }

  read(handle: number): string {
    const line = this.lines[handle];
    if (line === undefined) throw new RangeError(`no record line ${handle}`);
    return line;
  }

  dispose(): void {
    this.lines = [];
  }
}

/** A list of numbers in a typed array that doubles as it fills (4 or 8 bytes a number, no boxing). */
export class NumberList<A extends Float64Array | Int32Array | Uint32Array> {
  private items: A;
  length = 0;

  constructor(private readonly make: (size: number) => A) {
    this.items = make(1024);
  }

  push(value: number): void {
    if (this.length === this.items.length) {
      const grown = this.make(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = value;
  }

  at(index: number): number {
    if (index < 0 || index >= this.length) throw new RangeError(`index ${index} out of 0..${this.length - 1}`);
    return this.items[index] as number;
  }
}

const STAGING_BYTES = 1 << 20;

/**
 * Lines in a file of their own, written 1 MiB at a time. The file is created (it must not exist) when
 * the first line comes and deleted by `dispose`.
 */
export class FileLines implements RecordLines {
  private fd: number | undefined;
  private staging: Buffer;
  private staged = 0;
  /** Bytes in the file; the staged bytes follow them. */
  private written = 0;
  private readonly offsets = new NumberList((n) => new Float64Array(n));
  private readonly lengths = new NumberList((n) => new Uint32Array(n));
  private disposed = false;

  /** @param stagingBytes lines are written this many bytes at a time (a longer line alone) */
  constructor(
    private readonly path: string,
    stagingBytes = STAGING_BYTES,
  ) {
    this.staging = Buffer.allocUnsafe(stagingBytes);
  }

  append(line: string): number {
    if (this.disposed) throw new Error("FileLines: disposed");
    const bytes = Buffer.byteLength(line);
    if (this.staged + bytes > this.staging.length) this.flush();
    const offset = this.written + this.staged;
    if (bytes > this.staging.length) {
      this.writeAll(Buffer.from(line));
    } else {
      this.staging.write(line, this.staged);
      this.staged += bytes;
    }
    this.offsets.push(offset);
    this.lengths.push(bytes);
    return this.offsets.length - 1;
  }

  read(handle: number): string {
    if (this.disposed) throw new Error("FileLines: disposed");
    const offset = this.offsets.at(handle);
    const bytes = this.lengths.at(handle);
    if (offset >= this.written) return this.staging.toString("utf8", offset - this.written, offset - this.written + bytes);
    const buffer = Buffer.allocUnsafe(bytes);
    for (let done = 0; done < bytes; ) {
      const n = readSync(this.file(), buffer, done, bytes - done, offset + done);
      if (n === 0) throw new Error(`${this.path} ended before record line ${handle}`);
      done += n;
    }
    return buffer.toString("utf8");
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.staging = Buffer.alloc(0);
    if (this.fd === undefined) return;
    // Only a file this one created (a name already taken is never opened, so never deleted).
    closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.path, { force: true });
  }

  private file(): number {
    this.fd ??= openSync(this.path, "wx+");
    return this.fd;
  }

  private flush(): void {
    if (this.staged === 0) return;
    const staged = this.staged;
    this.staged = 0;
    this.writeAll(this.staging.subarray(0, staged));
  }

  private writeAll(bytes: Uint8Array): void {
    for (let done = 0; done < bytes.length; ) done += writeSync(this.file(), bytes, done, bytes.length - done, this.written + done);
    this.written += bytes.length;
  }
}
