/**
 * Files that appear whole or not at all: written under a temporary name in the same folder, flushed to
 * disk, then renamed over the target (rename is atomic within one file system). A failure or an abort
 * removes the temporary file; a crash leaves at most a stray `.<name>.tmp-<pid>-<hex>` file, which the
 * next export (`recoverPackageFolders`) or pull (`removeStaleTemporaries`) removes, never a half-written
 * target. The previous file, if
 * any, stays as it was until the complete successor replaces it.
 *
 * A target that is a symbolic link is written through, as editors do: the file it points to (through
 * every link on the way, even one to a file not there yet) is replaced, in its own folder, and the
 * link stays a link (`pull --out LINK`, `reconcile --html LINK` replaced the link with a file).
 *
 * Every failure is a `FileSystemError` naming the path and saying why; nothing is retried.
 */
import { randomBytes } from "node:crypto";
import { type FileHandle, lstat, open, readdir, readlink, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { FileSystemError, errnoOf, fileSystemError } from "../errors.js";
import { explainCreateFailure, syncFolder } from "./folders.js";

/** Options of the atomic writers. */
export interface AtomicWriteOptions {
  /** Stops the write (the temporary file is removed by `abort()`, or at once by `writeFileAtomic`). */
  signal?: AbortSignal | undefined;
}

/** The temporary sibling a file is written to: `.<name>.tmp-<pid>-<8 hex>` (the pattern recovery knows). */
export function temporaryNameFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
}

/** Links followed at most before a path is taken to loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * The file `path` stands for: itself, or, when it is a symbolic link, what the link points to (link
 * after link), whether it exists or not. Writing there instead of at `path` keeps the link a link.
 *
 * @throws {FileSystemError} for a loop of links, or a path that cannot be looked at.
 */
export async function followLinks(path: string): Promise<string> {
  let current = path;
  for (let links = 0; ; links += 1) {
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch (error) {
      if (errnoOf(error) === "ENOENT") return current;
      throw fileSystemError("write", path, error);
    }
    if (!isLink) return current;
    if (links === MAX_LINKS) throw new FileSystemError("write", path, "too many symbolic links on the way (ELOOP)", { errno: "ELOOP" });
    try {
      current = resolve(dirname(current), await readlink(current));
    } catch (error) {
      throw fileSystemError("write", path, error);
    }
  }
}

const TEMPORARY_NAME = /^\.(.+)\.tmp-(\d+)-[0-9a-f]{8}$/;

/**
 * Whether the process of a leftover's pid may still be using it. Our own pid on a leftover we are not
 * using means an earlier process had the same pid (a container's pid 1, say): that process is gone. A
 * live process of another user (EPERM) counts as alive.
 */
export function otherProcessAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoOf(error) === "EPERM";
  }
}

/**
 * Removes the temporary siblings of `target` (`temporaryNameFor`'s names, files or folders) that a
 * killed process left: those whose process is gone. Call it before making temporaries of one's own,
 * which it would take for a dead process's. Never throws; returns the paths removed.
 */
export async function removeStaleTemporaries(target: string): Promise<string[]> {
  const folder = dirname(target);
  const name = basename(target);
  const removed: string[] = [];
  for (const entry of await readdir(folder).catch(() => [])) {
    const match = TEMPORARY_NAME.exec(entry);
    if (match === null || match[1] !== name || otherProcessAlive(Number(match[2]))) continue;
    const path = join(folder, entry);
    if (await rm(path, { recursive: true, force: true }).then(() => true, () => false)) removed.push(path);
  }
  return removed;
}

