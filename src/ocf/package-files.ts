/**
 * The bytes of every file of an OCF 1.2.0 package, built in memory from mapped objects: a
 * `{ file_type, items }` file per non-empty object list and `Manifest.ocf.json`, which holds the
 * issuer inline and lists each file with the MD5 of its exact bytes (ocf-1.2.0.md §2). Pure: no disk
 * I/O and no clock (the caller gives `generatedAt`), so the same objects always give the same bytes.
 *
 * Layout: flat, every file beside the manifest, with the conventional names below (the official
 * validator and OCF-Tools find the manifest by the name `Manifest.ocf.json`). JSON is written with a
 * two-space indent and a final newline, keys in the order the objects were built.
 *
 * A list whose file would pass `maxFileBytes` (64 MiB by default) is split over several files, in
 * order, each as full as the bound allows: `Transactions.ocf.json`, `Transactions.2.ocf.json`, … The
 * manifest lists them in that order (`transactions_files` is an array), so the order of the objects
 * runs on across the files. Why 64 MiB: far below what one JavaScript string can hold (512 MiB), so
 * that any reader that parses a file whole (the official validator, OCF-Tools) can, with room for
 * the parsed objects; and large enough that up to about 20,000 records a package has one file per
 * list, as it always had.
 */
import { createHash } from "node:crypto";
import { OcfSyncError } from "../errors.js";
import {
  OCF_VERSION,
  validateOcfFile,
  type OcfFileReference,
  type OcfIssuer,
  type OcfManifest,
  type OcfStakeholder,
  type OcfStockClass,
  type OcfStockPlan,
  type OcfTransaction,
  type OcfVestingTerms,
} from "./schemas.js";

/**
 * The objects of one package (a `MappedIssuer` from `mapIssuer` is one).
 *
 * @category OCF
 */
export interface PackageContent {
  issuer: OcfIssuer;
  /** The manifest's `as_of` (`YYYY-MM-DD`). */
  asOf: string;
  stakeholders: readonly OcfStakeholder[];
  stockClasses: readonly OcfStockClass[];
  stockPlans: readonly OcfStockPlan[];
  vestingTerms: readonly OcfVestingTerms[];
  transactions: readonly OcfTransaction[];
  /** The manifest's first `comments` (a `MappedIssuer`'s lineage and placeholder lines). */
  manifestComments?: readonly string[];
}

/**
 * Options of `buildPackageFiles`.
 *
 * @category OCF
 */
export interface PackageFileOptions {
  /**
   * The manifest's `generated_at`: an RFC 3339 date-time with a zone, e.g. `"2025-06-30T12:00:00Z"`.
   * Given by the caller so that the bytes are reproducible (goldens use a fixed value).
   */
  generatedAt: string;
  /** The manifest's `comments`. @default none (the key is left out) */
  comments?: readonly string[];
  /**
   * The largest file of objects written, in bytes: a longer list is split over several files. A
   * file always holds at least one object, so one object larger than this gets a file of its own.
   * @default DEFAULT_MAX_PACKAGE_FILE_BYTES (64 MiB)
   */
  maxFileBytes?: number;
}

/** Default of `maxFileBytes`: see the module comment for why. */
export const DEFAULT_MAX_PACKAGE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * One file of the package.
 *
 * @category OCF
 */
export interface PackageFile {
  /** The path inside the package, relative to the manifest, e.g. `"Transactions.ocf.json"`. */
  path: string;
  /** The file's text; write it as UTF-8 without a byte order mark (the MD5 is of those bytes). */
  content: string;
  /** Lower-case hex MD5 of the UTF-8 bytes of `content`. */
  md5: string;
}

/**
 * A whole package: the manifest first, then the files it lists, in manifest order.
 *
 * @category OCF
 */
export interface OcfPackageFiles {
  manifest: OcfManifest;
  files: PackageFile[];
}

/** The package's file names (not normative in OCF; these are the conventional ones). */
export const PACKAGE_FILE_NAMES = {
  manifest: "Manifest.ocf.json",
  stakeholders: "Stakeholders.ocf.json",
  stockClasses: "StockClasses.ocf.json",
  stockPlans: "StockPlans.ocf.json",
  vestingTerms: "VestingTerms.ocf.json",
  transactions: "Transactions.ocf.json",
} as const;

/**
 * Thrown by `buildPackageFiles` (and so by an export) when the package options would make an invalid
 * manifest (e.g. `generatedAt` without a zone). Its code is `OCF_PACKAGE_INVALID`.
 *
 * @category Errors
 */
export class OcfPackageError extends OcfSyncError {
  declare readonly code: "OCF_PACKAGE_INVALID";
  constructor(message: string) {
    super("OCF_PACKAGE_INVALID", message);
    this.name = "OcfPackageError";
  }
}

