/**
 * Checks a whole OCF package as read by `readOcfPackage`: pure, no I/O. Reports every problem found,
 * each with its file, the id of the object concerned and a JSON path inside that file.
 *
 * Beyond the schemas (which see one object at a time) it checks what only the whole package shows:
 * the manifest's file list and MD5s, that references resolve, that ids are unique, and that the
 * transactions of each security make sense in time and quantity.
 *
 * Quantity policy (ocf-1.2.0.md §9, §10.3, §10.5): OCF calls cancellations, releases, repurchases and
 * transfers terminal, but ocf-sync keeps the balance of a partial release or cancellation on the same
 * security (OCF #531). So a security is over-consumed only when the sum of those quantities exceeds the
 * issued quantity; it ends when that sum reaches the issued quantity, when a transaction names a
 * `balance_security_id` (the strict reading: the balance moved to a new security), or at a retraction.
 * Nothing but a return to pool may follow the end. Comparisons are exact decimals. Dates: nothing on a
 * security is dated before its issuance, except a vesting start, whose vesting commencement date may
 * precede the grant (ocf-1.2.0.md §7.3).
 */
import { createHash } from "node:crypto";
import { compareIso, isCalendarDate } from "../dates.js";
import { Dec, formatDecimal } from "../decimal.js";
import { describeValue } from "../errors.js";
import {
  manifestFileReferences,
  normalizePackagePath,
  parseJsonBytes,
  readOcfPackage,
  type LoadedOcfPackage,
  type ReadOcfPackageOptions,
} from "./package-reader.js";
import { FILE_TYPES, LEGACY_OBJECT_TYPES, MANIFEST_KEY_OF, OCF_NUMERIC_PATTERN, validateOcfFile, type OcfIssue } from "./schemas.js";

/** Every problem code `validateOcfPackage` reports, with what it means. Codes are stable. */
export const PACKAGE_PROBLEM_CODES = {
  SCHEMA: "a file or object is not valid against ocf-sync's OCF 1.2.0 schemas",
  WRONG_FILE_TYPE: "a file's file_type is not the one of the manifest list it is in",
  NOT_JSON: "a listed file is not UTF-8 JSON",
  FILE_MISSING: "the manifest lists a file the package does not have",
  FILE_TOO_LARGE: "a listed file is over the size limit and was not read",
  FILE_UNREADABLE: "a listed file could not be read",
  UNSAFE_PATH: "a manifest filepath or zip entry is absolute, leads out of the package, or is otherwise unsafe",
  LISTED_TWICE: "the manifest lists one file more than once",
  DUPLICATE_ENTRY: "the zip holds two entries of one name",
  MD5_MISMATCH: "a file's MD5 is not the one the manifest gives",
  UNLISTED_FILE: "an *.ocf.json file of the package is not listed in the manifest",
  DUPLICATE_ID: "two objects share an id (or two vesting conditions of one VestingTerms do)",
  DUPLICATE_SECURITY_ID: "two issuances create the same security_id",
  DANGLING_REFERENCE: "an id names an object (or a security, or a vesting condition) the package does not have",
  VESTING_TRIGGER_MISMATCH: "a vesting start or event names a condition with another kind of trigger",
  WRONG_SECURITY_KIND: "a stock transaction acts on an equity compensation security or the other way round",
  BEFORE_ISSUANCE: "a transaction is dated before the issuance of its security (a vesting start may be: vesting can commence before the grant)",
  OVER_CONSUMED: "releases, cancellations, repurchases and transfers of a security add up to more than was issued",
  AFTER_TERMINAL: "a transaction is dated after its security ended (fully consumed, retracted, or moved to a balance security)",
  RETURN_TO_POOL_EXCEEDS: "more of a security is returned to the pool than was cancelled or repurchased",
  NEGATIVE_QUANTITY: "a quantity is negative",
  VESTING_AMOUNT_NOT_POSITIVE: "a vesting tranche vests zero or a negative amount",
  VESTING_SUM: "the vesting tranches of an issuance add up to more than its quantity",
} as const;
/** A stable problem code, e.g. `"OVER_CONSUMED"`; see `PACKAGE_PROBLEM_CODES`. */
export type PackageProblemCode = keyof typeof PACKAGE_PROBLEM_CODES;

