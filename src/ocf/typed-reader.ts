/**
 * Reads an OCF package back as typed objects, streamed: `readOcfPackage` checks the manifest against
 * the OCF 1.2.0 manifest schema, then `objects()` reads the files it lists one chunk at a time
 * (`json-items.ts`) and yields each element of their `items` as soon as it is read and checked. So a
 * package of any size is read with the memory of one chunk's objects, and every object yielded is
 * what its type says: one that does not conform stops the read with an `OcfReadError` naming its
 * file, its index and the field.
 *
 * Objects of an OCF 1.2.0 kind ocf-sync has no schema for (a warrant, an exercise, a financing) are
 * yielded as `UnknownOcfObject`, not thrown and not skipped: they are valid OCF that other systems
 * write, so throwing would make a valid package unreadable, and skipping would make a sum over the
 * package silently wrong. Their `object_type` is a union of literals, so a `switch` on it still
 * narrows, and a reader that meets one has to decide what it means. A kind that is not OCF 1.2.0 at
 * all (a typo, a vendor's own) is not OCF, and is an error.
 *
 * What `validatePackageAt` checks across objects and files (references, ids, lineage, quantities,
 * files the manifest does not list) is not checked here; run it first when a package comes from elsewhere.
 */
import { createHash } from "node:crypto";
import { OCF_READ_ERROR_CODES } from "../error-codes.js";
import { OcfSyncError, describeValue, isOcfSyncError } from "../errors.js";
import { jsonItemsScanner } from "./json-items.js";
import { FILE_TYPE_OF_MANIFEST_KEY, type OcfListedFileType } from "./files.js";
import {
  manifestFileReferences,
  normalizePackagePath,
  openOcfPackage,
  type OpenedOcfPackage,
  type ReadOcfPackageOptions,
  type StreamedFileContent,
} from "./package-reader.js";
import { UNSCHEMED_TRANSACTION_TYPES, validateOcfFile, validateOcfFileItem, type OcfIssue } from "./schemas.js";
import type {
  OcfManifest,
  OcfPackageObject,
  OcfStakeholder,
  OcfStockClass,
  OcfStockLegendTemplate,
  OcfStockPlan,
  OcfTransaction,
  OcfUnschemedTransactionType,
  OcfValuation,
  OcfVestingTerms,
  UnknownOcfObject,
} from "./types.js";

/**
 * A stable code of an `OcfReadError`; see `OCF_READ_ERROR_CODES`.
 *
 * @category OCF
 */
export type OcfReadErrorCode = (typeof OCF_READ_ERROR_CODES)[number];

/**
 * A package (or one object of it) is not what its type says, so the read stopped: the manifest is not
 * a valid OCF 1.2.0 manifest, a listed file cannot be read or is not the file the manifest
 * describes, or an object does not conform. Names the file, the object's index in its `items` and
 * the field (`jsonPath`), with every issue found in that object.
 *
 * @example
 * ```ts
 * import { isOcfReadError, readOcfPackage } from "ocf-sync";
 * try {
 *   const pkg = await readOcfPackage("out/7.ocf.zip");
 *   for await (const object of pkg.objects()) console.log(object.object_type, object.id);
 * } catch (error) {
 *   if (isOcfReadError(error)) console.error(`${error.file} ${error.jsonPath}: ${error.message}`);
 *   else throw error;
 * }
 * ```
 *
 * @category Errors
 */
export class OcfReadError extends OcfSyncError {
  declare readonly code: OcfReadErrorCode;
  /** The folder or zip read. */
  readonly location: string;
  /** The package path of the file concerned, e.g. `"Transactions.ocf.json"` or `"Manifest.ocf.json"`. */
  readonly file: string;
  /** The object's index in the file's `items`, when the error is about one object. */
  readonly index: number | undefined;
  /** The object's `id`, when it has a string one. */
  readonly itemId: string | undefined;
  /** Where in `file`: the first issue's path, e.g. `"$.items[3].quantity"`; `"$"` for the file as a whole. */
  readonly jsonPath: string;
  /** Every issue found, with paths inside `file` (the first is `jsonPath`). */
  readonly issues: readonly OcfIssue[];

