/**
 * Lines in a file, appended and read back by a handle: what the streaming mapper keeps of each record
 * (`RecordLines`, src/mapping/record-lines.ts), on disk for exports, so that an issuer of 100k+
 * records does not hold them in the heap. Reads are rare (a record listed twice, an id collision), so
 * a read costs one `pread`.
 */
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { NumberList } from "../number-list.js";

const STAGING_BYTES = 1 << 20;

/**
 * Lines in a file of their own, written 1 MiB at a time. The file is created (it must not exist) when
 * the first line comes and deleted by `dispose`.
 */
export class FileLines {
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

/**
 * A `FileLines` in `folder` under a name of its own (the process id and a random UUID), for the
 * records of one issuer's mapping.
 */
export function recordLinesFileIn(folder: string, stagingBytes?: number): FileLines {
  return new FileLines(join(folder, `.ocf-sync-records-${process.pid}-${randomUUID()}.jsonl`), stagingBytes);
}