/** One problem of a package. */
export interface PackageProblem {
  code: PackageProblemCode;
  /** The package path of the file concerned, e.g. `"Transactions.ocf.json"` or `"Manifest.ocf.json"`. */
  file: string;
  /** The `id` of the object concerned, when there is one. */
  itemId?: string;
  /** Where in `file`, e.g. `"$.items[3].quantity"`; `"$"` for the file as a whole. */
  jsonPath: string;
  message: string;
}

/** What the package holds, for the summary. */
export interface PackageCounts {
  /** Files read: the manifest and each listed file that could be read. */
  files: number;
  /** Objects in the listed files (the issuer inside the manifest not included). */
  objects: number;
  /** Objects per `object_type` (legacy spellings counted under the current name). */
  objectsByType: Readonly<Record<string, number>>;
  /** Transactions among `objects`. */
  transactions: number;
  /** Distinct `security_id`s created by issuances. */
  securities: number;
}

/** The verdict on a package. */
export interface PackageValidationReport {
  /** True when there is no problem. */
  valid: boolean;
  /** Every problem, grouped by file (manifest first, then in manifest order) and by object. */
  problems: PackageProblem[];
  counts: PackageCounts;
}

/** The `file_type` each manifest list holds; financings and documents files are not modelled, but have a list. */
const FILE_TYPE_OF_KEY: ReadonlyMap<string, string> = new Map([
  ...Object.entries(MANIFEST_KEY_OF).map(([fileType, key]) => [key, fileType] as const),
  ["financings_files", "OCF_FINANCINGS_FILE"],
  ["documents_files", "OCF_DOCUMENTS_FILE"],
]);

const ITEMS_FILE_TYPES: ReadonlySet<string> = new Set(FILE_TYPES.filter((t) => t !== "OCF_MANIFEST_FILE"));

/** Transactions that create a security. Warrants and convertibles are not modelled, but still create their security_id. */
const ISSUANCES: ReadonlySet<string> = new Set([
  "TX_STOCK_ISSUANCE",
  "TX_EQUITY_COMPENSATION_ISSUANCE",
  "TX_WARRANT_ISSUANCE",
  "TX_CONVERTIBLE_ISSUANCE",
]);

/** Transactions whose quantity leaves the security. */
const CONSUMING: ReadonlySet<string> = new Set([
  "TX_STOCK_CANCELLATION",
  "TX_EQUITY_COMPENSATION_CANCELLATION",
  "TX_STOCK_REPURCHASE",
  "TX_EQUITY_COMPENSATION_RELEASE",
  "TX_STOCK_TRANSFER",
  "TX_EQUITY_COMPENSATION_TRANSFER",
]);

/** Consuming transactions whose shares a `TX_STOCK_PLAN_RETURN_TO_POOL` may give back to a pool. */
const RETURNABLE: ReadonlySet<string> = new Set(["TX_STOCK_CANCELLATION", "TX_EQUITY_COMPENSATION_CANCELLATION", "TX_STOCK_REPURCHASE"]);

const RETRACTIONS: ReadonlySet<string> = new Set(["TX_STOCK_RETRACTION", "TX_EQUITY_COMPENSATION_RETRACTION"]);

const RETURN_TO_POOL = "TX_STOCK_PLAN_RETURN_TO_POOL";

/** The issuance a transaction of each side needs; vesting and return to pool act on either. */
const ISSUANCE_FOR: Readonly<Record<string, string>> = {
  TX_STOCK_CANCELLATION: "TX_STOCK_ISSUANCE",
  TX_STOCK_REPURCHASE: "TX_STOCK_ISSUANCE",
  TX_STOCK_RETRACTION: "TX_STOCK_ISSUANCE",
  TX_STOCK_ACCEPTANCE: "TX_STOCK_ISSUANCE",
  TX_STOCK_TRANSFER: "TX_STOCK_ISSUANCE",
  TX_EQUITY_COMPENSATION_CANCELLATION: "TX_EQUITY_COMPENSATION_ISSUANCE",
  TX_EQUITY_COMPENSATION_RELEASE: "TX_EQUITY_COMPENSATION_ISSUANCE",
  TX_EQUITY_COMPENSATION_RETRACTION: "TX_EQUITY_COMPENSATION_ISSUANCE",
  TX_EQUITY_COMPENSATION_ACCEPTANCE: "TX_EQUITY_COMPENSATION_ISSUANCE",
  TX_EQUITY_COMPENSATION_TRANSFER: "TX_EQUITY_COMPENSATION_ISSUANCE",
};