  constructor(
    code: OcfReadErrorCode,
    at: { location: string; file: string; index?: number; itemId?: string },
    issues: readonly [OcfIssue, ...OcfIssue[]],
    options?: { cause?: unknown },
  ) {
    const [first] = issues;
    const object = at.itemId === undefined ? "" : ` (object ${describeValue(at.itemId)})`;
    const more = issues.length > 1 ? `; and ${issues.length - 1} more issue${issues.length === 2 ? "" : "s"}` : "";
    super(code, `${at.location}: ${at.file} ${first.path}${object} ${first.message}${more}`, options);
    this.name = "OcfReadError";
    this.location = at.location;
    this.file = at.file;
    this.index = at.index;
    this.itemId = at.itemId;
    this.jsonPath = first.path;
    this.issues = issues;
  }
}

/**
 * True for an {@link OcfReadError}, also across two loaded copies of the package.
 *
 * @category Errors
 */
export function isOcfReadError(error: unknown): error is OcfReadError {
  return isOcfSyncError(error) && (OCF_READ_ERROR_CODES as readonly string[]).includes(error.code);
}

/**
 * The objects each kind of file holds, by `file_type`.
 *
 * @category OCF
 */
export interface OcfObjectOfFileType {
  OCF_STAKEHOLDERS_FILE: OcfStakeholder;
  OCF_STOCK_CLASSES_FILE: OcfStockClass;
  OCF_STOCK_PLANS_FILE: OcfStockPlan;
  OCF_STOCK_LEGEND_TEMPLATES_FILE: OcfStockLegendTemplate;
  OCF_VESTING_TERMS_FILE: OcfVestingTerms;
  OCF_VALUATIONS_FILE: OcfValuation;
  OCF_TRANSACTIONS_FILE: OcfTransaction | UnknownOcfObject<OcfUnschemedTransactionType>;
  OCF_FINANCINGS_FILE: UnknownOcfObject<"FINANCING">;
  OCF_DOCUMENTS_FILE: UnknownOcfObject<"DOCUMENT">;
}

/**
 * A file the manifest lists, as `readOcfPackage` reads it; told apart by `fileType`.
 *
 * @category OCF
 */
export type OcfPackageFileEntry = {
  [F in keyof OcfObjectOfFileType]: {
    /** The package path (`"Transactions.ocf.json"`). */
    path: string;
    /** The `file_type` of its manifest list, which the file must declare. */
    fileType: F;
    /** The manifest list that names it first, e.g. `"transactions_files"`. */
    manifestKey: string;
    /** The MD5 the manifest gives, checked as the file is read. */
    md5: string;
  };
}[keyof OcfObjectOfFileType];

/**
 * Options of one read of a package's objects.
 *
 * @category OCF
 */
export interface ReadObjectsOptions {
  /** Stops the read (with the signal's reason); the package's own `signal` stops it too. */
  signal?: AbortSignal;
}

/**
 * A package opened by `readOcfPackage`: its checked manifest, the files it lists, and its objects,
 * read anew (and streamed) by each call of `objects` or `objectsOf`. Holds nothing open between reads.
 *
 * @category OCF
 */
