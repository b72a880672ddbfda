/**
 * Text files of lines read and written a piece at a time, never as one large string or buffer: a
 * sync store's shard files are megabytes, and on these machines every object over about 128 KiB gets
 * fresh memory, which costs more than the reading or writing (about 6 ms per MiB).
 */
import { open, type FileHandle } from "node:fs/promises";
import { fileSystemError } from "../errors.js";
import { BufferedFile, bufferPair } from "./buffered-file.js";

/** How many bytes are read, or gathered before a write, at a time. */
const PIECE_BYTES = 64 * 1024;

const LINE_FEED = 0x0a;

/**
 * The lines of a UTF-8 text file, each without its `\n`, read 64 KiB at a time: the same as splitting
 * the whole decoded text at `\n` (lines are cut at `\n` bytes, which no other character's bytes
 * contain). `complete` is false when the file does not end with `\n`: its last line is then left out.
 */
export async function readTextLines(path: string): Promise<{ lines: string[]; complete: boolean }> {
  const lines: string[] = [];
  let complete = true;
  const handle = await open(path, "r");
  try {
    for await (const line of linesOf(handle)) {
      if (line.ended) lines.push(line.text);
      else complete = false;
    }
  } finally {
    await handle.close();
  }
  return { lines, complete };
}

/** A line of a file: its text without the `\n`; `ended` is false for a last line the file ends without `\n`. */
export interface FileLine {
  text: string;
  ended: boolean;
}

/**
 * The lines of an open UTF-8 file or pipe, read 64 KiB at a time, the last one too when the file does
 * not end with `\n` (`ended` false). A line longer than `maxLineBytes` stops the reading with a
 * `LineTooLongError` as soon as it is seen, not once it is whole: a file without line breaks
 * (`/dev/zero`, a file that keeps growing) would otherwise be gathered into one string until memory or
 * the longest string runs out.
 */
export async function* linesOf(handle: FileHandle, maxLineBytes = Number.POSITIVE_INFINITY): AsyncGenerator<FileLine> {
  /** The start of a line that the next read goes on with (copied: the buffer is read into again). */
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let number = 0;
  const buffer = Buffer.allocUnsafe(PIECE_BYTES);
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, PIECE_BYTES, null);
    if (bytesRead === 0) break;
    const bytes = buffer.subarray(0, bytesRead);
    let start = 0;
    for (let end = bytes.indexOf(LINE_FEED); end !== -1; end = bytes.indexOf(LINE_FEED, start)) {
      number += 1;
      if (partialBytes + end - start > maxLineBytes) throw new LineTooLongError(number, maxLineBytes);
      if (partial.length === 0) yield { text: bytes.toString("utf8", start, end), ended: true };
      else {
        partial.push(bytes.subarray(start, end));
        const text = Buffer.concat(partial).toString("utf8");
        partial = [];
        partialBytes = 0;
        yield { text, ended: true };
      }
      start = end + 1;
    }
    if (start < bytesRead) {
      partialBytes += bytesRead - start;
      if (partialBytes > maxLineBytes) throw new LineTooLongError(number + 1, maxLineBytes);
      partial.push(Buffer.from(bytes.subarray(start)));
    }
  }
  if (partial.length > 0) yield { text: Buffer.concat(partial).toString("utf8"), ended: false };
}

/** A line longer than the reader takes (see `linesOf`). */
export class LineTooLongError extends Error {
  /** 1-based. */
  readonly line: number;
  readonly maxLineBytes: number;
  constructor(line: number, maxLineBytes: number) {
    super(`line ${line} is longer than ${maxLineBytes} bytes`);
    this.name = "LineTooLongError";
    this.line = line;
    this.maxLineBytes = maxLineBytes;
  }
}

/** Writes `texts` (lines with their `\n`, or any text), in order, to a new file through two small reused buffers. */
export async function writeTextLines(path: string, texts: Iterable<string>): Promise<void> {
  const handle = await open(path, "w");
  try {
    const file = new BufferedFile(handle, bufferPair(PIECE_BYTES), path);
    for (const text of texts) {
      // Awaited only when a buffer had to go to disk first.
      const wrote = file.write(text);
      if (wrote !== undefined) await wrote;
    }
    await file.end();
  } finally {
    await handle.close();
  }
}

/** Opens a file to read it; a failure is a `FileSystemError` naming the path and saying why. */
export async function openToRead(path: string): Promise<FileHandle> {
  try {
    return await open(path, "r");
  } catch (error) {
    throw fileSystemError("read", path, error);
  }
}