/** The trigger type the condition named by each vesting transaction must have. */
const TRIGGER_FOR: Readonly<Record<string, string>> = {
  TX_VESTING_START: "VESTING_START_DATE",
  TX_VESTING_EVENT: "VESTING_EVENT",
};

/** One object of the package, where it is. */
interface Item {
  file: string;
  /** Index in the file's `items`; -1 for the issuer inside the manifest. */
  index: number;
  /** JSON path of the object in its file, e.g. `$.items[3]`. */
  at: string;
  value: Readonly<Record<string, unknown>>;
  id: string | undefined;
  /** `object_type`, legacy spellings mapped to the current name. */
  type: string | undefined;
}

/**
 * Checks a package read by `readOcfPackage` (see the module comment for what is checked) and
 * returns every problem. Never throws on bad content.
 *
 * @example
 * const report = validateOcfPackage(await readOcfPackage("out/issuer-7"));
 * for (const p of report.problems) console.log(p.file, p.itemId ?? "-", p.jsonPath, p.message);
 */
export function validateOcfPackage(pkg: LoadedOcfPackage): PackageValidationReport {
  const checker = new PackageChecker(pkg);
  checker.run();
  return checker.report();
}

/**
 * Reads the package at `path` and checks it: `readOcfPackage` then `validateOcfPackage`.
 *
 * @throws {PackageUnusableError} when `path` is no package at all (see `readOcfPackage`).
 */
export async function validatePackageAt(path: string, options: ReadOcfPackageOptions = {}): Promise<PackageValidationReport> {
  return validateOcfPackage(await readOcfPackage(path, options));
}

/** Lookups over the objects of a package, built once. */
interface PackageIndex {
  /** Objects by (current) `object_type`, in package order. */
  byType: ReadonlyMap<string, readonly Item[]>;
  vestingTerms: ReadonlyMap<string, Item>;
  /** The first issuance of each security_id. */
  issuances: ReadonlyMap<string, Item>;
}

class PackageChecker {
  private readonly problems: { problem: PackageProblem; itemIndex: number }[] = [];
  /** Sort rank of each file: the manifest, then listed files in manifest order, then the rest. */
  private readonly fileRank = new Map<string, number>();
  private readonly items: Item[] = [];
  private filesRead = 1;
  private securities = 0;

  constructor(private readonly pkg: LoadedOcfPackage) {
    this.fileRank.set(pkg.manifestPath, 0);
  }

  run(): void {
    this.checkManifest();
    this.checkListedFiles();
    const index = this.buildIndex();
    this.securities = index.issuances.size;
    this.checkIds(index);
    this.checkReferences(index);
    this.checkSecurities(index);
  }

  report(): PackageValidationReport {
    // Grouped by file and object for reading; within one object, in the order the checks found them
    // (Array.prototype.sort is stable).
    const rank = (p: PackageProblem): number => this.fileRank.get(p.file) ?? this.fileRank.size;
    const problems = this.problems
      .sort((a, b) => rank(a.problem) - rank(b.problem) || a.itemIndex - b.itemIndex)
      .map((entry) => entry.problem);
    const objectsByType: Record<string, number> = {};
    for (const item of this.items) {
      if (item.index < 0) continue;
      const type = item.type ?? "(no object_type)";
      objectsByType[type] = (objectsByType[type] ?? 0) + 1;
    }
    const objects = this.items.filter((item) => item.index >= 0);
    return {
      valid: problems.length === 0,
      problems,
      counts: {
        files: this.filesRead,
        objects: objects.length,
        objectsByType,
        transactions: objects.filter((item) => item.type?.startsWith("TX_") === true).length,
        securities: this.securities,
      },
    };
  }

  private add(code: PackageProblemCode, file: string, jsonPath: string, message: string, itemId?: string): void {
    const itemIndex = itemIndexOf(jsonPath) ?? -1;
    this.problems.push({ problem: { code, file, ...(itemId === undefined ? {} : { itemId }), jsonPath, message }, itemIndex });
  }

