/**
 * Reads an OCF package, without judging it: from a folder holding `Manifest.ocf.json`, from a flat
 * `.ocf.zip` (every file at the zip root, as the OCF tutorials ship them; ocf-1.2.0.md §2.3), or from
 * files in memory. `validateOcfPackage` does the judging.
 *
 * What the reader refuses, so that a hostile package cannot make it read outside the package or
 * exhaust memory:
 * - a file (the zip itself, a zip entry once inflated, a file of the folder) over `maxFileBytes`;
 * - a manifest `filepath` or zip entry name that is absolute, holds a `..` segment leading out of
 *   the package, a backslash or a NUL (`normalizePackagePath`); in a folder also a symbolic link
 *   leading out of the package;
 * - more than 10,000 files, or folders nested deeper than 8 levels.
 * A refused or missing listed file is recorded, not thrown: the validator reports it with the rest.
 * Only an input that is no package at all throws `PackageUnusableError`.
 */
import { open, readdir, realpath, stat } from "node:fs/promises";
import { basename, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { unzipSync } from "fflate";
import { OcfSyncError, describeValue } from "../errors.js";
import { OcfManifestSchema } from "./schemas.js";

/** The manifest's name; OCF-Tools and ocf-sync's writer use it, and a package is found by it. */
export const MANIFEST_FILE_NAME = "Manifest.ocf.json";

/** Default of `maxFileBytes`: 256 MiB, far above the largest file of a 10,000-record issuer. */
export const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;

/** A folder or zip with more files than this is not read: no OCF package comes near it. */
const MAX_FILES = 10_000;
const MAX_FOLDER_DEPTH = 8;

/** The input is not an OCF package at all (not a folder or zip, unreadable zip, no manifest, manifest not JSON). */
export class PackageUnusableError extends OcfSyncError {
  /** The path that was given to read. */
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super("PACKAGE_UNUSABLE", message, options);
    this.name = "PackageUnusableError";
    this.path = path;
  }
}

/** What the reader found at one path of the package. */
export type PackageFileContent =
  | { state: "read"; bytes: Uint8Array }
  | { state: "missing" }
  | { state: "not-a-file" }
  | { state: "too-large"; size: number; limit: number }
  /** A symbolic link in a folder package that leads out of the package; not followed. */
  | { state: "outside" }
  | { state: "unreadable"; reason: string };

/** A file of the package that the reader would not take in. */
export interface RefusedEntry {
  /** The name as found (a zip entry name, or a path given in memory). */
  path: string;
  code: "UNSAFE_PATH" | "DUPLICATE_ENTRY";
  /** Why, as the rest of a sentence about the entry: "its name leads out of the package". */
  reason: string;
}

/** A package as read: the parsed manifest, the bytes of every file it lists, and what else is there. */
export interface LoadedOcfPackage {
  container: "folder" | "zip" | "memory";
  /** The absolute path of the folder or zip, or a label for a package in memory. */
  location: string;
  /** The manifest's path inside the package (`Manifest.ocf.json`). */
  manifestPath: string;
  /** The parsed manifest: a JSON object, not yet checked against any schema. */
  manifest: Readonly<Record<string, unknown>>;
  /** Every file the manifest lists under a safe `filepath`, by package path (`normalizePackagePath`). */
  files: ReadonlyMap<string, PackageFileContent>;
  /** The package path of every file present in the package, the manifest included, sorted. */
  paths: readonly string[];
  /** Entries that were not taken in (zip or memory packages). */
  refused: readonly RefusedEntry[];
}

/** Options of `readOcfPackage`. */
export interface ReadOcfPackageOptions {
  signal?: AbortSignal;
  /**
   * The largest file read, in bytes: the zip itself, each zip entry once inflated, each file of a
   * folder. A larger manifest or zip makes the package unusable; a larger listed file is recorded
   * as `too-large`.
   * @default DEFAULT_MAX_FILE_BYTES (256 MiB)
   */
  maxFileBytes?: number;
}

/** Options of `readOcfPackageFromFiles`. */
export interface ReadOcfPackageFromFilesOptions extends ReadOcfPackageOptions {
  /** What to call the package in messages and in `location`. @default "(in memory)" */
  label?: string;
}

