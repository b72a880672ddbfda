/**
 * Input files that cannot hold a run hostage (issue 25, item 5): `/dev/zero` read whole grew until
 * `Invalid string length` (1.2 GB of memory, exit 70), and a FIFO with no writer blocked the read
 * until a signal. A file read whole must be a regular file and is read up to a limit (checked while
 * reading too: `/dev/zero` and `/proc` files stat as size 0, and a file can grow meanwhile); a file
 * read as a stream may also be a pipe (`--source <(ocf-sync pull …)`), never a device, folder or socket.
 */
import { constants, type Stats } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { FileSystemError, fileSystemError } from "../errors.js";

/** What a path is, when it is not a regular file: "a folder", "a FIFO (named pipe)", … */
export function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

const PIECE_BYTES = 64 * 1024;

function notRegular(path: string, stats: Stats, wanted: string): FileSystemError {
  return new FileSystemError("read", path, `it is ${kindOf(stats)}, not ${wanted}`, { errno: stats.isDirectory() ? "EISDIR" : "EINVAL" });
}

/**
 * The bytes of the regular file at `path`, at most `maxBytes` of them. Opened without waiting (a FIFO
 * swapped in would otherwise block the open until a writer comes), then checked by its handle.
 *
 * @throws {FileSystemError} when the file cannot be read, is not a regular file, or holds more than `maxBytes`.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw fileSystemError("read", path, error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegular(path, stats, "a regular file");
    if (stats.size > maxBytes) throw tooLarge(path, maxBytes);
    // Read in pieces and counted: a file that grew past the limit since it was looked at is found too.
    const pieces: Buffer[] = [];
    let length = 0;
    for (;;) {
      const piece = Buffer.allocUnsafe(PIECE_BYTES);
      const { bytesRead } = await handle.read(piece, 0, PIECE_BYTES, null);
      if (bytesRead === 0) return Buffer.concat(pieces, length);
      length += bytesRead;
      if (length > maxBytes) throw tooLarge(path, maxBytes);
      pieces.push(piece.subarray(0, bytesRead));
    }
  } catch (error) {
    throw fileSystemError("read", path, error);
  } finally {
    await handle.close();
  }
}

function tooLarge(path: string, maxBytes: number): FileSystemError {
  return new FileSystemError("read", path, `it holds more than ${maxBytes} bytes (${formatBytes(maxBytes)}), the most such a file may hold`, { errno: "EFBIG" });
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/**
 * Checks, without opening it, that `path` can be read as a stream (see `openStreamInput`): for a
 * command line to refuse it before any other work.
 *
 * @throws {FileSystemError}
 */
export async function checkStreamInput(path: string): Promise<void> {
  let stats: Stats;
  try {
    stats = await stat(path);
  } catch (error) {
    throw fileSystemError("read", path, error);
  }
  if (!stats.isFile() && !stats.isFIFO()) throw notRegular(path, stats, "a regular file or a pipe");
}

/**
 * Opens `path` to be read as a stream: a regular file or a pipe (a FIFO is waited on until its writer
 * comes, as any reader of a pipe does; a signal still ends the run). A folder, device or socket is
 * refused before it is opened (reading `/dev/zero` never ends).
 *
 * @throws {FileSystemError}
 */
export async function openStreamInput(path: string): Promise<FileHandle> {
  await checkStreamInput(path);
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw fileSystemError("read", path, error);
  }
  // Replaced since the stat (by a device, a folder): refused the same way.
  const opened = await handle.stat().catch(async (error: unknown) => {
    await handle.close();
    throw fileSystemError("read", path, error);
  });
  if (!opened.isFile() && !opened.isFIFO()) {
    await handle.close();
    throw notRegular(path, opened, "a regular file or a pipe");
  }
  return handle;
}