  private addAt(code: PackageProblemCode, item: Item, subPath: string, message: string): void {
    this.add(code, item.file, `${item.at}${subPath}`, message, item.id);
  }

  // ---- files -------------------------------------------------------------------------------

  private checkManifest(): void {
    const { manifest, manifestPath } = this.pkg;
    let checked: unknown = manifest;
    if (manifest.file_type !== "OCF_MANIFEST_FILE") {
      this.add("WRONG_FILE_TYPE", manifestPath, "$.file_type", `is ${describeValue(manifest.file_type)}; ${manifestPath} must be "OCF_MANIFEST_FILE"`);
      checked = { ...manifest, file_type: "OCF_MANIFEST_FILE" };
    }
    const issuer = manifest.issuer;
    const issuerItem = isRecord(issuer) ? this.addItem(manifestPath, -1, "$.issuer", issuer) : undefined;
    this.addSchemaIssues(manifestPath, validateOcfFile(checked), (path) => (path.startsWith("$.issuer") ? issuerItem?.id : undefined));
  }

  private checkListedFiles(): void {
    const { pkg } = this;
    // The manifest counts as listed: listing it under a *_files key is reported as listing it again.
    const firstListing = new Map<string, string>([[pkg.manifestPath, "$"]]);
    for (const reference of manifestFileReferences(pkg.manifest)) {
      const at = `${reference.jsonPath}.filepath`;
      const normalized = normalizePackagePath(reference.filepath);
      if (!normalized.ok) {
        this.add("UNSAFE_PATH", pkg.manifestPath, at, `${describeValue(reference.filepath)} ${normalized.reason}; it is not read`);
        continue;
      }
      const path = normalized.path;
      const first = firstListing.get(path);
      if (first !== undefined) {
        const message = first === "$" ? "lists the manifest itself" : `lists ${describeValue(path)} again (first at ${first}); it is checked once`;
        this.add("LISTED_TWICE", pkg.manifestPath, at, message);
        continue;
      }
      firstListing.set(path, reference.jsonPath);
      const content = pkg.files.get(path) ?? { state: "missing" };
      switch (content.state) {
        case "missing":
          this.add("FILE_MISSING", pkg.manifestPath, at, `lists ${describeValue(path)}, which is not in the package`);
          continue;
        case "not-a-file":
          this.add("FILE_MISSING", pkg.manifestPath, at, `lists ${describeValue(path)}, which is not a file`);
          continue;
        case "too-large":
          this.add("FILE_TOO_LARGE", pkg.manifestPath, at, `lists ${describeValue(path)}, which has ${content.size} bytes, over the limit of ${content.limit}; it is not read`);
          continue;
        case "outside":
          this.add("UNSAFE_PATH", pkg.manifestPath, at, `lists ${describeValue(path)}, a link leading out of the package; it is not read`);
          continue;
        case "unreadable":
          this.add("FILE_UNREADABLE", pkg.manifestPath, at, `lists ${describeValue(path)}, which cannot be read: ${content.reason}`);
          continue;
        case "read":
          break;
      }
      this.filesRead += 1;
      this.fileRank.set(path, this.fileRank.size);
      const md5 = reference.md5;
      if (typeof md5 === "string" && /^[0-9a-fA-F]{32}$/.test(md5)) {
        const actual = createHash("md5").update(content.bytes).digest("hex");
        if (actual !== md5.toLowerCase()) {
          this.add("MD5_MISMATCH", pkg.manifestPath, `${reference.jsonPath}.md5`, `is ${md5}, but the MD5 of ${describeValue(path)} is ${actual}`);
        }
      }
      const parsed = parseJsonBytes(content.bytes);
      if (!parsed.ok) {
        this.add("NOT_JSON", path, "$", parsed.message);
        continue;
      }
      this.checkItemsFile(path, parsed.value, reference.key);
    }
    for (const path of pkg.paths) {
      if (/\.ocf\.json$/i.test(path) && !firstListing.has(path)) {
        this.add("UNLISTED_FILE", path, "$", `is in the package but not listed in ${pkg.manifestPath}`);
      }
    }
    for (const entry of pkg.refused) this.add(entry.code, entry.path, "$", `${entry.reason}; it is not read`);
  }

