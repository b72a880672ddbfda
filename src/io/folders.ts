/**
 * Folders, checked and created without surprises: every failure is a `FileSystemError` naming the
 * path and saying why, reported at once.
 *
 * Why not `mkdir(path, { recursive: true })`: on Node 20 it never returns for a path under `/proc`
 * (the kernel answers ENOENT for the new folder although its parent exists, and libuv's recursive
 * mkdir climbs back up and tries again, forever, in a thread-pool thread that no signal stops). An
 * `export --out /proc/x` then hung until SIGKILL. Here each missing folder is created on its own,
 * once, and an error is an error.
 */
import { lstat, mkdir, open, readlink, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { FileSystemError, errnoOf, fileSystemError } from "../errors.js";

/**
 * Makes sure `path` is a folder, creating it and any missing parents.
 *
 * @throws {FileSystemError} when a part of the path is a file, or the file system refuses.
 */
export async function makeFolder(path: string, options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
  const target = resolve(path);
  const missing: string[] = [];
  for (let current = target; ; ) {
    options.signal?.throwIfAborted();
    let isFolder: boolean;
    try {
      isFolder = (await stat(current)).isDirectory();
    } catch (error) {
      const errno = errnoOf(error);
      // ENOTDIR: a parent is a file; climbing on finds it and says which.
      if (errno !== "ENOENT" && errno !== "ENOTDIR") throw fileSystemError("create the folder", target, error);
      missing.push(current);
      const parent = dirname(current);
      if (parent === current) throw fileSystemError("create the folder", target, error);
      current = parent;
      continue;
    }
    if (!isFolder) {
      const why = current === target ? "it exists and is not a folder" : `${current} is a file where a folder should be`;
      throw new FileSystemError("create the folder", target, why, { errno: current === target ? "EEXIST" : "ENOTDIR" });
    }
    break;
  }
  for (const folder of missing.reverse()) {
    options.signal?.throwIfAborted();
    try {
      await mkdir(folder);
    } catch (error) {
      const errno = errnoOf(error);
      // Created meanwhile by someone else: fine if it is a folder.
      if (errno === "EEXIST" && (await isFolderAt(folder))) continue;
      // A link to nothing: stat saw no folder, mkdir sees the link. Which folder is missing is what to say.
      const dangling = errno === "EEXIST" ? await danglingLinkTarget(folder) : undefined;
      if (dangling !== undefined) {
        throw new FileSystemError("create the folder", target, `${folder} is a symbolic link to ${dangling}, which does not exist; create that folder, or give another path`, { errno, cause: error });
      }
      if (errno === "ENOENT") {
        // The parent exists (it was just checked or made), yet the folder cannot be made: /proc, /sys, …
        throw new FileSystemError("create the folder", target, `the file system does not allow new folders in ${dirname(folder)} (ENOENT)`, { errno, cause: error });
      }
      throw fileSystemError("create the folder", target, error);
    }
  }
}

/** Where the symbolic link `path` points, when it is one (to nothing, as `makeFolder` finds it); else `undefined`. */
async function danglingLinkTarget(path: string): Promise<string | undefined> {
  try {
    return (await lstat(path)).isSymbolicLink() ? resolve(dirname(path), await readlink(path)) : undefined;
  } catch {
    return undefined;
  }
}

async function isFolderAt(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Flushes a folder's entries (a rename into it, a new file) to disk. Some file systems cannot open a
 * folder for that or refuse to flush one: the rename has happened either way, so that is not an error.
 */
export async function syncFolder(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, "r");
  } catch {
    return;
  }
  try {
    await handle.sync();
  } catch (error) {
    const errno = errnoOf(error);
    if (errno !== "EINVAL" && errno !== "EISDIR" && errno !== "EPERM" && errno !== "EBADF") throw fileSystemError("flush the folder", dir, error);
  } finally {
    await handle.close();
  }
}

/**
 * The error for a file or folder that could not be created in an existing-looking place: ENOENT
 * means either that a parent folder is missing, or (under /proc, /sys) that the file system takes no
 * new entries; the message says which.
 */
export async function explainCreateFailure(operation: string, path: string, error: unknown): Promise<unknown> {
  if (errnoOf(error) !== "ENOENT") return fileSystemError(operation, path, error);
  const parent = dirname(path);
  if (await isFolderAt(parent)) {
    return new FileSystemError(operation, path, `the file system does not allow new files in ${parent} (ENOENT)`, { errno: "ENOENT", cause: error });
  }
  return new FileSystemError(operation, path, `the folder ${parent} does not exist (ENOENT)`, { errno: "ENOENT", cause: error });
}