/** One file of a package in memory. */
export interface InMemoryPackageFile {
  /** The path inside the package, e.g. `"Transactions.ocf.json"`. */
  path: string;
  /** The file's bytes, or its text (taken as UTF-8). */
  content: string | Uint8Array;
}

/** One entry of a manifest's `*_files` lists. */
export interface ManifestFileReference {
  /** The manifest key that lists it, e.g. `"transactions_files"`. */
  key: string;
  /** The `filepath` as written. */
  filepath: string;
  /** The `md5` as written (not yet checked). */
  md5: unknown;
  /** Where the entry is in the manifest, e.g. `$.transactions_files[0]`. */
  jsonPath: string;
}

/** The manifest keys that list files (`*_files`), in the order of the OCF 1.2.0 manifest schema. */
export const MANIFEST_FILE_LIST_KEYS: readonly string[] = Object.keys(OcfManifestSchema.shape).filter((key) => key.endsWith("_files"));

/**
 * Every `{ filepath }` entry of the manifest's file lists, in manifest order. Tolerant: entries that
 * are not objects with a string `filepath` are skipped (the schema check reports them).
 */
export function manifestFileReferences(manifest: Readonly<Record<string, unknown>>): ManifestFileReference[] {
  const references: ManifestFileReference[] = [];
  for (const key of MANIFEST_FILE_LIST_KEYS) {
    const list = manifest[key];
    if (!Array.isArray(list)) continue;
    list.forEach((entry: unknown, index) => {
      if (typeof entry !== "object" || entry === null) return;
      const { filepath, md5 } = entry as { filepath?: unknown; md5?: unknown };
      if (typeof filepath === "string") references.push({ key, filepath, md5, jsonPath: `$.${key}[${index}]` });
    });
  }
  return references;
}

/**
 * The path of a file inside a package, in one canonical form (`"./a/../Stakeholders.ocf.json"` →
 * `"Stakeholders.ocf.json"`), or why the name cannot be one: empty, absolute (`/x`, `C:x`),
 * leading out of the package (`../x`), naming a folder, or holding a backslash or a NUL.
 */
export function normalizePackagePath(name: string): { ok: true; path: string } | { ok: false; reason: string } {
  if (name === "") return { ok: false, reason: "is empty" };
  if (name.includes("\0")) return { ok: false, reason: "holds a NUL character" };
  // On Windows a backslash separates folders; inside a package it is never needed, so it is refused.
  if (name.includes("\\")) return { ok: false, reason: "holds a backslash (package paths use /)" };
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return { ok: false, reason: "is an absolute path" };
  const path = posix.normalize(name);
  if (path === ".." || path.startsWith("../")) return { ok: false, reason: "leads out of the package" };
  if (path === "." || path.endsWith("/")) return { ok: false, reason: "names a folder, not a file" };
  return { ok: true, path };
}

