/**
 * Where packages live on disk and how they get there atomically.
 *
 * Each issuer's package is a folder `<out>/<name>/` (and optionally `<out>/<name>.ocf.zip`), where
 * `<name>` comes from `packageNameFor(issuerId)`: safe on every file system, never a path traversal,
 * and distinct for distinct issuer ids, even on case-insensitive file systems.
 *
 * A package is written into a temporary sibling folder, flushed, and renamed into place. A folder that
 * already exists cannot be replaced by one rename, so the previous package is first renamed aside
 * (`.<name>.old-*`), the new one renamed in, and the old one deleted. If the process dies between the
 * two renames, `recoverPackageFolders` (run at the start of every export) renames the previous package
 * back: it is never damaged, and a half-written package is never visible under the real name.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { Zip, ZipDeflate } from "fflate";
import { OcfSyncError, errnoOf, fileSystemError, isFileSystemError, type FileSystemError } from "../errors.js";
import { createAtomicWriteStream, otherProcessAlive } from "../io/atomic-file.js";
import { makeFolder, syncFolder } from "../io/folders.js";
import { pausePoint } from "../pause-point.js";
import { PackageUnusableError, openOcfPackage } from "./package-reader.js";
import { folderManifestMd5, folderOfCompanion, reportManifestMd5, stalenessOf } from "./package-set.js";
import { readFileChunks } from "./package-writer.js";

const SAFE_NAME = /^[a-z0-9][a-z0-9_-]{0,49}$/;
/** Names Windows reserves for devices, whatever the case. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/** Temporary and set-aside folders this process is using right now: recovery never touches them. */
const inFlight = new Set<string>();

/**
 * The folder and zip base name of an issuer's package. Ids made only of lower-case letters, digits,
 * `-` and `_` are used as they are ("7", "acme-robotics"); any other id becomes a readable slug plus
 * a hash of the exact id ("north wind/eu" → "north-wind-eu.8c5b1e0a2f"). The `.` before the hash
 * cannot occur in a name of the first kind, so the two kinds never collide.
 *
 * @category OCF
 */
export function packageNameFor(issuerId: string): string {
  if (SAFE_NAME.test(issuerId) && !WINDOWS_DEVICE.test(issuerId)) return issuerId;
  const slug = issuerId
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9_]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  const hash = createHash("sha256").update(issuerId, "utf8").digest("hex").slice(0, 10);
  return `${slug === "" ? "issuer" : slug}.${hash}`;
}