/** The canonical text of an OCF JSON file: two-space indent, final newline. */
export function serializeOcfJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The lists of objects a package writes, in manifest order, each with its `file_type`. */
export const PACKAGE_LISTS = [
  ["stockPlans", "OCF_STOCK_PLANS_FILE"],
  ["stockClasses", "OCF_STOCK_CLASSES_FILE"],
  ["vestingTerms", "OCF_VESTING_TERMS_FILE"],
  ["transactions", "OCF_TRANSACTIONS_FILE"],
  ["stakeholders", "OCF_STAKEHOLDERS_FILE"],
] as const satisfies readonly (readonly [keyof ManifestFileLists, string])[];
export type PackageList = (typeof PACKAGE_LISTS)[number][0];

/**
 * The name of part `part` (1, 2, …) of a list's files: the conventional name for the first,
 * `Transactions.2.ocf.json` and so on after it.
 */
export function packageFileName(list: PackageList, part: number): string {
  const first = PACKAGE_FILE_NAMES[list];
  return part === 1 ? first : first.replace(/\.ocf\.json$/, `.${part}.ocf.json`);
}

/**
 * The text of one object inside a `{ file_type, items }` file, as `serializeOcfJson` of the whole
 * file writes it: the object pretty-printed, every line indented by four spaces.
 */
export function itemText(object: unknown): string {
  return `    ${JSON.stringify(object, null, 2).replaceAll("\n", "\n    ")}`;
}

/** Between two objects of `JSON.stringify([objects], null, 2)`: the first one's last line and the next one's first. */
const NESTED_ITEM_BOUNDARY = "\n    },\n    {";

/**
 * `objects.map(itemText)` for JSON objects, from one `JSON.stringify` of `[objects]`: at that depth
 * the pretty printer indents each object by four spaces already, so no line is indented again (that
 * copy was a third of the cost of writing a package's objects). JSON text has no raw line break inside
 * a string and an object's own lines are indented deeper, so `NESTED_ITEM_BOUNDARY` occurs only between
 * two objects; an empty object (`{}` on one line) joins its neighbour instead, which the count shows,
 * and then each object is written on its own.
 */
export function itemTexts(objects: readonly object[]): string[] {
  if (objects.length === 0) return [];
  const text = JSON.stringify([objects], null, 2);
  // "[\n  [\n" before the first object, "\n  ]\n]" after the last.
  const end = text.length - 6;
  const texts: string[] = [];
  let start = 6;
  for (let at = text.indexOf(NESTED_ITEM_BOUNDARY, start); at !== -1 && at < end; at = text.indexOf(NESTED_ITEM_BOUNDARY, start)) {
    texts.push(text.slice(start, at + 6));
    start = at + 8;
  }
  texts.push(text.slice(start, end));
  return texts.length === objects.length ? texts : objects.map(itemText);
}

/** What comes before the first object of a `{ file_type, items }` file. */
export function itemsFileHead(fileType: string): string {
  return `{\n  "file_type": ${JSON.stringify(fileType)},\n  "items": [\n`;
}

/** What separates two objects, and what follows the last. */
export const ITEM_SEPARATOR = ",\n";
export const ITEMS_FILE_TAIL = "\n  ]\n}\n";

/**
 * Decides where a list's objects are split into files: every object goes into the current file
 * unless that would take the file past `maxBytes` (counting the closing bytes), and a file holds at
 * least one object. The one rule for the in-memory builder and the streaming writer alike.
 */
export class ItemsFileSplitter {
  private bytes = 0;
  private items = 0;
  private readonly headBytes: number;
  private static readonly SEPARATOR_BYTES = ITEM_SEPARATOR.length;
  private static readonly TAIL_BYTES = ITEMS_FILE_TAIL.length;

  constructor(
    fileType: string,
    private readonly maxBytes: number,
  ) {
    this.headBytes = Buffer.byteLength(itemsFileHead(fileType), "utf8");
  }

  /** Counts the next object (`itemBytes` of UTF-8); true when it starts a new file. */
  next(itemBytes: number): boolean {
    const fits = this.bytes + ItemsFileSplitter.SEPARATOR_BYTES + itemBytes + ItemsFileSplitter.TAIL_BYTES <= this.maxBytes;
    if (this.items === 0 || !fits) {
      const startsNew = this.items > 0;
      this.bytes = this.headBytes + itemBytes;
      this.items = 1;
      return startsNew;
    }
    this.bytes += ItemsFileSplitter.SEPARATOR_BYTES + itemBytes;
    this.items += 1;
    return false;
  }
}