/** The outcome of decoding a file as UTF-8 JSON. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; message: string };

/** Parses `bytes` as UTF-8 JSON; says why not (bad UTF-8, a byte order mark, a syntax error). */
export function parseJsonBytes(bytes: Uint8Array): JsonParseResult {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { ok: false, message: "is not UTF-8 text" };
  }
  if (text.startsWith("\uFEFF")) return { ok: false, message: "starts with a byte order mark, which JSON does not allow" };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: `is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** Where a package's files come from: a folder, a zip or memory. */
interface PackageSource {
  container: LoadedOcfPackage["container"];
  location: string;
  paths: readonly string[];
  refused: readonly RefusedEntry[];
  read(path: string): Promise<PackageFileContent>;
  /** Why the manifest is not there, for the unusable-input message. */
  noManifestMessage(): string;
}

/**
 * Reads the package at `path`: a folder holding `Manifest.ocf.json`, or a zip (told by its content,
 * not its name) with `Manifest.ocf.json` at its root. Reads the manifest and every file it lists;
 * does not check them.
 *
 * @throws {PackageUnusableError} when `path` is not a folder or zip, the zip is truncated or corrupt,
 *   there is no manifest, or the manifest is not a JSON object.
 * @example
 * const pkg = await readOcfPackage("out/issuer-7.ocf.zip");
 * const report = validateOcfPackage(pkg);
 */
export async function readOcfPackage(path: string, options: ReadOcfPackageOptions = {}): Promise<LoadedOcfPackage> {
  const { signal } = options;
  const limit = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  signal?.throwIfAborted();
  const location = resolve(path);
  let info;
  try {
    info = await stat(location);
  } catch (error) {
    throw new PackageUnusableError(location, `cannot read ${location}: ${describeFsError(error)}`, { cause: error });
  }
  const source = info.isDirectory()
    ? await folderSource(location, limit, signal)
    : info.isFile()
      ? await zipSource(location, info.size, limit, signal)
      : undefined;
  if (source === undefined) throw notAPackage(location);
  return assemble(source, signal);
}

/**
 * A package from files in memory (for example one built by `buildPackageFiles`, checked before it
 * is written). Paths are checked as zip entry names are.
 *
 * @throws {PackageUnusableError} when there is no manifest or it is not a JSON object.
 */
export async function readOcfPackageFromFiles(
  files: Iterable<InMemoryPackageFile>,
  options: ReadOcfPackageFromFilesOptions = {},
): Promise<LoadedOcfPackage> {
  const limit = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const location = options.label ?? "(in memory)";
  const named = [...files].map((file) => ({
    name: file.path,
    bytes: typeof file.content === "string" ? new TextEncoder().encode(file.content) : file.content,
  }));
  const { accepted, refused } = admitEntries(named.map((f) => f.name));
  const byPath = new Map([...accepted].map(([path, index]) => [path, named[index]?.bytes ?? new Uint8Array()]));
  return assemble(
    {
      container: "memory",
      location,
      paths: [...byPath.keys()].sort(),
      refused,
      read: async (path) => {
        const bytes = byPath.get(path);
        if (bytes === undefined) return { state: "missing" };
        if (bytes.length > limit) return { state: "too-large", size: bytes.length, limit };
        return { state: "read", bytes };
      },
      noManifestMessage: () => `${location} has no ${MANIFEST_FILE_NAME}`,
    },
    options.signal,
  );
}

async function assemble(source: PackageSource, signal: AbortSignal | undefined): Promise<LoadedOcfPackage> {
  signal?.throwIfAborted();
  const manifestContent = await source.read(MANIFEST_FILE_NAME);
  if (manifestContent.state !== "read") {
    throw new PackageUnusableError(source.location, manifestProblem(source, manifestContent));
  }
  const parsed = parseJsonBytes(manifestContent.bytes);
  if (!parsed.ok) throw new PackageUnusableError(source.location, `${MANIFEST_FILE_NAME} in ${source.location} ${parsed.message}`);
  const manifest = parsed.value;
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) {
    throw new PackageUnusableError(
      source.location,
      `${MANIFEST_FILE_NAME} in ${source.location} is ${describeValue(manifest, 40)}, not a JSON object: not an OCF manifest`,
    );
  }
  const files = new Map<string, PackageFileContent>();
  for (const reference of manifestFileReferences(manifest as Record<string, unknown>)) {
    const normalized = normalizePackagePath(reference.filepath);
    if (!normalized.ok || files.has(normalized.path)) continue;
    signal?.throwIfAborted();
    files.set(normalized.path, await source.read(normalized.path));
  }
  return {
    container: source.container,
    location: source.location,
    manifestPath: MANIFEST_FILE_NAME,
    manifest: manifest as Record<string, unknown>,
    files,
    paths: source.paths,
    refused: source.refused,
  };
}

function manifestProblem(source: PackageSource, content: Exclude<PackageFileContent, { state: "read" }>): string {
  switch (content.state) {
    case "missing":
      return source.noManifestMessage();
    case "not-a-file":
      return `${MANIFEST_FILE_NAME} in ${source.location} is not a file`;
    case "too-large":
      return `${MANIFEST_FILE_NAME} in ${source.location} has ${content.size} bytes, over the limit of ${content.limit}`;
    case "outside":
      return `${MANIFEST_FILE_NAME} in ${source.location} is a link leading out of the package`;
    case "unreadable":
      return `cannot read ${MANIFEST_FILE_NAME} in ${source.location}: ${content.reason}`;
  }
}

/**
 * Sorts names into accepted package paths (mapped to the index of the first entry of that path) and
 * refused ones. `undefined` names (folder entries of a zip) are neither.
 */
function admitEntries(names: readonly (string | undefined)[]): { accepted: Map<string, number>; refused: RefusedEntry[] } {
  const accepted = new Map<string, number>();
  const refused: RefusedEntry[] = [];
  names.forEach((name, index) => {
    if (name === undefined) return;
    const normalized = normalizePackagePath(name);
    if (!normalized.ok) {
      refused.push({ path: name, code: "UNSAFE_PATH", reason: `its name ${normalized.reason}` });
    } else if (accepted.has(normalized.path)) {
      refused.push({ path: name, code: "DUPLICATE_ENTRY", reason: `is a second entry for ${normalized.path}` });
    } else {
      accepted.set(normalized.path, index);
    }
  });
  return { accepted, refused };
}

const ZIP_LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];
const ZIP_EMPTY_ARCHIVE = [0x50, 0x4b, 0x05, 0x06];

async function zipSource(location: string, size: number, limit: number, signal: AbortSignal | undefined): Promise<PackageSource> {
  if (size > limit) throw new PackageUnusableError(location, `${location} has ${size} bytes, over the limit of ${limit}`);
  let data: Uint8Array;
  try {
    data = await readBounded(location, size, signal);
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw new PackageUnusableError(location, `cannot read ${location}: ${describeFsError(error)}`, { cause: error });
  }
  const startsWith = (magic: readonly number[]): boolean => magic.every((byte, i) => data[i] === byte);
  if (!startsWith(ZIP_LOCAL_HEADER) && !startsWith(ZIP_EMPTY_ARCHIVE)) throw notAPackage(location);
  interface EntryInfo {
    name: string;
    compressedSize: number;
    originalSize: number;
    compression: number;
  }
  const entries: EntryInfo[] = [];
  try {
    // A first pass over the central directory only: the filter declines every entry, so nothing is inflated.
    unzipSync(data, {
      filter: (file) => {
        if (entries.length >= MAX_FILES) throw new Error(`more than ${MAX_FILES} entries`);
        entries.push({ name: file.name, compressedSize: file.size, originalSize: file.originalSize, compression: file.compression });
        return false;
      },
    });
  } catch (error) {
    throw unreadableZip(location, error);
  }
  for (const entry of entries) {
    if (!plausibleSizes(entry.compression, entry.compressedSize, entry.originalSize)) {
      throw unreadableZip(
        location,
        new Error(`entry ${describeValue(entry.name)} declares ${entry.originalSize} bytes but holds ${entry.compressedSize} compressed`),
      );
    }
  }
  // Folder entries (names ending in "/") carry no data; nothing is ever extracted to disk, so they are harmless.
  const { accepted, refused } = admitEntries(entries.map((e) => (e.name.endsWith("/") ? undefined : e.name)));
  return {
    container: "zip",
    location,
    paths: [...accepted.keys()].sort(),
    refused,
    read: async (path) => {
      signal?.throwIfAborted();
      const index = accepted.get(path);
      const entry = index === undefined ? undefined : entries[index];
      if (index === undefined || entry === undefined) return { state: "missing" };
      if (entry.originalSize > limit) return { state: "too-large", size: entry.originalSize, limit };
      if (entry.compression !== 0 && entry.compression !== 8) {
        return { state: "unreadable", reason: `zip compression method ${entry.compression} is not supported (only stored and deflate)` };
      }
      let position = 0;
      let inflated: Uint8Array | undefined;
      try {
        // fflate inflates into a buffer of the declared size and never grows it, so a lying size cannot exhaust memory.
        inflated = Object.values(unzipSync(data, { filter: () => position++ === index }))[0];
      } catch (error) {
        throw unreadableZip(location, error);
      }
      if (inflated === undefined || inflated.length !== entry.originalSize) {
        throw unreadableZip(location, new Error(`entry ${describeValue(entry.name)} inflates to ${inflated?.length ?? 0} bytes, not the ${entry.originalSize} it declares`));
      }
      return { state: "read", bytes: inflated };
    },
    noManifestMessage: () => {
      const nested = [...accepted.keys()].find((p) => posix.basename(p) === MANIFEST_FILE_NAME);
      return (
        `${location} has no ${MANIFEST_FILE_NAME} at its root` +
        (nested === undefined ? "" : ` (it has ${nested}; ocf-sync reads flat zips, with every file at the root)`)
      );
    },
  };
}

/**
 * Whether an entry's declared sizes can be true. An entry inflates into a buffer of its declared size,
 * so a size declared too small cannot exhaust memory; but inflating still runs through the whole
 * compressed entry, which deflate can expand up to 1032 times, for nothing. Deflate never grows data
 * by more than zlib's `deflateBound` (about 0.03% plus a few bytes), so more compressed bytes than
 * that betray a lie. Other methods are refused when read.
 */
function plausibleSizes(compression: number, compressedSize: number, originalSize: number): boolean {
  if (!Number.isSafeInteger(compressedSize) || !Number.isSafeInteger(originalSize) || compressedSize < 0 || originalSize < 0) return false;
  if (compression === 0) return compressedSize === originalSize;
  if (compression === 8) return compressedSize <= originalSize + Math.ceil(originalSize / 1000) + 64;
  return true;
}

function notAPackage(location: string): PackageUnusableError {
  const hint = basename(location) === MANIFEST_FILE_NAME ? "; give the folder that holds it" : "";
  return new PackageUnusableError(location, `${location} is neither a folder nor a zip file${hint}`);
}

function unreadableZip(location: string, cause: unknown): PackageUnusableError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new PackageUnusableError(location, `${location} is not a readable zip (truncated or corrupt: ${detail})`, { cause });
}

async function folderSource(location: string, limit: number, signal: AbortSignal | undefined): Promise<PackageSource> {
  const root = await realpath(location);
  const paths: string[] = [];
  const walk = async (folder: string, prefix: string, depth: number): Promise<void> => {
    signal?.throwIfAborted();
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      // Folder links are not followed (they could lead anywhere, or loop); file links are listed and checked on read.
      if (entry.isDirectory() && depth < MAX_FOLDER_DEPTH) await walk(join(folder, entry.name), path, depth + 1);
      else if (entry.isFile() || entry.isSymbolicLink()) paths.push(path);
      if (paths.length > MAX_FILES) {
        throw new PackageUnusableError(location, `${location} holds more than ${MAX_FILES} files; not an OCF package folder`);
      }
    }
  };
  try {
    await walk(root, "", 0);
  } catch (error) {
    if (error instanceof PackageUnusableError || signal?.aborted === true) throw error;
    throw new PackageUnusableError(location, `cannot list ${location}: ${describeFsError(error)}`, { cause: error });
  }
  return {
    container: "folder",
    location,
    paths: paths.sort(),
    refused: [],
    read: async (path) => {
      signal?.throwIfAborted();
      let target: string;
      try {
        target = await realpath(join(root, ...path.split("/")));
      } catch (error) {
        return fsErrorContent(error);
      }
      const fromRoot = relative(root, target);
      if (fromRoot === ".." || fromRoot.startsWith(`..${sep}`) || isAbsolute(fromRoot)) return { state: "outside" };
      try {
        const info = await stat(target);
        if (!info.isFile()) return { state: "not-a-file" };
        if (info.size > limit) return { state: "too-large", size: info.size, limit };
        return { state: "read", bytes: await readBounded(target, info.size, signal) };
      } catch (error) {
        if (signal?.aborted === true) throw error;
        return fsErrorContent(error);
      }
    },
    noManifestMessage: () => `${location} holds no ${MANIFEST_FILE_NAME}: not an OCF package folder`,
  };
}

/** Reads at most `size` bytes (the size seen by `stat`), so a file growing meanwhile cannot push past the limit. */
async function readBounded(path: string, size: number, signal: AbortSignal | undefined): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const buffer = new Uint8Array(size);
    let filled = 0;
    while (filled < size) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === size ? buffer : buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

function fsErrorContent(error: unknown): PackageFileContent {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return { state: "missing" };
  if (code === "EISDIR") return { state: "not-a-file" };
  return { state: "unreadable", reason: describeFsError(error) };
}

function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return "no such file or folder";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