/** Makes a fresh temporary folder next to where the package will go. */
export async function createTemporaryPackageFolder(outDir: string, name: string): Promise<string> {
  await makeFolder(outDir);
  const dir = join(outDir, `.${name}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  inFlight.add(dir);
  try {
    await mkdir(dir);
  } catch (error) {
    inFlight.delete(dir);
    throw fileSystemError("create the temporary folder", dir, error);
  }
  return dir;
}

/** Forgets a temporary folder once it is committed or removed. */
export function releaseTemporaryPackageFolder(dir: string): void {
  inFlight.delete(dir);
}

async function exists(path: string): Promise<boolean> {
  try {
    await (await open(path, "r")).close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Moves a finished temporary folder to `<outDir>/<name>`, replacing any previous package there. Once
 * begun (two renames), it is not interrupted: `signal` is checked before.
 */
export async function commitPackageFolder(temporary: string, outDir: string, name: string, options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
  options.signal?.throwIfAborted();
  try {
    await replaceFolder(temporary, outDir, name);
  } catch (error) {
    throw fileSystemError("put in place the package", join(outDir, name), error);
  }
}

async function replaceFolder(temporary: string, outDir: string, name: string): Promise<void> {
  await syncFolder(temporary);
  const target = join(outDir, name);
  const aside = join(outDir, `.${name}.old-${process.pid}-${randomBytes(4).toString("hex")}`);
  inFlight.add(aside);
  try {
    let movedAside = false;
    if (await exists(target)) {
      await rename(target, aside);
      movedAside = true;
      pausePoint("between-renames");
    }
    try {
      await rename(temporary, target);
    } catch (error) {
      if (movedAside) await rename(aside, target); // put the previous package back
      throw error;
    }
    await syncFolder(outDir);
    if (movedAside) await rm(aside, { recursive: true, force: true });
  } finally {
    inFlight.delete(aside);
    inFlight.delete(temporary);
  }
}

/**
 * Repairs what a killed export or sync left in `outDir`. A previous package that was set aside and not
 * replaced is always renamed back (a package must never vanish). Every other leftover is deleted
 * unless another live process on this machine may still be using it: temporary package folders
 * (`.<name>.tmp-<pid>-<hex>/`), temporary zips and reports and lock files (`.<file>.tmp-<pid>-<hex>`,
 * the names `src/io/atomic-file.ts` and `src/io/lock-file.ts` give them), set-aside packages that were
 * replaced. Returns the names of the packages it restored.
 *
 * One export or sync per output folder at a time (`exportIssuers` and `sync` hold its lock while they
 * run); runs on other machines sharing the folder cannot be told apart from dead ones.
 *
 * A leftover that cannot be deleted (permission denied, a mount point inside it) is left where it is
 * and passed to `onKept` with the `FileSystemError` that says why: it is no package and no run uses
 * it, so it must not stop this run, nor every later one.
 */
export async function recoverPackageFolders(
  outDir: string,
  options: { signal?: AbortSignal | undefined; onKept?: ((path: string, error: FileSystemError) => void) | undefined } = {},
): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(outDir);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return [];
    throw fileSystemError("list the folder", outDir, error);
  }
  const restored: string[] = [];
  const present = new Set(entries);
  for (const entry of entries) {
    const m = /^\.(.+)\.(old|tmp)-(\d+)-[0-9a-f]{8}$/.exec(entry);
    if (m === null) continue;
    const [, name = "", kind, pid] = m;
    const path = join(outDir, entry);
    if (inFlight.has(path)) continue;
    options.signal?.throwIfAborted();
    if (kind === "old" && !present.has(name)) {
      await rename(path, join(outDir, name));
      present.add(name);
      restored.push(name);
    } else if (!otherProcessAlive(Number(pid))) {
      try {
        await rm(path, { recursive: true, force: true });
      } catch (error) {
        const failure = fileSystemError("remove the leftover", path, error);
        if (!isFileSystemError(failure)) throw failure;
        options.onKept?.(path, failure);
      }
    }
  }
  return restored;
}

/**
 * Removes from `outDir` each zip and report that holds another package than the folder beside it (a
 * killed run put the folder in place and not them: package-set.ts), so that every zip and report there
 * is its folder's again. Those with no folder, or beside a folder with no readable manifest, are left.
 * Returns the paths removed.
 */
export async function removeStaleCompanions(outDir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await readdir(outDir).catch(() => [])) {
    const path = join(outDir, entry);
    if (folderOfCompanion(path) === undefined) continue;
    let stale: boolean;
    if (entry.endsWith(".report.json")) stale = (await stalenessOf(path, await reportManifestMd5(path))) !== undefined;
    else {
      // The reader refuses a stale zip (and one that is no package at all, which is not the folder's either).
      const folder = await folderManifestMd5(folderOfCompanion(path) as string);
      stale = folder !== undefined && (await openOcfPackage(path).then((p) => p.close().then(() => false), (error: unknown) => error instanceof PackageUnusableError));
    }
    if (!stale) continue;
    try {
      await rm(path, { force: true });
    } catch (error) {
      throw fileSystemError("remove the stale", path, error);
    }
    removed.push(path);
  }
  return removed;
}

/**
 * Thrown when a package cannot be zipped: a zip over 4 GiB or with more than 65,535 files needs Zip64, which the writer lacks.
 *
 * @category Errors
 */
export class ZipTooLargeError extends OcfSyncError {
  declare readonly code: "ZIP64_UNSUPPORTED";
  constructor(message: string) {
    super("ZIP64_UNSUPPORTED", message);
    this.name = "ZipTooLargeError";
  }
}

/** The largest offset or size a zip without Zip64 can record. */
const ZIP32_LIMIT = 0xffffffff;

/**
 * Writes a flat `.ocf.zip` of the given files (every file at the zip root, as the OCF tutorials do)
 * under a temporary name; it takes its real name only on `commit()`, so that the caller can put it in
 * place together with the package folder. Entry times come from `modified` so that the same package
 * gives the same zip bytes. A package split into several files is zipped whole; without Zip64 the
 * zip must stay under 4 GiB and 65,535 files (`ZipTooLargeError`, and nothing is left behind).
 */
export async function writePackageZip(
  zipPath: string,
  files: readonly { path: string; source: string }[],
  modified: Date,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<{ commit(): Promise<void>; abort(): Promise<void> }> {
  if (files.length + 1 > 0xffff) throw new ZipTooLargeError(`a package of ${files.length} files cannot be zipped without Zip64 (at most 65,535 entries)`);
  const output = createAtomicWriteStream(zipPath, options);
  const chunks: Uint8Array[] = [];
  let written = 0;
  const put = async (chunk: Uint8Array): Promise<void> => {
    written += chunk.length;
    // fflate writes 32-bit offsets and sizes: past 4 GiB they would wrap and the zip would be corrupt.
    if (written > ZIP32_LIMIT) throw new ZipTooLargeError(`the zip of this package would pass 4 GiB, which needs Zip64 (not supported); the package folder is complete`);
    await output.write(chunk);
  };
  let failure: Error | undefined;
  let ended = false;
  const zip = new Zip((error, data, final) => {
    if (error !== null) failure = error;
    else chunks.push(data);
    if (final) ended = true;
  });
  // DOS times in a zip are local wall-clock fields. Noon local time on the UTC day of `modified`
  // exists in every zone on every day (no daylight-saving jump happens at noon), so the bytes do not
  // depend on the machine's time zone.
  const entryTime = new Date(modified.getUTCFullYear(), modified.getUTCMonth(), modified.getUTCDate(), 12, 0, 0);
  try {
    for (const file of files) {
      const entry = new ZipDeflate(file.path, { level: 6 });
      entry.mtime = entryTime;
      zip.add(entry);
      let size = 0;
      for await (const chunk of readFileChunks(file.source)) {
        size += chunk.length;
        if (size > ZIP32_LIMIT) throw new ZipTooLargeError(`${file.path} is over 4 GiB, which a zip without Zip64 cannot hold; the package folder is complete`);
        entry.push(chunk);
        while (chunks.length > 0) await put(chunks.shift() as Uint8Array);
        if (failure !== undefined) throw failure;
      }
      entry.push(new Uint8Array(0), true);
    }
    zip.end();
    if (failure !== undefined) throw failure;
    if (!ended) throw new Error("zip stream did not finish");
    while (chunks.length > 0) await put(chunks.shift() as Uint8Array);
    // On disk now, so that committing is only a rename, right after the folder's.
    await output.flush();
  } catch (error) {
    await output.abort();
    throw error;
  }
  return { commit: () => output.commit(), abort: () => output.abort() };
}