export interface OcfPackageReader {
  /** `"folder"` or `"zip"` (told by content, not by name). */
  readonly container: "folder" | "zip";
  /** The absolute path of the folder or zip. */
  readonly location: string;
  /** The manifest, valid against the OCF 1.2.0 manifest schema; the issuer is `manifest.issuer`. */
  readonly manifest: OcfManifest;
  /** The files the manifest lists, each once, in manifest order (the order `objects` reads them in). */
  readonly files: readonly OcfPackageFileEntry[];
  /**
   * Every object of every listed file, in file and `items` order, each checked as it is read.
   * Legacy `TX_PLAN_SECURITY_*` spellings are yielded as written (their type names both spellings).
   * @throws {OcfReadError} at the first file or object that is not what its type says, after the
   *   objects before it; an MD5 mismatch once the file is read through, after all its objects.
   */
  objects(options?: ReadObjectsOptions): AsyncIterable<OcfPackageObject>;
  /** The objects of one listed file (an entry of `files`), typed by its `fileType`. @throws as `objects`. */
  objectsOf<F extends OcfPackageFileEntry>(file: F, options?: ReadObjectsOptions): AsyncIterable<OcfObjectOfFileType[F["fileType"]]>;
}

/**
 * Opens the OCF package at `path` (a folder holding `Manifest.ocf.json`, or a flat `.ocf.zip`) for
 * reading as typed objects: reads and checks its manifest now, and streams its files when its
 * `objects()` are iterated, with flat memory however large they are. `object_type` tells the objects
 * apart: a `switch` or an `if` on it narrows each to its interface.
 *
 * @throws {PackageUnusableError} when `path` is no package (not a folder or zip, no manifest, a
 *   manifest that is not a JSON object); {OcfReadError} `OCF_MANIFEST_INVALID` when the manifest is
 *   not a valid OCF 1.2.0 one.
 * @example
 * ```ts
 * import { readOcfPackage } from "ocf-sync";
 * const pkg = await readOcfPackage("out/7.ocf.zip");
 * console.log(`RSUs of ${pkg.manifest.issuer.legal_name}, as of ${pkg.manifest.as_of}:`);
 * for await (const object of pkg.objects()) {
 *   // Narrowed to OcfEquityCompensationIssuance: quantity is an OCF Numeric string ("1500", "0.25").
 *   if (object.object_type === "TX_EQUITY_COMPENSATION_ISSUANCE" && object.compensation_type === "RSU") {
 *     console.log(`${object.security_id}: ${object.quantity} units to ${object.stakeholder_id}`);
 *   }
 * }
 * ```
 *
 * @category OCF
 */
export async function readOcfPackage(path: string, options: ReadOcfPackageOptions = {}): Promise<OcfPackageReader> {
  const opened = await openOcfPackage(path, options);
  let manifest: OcfManifest;
  try {
    manifest = checkedManifest(opened);
  } finally {
    await opened.close();
  }
  const container = opened.container === "zip" ? "zip" : "folder";
  const { location } = opened;
  const files = listedFiles(opened);
  const reader: OcfPackageReader = {
    container,
    location,
    manifest,
    files,
    // Read again from the absolute location: a change of working directory meanwhile does not move the package.
    objects: (readOptions = {}) => readFiles(location, options, files, readOptions),
    objectsOf: <F extends OcfPackageFileEntry>(file: F, readOptions: ReadObjectsOptions = {}) => {
      const entry = files.find((f) => f.path === file.path);
      if (entry === undefined) throw new TypeError(`objectsOf: ${describeValue(file.path)} is not a file ${location} lists`);
      return readFiles(location, options, [entry], readOptions) as AsyncIterable<OcfObjectOfFileType[F["fileType"]]>;
    },
  };
  return reader;
}

/** The manifest of `opened`, checked against the OCF 1.2.0 manifest schema. */
function checkedManifest(opened: OpenedOcfPackage): OcfManifest {
  const at = { location: opened.location, file: opened.manifestPath };
  const verdict = opened.manifest.file_type === "OCF_MANIFEST_FILE" ? validateOcfFile(opened.manifest) : { ok: false as const, issues: [{ path: "$.file_type", message: `must be "OCF_MANIFEST_FILE", got ${describeValue(opened.manifest.file_type)}` }] };
  if (!verdict.ok) throw new OcfReadError("OCF_MANIFEST_INVALID", at, nonEmpty(verdict.issues));
  return verdict.value as OcfManifest;
}