  private checkItemsFile(path: string, value: unknown, key: string): void {
    const expected = FILE_TYPE_OF_KEY.get(key) ?? "";
    let checked = value;
    if (isRecord(value) && value.file_type !== expected) {
      this.add("WRONG_FILE_TYPE", path, "$.file_type", `is ${describeValue(value.file_type)}, but the manifest lists this file in ${key}, which holds ${expected} files`);
      // A known type is checked as what it says it is; anything else as what the manifest says it should be.
      if (typeof value.file_type !== "string" || !ITEMS_FILE_TYPES.has(value.file_type)) checked = { ...value, file_type: expected };
    }
    const ids = new Map<number, string | undefined>();
    if (isRecord(value) && Array.isArray(value.items)) {
      value.items.forEach((item: unknown, index) => {
        if (isRecord(item)) ids.set(index, this.addItem(path, index, `$.items[${index}]`, item).id);
      });
    }
    this.addSchemaIssues(path, validateOcfFile(checked), (jsonPath) => ids.get(itemIndexOf(jsonPath) ?? -1));
  }

  private addItem(file: string, index: number, at: string, value: Readonly<Record<string, unknown>>): Item {
    const rawType = value.object_type;
    const type = typeof rawType === "string" ? ((LEGACY_OBJECT_TYPES as Record<string, string>)[rawType] ?? rawType) : undefined;
    const item: Item = { file, index, at, value, id: stringAt(value, "id"), type };
    this.items.push(item);
    return item;
  }

  private addSchemaIssues(file: string, verdict: { ok: true } | { ok: false; issues: OcfIssue[] }, itemIdAt: (path: string) => string | undefined): void {
    if (verdict.ok) return;
    for (const issue of verdict.issues) this.add("SCHEMA", file, issue.path, issue.message, itemIdAt(issue.path));
  }

  // ---- ids and references ------------------------------------------------------------------

  private buildIndex(): PackageIndex {
    const byType = new Map<string, Item[]>();
    const vestingTerms = new Map<string, Item>();
    const issuances = new Map<string, Item>();
    for (const item of this.items) {
      if (item.type === undefined) continue;
      let list = byType.get(item.type);
      if (list === undefined) byType.set(item.type, (list = []));
      list.push(item);
      if (item.type === "VESTING_TERMS" && item.id !== undefined && !vestingTerms.has(item.id)) vestingTerms.set(item.id, item);
      if (!ISSUANCES.has(item.type)) continue;
      const security = stringAt(item.value, "security_id");
      if (security === undefined) continue;
      const earlier = issuances.get(security);
      if (earlier === undefined) issuances.set(security, item);
      else this.addAt("DUPLICATE_SECURITY_ID", item, ".security_id", `${describeValue(security)} is already created by the issuance at ${earlier.file} ${earlier.at}`);
    }
    return { byType, vestingTerms, issuances };
  }

  private checkIds(index: PackageIndex): void {
    const first = new Map<string, Item>();
    for (const item of this.items) {
      if (item.id === undefined) continue;
      const earlier = first.get(item.id);
      if (earlier === undefined) {
        first.set(item.id, item);
        continue;
      }
      const scope = earlier.type === item.type ? "" : " (ids must be unique across the package, not only per object type)";
      this.addAt("DUPLICATE_ID", item, ".id", `${describeValue(item.id)} is already the id of the ${earlier.type ?? "object"} at ${earlier.file} ${earlier.at}${scope}`);
    }
    for (const terms of index.byType.get("VESTING_TERMS") ?? []) {
      const seen = new Set<string>();
      for (const { condition, index: k } of conditionsOf(terms)) {
        const id = stringAt(condition, "id");
        if (id === undefined) continue;
        if (seen.has(id)) this.addAt("DUPLICATE_ID", terms, `.vesting_conditions[${k}].id`, `${describeValue(id)} is the id of another condition of these VestingTerms`);
        seen.add(id);
      }
    }
  }

