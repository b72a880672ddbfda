/**
 * Files written through two reused buffers: one fills while the other is on its way to the disk, so
 * that the writing thread does not wait for each write, and nothing large is allocated per write
 * (memory touched for the first time is slow to come by on these machines).
 */
import type { FileHandle } from "node:fs/promises";
import { fileSystemError } from "../errors.js";

/** Writes all of `buffer` at `position`, however many calls the file system needs (a short write is not an error). */
export async function writeAll(handle: FileHandle, buffer: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, done, buffer.length - done, position + done);
    if (bytesWritten === 0) throw Object.assign(new Error("the file system accepted no bytes"), { code: "ENOSPC" });
    done += bytesWritten;
  }
}

/** Two buffers to write files through, one file after another (see `BufferedFile`). */
export type BufferPair = readonly [Buffer, Buffer];

export function bufferPair(bytes: number): BufferPair {
  return [Buffer.allocUnsafe(bytes), Buffer.allocUnsafe(bytes)];
}

/**
 * Appends text and bytes to a new file through two buffers: one fills while the other is on its way
 * to the disk, so that this thread does not wait for each write. The buffers are lent by the owner
 * and reused from file to file (memory touched for the first time is slow to come by here); `seen`
 * is shown every byte, in order, before it is written. A write that fails (the disk full, the folder
 * gone) is a `FileSystemError` naming `path`.
 */
export class BufferedFile {
  private position = 0;
  private used = 0;
  private current: Buffer;
  private other: Buffer;
  /** The write of `other`, if one is under way. */
  private pending: Promise<void> | undefined;

  constructor(
    private readonly handle: FileHandle,
    buffers: BufferPair,
    private readonly path: string,
    private readonly seen?: (bytes: Uint8Array) => void,
  ) {
    [this.current, this.other] = buffers;
  }

  /** Appends `data`; a promise only when a buffer had to be written out first. */
  write(data: string | Uint8Array): Promise<void> | undefined {
    const bytes = typeof data === "string" ? Buffer.byteLength(data, "utf8") : data.length;
    if (this.used + bytes > this.current.length) return this.writeAfterFlush(data);
    if (typeof data === "string") this.current.write(data, this.used, "utf8");
    else this.current.set(data, this.used);
    this.used += bytes;
    return undefined;
  }

  private async writeAfterFlush(data: string | Uint8Array): Promise<void> {
    await this.flush();
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    if (bytes.length <= this.current.length) {
      this.current.set(bytes, 0);
      this.used = bytes.length;
      return;
    }
    // Larger than a buffer: written as it is, once what was written before is on disk.
    await this.settle();
    this.seen?.(bytes);
    await this.writeOut(bytes);
    this.position += bytes.length;
  }

  /** Sends the current buffer to the disk and goes on in the other one (once its own write is done). */
  private async flush(): Promise<void> {
    await this.settle();
    if (this.used === 0) return;
    const bytes = this.current.subarray(0, this.used);
    this.seen?.(bytes);
    const pending = this.writeOut(bytes);
    // Awaited in settle(); until then a failure must not count as unhandled.
    pending.catch(() => {});
    this.pending = pending;
    this.position += bytes.length;
    [this.current, this.other] = [this.other, this.current];
    this.used = 0;
  }

  /** Writes `bytes` at the current position; a failure names the file. */
  private async writeOut(bytes: Uint8Array): Promise<void> {
    try {
      await writeAll(this.handle, bytes, this.position);
    } catch (error) {
      throw fileSystemError("write", this.path, error);
    }
  }

  private async settle(): Promise<void> {
    const pending = this.pending;
    this.pending = undefined;
    await pending;
  }

  /** Waits for a write under way, if any, and writes nothing more. */
  async drain(): Promise<void> {
    await this.settle();
  }

  /** Writes what is buffered and waits for every write; returns the file's length. */
  async end(): Promise<number> {
    await this.flush();
    await this.settle();
    return this.position;
  }
}