/** Each file the manifest lists, once, in manifest order; the manifest itself is not read again. */
function listedFiles({ location, manifestPath, manifest }: OpenedOcfPackage): OcfPackageFileEntry[] {
  const files: OcfPackageFileEntry[] = [];
  for (const reference of manifestFileReferences(manifest)) {
    const normalized = normalizePackagePath(reference.filepath);
    if (!normalized.ok) {
      throw new OcfReadError("OCF_FILE_UNREADABLE", { location, file: manifestPath }, [{ path: `${reference.jsonPath}.filepath`, message: `${describeValue(reference.filepath)} ${normalized.reason}` }]);
    }
    const fileType = FILE_TYPE_OF_MANIFEST_KEY.get(reference.key);
    const first = files.find((f) => f.path === normalized.path);
    if (first !== undefined && first.fileType !== fileType) {
      // One file cannot have two file types: which list to believe is not the reader's to guess.
      throw new OcfReadError("OCF_WRONG_FILE_TYPE", { location, file: manifestPath }, [{ path: `${reference.jsonPath}.filepath`, message: `names ${describeValue(normalized.path)}, which ${first.manifestKey} lists too` }]);
    }
    if (fileType === undefined || normalized.path === manifestPath || first !== undefined) continue;
    files.push({ path: normalized.path, fileType, manifestKey: reference.key, md5: String(reference.md5) } as OcfPackageFileEntry);
  }
  return files;
}