  private checkReferences(index: PackageIndex): void {
    const ids = (type: string): ReadonlySet<string> => new Set((index.byType.get(type) ?? []).flatMap((item) => item.id ?? []));
    const stakeholders = ids("STAKEHOLDER");
    const stockClasses = ids("STOCK_CLASS");
    const stockPlans = ids("STOCK_PLAN");
    const legends = ids("STOCK_LEGEND_TEMPLATE");
    const { vestingTerms, issuances } = index;
    const refer = (item: Item, key: string, targets: ReadonlySet<string> | ReadonlyMap<string, unknown>, what: string): void => {
      const value = item.value[key];
      const named =
        typeof value === "string"
          ? [{ id: value, path: `.${key}` }]
          : Array.isArray(value)
            ? value.flatMap((v: unknown, j) => (typeof v === "string" ? [{ id: v, path: `.${key}[${j}]` }] : []))
            : [];
      for (const { id, path } of named) {
        if (!targets.has(id)) this.addAt("DANGLING_REFERENCE", item, path, `names ${what} ${describeValue(id)}, which the package does not have`);
      }
    };

    for (const item of this.items) {
      switch (item.type) {
        case "STOCK_PLAN":
          refer(item, "stock_class_ids", stockClasses, "stock class");
          refer(item, "stock_class_id", stockClasses, "stock class");
          break;
        case "VALUATION":
          refer(item, "stock_class_id", stockClasses, "stock class");
          break;
        case "VESTING_TERMS":
          this.checkConditionGraph(item);
          break;
        case "TX_STOCK_ISSUANCE":
        case "TX_EQUITY_COMPENSATION_ISSUANCE":
          refer(item, "stakeholder_id", stakeholders, "stakeholder");
          refer(item, "stock_class_id", stockClasses, "stock class");
          refer(item, "stock_plan_id", stockPlans, "stock plan");
          refer(item, "vesting_terms_id", vestingTerms, "vesting terms");
          refer(item, "stock_legend_ids", legends, "stock legend template");
          break;
        case RETURN_TO_POOL:
          refer(item, "stock_plan_id", stockPlans, "stock plan");
          break;
        default:
          break;
      }
      if (item.type === undefined || !item.type.startsWith("TX_")) continue;
      if (!ISSUANCES.has(item.type)) {
        const security = stringAt(item.value, "security_id");
        if (security !== undefined && !issuances.has(security)) {
          this.addAt("DANGLING_REFERENCE", item, ".security_id", `names security ${describeValue(security)}, but no issuance in the package creates it`);
        }
      }
      refer(item, "resulting_security_ids", issuances, "as a resulting security");
      refer(item, "balance_security_id", issuances, "as the balance security");
    }
  }

  /** `relative_to_condition_id` and `next_condition_ids` name conditions of the same VestingTerms. */
  private checkConditionGraph(terms: Item): void {
    const conditions = conditionsOf(terms);
    const known = new Set(conditions.flatMap(({ condition }) => stringAt(condition, "id") ?? []));
    const check = (id: unknown, path: string): void => {
      if (typeof id === "string" && !known.has(id)) {
        this.addAt("DANGLING_REFERENCE", terms, path, `names condition ${describeValue(id)}, which these VestingTerms do not have`);
      }
    };
    for (const { condition, index } of conditions) {
      const at = `.vesting_conditions[${index}]`;
      const trigger = condition.trigger;
      if (isRecord(trigger)) check(trigger.relative_to_condition_id, `${at}.trigger.relative_to_condition_id`);
      const next = condition.next_condition_ids;
      if (Array.isArray(next)) next.forEach((id: unknown, j) => check(id, `${at}.next_condition_ids[${j}]`));
    }
  }

  // ---- securities --------------------------------------------------------------------------

  private checkSecurities(index: PackageIndex): void {
    const onSecurity = new Map<string, Item[]>();
    for (const item of this.items) {
      if (item.type === undefined || !item.type.startsWith("TX_")) continue;
      const quantity = decimalAt(item.value, "quantity");
      if (quantity !== undefined && quantity.isNegative() && !quantity.isZero()) {
        this.addAt("NEGATIVE_QUANTITY", item, ".quantity", `is ${describeValue(item.value.quantity)}; a quantity cannot be negative`);
      }
      if (ISSUANCES.has(item.type)) {
        this.checkVestings(item);
        continue;
      }
      const security = stringAt(item.value, "security_id");
      if (security === undefined || !index.issuances.has(security)) continue;
      let list = onSecurity.get(security);
      if (list === undefined) onSecurity.set(security, (list = []));
      list.push(item);
    }
    for (const [security, transactions] of onSecurity) {
      const issuance = index.issuances.get(security);
      if (issuance !== undefined) this.checkTimeline(index, security, issuance, transactions);
    }
  }