/** `serializeOcfJson`, or undefined when the text would pass the engine's longest string. */
function serializeWithinStringLimit(value: unknown): string | undefined {
  try {
    return serializeOcfJson(value);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** Lower-case hex MD5 of the UTF-8 bytes of `text`. */
export function md5Hex(text: string): string {
  return createHash("md5").update(text, "utf8").digest("hex");
}

/**
 * Builds every file of the package. Object lists that are empty get no file (their manifest list is
 * `[]`, which OCF 1.2.0 allows); stock legend templates and valuations are never produced.
 *
 * @throws {OcfPackageError} when the manifest would be invalid (a `generatedAt` that is not an RFC 3339 date-time with a zone).
 * @example
 * ```ts
 * import { mkdir, writeFile } from "node:fs/promises";
 * import { join } from "node:path";
 * import { buildPackageFiles, createApiClient, mapIssuer, pullIssuer } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * const records = await pullIssuer(client, "7");
 * await client.close();
 * const { files } = buildPackageFiles(mapIssuer(records), { generatedAt: "2025-06-30T00:00:00Z" });
 * const dir = "my-package";
 * await mkdir(dir, { recursive: true });
 * for (const file of files) await writeFile(join(dir, file.path), file.content, "utf8");
 * ```
 *
 * @category OCF
 */
export function buildPackageFiles(content: PackageContent, options: PackageFileOptions): OcfPackageFiles {
  const itemFiles: PackageFile[] = [];
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_PACKAGE_FILE_BYTES;
  const listed = (list: PackageList, fileType: string, items: readonly unknown[]): OcfFileReference[] => {
    if (items.length === 0) return [];
    // The usual case, a list that fits one file: its text in one JSON.stringify, the very bytes the
    // item-by-item build below gives (head, items, separators, tail), at a fraction of its cost. A list
    // too long for one JavaScript string is built item by item.
    const whole = serializeWithinStringLimit({ file_type: fileType, items });
    if (whole !== undefined && Buffer.byteLength(whole, "utf8") <= maxBytes) {
      const file = { path: packageFileName(list, 1), content: whole, md5: md5Hex(whole) };
      itemFiles.push(file);
      return [{ filepath: file.path, md5: file.md5 }];
    }
    const references: OcfFileReference[] = [];
    const splitter = new ItemsFileSplitter(fileType, maxBytes);
    let texts: string[] = [];
    const close = (): void => {
      const text = `${itemsFileHead(fileType)}${texts.join(ITEM_SEPARATOR)}${ITEMS_FILE_TAIL}`;
      const file = { path: packageFileName(list, references.length + 1), content: text, md5: md5Hex(text) };
      itemFiles.push(file);
      references.push({ filepath: file.path, md5: file.md5 });
      texts = [];
    };
    for (const item of items) {
      const text = itemText(item);
      if (splitter.next(Buffer.byteLength(text, "utf8"))) close();
      texts.push(text);
    }
    if (texts.length > 0) close();
    return references;
  };
  // Built in the order of the manifest keys, which is also the order of `files`.
  const lists = {} as ManifestFileLists;
  for (const [list, fileType] of PACKAGE_LISTS) lists[list] = listed(list, fileType, content[list]);
  const manifest = buildManifest(content, options, lists);
  const manifestText = serializeOcfJson(manifest);
  return {
    manifest,
    files: [{ path: PACKAGE_FILE_NAMES.manifest, content: manifestText, md5: md5Hex(manifestText) }, ...itemFiles],
  };
}

/** The file references of each list a package may hold. */
export interface ManifestFileLists {
  stockPlans: OcfFileReference[];
  stockClasses: OcfFileReference[];
  vestingTerms: OcfFileReference[];
  transactions: OcfFileReference[];
  stakeholders: OcfFileReference[];
}

/**
 * The manifest of a package, checked against the OCF schema: the one place its shape is decided, for
 * the in-memory builder and the streaming writer alike.
 *
 * @throws {OcfPackageError} when it would be invalid (a `generatedAt` without a zone, …).
 */
export function buildManifest(
  head: { issuer: OcfIssuer; asOf: string; manifestComments?: readonly string[] },
  options: PackageFileOptions,
  files: ManifestFileLists,
): OcfManifest {
  const comments = [...(head.manifestComments ?? []), ...(options.comments ?? [])];
  const manifest: OcfManifest = {
    file_type: "OCF_MANIFEST_FILE",
    ocf_version: OCF_VERSION,
    issuer: head.issuer,
    as_of: head.asOf,
    generated_at: options.generatedAt,
    ...(comments.length === 0 ? {} : { comments }),
    stock_plans_files: files.stockPlans,
    stock_legend_templates_files: [],
    stock_classes_files: files.stockClasses,
    vesting_terms_files: files.vestingTerms,
    valuations_files: [],
    transactions_files: files.transactions,
    stakeholders_files: files.stakeholders,
  };
  const verdict = validateOcfFile(manifest);
  if (!verdict.ok) {
    throw new OcfPackageError(`the manifest would not be valid OCF ${OCF_VERSION}: ${verdict.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
  }
  return manifest;
}
