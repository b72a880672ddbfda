/**
 * Reads an OCF package, without judging it: from a folder holding `Manifest.ocf.json`, from a flat
 * `.ocf.zip` (every file at the zip root, as the OCF tutorials ship them; ocf-1.2.0.md §2.3), or from
 * files in memory. `validatePackageAt` and `validateOcfPackage` do the judging.
 *
 * Two ways in: `openOcfPackage` reads the manifest and hands out every other file as a stream of
 * chunks (a zip entry is inflated as it is read), so that a package of any size is read with flat
 * memory; `loadOcfPackage` is the convenience that reads every listed file whole (for packages that
 * fit in memory, e.g. to reconcile them). The public way in, `readOcfPackage` (typed-reader.ts),
 * reads typed and checked objects through `openOcfPackage`.
 *
 * What the reader refuses, so that a hostile package cannot make it read outside the package or
 * exhaust memory:
 * - a manifest over 64 MiB, and with `maxFileBytes` any file over that size (a zip entry once
 *   inflated, a file of the folder); `loadOcfPackage` applies 256 MiB by default;
 * - a manifest `filepath` or zip entry name that is absolute, holds a `..` segment leading out of
 *   the package, a backslash or a NUL (`normalizePackagePath`); in a folder also a symbolic link
 *   leading out of the package;
 * - more than 10,000 files, or folders nested deeper than 8 levels;
 * - a zip entry that inflates to another size than it declares or fails its CRC-32 (a corrupt zip).
 * A refused or missing listed file is recorded, not thrown: the validator reports it with the rest.
 * Only an input that is no package at all throws `PackageUnusableError`.
 */
