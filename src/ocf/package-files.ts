/**
 * The bytes of every file of an OCF 1.2.0 package, built in memory from mapped objects: a
 * `{ file_type, items }` file per non-empty object list and `Manifest.ocf.json`, which holds the
 * issuer inline and lists each file with the MD5 of its exact bytes (ocf-1.2.0.md §2). Pure: no disk
 * I/O and no clock (the caller gives `generatedAt`), so the same objects always give the same bytes.
 *
 * Layout: flat, every file beside the manifest, with the conventional names below (the official
 * validator and OCF-Tools find the manifest by the name `Manifest.ocf.json`). JSON is written with a
 * two-space indent and a final newline, keys in the order the objects were built.
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

/** The objects of one package (a `MappedIssuer` from `mapIssuer` is one). */
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

/** Options of `buildPackageFiles`. */
export interface PackageFileOptions {
  /**
   * The manifest's `generated_at`: an RFC 3339 date-time with a zone, e.g. `"2025-06-30T12:00:00Z"`.
   * Given by the caller so that the bytes are reproducible (goldens use a fixed value).
   */
  generatedAt: string;
  /** The manifest's `comments`. @default none (the key is left out) */
  comments?: readonly string[];
}

/** One file of the package. */
export interface PackageFile {
  /** The path inside the package, relative to the manifest, e.g. `"Transactions.ocf.json"`. */
  path: string;
  /** The file's text; write it as UTF-8 without a byte order mark (the MD5 is of those bytes). */
  content: string;
  /** Lower-case hex MD5 of the UTF-8 bytes of `content`. */
  md5: string;
}

/** A whole package: the manifest first, then the files it lists, in manifest order. */
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

/** Thrown when the package options would make an invalid manifest (e.g. `generatedAt` without a zone). */
export class OcfPackageError extends OcfSyncError {
  constructor(message: string) {
    super("OCF_PACKAGE_INVALID", message);
    this.name = "OcfPackageError";
  }
}

/** The canonical text of an OCF JSON file: two-space indent, final newline. */
export function serializeOcfJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
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
 * const { files } = buildPackageFiles(mapIssuer(records), { generatedAt: "2025-06-30T00:00:00Z" });
 * for (const file of files) await writeFile(join(dir, file.path), file.content, "utf8");
 */
export function buildPackageFiles(content: PackageContent, options: PackageFileOptions): OcfPackageFiles {
  const itemFiles: PackageFile[] = [];
  const listed = (path: string, fileType: string, items: readonly unknown[]): OcfFileReference[] => {
    if (items.length === 0) return [];
    const text = serializeOcfJson({ file_type: fileType, items });
    const file = { path, content: text, md5: md5Hex(text) };
    itemFiles.push(file);
    return [{ filepath: file.path, md5: file.md5 }];
  };
  // Built in the order of the manifest keys below, which is also the order of `files`.
  const stockPlansFiles = listed(PACKAGE_FILE_NAMES.stockPlans, "OCF_STOCK_PLANS_FILE", content.stockPlans);
  const stockClassesFiles = listed(PACKAGE_FILE_NAMES.stockClasses, "OCF_STOCK_CLASSES_FILE", content.stockClasses);
  const vestingTermsFiles = listed(PACKAGE_FILE_NAMES.vestingTerms, "OCF_VESTING_TERMS_FILE", content.vestingTerms);
  const transactionsFiles = listed(PACKAGE_FILE_NAMES.transactions, "OCF_TRANSACTIONS_FILE", content.transactions);
  const stakeholdersFiles = listed(PACKAGE_FILE_NAMES.stakeholders, "OCF_STAKEHOLDERS_FILE", content.stakeholders);
  const manifest = buildManifest(content, options, {
    stockPlans: stockPlansFiles,
    stockClasses: stockClassesFiles,
    vestingTerms: vestingTermsFiles,
    transactions: transactionsFiles,
    stakeholders: stakeholdersFiles,
  });
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