  private checkVestings(issuance: Item): void {
    const vestings = issuance.value.vestings;
    if (!Array.isArray(vestings)) return;
    let total = new Dec(0);
    vestings.forEach((vesting: unknown, k) => {
      if (!isRecord(vesting)) return;
      const amount = decimalAt(vesting, "amount");
      if (amount === undefined) return;
      if (amount.lte(0)) {
        this.addAt("VESTING_AMOUNT_NOT_POSITIVE", issuance, `.vestings[${k}].amount`, `is ${describeValue(vesting.amount)}; a vesting tranche must vest a positive amount`);
      } else {
        total = total.plus(amount);
      }
    });
    const quantity = decimalAt(issuance.value, "quantity");
    if (quantity !== undefined && total.gt(quantity)) {
      this.addAt("VESTING_SUM", issuance, ".vestings", `vest ${formatDecimal(total)} in total, more than the quantity ${formatDecimal(quantity)}`);
    }
  }

  /** Kinds, vesting conditions, dates and quantities of every transaction on one security. */
  private checkTimeline(index: PackageIndex, security: string, issuance: Item, transactions: readonly Item[]): void {
    const issuedOn = dateAt(issuance.value, "date");
    const issued = decimalAt(issuance.value, "quantity");
    const of = `security ${describeValue(security)}`;
    for (const tx of transactions) {
      const needed = tx.type === undefined ? undefined : ISSUANCE_FOR[tx.type];
      if (needed !== undefined && issuance.type !== needed) {
        this.addAt("WRONG_SECURITY_KIND", tx, ".security_id", `names ${of}, created by a ${issuance.type ?? "?"}; a ${tx.type ?? "?"} acts on a security created by a ${needed}`);
      }
      const trigger = tx.type === undefined ? undefined : TRIGGER_FOR[tx.type];
      if (trigger !== undefined) this.checkVestingCondition(index, tx, issuance, trigger, of);
    }

    // Same-day order: what leaves the security on a day counts before what that day returns to the pool.
    const dated = transactions
      .flatMap((tx) => {
        const date = dateAt(tx.value, "date");
        return date === undefined ? [] : [{ tx, date }];
      })
      .sort((a, b) => compareIso(a.date, b.date) || Number(a.tx.type === RETURN_TO_POOL) - Number(b.tx.type === RETURN_TO_POOL));
    let consumed = new Dec(0);
    let returnable = new Dec(0);
    let returned = new Dec(0);
    let overConsumed = false;
    let overReturned = false;
    let end: { date: string; why: string } | undefined;
    for (const { tx, date } of dated) {
      // The vesting commencement date may precede the grant (ocf-1.2.0.md §7.3): a vesting start is exempt.
      if (issuedOn !== undefined && compareIso(date, issuedOn) < 0 && tx.type !== "TX_VESTING_START") {
        this.addAt("BEFORE_ISSUANCE", tx, ".date", `is ${date}, before the issuance of ${of} on ${issuedOn}`);
      }
      // A return to pool refers to an ended security by design: it gives back what a cancellation took.
      if (end !== undefined && compareIso(date, end.date) > 0 && tx.type !== RETURN_TO_POOL) {
        this.addAt("AFTER_TERMINAL", tx, ".date", `is ${date}, after ${of} ended on ${end.date} (${end.why})`);
        continue;
      }
      const quantity = decimalAt(tx.value, "quantity");
      const usable = quantity !== undefined && !quantity.isNegative() ? quantity : undefined;
      const what = `${tx.type ?? "transaction"} ${describeValue(tx.id ?? "?")}`;
      if (tx.type !== undefined && CONSUMING.has(tx.type) && usable !== undefined) {
        consumed = consumed.plus(usable);
        if (RETURNABLE.has(tx.type)) returnable = returnable.plus(usable);
        // Reported once, at the transaction that crosses the line; an over-consumed security does not
        // "end", so what follows is not reported again as AFTER_TERMINAL.
        if (issued !== undefined && consumed.gt(issued) && !overConsumed) {
          overConsumed = true;
          this.addAt(
            "OVER_CONSUMED",
            tx,
            ".quantity",
            `brings what is released, cancelled, repurchased or transferred of ${of} to ${formatDecimal(consumed)}, more than the ${formatDecimal(issued)} issued`,
          );
        }
        if (issued !== undefined && consumed.eq(issued)) end ??= { date, why: `fully consumed by ${what}` };
        const balance = tx.value.balance_security_id;
        if (typeof balance === "string") end ??= { date, why: `${what} moved the balance to ${describeValue(balance)}` };
      }
      if (tx.type !== undefined && RETRACTIONS.has(tx.type)) end ??= { date, why: `retracted by ${what}` };
      if (tx.type === RETURN_TO_POOL && usable !== undefined) {
        returned = returned.plus(usable);
        if (returned.gt(returnable) && !overReturned) {
          overReturned = true;
          this.addAt(
            "RETURN_TO_POOL_EXCEEDS",
            tx,
            ".quantity",
            `brings what ${of} returns to the pool to ${formatDecimal(returned)}, more than the ${formatDecimal(returnable)} cancelled or repurchased by ${date}`,
          );
        }
      }
    }
  }