import { open, readdir, realpath, stat } from "node:fs/promises";
import { basename, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { constants as bufferConstants, isAscii } from "node:buffer";
import { OcfSyncError, describeValue } from "../errors.js";
import { firstInvalidUtf8 } from "../json-framing.js";
import { md5Hex, stalenessOf } from "./package-set.js";
import { OcfManifestSchema } from "./schemas.js";
import { ZipFormatError, ZipReader, type ZipEntry } from "./zip-reader.js";

/** The manifest's name; OCF-Tools and ocf-sync's writer use it, and a package is found by it. */
export const MANIFEST_FILE_NAME = "Manifest.ocf.json";

/**
 * Default of `maxFileBytes` for `loadOcfPackage`, which holds every file in memory: 256 MiB, four
 * times the size ocf-sync's writer splits files at. Streaming reads have no default limit.
 */
export const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;

/** The manifest is parsed whole: one larger than this is no OCF manifest (it lists files, it holds no objects but the issuer). */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** A folder or zip with more files than this is not read: no OCF package comes near it. */
const MAX_FILES = 10_000;
const MAX_FOLDER_DEPTH = 8;

/**
 * The input is not an OCF package at all (not a folder or zip, unreadable zip, no manifest, manifest not JSON).
 *
 * @category Errors
 */
export class PackageUnusableError extends OcfSyncError {
  declare readonly code: "PACKAGE_UNUSABLE";
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

/** A file of the package opened for reading in chunks, or why it cannot be. */
export type StreamedFileContent =
  | Exclude<PackageFileContent, { state: "read" }>
  | {
      state: "stream";
      /** Its size in bytes (inflated, for a zip entry). */
      size: number;
      /** Its bytes, in order. A chunk may be reused once the next one is asked for. */
      chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
    };

/** A package whose manifest is read and whose other files are opened one at a time (`openOcfPackage`). */
export interface OpenedOcfPackage extends Omit<LoadedOcfPackage, "files"> {
  /** Opens a file of the package by its package path (`normalizePackagePath`). */
  open(path: string): Promise<StreamedFileContent>;
  /** Releases the zip file, if any. */
  close(): Promise<void>;
}

/**
 * Options of reading a package: by `readOcfPackage`, and by `validatePackageAt` (see `ValidatePackageAtOptions`).
 *
 * @category OCF
 */
export interface ReadOcfPackageOptions {
  signal?: AbortSignal;
  /**
   * The largest file read, in bytes: each zip entry once inflated, each file of a folder. A larger
   * manifest makes the package unusable; a larger listed file is recorded as `too-large`.
   * @default no limit for `readOcfPackage` and `validatePackageAt`, which stream each file (a read
   *   that holds every file in memory inside ocf-sync takes 256 MiB)
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

/**
 * Parses `bytes` as UTF-8 JSON; says why not (bad UTF-8 and where, a byte order mark, a syntax
 * error, or a file too large to be one JavaScript string).
 */
export function parseJsonBytes(bytes: Uint8Array): JsonParseResult {
  // UTF-8 never takes fewer bytes than UTF-16 code units, so only a file this large can fail to fit.
  if (bytes.length > bufferConstants.MAX_STRING_LENGTH) {
    return { ok: false, message: `has ${bytes.length} bytes, too large to parse whole (one JavaScript string holds at most ${bufferConstants.MAX_STRING_LENGTH} characters; 'ocf-sync validate' reads such files item by item)` };
  }
  let text: string;
  try {
    // ASCII is the same text read as Latin-1, and that is a copy rather than a decode.
    text = isAscii(bytes) ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1") : new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { ok: false, message: `is not UTF-8 text (an invalid byte sequence at byte ${firstInvalidUtf8(bytes)})` };
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
  open(path: string): Promise<StreamedFileContent>;
  /** Why the manifest is not there, for the unusable-input message. */
  noManifestMessage(): string;
  close(): Promise<void>;
}

/**
 * Reads the package at `path`: a folder holding `Manifest.ocf.json`, or a zip (told by its content,
 * not its name) with `Manifest.ocf.json` at its root. Reads the manifest and every file it lists;
 * does not check them.
 *
 * @throws {PackageUnusableError} when `path` is not a folder or zip, the zip is truncated or corrupt,
 *   there is no manifest, or the manifest is not a JSON object.
 */
export async function loadOcfPackage(path: string, options: ReadOcfPackageOptions = {}): Promise<LoadedOcfPackage> {
  const opened = await openOcfPackage(path, { ...options, maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES });
  try {
    return await readWhole(opened, options.signal);
  } finally {
    await opened.close();
  }
}

/**
 * Opens the package at `path` for reading file by file: reads and parses the manifest, and opens any
 * other file on request as a stream of chunks (`open`). Nothing but the manifest is held in memory.
 * Close it when done.
 *
 * @throws {PackageUnusableError} as `loadOcfPackage`.
 */
export async function openOcfPackage(path: string, options: ReadOcfPackageOptions = {}): Promise<OpenedOcfPackage> {
  const { signal } = options;
  const limit = options.maxFileBytes ?? Number.POSITIVE_INFINITY;
  signal?.throwIfAborted();
  const location = resolve(path);
  let info;
  try {
    info = await stat(location);
  } catch (error) {
    throw new PackageUnusableError(location, `cannot read ${location}: ${describeFsError(error)}`, { cause: error });
  }
  const source = info.isDirectory() ? await folderSource(location, limit, signal) : info.isFile() ? await zipSource(location, limit, signal) : undefined;
  if (source === undefined) throw notAPackage(location);
  try {
    return await withManifest(source, Math.min(limit, MAX_MANIFEST_BYTES), signal);
  } catch (error) {
    await source.close();
    throw error;
  }
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
  const opened = await withManifest(
    {
      container: "memory",
      location,
      paths: [...byPath.keys()].sort(),
      refused,
      open: async (path) => {
        const bytes = byPath.get(path);
        if (bytes === undefined) return { state: "missing" };
        if (bytes.length > limit) return { state: "too-large", size: bytes.length, limit };
        return { state: "stream", size: bytes.length, chunks: [bytes] };
      },
      noManifestMessage: () => `${location} has no ${MANIFEST_FILE_NAME}`,
      close: async () => {},
    },
    Math.min(limit, MAX_MANIFEST_BYTES),
    options.signal,
  );
  return readWhole(opened, options.signal);
}

/** Reads and parses the manifest of `source`. */
async function withManifest(source: PackageSource, manifestLimit: number, signal: AbortSignal | undefined): Promise<OpenedOcfPackage> {
  signal?.throwIfAborted();
  const opened = await source.open(MANIFEST_FILE_NAME);
  const manifestContent = opened.state === "stream" ? await collect(opened, manifestLimit, signal) : opened;
  if (manifestContent.state !== "read") {
    throw new PackageUnusableError(source.location, manifestProblem(source, manifestContent));
  }
  if (source.container === "zip") {
    // A zip beside a package folder that holds another package was left by a killed run (package-set.ts).
    const stale = await stalenessOf(source.location, md5Hex(manifestContent.bytes));
    if (stale !== undefined) throw new PackageUnusableError(source.location, stale);
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
  return {
    container: source.container,
    location: source.location,
    manifestPath: MANIFEST_FILE_NAME,
    manifest: manifest as Record<string, unknown>,
    paths: source.paths,
    refused: source.refused,
    open: (path) => source.open(path),
    close: () => source.close(),
  };
}

/** Every file the manifest lists, read whole. */
async function readWhole(opened: OpenedOcfPackage, signal: AbortSignal | undefined): Promise<LoadedOcfPackage> {
  const files = new Map<string, PackageFileContent>();
  for (const reference of manifestFileReferences(opened.manifest)) {
    const normalized = normalizePackagePath(reference.filepath);
    if (!normalized.ok || files.has(normalized.path) || normalized.path === opened.manifestPath) continue;
    signal?.throwIfAborted();
    const content = await opened.open(normalized.path);
    files.set(normalized.path, content.state === "stream" ? await collect(content, Number.POSITIVE_INFINITY, signal) : content);
  }
  const { open: _open, close: _close, ...rest } = opened;
  return { ...rest, files };
}

/** The whole of a streamed file, when it is within `limit` bytes. */
async function collect(content: Extract<StreamedFileContent, { state: "stream" }>, limit: number, signal: AbortSignal | undefined): Promise<PackageFileContent> {
  if (content.size > limit) return { state: "too-large", size: content.size, limit };
  const bytes = new Uint8Array(content.size);
  let filled = 0;
  for await (const chunk of content.chunks) {
    signal?.throwIfAborted();
    // A folder file growing while it is read is cut at the size seen when it was opened. The loop
    // runs to the end all the same: a zip entry is checked (size, CRC-32) once it is read through.
    const room = Math.min(chunk.length, content.size - filled);
    bytes.set(chunk.subarray(0, room), filled);
    filled += room;
  }
  return { state: "read", bytes: filled === content.size ? bytes : bytes.subarray(0, filled) };
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

/** Whether the file at `location` starts like a zip (told by its content, not its name). */
async function looksLikeZip(location: string): Promise<boolean> {
  const first = new Uint8Array(4);
  const handle = await open(location, "r");
  try {
    const { bytesRead } = await handle.read(first, 0, 4, 0);
    const startsWith = (magic: readonly number[]): boolean => bytesRead === 4 && magic.every((byte, i) => first[i] === byte);
    return startsWith(ZIP_LOCAL_HEADER) || startsWith(ZIP_EMPTY_ARCHIVE);
  } finally {
    await handle.close();
  }
}

async function zipSource(location: string, limit: number, signal: AbortSignal | undefined): Promise<PackageSource> {
  let zip: ZipReader;
  try {
    if (!(await looksLikeZip(location))) throw notAPackage(location);
    zip = await ZipReader.open(location, { maxEntries: MAX_FILES, ...(signal === undefined ? {} : { signal }) });
  } catch (error) {
    if (error instanceof PackageUnusableError || signal?.aborted === true) throw error;
    if (error instanceof ZipFormatError) throw unreadableZip(location, error);
    throw new PackageUnusableError(location, `cannot read ${location}: ${describeFsError(error)}`, { cause: error });
  }
  const entries = zip.entries;
  // Folder entries (names ending in "/") carry no data; nothing is ever extracted to disk, so they are harmless.
  const { accepted, refused } = admitEntries(entries.map((e) => (e.name.endsWith("/") ? undefined : e.name)));
  /** The entry's bytes; a corrupt entry makes the whole zip unusable, as a truncated one does. */
  async function* chunksOf(entry: ZipEntry): AsyncGenerator<Uint8Array> {
    try {
      yield* zip.chunks(entry, signal);
    } catch (error) {
      if (error instanceof ZipFormatError) throw unreadableZip(location, error);
      throw error;
    }
  }
  return {
    container: "zip",
    location,
    paths: [...accepted.keys()].sort(),
    refused,
    open: async (path) => {
      signal?.throwIfAborted();
      const index = accepted.get(path);
      const entry = index === undefined ? undefined : entries[index];
      if (entry === undefined) return { state: "missing" };
      if (entry.size > limit) return { state: "too-large", size: entry.size, limit };
      if (entry.encrypted) return { state: "unreadable", reason: "the zip entry is encrypted" };
      if (entry.method !== 0 && entry.method !== 8) {
        return { state: "unreadable", reason: `zip compression method ${entry.method} is not supported (only stored and deflate)` };
      }
      return { state: "stream", size: entry.size, chunks: chunksOf(entry) };
    },
    noManifestMessage: () => {
      const nested = [...accepted.keys()].find((p) => posix.basename(p) === MANIFEST_FILE_NAME);
      return (
        `${location} has no ${MANIFEST_FILE_NAME} at its root` +
        (nested === undefined ? "" : ` (it has ${nested}; ocf-sync reads flat zips, with every file at the root)`)
      );
    },
    close: () => zip.close(),
  };
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
    open: async (path) => {
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
        return { state: "stream", size: info.size, chunks: fileChunks(target, signal) };
      } catch (error) {
        if (signal?.aborted === true) throw error;
        return fsErrorContent(error);
      }
    },
    noManifestMessage: () => `${location} holds no ${MANIFEST_FILE_NAME}: not an OCF package folder${packagesInside(location, paths)}`,
    close: async () => {},
  };
}

/**
 * Where a folder of packages (an export's `--out`) was given for one: the packages it holds, named
 * so that a person can validate them (`; it holds 2 packages, to validate one at a time: out/7, out/8`).
 */
function packagesInside(location: string, paths: readonly string[]): string {
  const folders = paths.flatMap((path) => {
    const parts = path.split("/");
    return parts.length === 2 && parts[1] === MANIFEST_FILE_NAME ? [parts[0] as string] : [];
  });
  const packages = [...folders, ...paths.filter((path) => !path.includes("/") && path.endsWith(".ocf.zip"))];
  if (packages.length === 0) return "";
  const shown = packages.slice(0, 3).map((name) => join(location, name));
  const more = packages.length > shown.length ? `, and ${packages.length - shown.length} more` : "";
  const count = packages.length === 1 ? "1 package" : `${packages.length} packages`;
  return `; it holds ${count}, to validate one at a time: ${shown.join(", ")}${more}`;
}

/**
 * A file's bytes in chunks of 1 MiB, read into two buffers used in turn (so reading a large file
 * allocates nothing per chunk): each chunk is valid until the next one is asked for, and the next is
 * read from the disk while the caller works on this one.
 */
async function* fileChunks(path: string, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
  const handle = await open(path, "r");
  let pending: Promise<{ bytesRead: number }> | undefined;
  try {
    let reading = new Uint8Array(CHUNK_BYTES);
    let spare = new Uint8Array(CHUNK_BYTES);
    let position = 0;
    pending = handle.read(reading, 0, CHUNK_BYTES, 0);
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await pending;
      pending = undefined;
      if (bytesRead === 0) return;
      const chunk = reading.subarray(0, bytesRead);
      position += bytesRead;
      [reading, spare] = [spare, reading];
      pending = handle.read(reading, 0, CHUNK_BYTES, position);
      yield chunk;
    }
  } finally {
    // A read under way ends before the descriptor is closed (its number could name another file by then).
    await pending?.catch(() => {});
    await handle.close();
  }
}

const CHUNK_BYTES = 1 << 20;

function fsErrorContent(error: unknown): Exclude<PackageFileContent, { state: "read" }> {
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
