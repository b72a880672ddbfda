/**
 * The objects of a read OCF package, grouped for replay. Pure: works on a `LoadedOcfPackage`.
 *
 * A reconciliation reads packages written by other systems too, so objects are kept as plain JSON
 * records and read field by field (`replay.ts`), not forced through ocf-sync's schemas: an object
 * ocf-sync does not model is ignored, not fatal. What makes a package unusable for reconciling (no
 * manifest `as_of`, a listed file missing or not JSON) is a `ReconcileInputError`.
 */
import { isCalendarDate, type CalendarDate } from "../dates.js";
import { OcfSyncError, describeValue } from "../errors.js";
import { manifestFileReferences, normalizePackagePath, parseJsonBytes, type LoadedOcfPackage, type ManifestFileReference } from "../ocf/package-reader.js";
import { canonicalObjectType } from "../ocf/security-ledger.js";

/**
 * A JSON object of the package.
 *
 * @category Reconcile
 */
export type JsonRecord = Readonly<Record<string, unknown>>;

/**
 * The objects a reconciliation needs, each in package order, without their `comments`.
 *
 * @category Reconcile
 */
export interface PackageObjects {
  /** Where the package was read from (for labels and messages). */
  location: string;
  /** The manifest's `as_of`. */
  asOf: CalendarDate;
  /** The manifest issuer's `id` (ocf-sync writes `issuer-<issuer id>`), when present. */
  issuerObjectId?: string;
  /** The manifest's `comments` (a package declares its lineage reading there). */
  manifestComments?: readonly string[];
  /** Transactions (`object_type` starting with `TX_`), legacy type names mapped to the current ones. */
  transactions: JsonRecord[];
  vestingTerms: JsonRecord[];
  stakeholders: JsonRecord[];
  stockClasses: JsonRecord[];
  stockPlans: JsonRecord[];
}

/**
 * Input a reconciliation cannot work with: a package without its files, an NDJSON line that is not a record, …
 *
 * @category Errors
 */
export class ReconcileInputError extends OcfSyncError {
  declare readonly code: "RECONCILE_INPUT_UNUSABLE";
  constructor(message: string, options?: { cause?: unknown }) {
    super("RECONCILE_INPUT_UNUSABLE", message, options);
    this.name = "ReconcileInputError";
  }
}

/**
 * Groups the objects of a package read by `loadOcfPackage`.
 *
 * @throws {ReconcileInputError} when the manifest has no valid `as_of`, or a listed file is missing,
 *   unreadable, not JSON or has no `items` list.
 */
export function packageObjects(pkg: LoadedOcfPackage): PackageObjects {
  const grouper = new PackageObjectsGrouper(pkg);
  for (const { path } of grouper.listedFiles()) {
    const content = pkg.files.get(path);
    if (content?.state !== "read") {
      throw new ReconcileInputError(`${pkg.location}: the manifest lists ${describeValue(path)}, which could not be read (${content?.state ?? "missing"}); run 'ocf-sync validate' on it`);
    }
    const parsed = parseJsonBytes(content.bytes);
    if (!parsed.ok) throw grouper.notJson(path, parsed.message);
    const items = isRecord(parsed.value) ? parsed.value.items : undefined;
    if (!Array.isArray(items)) throw grouper.noItems(path);
    for (const item of items) grouper.add(item);
  }
  return grouper.objects;
}

/**
 * Builds `PackageObjects` object by object: from the manifest, the package paths of the files to read
 * (each once, in manifest order), then each of their `items` as it is read (`add`), in order. The one
 * grouping of `packageObjects` (a package in memory) and `loadPackageObjects` (streamed file by file).
 */
export class PackageObjectsGrouper {
  readonly objects: PackageObjects;
  private readonly location: string;
  private readonly manifest: Readonly<Record<string, unknown>>;

  /** @throws {ReconcileInputError} when the manifest has no valid `as_of`. */
  constructor(pkg: Pick<LoadedOcfPackage, "location" | "manifest">) {
    this.location = pkg.location;
    this.manifest = pkg.manifest;
    const asOf = pkg.manifest.as_of;
    if (typeof asOf !== "string" || !isCalendarDate(asOf)) {
      throw new ReconcileInputError(`${pkg.location}: the manifest's as_of is ${describeValue(asOf)}, not a YYYY-MM-DD date`);
    }
    const issuer = pkg.manifest.issuer;
    const issuerId = isRecord(issuer) && typeof issuer.id === "string" ? issuer.id : undefined;
    const comments = Array.isArray(pkg.manifest.comments) ? pkg.manifest.comments.filter((c): c is string => typeof c === "string") : [];
    this.objects = {
      location: pkg.location,
      asOf,
      ...(issuerId === undefined ? {} : { issuerObjectId: issuerId }),
      ...(comments.length === 0 ? {} : { manifestComments: comments }),
      transactions: [],
      vestingTerms: [],
      stakeholders: [],
      stockClasses: [],
      stockPlans: [],
    };
  }

  /**
   * Each file the manifest lists, once each, in manifest order: its package path and its first entry.
   * @throws {ReconcileInputError} for a `filepath` that is not a safe package path.
   */
  listedFiles(): { path: string; reference: ManifestFileReference }[] {
    const listed: { path: string; reference: ManifestFileReference }[] = [];
    for (const reference of manifestFileReferences(this.manifest)) {
      const normalized = normalizePackagePath(reference.filepath);
      if (!normalized.ok) throw new ReconcileInputError(`${this.location}: ${reference.jsonPath}.filepath ${describeValue(reference.filepath)} ${normalized.reason}`);
      if (!listed.some((f) => f.path === normalized.path)) listed.push({ path: normalized.path, reference });
    }
    return listed;
  }

  /** Takes one element of a file's `items`: kept when it is an object of a kind a replay reads. */
  add(item: unknown): void {
    if (!isRecord(item)) return;
    const rawType = item.object_type;
    if (typeof rawType !== "string") return;
    const type = canonicalObjectType(rawType);
    // No figure depends on an object's comments, which are often most of its text (ocf-sync writes a
    // grant's vesting events there): they are not kept, so a large package costs less memory.
    const { comments: _comments, ...kept } = item;
    const value = type === rawType ? kept : { ...kept, object_type: type };
    const objects = this.objects;
    if (type.startsWith("TX_")) objects.transactions.push(value);
    else if (type === "VESTING_TERMS") objects.vestingTerms.push(value);
    else if (type === "STAKEHOLDER") objects.stakeholders.push(value);
    else if (type === "STOCK_CLASS") objects.stockClasses.push(value);
    else if (type === "STOCK_PLAN") objects.stockPlans.push(value);
  }

  /** The error for a listed file that is not JSON. */
  notJson(path: string, why: string): ReconcileInputError {
    return new ReconcileInputError(`${this.location}: ${path} is not JSON: ${why}`);
  }

  /** The error for a listed file without an `items` list. */
  noItems(path: string): ReconcileInputError {
    return new ReconcileInputError(`${this.location}: ${path} has no items list`);
  }
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The string at `key`, if it is one. */
export function stringAt(value: JsonRecord, key: string): string | undefined {
  const found = value[key];
  return typeof found === "string" ? found : undefined;
}