/** The objects of `files`, the package opened for this read and closed when it ends (or is left). */
async function* readFiles(
  location: string,
  packageOptions: ReadOcfPackageOptions,
  files: readonly OcfPackageFileEntry[],
  options: ReadObjectsOptions,
): AsyncGenerator<OcfPackageObject> {
  const signals = [packageOptions.signal, options.signal].filter((s) => s !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  const opened = await openOcfPackage(location, { ...packageOptions, ...(signal === undefined ? {} : { signal }) });
  try {
    for (const file of files) yield* fileObjects(opened, file, signal);
  } finally {
    await opened.close();
  }
}

/** The objects of one listed file, each checked; the file's MD5 and `file_type` checked as it is read. */
async function* fileObjects(opened: OpenedOcfPackage, file: OcfPackageFileEntry, signal: AbortSignal | undefined): AsyncGenerator<OcfPackageObject> {
  const at = { location: opened.location, file: file.path };
  const content = await opened.open(file.path);
  if (content.state !== "stream") throw new OcfReadError("OCF_FILE_UNREADABLE", at, [{ path: "$", message: unreadable(content) }]);
  const read: OcfPackageObject[] = [];
  let failure: OcfReadError | undefined;
  let fileType: unknown;
  let itemsList = false;
  let notAnObject = false;
  const scanner = jsonItemsScanner({
    member: (key, value) => {
      if (key === "file_type") fileType = value;
    },
    itemsStart: () => {
      itemsList = true;
    },
    item: (index, value) => {
      if (failure !== undefined) return;
      const verdict = checkItem(file.fileType, value);
      if (verdict.ok) read.push(value as OcfPackageObject);
      else {
        const id = isJsonObject(value) ? value.id : undefined;
        const issues = verdict.issues.map((issue) => ({ path: `$.items[${index}]${issue.path.slice(1)}`, message: issue.message }));
        failure = new OcfReadError("OCF_OBJECT_INVALID", { ...at, index, ...(typeof id === "string" ? { itemId: id } : {}) }, nonEmpty(issues));
      }
    },
    notAnObject: () => {
      notAnObject = true;
    },
  });
  const wrongType = (): OcfReadError | undefined => {
    if (notAnObject) return new OcfReadError("OCF_WRONG_FILE_TYPE", at, [{ path: "$", message: "is not a JSON object" }]);
    if (fileType !== undefined && fileType !== file.fileType) {
      return new OcfReadError("OCF_WRONG_FILE_TYPE", at, [{ path: "$.file_type", message: `must be ${describeValue(file.fileType)} (the manifest lists the file in ${file.manifestKey}), got ${describeValue(fileType)}` }]);
    }
    return undefined;
  };
  const md5 = createHash("md5");
  for await (const chunk of content.chunks) {
    signal?.throwIfAborted();
    md5.update(chunk);
    scanner.push(chunk);
    if (scanner.error !== undefined) throw new OcfReadError("OCF_FILE_NOT_JSON", at, [{ path: "$", message: scanner.error.message }]);
    const wrong = wrongType();
    if (wrong !== undefined) throw wrong;
    // The objects before a failing one are valid, and yielded before it is thrown.
    yield* read.splice(0);
    if (failure !== undefined) throw failure;
  }
  scanner.end();
  if (scanner.error !== undefined) throw new OcfReadError("OCF_FILE_NOT_JSON", at, [{ path: "$", message: scanner.error.message }]);
  const wrong = wrongType();
  if (wrong !== undefined) throw wrong;
  if (fileType === undefined) throw new OcfReadError("OCF_WRONG_FILE_TYPE", at, [{ path: "$.file_type", message: `is required (${describeValue(file.fileType)})` }]);
  if (!itemsList) throw new OcfReadError("OCF_WRONG_FILE_TYPE", at, [{ path: "$.items", message: "is required, as a list" }]);
  yield* read.splice(0);
  const digest = md5.digest("hex");
  if (digest !== file.md5.toLowerCase()) {
    throw new OcfReadError("OCF_MD5_MISMATCH", at, [{ path: "$", message: `has MD5 ${digest}, but the manifest gives ${file.md5} (${file.manifestKey}): it is not the file the manifest describes` }]);
  }
}

/** Whether `value` may be an element of `items` of a file of `fileType`, and is what its type says. */
function checkItem(fileType: OcfListedFileType, value: unknown): { ok: true } | { ok: false; issues: OcfIssue[] } {
  if (fileType === "OCF_FINANCINGS_FILE") return checkUnmodelled(value, "FINANCING");
  if (fileType === "OCF_DOCUMENTS_FILE") return checkUnmodelled(value, "DOCUMENT");
  const objectType = isJsonObject(value) ? value.object_type : undefined;
  if (fileType === "OCF_TRANSACTIONS_FILE" && typeof objectType === "string" && UNSCHEMED_TRANSACTION_TYPES.has(objectType)) return checkUnmodelled(value, objectType);
  return validateOcfFileItem(fileType, value);
}

/** An object of a kind ocf-sync has no schema for: only what every OCF object has is checked (see the module comment). */
function checkUnmodelled(value: unknown, objectType: string): { ok: true } | { ok: false; issues: OcfIssue[] } {
  if (!isJsonObject(value)) return { ok: false, issues: [{ path: "$", message: `must be a JSON object, got ${describeValue(value)}` }] };
  if (value.object_type !== objectType) return { ok: false, issues: [{ path: "$.object_type", message: `must be ${describeValue(objectType)} in this file, got ${describeValue(value.object_type)}` }] };
  if (typeof value.id !== "string") return { ok: false, issues: [{ path: "$.id", message: value.id === undefined ? "is required" : `must be a string, got ${describeValue(value.id)}` }] };
  return { ok: true };
}

function isJsonObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unreadable(content: Exclude<StreamedFileContent, { state: "stream" }>): string {
  switch (content.state) {
    case "missing":
      return "is listed in the manifest but not in the package";
    case "not-a-file":
      return "is not a file";
    case "too-large":
      return `has ${content.size} bytes, over the limit of ${content.limit}`;
    case "outside":
      return "is a link leading out of the package; it is not followed";
    case "unreadable":
      return `cannot be read: ${content.reason}`;
  }
}

function nonEmpty(issues: readonly OcfIssue[]): [OcfIssue, ...OcfIssue[]] {
  const [first, ...rest] = issues;
  return [first ?? { path: "$", message: "is not valid" }, ...rest];
}