/** Creates `path` exclusively with `content`, flushed; false when something is already there. */
export async function createExclusive(path: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, "wx");
  } catch (error) {
    if (errnoOf(error) === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

/**
 * Creates the temporary sibling of `target` (`temporaryNameFor`) holding `content`, flushed, and
 * returns its path; on failure nothing is left. A lock file is written so before it is linked in
 * place, and an output folder is probed so before any work (`prepareOutputFolder`): a folder that
 * takes this file takes the lock. Failures are the file system's own errors, for the caller to word.
 */
export async function createTemporarySibling(target: string, content: string): Promise<string> {
  const temporary = temporaryNameFor(target);
  try {
    // The name is new (pid and random bytes): a file already there is a failure like any other.
    if (!(await createExclusive(temporary, content))) throw Object.assign(new Error(`${temporary} already exists`), { code: "EEXIST" });
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
  return temporary;
}

/** Writes all of `buffer`, however many calls the file system needs (a short write is not an error). */
export async function writeAll(handle: FileHandle, buffer: Uint8Array): Promise<void> {
  for (let done = 0; done < buffer.length; ) {
    const { bytesWritten } = await handle.write(buffer, done, buffer.length - done);
    if (bytesWritten === 0) throw Object.assign(new Error("the file system accepted no bytes"), { code: "ENOSPC" });
    done += bytesWritten;
  }
}

/** Writes `data` to `target` atomically. */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const output = await openAtomicWriteStream(target, options);
  try {
    await output.write(data);
    await output.commit();
  } catch (error) {
    await output.abort();
    throw error;
  }
}

/** A stream to a file that becomes visible under its real name only on `commit()`. */
export interface AtomicWriteStream {
  write(chunk: string | Uint8Array): Promise<void>;
  /**
   * Writes out what is buffered and flushes the temporary file to disk, without renaming it: after
   * this, `commit()` is a rename. For putting several files in place one right after the other.
   */
  flush(): Promise<void>;
  /** Flushes, then renames the temporary file over the target. */
  commit(): Promise<void>;
  /** Closes and removes the temporary file; the target is left as it was. Never throws. */
  abort(): Promise<void>;
}

// Small writes (one NDJSON line each) are gathered into writes of this size.
const BUFFER_BYTES = 64 * 1024;

/**
 * Opens a stream to `target` at once, so that a target that cannot be written (its folder missing,
 * read-only, not a folder, the target a folder) fails here, before any work.
 *
 * @throws {FileSystemError}
 */
export async function openAtomicWriteStream(target: string, options: AtomicWriteOptions = {}): Promise<AtomicWriteStream> {
  const file = new AtomicFile(target, options.signal);
  try {
    await file.open();
  } catch (error) {
    await file.abort();
    throw error;
  }
  return file;
}

/**
 * A stream to `target`; the temporary file is opened on the first write (use
 * `openAtomicWriteStream` to find out at once whether the target can be written).
 */
export function createAtomicWriteStream(target: string, options: AtomicWriteOptions = {}): AtomicWriteStream {
  return new AtomicFile(target, options.signal);
}

class AtomicFile implements AtomicWriteStream {
  /** The file replaced: the target, or the file a link there points to (known once opened). */
  private destination: string;
  private temporary: string | undefined;
  private handle: FileHandle | undefined;
  private opening: Promise<FileHandle> | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private state: "open" | "flushed" | "committed" | "aborted" = "open";

  constructor(
    private readonly target: string,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.destination = target;
  }

  /** Opens the temporary file (once); refuses a target that is a folder. */
  async open(): Promise<FileHandle> {
    if (this.handle !== undefined) return this.handle;
    this.opening ??= this.openTemporary();
    this.handle = await this.opening;
    return this.handle;
  }

  private async openTemporary(): Promise<FileHandle> {
    this.destination = await followLinks(this.target);
    let existing;
    try {
      existing = await stat(this.destination);
    } catch (error) {
      if (errnoOf(error) !== "ENOENT") throw fileSystemError("write", this.target, error);
    }
    if (existing?.isDirectory() === true) throw new FileSystemError("write", this.target, "it is a folder, not a file", { errno: "EISDIR" });
    // A device, FIFO or socket would be replaced by the new file, not written to (/dev/null as root!).
    if (existing !== undefined && !existing.isFile()) {
      throw new FileSystemError("write", this.target, "it is not a regular file (a device, FIFO or socket); give the path of a file", { errno: "EINVAL" });
    }
    const temporary = temporaryNameFor(this.destination);
    this.temporary = temporary;
    try {
      return await open(temporary, "wx");
    } catch (error) {
      throw await explainCreateFailure("write", this.destination, error);
    }
  }

  private usable(): void {
    if (this.state !== "open") throw new Error(`the atomic write of ${this.target} is already ${this.state}`);
    this.signal?.throwIfAborted();
  }

  async write(chunk: string | Uint8Array): Promise<void> {
    this.usable();
    const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.pending.push(buffer);
    this.pendingBytes += buffer.length;
    if (this.pendingBytes >= BUFFER_BYTES) await this.drain();
  }

  private async drain(): Promise<void> {
    const file = await this.open();
    if (this.pendingBytes === 0) return;
    const buffer = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    try {
      await writeAll(file, buffer);
    } catch (error) {
      throw fileSystemError("write", this.target, error);
    }
  }

  async flush(): Promise<void> {
    if (this.state === "flushed") return;
    this.usable();
    await this.drain();
    try {
      await this.handle?.sync();
    } catch (error) {
      throw fileSystemError("write", this.target, error);
    }
    this.state = "flushed";
  }

  /** After `flush()` this is only the rename, and it happens even when the signal has fired meanwhile. */
  async commit(): Promise<void> {
    await this.flush();
    const file = this.handle;
    this.handle = undefined;
    await file?.close();
    try {
      // Opened by flush(): the temporary file is there.
      await rename(this.temporary ?? "", this.destination);
    } catch (error) {
      throw fileSystemError("replace", this.destination, error);
    }
    this.state = "committed";
    await syncFolder(dirname(this.destination));
  }

  async abort(): Promise<void> {
    if (this.state === "committed" || this.state === "aborted") return;
    this.state = "aborted";
    this.pending = [];
    this.pendingBytes = 0;
    // An open still under way must finish before its file can be removed.
    const file = this.handle ?? (await this.opening?.catch(() => undefined));
    this.handle = undefined;
    await file?.close().catch(() => {});
    if (this.temporary !== undefined) await rm(this.temporary, { force: true }).catch(() => {});
  }
}