  /** A vesting start or event names a condition of its security's VestingTerms, with the right trigger. */
  private checkVestingCondition(index: PackageIndex, tx: Item, issuance: Item, trigger: string, of: string): void {
    const conditionId = stringAt(tx.value, "vesting_condition_id");
    if (conditionId === undefined) return;
    const termsId = stringAt(issuance.value, "vesting_terms_id");
    if (termsId === undefined) {
      this.addAt("DANGLING_REFERENCE", tx, ".vesting_condition_id", `names condition ${describeValue(conditionId)}, but the issuance of ${of} has no vesting_terms_id`);
      return;
    }
    // Terms the package does not have are reported at the issuance already.
    const terms = index.vestingTerms.get(termsId);
    if (terms === undefined) return;
    const found = conditionsOf(terms).find(({ condition }) => condition.id === conditionId);
    if (found === undefined) {
      this.addAt("DANGLING_REFERENCE", tx, ".vesting_condition_id", `names condition ${describeValue(conditionId)}, which VestingTerms ${describeValue(termsId)} does not have`);
      return;
    }
    const actual = isRecord(found.condition.trigger) ? found.condition.trigger.type : undefined;
    if (actual !== trigger) {
      this.addAt(
        "VESTING_TRIGGER_MISMATCH",
        tx,
        ".vesting_condition_id",
        `names condition ${describeValue(conditionId)} of VestingTerms ${describeValue(termsId)}, whose trigger is ${describeValue(actual)}; a ${tx.type ?? "?"} needs a ${trigger} condition`,
      );
    }
  }
}

/** The index N of a path under `$.items[N]`. */
function itemIndexOf(jsonPath: string): number | undefined {
  const match = /^\$\.items\[(\d+)\]/.exec(jsonPath);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringAt(value: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const found = value[key];
  return typeof found === "string" ? found : undefined;
}

/** The OCF Numeric at `key` as an exact decimal; undefined when absent or malformed (the schema reports that). */
function decimalAt(value: Readonly<Record<string, unknown>>, key: string): Dec | undefined {
  const found = value[key];
  return typeof found === "string" && OCF_NUMERIC_PATTERN.test(found) ? new Dec(found) : undefined;
}

/** The calendar date at `key`; undefined when absent or not a real `YYYY-MM-DD` day (the schema reports that). */
function dateAt(value: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const found = value[key];
  return typeof found === "string" && isCalendarDate(found) ? found : undefined;
}

function conditionsOf(terms: Item): { condition: Readonly<Record<string, unknown>>; index: number }[] {
  const conditions = terms.value.vesting_conditions;
  if (!Array.isArray(conditions)) return [];
  return conditions.flatMap((condition: unknown, index) => (isRecord(condition) ? [{ condition, index }] : []));
}
