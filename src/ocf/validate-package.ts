/**
 * Checks a whole OCF package and reports every problem found, each with its file, the id of the
 * object concerned and a JSON path inside that file; what is odd but valid OCF (a release before its
 * units vested) is a warning of the same shape, which leaves the package valid.
 *
 * Beyond the schemas (which see one object at a time) it checks what only the whole package shows:
 * the manifest's file list and MD5s, that references resolve, that ids are unique, and the lineage of
 * every security (`security-ledger.ts`: dates, quantities, terminal transactions and balance
 * securities, read by the OCF documents or, when the package declares it, on the same security).
 *
 * It reads a package file by file and each file object by object (`json-items.ts`), in one pass, and
 * keeps only what the checks need: a 53-bit hash per id, the ids of stakeholders, classes, plans,
 * legends and vesting terms, and a few fields per security. A package in date order (every package
 * ocf-sync writes) is checked in that one pass. What one pass cannot settle (a reference to an object
 * that comes later and never appears, two ids with one hash, a security whose transactions are not in
 * date order in the file or whose end on a day comes after something else acted on it that day, a
 * transaction before its security's issuance) is settled by a second pass
 * over the files, which looks only at what is in question; problems come out the same either way.
 */
import { createHash, type Hash } from "node:crypto";
import { describeValue } from "../errors.js";
import { checkKnownKeys, checkNumber, checkOneOf, optionKeys } from "../options.js";
import type { DecimalString } from "../decimal.js";
import type { JsonObjectScanner, JsonScanError } from "../json-framing.js";
import { jsonItemsScanner } from "./json-items.js";
import {
  manifestFileReferences,
  normalizePackagePath,
  openOcfPackage,
  type LoadedOcfPackage,
  type ManifestFileReference,
  type OpenedOcfPackage,
  type PackageFileContent,
  type ReadOcfPackageOptions,
  type StreamedFileContent,
} from "./package-reader.js";
import { SecurityTable, type TabledIssuance } from "./security-table.js";
import { StringIndex } from "./string-index.js";
import { FILE_TYPE_OF_MANIFEST_KEY } from "./files.js";
import { isItemsFileType, validateOcfFile, type OcfIssue, type OcfItemsFileType } from "./schemas.js";
import { PHASE, isRecord, itemFacts, type ItemFacts, type Reference, type Space } from "./item-facts.js";
import {
  ISSUANCE_TYPES,
  LEDGER_PROBLEM_CODES,
  LINEAGE_READINGS,
  SecurityChain,
  applyChain,
  balanceFinding,
  declaredLineage,
  kindFinding,
  ledgerSeverity,
  sortChain,
  type ChainSink,
  type LedgerEntry,
  type LedgerFinding,
  type Lineage,
} from "./security-ledger.js";

/**
 * Every code the validator reports, with what it means. Codes are stable. Each is a problem (in
 * `problems`: the package is invalid) except `RELEASED_BEFORE_VESTED`, a warning (in `warnings`: the
 * package stays valid).
 *
 * @category OCF
 */
export const PACKAGE_PROBLEM_CODES = {
  SCHEMA: "a file or object is not valid against ocf-sync's OCF 1.2.0 schemas",
  WRONG_FILE_TYPE: "a file's file_type is not the one of the manifest list it is in",
  NOT_JSON: "a listed file is not UTF-8 JSON (from the first bad byte on, it is not read)",
  FILE_MISSING: "the manifest lists a file the package does not have",
  FILE_TOO_LARGE: "a listed file is over the size limit and was not read",
  VALUE_TOO_LARGE: "a single value (an object of items) of a listed file is over the size limit; the rest of the file is not read",
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
  WRONG_SECURITY_KIND: LEDGER_PROBLEM_CODES.WRONG_SECURITY_KIND,
  BEFORE_ISSUANCE: LEDGER_PROBLEM_CODES.BEFORE_ISSUANCE,
  OVER_CONSUMED: LEDGER_PROBLEM_CODES.OVER_CONSUMED,
  AFTER_TERMINAL: LEDGER_PROBLEM_CODES.AFTER_TERMINAL,
  SECOND_TERMINAL: LEDGER_PROBLEM_CODES.SECOND_TERMINAL,
  BALANCE_MISSING: LEDGER_PROBLEM_CODES.BALANCE_MISSING,
  BALANCE_MISMATCH: LEDGER_PROBLEM_CODES.BALANCE_MISMATCH,
  BALANCE_IS_SELF: LEDGER_PROBLEM_CODES.BALANCE_IS_SELF,
  RETURN_TO_POOL_EXCEEDS: LEDGER_PROBLEM_CODES.RETURN_TO_POOL_EXCEEDS,
  NEGATIVE_QUANTITY: LEDGER_PROBLEM_CODES.NEGATIVE_QUANTITY,
  VESTING_AMOUNT_NOT_POSITIVE: LEDGER_PROBLEM_CODES.VESTING_AMOUNT_NOT_POSITIVE,
  VESTING_SUM: LEDGER_PROBLEM_CODES.VESTING_SUM,
  SAME_DAY_ORDER: LEDGER_PROBLEM_CODES.SAME_DAY_ORDER,
  RELEASED_BEFORE_VESTED: LEDGER_PROBLEM_CODES.RELEASED_BEFORE_VESTED,
} as const;
/**
 * A stable problem (or warning) code, e.g. `"OVER_CONSUMED"`; see `PACKAGE_PROBLEM_CODES`.
 *
 * @category OCF
 */
export type PackageProblemCode = keyof typeof PACKAGE_PROBLEM_CODES;

/**
 * One problem of a package (or one warning: the same shape).
 *
 * @category OCF
 */
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

/**
 * What the package holds, for the summary.
 *
 * @category OCF
 */
export interface PackageCounts {
  /** Files read: the manifest and each listed file that could be read. */
  files: number;
  /** Objects in the listed files (the issuer inside the manifest not included). */
  objects: number;
  /** Objects per `object_type` (legacy spellings counted under the current name). */
  objectsByType: Readonly<Record<string, number>>;
  /**
   * Transactions of OCF 1.2.0 kinds ocf-sync has no schema for (an exercise, a split, a pool adjustment, a
   * warrant, …), per `object_type` as `objectsByType` counts them: valid OCF whose fields were not checked (their references
   * and lineage were). Empty when there is none.
   */
  uncheckedByType: Readonly<Record<string, number>>;
  /** Transactions among `objects`. */
  transactions: number;
  /** Distinct `security_id`s created by issuances. */
  securities: number;
}

/**
 * Which lineage reading a validation applied, and why that one.
 *
 * @category OCF
 */
export interface LineageUsed {
  reading: Lineage;
  /** `"declared"` by the manifest's comments, given as an `"option"`, or the `"default"` (documents). */
  from: "declared" | "option" | "default";
}

/**
 * The verdict on a package.
 *
 * @category OCF
 */
export interface PackageValidationReport {
  /** True when there is no problem (warnings do not count). */
  valid: boolean;
  /** Every problem, grouped by file (manifest first, then in manifest order) and by object. */
  problems: PackageProblem[];
  /**
   * Every warning, ordered as `problems` are: what is odd in the data but valid OCF, so it leaves
   * `valid` true. Today only `RELEASED_BEFORE_VESTED` (a release that takes more than the security's
   * `vestings` have vested by its date: a source that settled units before they vested).
   */
  warnings: PackageProblem[];
  counts: PackageCounts;
  lineage: LineageUsed;
}

/** Options of `validateOcfPackage`. */
export interface ValidatePackageOptions {
  /**
   * The lineage reading to check the package by (`security-ledger.ts`).
   * @default the one the manifest declares (a `Lineage: documents` or `Lineage: same-security` line in its comments), else "documents"
   */
  reader?: Lineage;
  /**
   * The largest single object read (an element of a file's `items`): a larger one is reported
   * (`VALUE_TOO_LARGE`) and the rest of its file is not read.
   * @default DEFAULT_MAX_VALUE_BYTES (64 MiB)
   */
  maxValueBytes?: number;
}

/**
 * Options of `validatePackageAt`.
 *
 * @category OCF
 */
export interface ValidatePackageAtOptions extends ReadOcfPackageOptions, ValidatePackageOptions {}

/**
 * Checks a package read whole by `loadOcfPackage` or `readOcfPackageFromFiles` (see the module
 * comment for what is checked) and returns every problem. Never throws on bad content.
 */
export function validateOcfPackage(pkg: LoadedOcfPackage, options: ValidatePackageOptions = {}): PackageValidationReport {
  const checker = new PackageChecker(pkg, options);
  const contentOf = (file: ListedFile): PackageFileContent => pkg.files.get(file.path) ?? { state: "missing" };
  const feed = (content: PackageFileContent, feeder: FileFeeder): void => {
    if (content.state === "read") feeder.push(content.bytes);
    feeder.end();
  };
  for (const file of checker.firstPass()) {
    const content = contentOf(file);
    const feeder = checker.opened(file, content.state === "read" ? { state: "stream", size: content.bytes.length, chunks: [] } : content);
    if (feeder !== undefined) feed(content, feeder);
  }
  for (const file of checker.secondPass()) feed(contentOf(file), checker.reread(file));
  return checker.report();
}

/** Every option of `validatePackageAt` (a key not among them is refused: from JavaScript a typo would be ignored). */
const VALIDATE_PACKAGE_AT_OPTION_KEYS = optionKeys<ValidatePackageAtOptions>()(["signal", "maxFileBytes", "reader", "maxValueBytes"]);

/**
 * Reads the package at `path` (a folder or a zip) file by file, each file object by object, and
 * checks it, on this thread, with memory that does not grow with the size of the package's files.
 *
 * @throws {PackageUnusableError} when `path` is no package at all (not a folder or zip, an unreadable zip,
 *   no manifest, a manifest that is not JSON).
 * @example
 * ```ts
 * import { validatePackageAt } from "ocf-sync";
 * const report = await validatePackageAt("out/7.ocf.zip");
 * if (!report.valid) console.log(`${report.problems.length} problems (lineage read as ${report.lineage.reading})`);
 * for (const p of report.problems) console.log(p.file, p.itemId ?? "-", p.jsonPath, p.message);
 * ```
 *
 * @category OCF
 */
export async function validatePackageAt(path: string, options: ValidatePackageAtOptions = {}): Promise<PackageValidationReport> {
  checkKnownKeys("validatePackageAt", options, VALIDATE_PACKAGE_AT_OPTION_KEYS);
  checkOneOf("validatePackageAt", "reader", options.reader, LINEAGE_READINGS);
  checkNumber("validatePackageAt", "maxFileBytes", options.maxFileBytes, 1, { infinite: true });
  checkNumber("validatePackageAt", "maxValueBytes", options.maxValueBytes, 1, { infinite: true });
  const pkg = await openOcfPackage(path, options);
  try {
    return await validateOpened(pkg, options, undefined);
  } finally {
    await pkg.close();
  }
}

/**
 * What `validateOpenedPackage` hands on of its one read of a package's listed files (first pass: each
 * file once, in manifest order, as `PackageChecker.firstPass` lists them; the second pass, which reads
 * some files again, is not handed on).
 */
export interface PackageReading {
  /** One element of `file`'s `items`, parsed, in file order, as it is read. */
  item(file: string, value: unknown): void;
  /** `file` read to its end, or to the error that stopped its reading; `itemsArray`: it had an `items` array. */
  fileRead(file: string, result: { itemsArray: boolean; error: JsonScanError | undefined }): void;
  /**
   * Check only that the files are the ones the manifest describes, and what each file is as a whole:
   * the manifest, the files listed (present, readable, of their list's file type, with their MD5,
   * JSON, none unlisted), not the objects in them (no schema, reference, id or quantity check, so the
   * first pass is the only one). For a reader whose own reading of the objects decides the rest. The
   * report then lists only such problems, and of its counts only `files` and `objects` are filled
   * (`valid` says nothing of the objects).
   */
  readonly integrityOnly?: boolean;
}

/**
 * Validates an opened package as `validatePackageAt` does (the same report), handing `reading` each
 * element of each listed file's `items` from the same read that hashes and checks the file, so a
 * caller that needs the objects reads each file once (`loadPackageObjects`); with
 * `reading.integrityOnly`, the report holds only what the files are as a whole (see there).
 * Internal: not exported by the package. Does not close `pkg`.
 */
export async function validateOpenedPackage(pkg: OpenedOcfPackage, options: ValidatePackageOptions & { signal?: AbortSignal }, reading: PackageReading): Promise<PackageValidationReport> {
  return validateOpened(pkg, options, reading);
}

/** The validation of an opened package, handing its elements to `reading` when given. */
async function validateOpened(pkg: OpenedOcfPackage, options: ValidatePackageOptions & { signal?: AbortSignal }, reading: PackageReading | undefined): Promise<PackageValidationReport> {
  const { signal } = options;
  const checker = new PackageChecker(pkg, options, reading);
  const feed = async (content: StreamedFileContent, feeder: FileFeeder): Promise<void> => {
    if (content.state === "stream") {
      for await (const chunk of content.chunks) {
        signal?.throwIfAborted();
        feeder.push(chunk);
      }
    }
    feeder.end();
  };
  for (const file of checker.firstPass()) {
    const content = await pkg.open(file.path);
    const feeder = checker.opened(file, content);
    if (feeder !== undefined) await feed(content, feeder);
  }
  for (const file of checker.secondPass()) await feed(await pkg.open(file.path), checker.reread(file));
  return checker.report();
}

/** A package as the checker sees it: its manifest and the files around it. */
type CheckedPackage = Omit<LoadedOcfPackage, "files">;

/** A listed file the checker reads: its package path and manifest entry. */
interface ListedFile {
  path: string;
  reference: ManifestFileReference;
  /** Its position among the manifest's file references (for the order of the manifest's problems). */
  position: number;
}

/** Takes a file's bytes in chunks. */
interface FileFeeder {
  push(chunk: Uint8Array): void;
  end(): void;
}

/** The sort keys of a problem: object, check, and the order found. The file's rank is looked up when the report is made. */
interface StoredProblem {
  problem: PackageProblem;
  /** Index in the file's `items`; -1 for the file itself (and the issuer inside the manifest). */
  index: number;
  phase: number;
  sub: number;
  seq: number;
  /** For problems of a security's chain: the security (its chain may be recomputed). */
  security?: string;
}

/** Within the securities phase. */
const SECURITY_STEP = { object: 0, kind: 1, condition: 2, chain: 3 } as const;

/** Where an object is. */
interface Location {
  file: string;
  index: number;
  /** JSON path of the object in its file when it is not `$.items[index]` (the issuer: `$.issuer`). */
  at?: string;
  itemId: string | undefined;
}

/** The JSON path of an object in its file, made only when a problem is reported. */
function pathOf(location: Location): string {
  return location.at ?? `$.items[${location.index}]`;
}

function issuesOf(verdict: { ok: true } | { ok: false; issues: OcfIssue[] }): OcfIssue[] | undefined {
  return verdict.ok ? undefined : verdict.issues;
}

function danglingMessage(reference: Reference): string {
  return reference.what === undefined
    ? `names security ${describeValue(reference.id)}, but no issuance in the package creates it`
    : `names ${reference.what} ${describeValue(reference.id)}, which the package does not have`;
}

/** What a transaction needs of its security beyond the chain: the conditions of its vesting terms. */
const TRIGGER_FOR: Readonly<Record<string, string>> = {
  TX_VESTING_START: "VESTING_START_DATE",
  TX_VESTING_EVENT: "VESTING_EVENT",
};


/** A 53-bit hash of a string (two 32-bit FNV-style lanes), exact in a float64. Equal hashes are confirmed on the strings. */
function idHash(id: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ id.length;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) >>> 11);
}

/** A growable list of float64s, 8 bytes an entry. */
class NumberList {
  private values = new Float64Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(Math.ceil(this.values.length * 1.5));
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
  /** The values that occur more than once (sorts the list in place: its order is not needed after). */
  repeated(): Set<number> {
    const sorted = this.values.subarray(0, this.length).sort();
    const repeats = new Set<number>();
    for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) repeats.add(sorted[i] as number);
    return repeats;
  }
}

class PackageChecker {
  private readonly stored: StoredProblem[] = [];
  /** Rank of each file read: the manifest, then listed files in manifest order. Others come last. */
  private readonly fileRank = new Map<string, number>();
  private readonly lineage: LineageUsed;
  private readonly listed: ListedFile[] = [];
  private readonly streamed: ListedFile[] = [];

  private filesRead = 1;
  private objects = 0;
  private transactions = 0;
  private readonly objectsByType = new Map<string, number>();
  private readonly uncheckedByType = new Map<string, number>();

  private readonly idHashes = new NumberList();
  private readonly defined: Record<Exclude<Space, "security">, StringIndex> = {
    stakeholder: new StringIndex(),
    stockClass: new StringIndex(),
    stockPlan: new StringIndex(),
    legend: new StringIndex(),
    vestingTerms: new StringIndex(),
  };
  /** Conditions of each vesting terms (the first of each id): condition id → trigger type. */
  private readonly conditions = new Map<string, Map<string, unknown>>();
  private readonly securities = new SecurityTable();
  /** Ids named before the object they name was seen; at the end, those never seen are dangling. */
  private readonly unresolved = new Map<Space, StringIndex>();
  /** Securities whose chain is settled in the second pass (not in date order, or named before their issuance). */
  private readonly deferred = new Set<string>();
  /** Transactions (by ordinal) whose security or vesting terms were not known when they were read. */
  private readonly later = new Map<number, "kind" | "condition">();
  /** Balance securities named before their issuance was seen. */
  private readonly pendingBalances: { location: Location; balance: string; remainder: DecimalString; security: string }[] = [];
  /** Files whose items were checked against a schema their `file_type`, read later, overrides. */
  private readonly recheckSchema = new Map<string, OcfItemsFileType | undefined>();

  // Second pass: what is in question.
  private missing: Map<Space, Set<string>> | undefined;
  private suspects: Set<number> | undefined;
  private readonly suspectIds: { id: string; type: string | undefined; location: Location }[] = [];
  private readonly deferredChains = new Map<string, { entries: LedgerEntry[]; locations: Location[] }>();
  /** The `vestings` of the securities followed again, as issued: the table holds only what their first pass left to walk. */
  private readonly deferredVestings = new Map<string, string>();
  private ordinal = 0;

  readonly maxValueBytes: number | undefined;
  /** Only the files as wholes are checked (`PackageReading.integrityOnly`), not their objects. */
  private readonly integrityOnly: boolean;

  /** `reading`: given each element and each file's end as the first pass reads them (`validateOpenedPackage`). */
  constructor(
    private readonly pkg: CheckedPackage,
    options: ValidatePackageOptions,
    private readonly reading?: PackageReading,
  ) {
    this.maxValueBytes = options.maxValueBytes;
    this.integrityOnly = reading?.integrityOnly === true;
    this.fileRank.set(pkg.manifestPath, 0);
    const declared = declaredLineage(pkg.manifest);
    this.lineage =
      options.reader !== undefined
        ? { reading: options.reader, from: "option" }
        : declared !== undefined
          ? { reading: declared, from: "declared" }
          : { reading: "documents", from: "default" };
  }

  // ---- recording -----------------------------------------------------------------------------

  private add(code: PackageProblemCode, where: { file: string; index: number; itemId?: string | undefined }, jsonPath: string, message: string, phase: number, sub: number, security?: string): void {
    const problem: PackageProblem = { code, file: where.file, ...(where.itemId === undefined ? {} : { itemId: where.itemId }), jsonPath, message };
    this.stored.push({ problem, index: where.index, phase, sub, seq: this.stored.length, ...(security === undefined ? {} : { security }) });
  }

  private addAt(code: PackageProblemCode, location: Location, subPath: string, message: string, phase: number, sub: number, security?: string): void {
    this.add(code, location, `${pathOf(location)}${subPath}`, message, phase, sub, security);
  }

  private manifestProblem(code: PackageProblemCode, jsonPath: string, message: string, sub: number, itemId?: string): void {
    this.add(code, { file: this.pkg.manifestPath, index: -1, itemId }, jsonPath, message, PHASE.file, sub);
  }

  // ---- the manifest and the files it lists ---------------------------------------------------

  /** Checks the manifest and its file list; returns the files to read, in manifest order. */
  firstPass(): readonly ListedFile[] {
    const { manifest, manifestPath } = this.pkg;
    let checked: unknown = manifest;
    if (manifest.file_type !== "OCF_MANIFEST_FILE") {
      this.manifestProblem("WRONG_FILE_TYPE", "$.file_type", `is ${describeValue(manifest.file_type)}; ${manifestPath} must be "OCF_MANIFEST_FILE"`, 0);
      checked = { ...manifest, file_type: "OCF_MANIFEST_FILE" };
    }
    const issuer = manifest.issuer;
    const issuerId = isRecord(issuer) && typeof issuer.id === "string" ? issuer.id : undefined;
    if (issuerId !== undefined) this.idHashes.push(idHash(issuerId));
    this.addSchemaIssues({ file: manifestPath, index: -1, at: "$", itemId: undefined }, issuesOf(validateOcfFile(checked)), (path) => (path.startsWith("$.issuer") ? issuerId : undefined));
    // The manifest counts as listed: listing it under a *_files key is reported as listing it again.
    const firstListing = new Map<string, string>([[manifestPath, "$"]]);
    manifestFileReferences(manifest).forEach((reference, position) => {
      const at = `${reference.jsonPath}.filepath`;
      const sub = position + 1;
      const normalized = normalizePackagePath(reference.filepath);
      if (!normalized.ok) {
        this.manifestProblem("UNSAFE_PATH", at, `${describeValue(reference.filepath)} ${normalized.reason}; it is not read`, sub);
        return;
      }
      const first = firstListing.get(normalized.path);
      if (first !== undefined) {
        const message = first === "$" ? "lists the manifest itself" : `lists ${describeValue(normalized.path)} again (first at ${first}); it is checked once`;
        this.manifestProblem("LISTED_TWICE", at, message, sub);
        return;
      }
      firstListing.set(normalized.path, reference.jsonPath);
      this.listed.push({ path: normalized.path, reference, position });
    });
    for (const path of this.pkg.paths) {
      if (/\.ocf\.json$/i.test(path) && !firstListing.has(path)) {
        this.add("UNLISTED_FILE", { file: path, index: -1 }, "$", `is in the package but not listed in ${manifestPath}`, PHASE.file, 0);
      }
    }
    for (const entry of this.pkg.refused) this.add(entry.code, { file: entry.path, index: -1 }, "$", `${entry.reason}; it is not read`, PHASE.file, 0);
    return this.listed;
  }

  /** Records what opening a listed file gave; returns where its bytes go when it can be read. */
  opened(file: ListedFile, content: StreamedFileContent): FileFeeder | undefined {
    const at = `${file.reference.jsonPath}.filepath`;
    const sub = file.position + 1;
    const path = describeValue(file.path);
    switch (content.state) {
      case "missing":
        this.manifestProblem("FILE_MISSING", at, `lists ${path}, which is not in the package`, sub);
        return undefined;
      case "not-a-file":
        this.manifestProblem("FILE_MISSING", at, `lists ${path}, which is not a file`, sub);
        return undefined;
      case "too-large":
        this.manifestProblem("FILE_TOO_LARGE", at, `lists ${path}, which has ${content.size} bytes, over the limit of ${content.limit}; it is not read`, sub);
        return undefined;
      case "outside":
        this.manifestProblem("UNSAFE_PATH", at, `lists ${path}, a link leading out of the package; it is not read`, sub);
        return undefined;
      case "unreadable":
        this.manifestProblem("FILE_UNREADABLE", at, `lists ${path}, which cannot be read: ${content.reason}`, sub);
        return undefined;
      case "stream":
        break;
    }
    this.filesRead += 1;
    this.fileRank.set(file.path, this.fileRank.size);
    this.streamed.push(file);
    return new FileCheck(this, file, createHash("md5"), false);
  }

  /** The files to read again for what one pass could not settle (none for a package in order). */
  secondPass(): readonly ListedFile[] {
    this.settlePendingBalances();
    const missing = new Map<Space, Set<string>>();
    for (const [space, ids] of this.unresolved) {
      const gone = new Set<string>();
      for (let i = 0; i < ids.size; i++) {
        const id = ids.keyAt(i);
        if (!this.isDefined(space, id)) gone.add(id);
      }
      if (gone.size > 0) missing.set(space, gone);
    }
    const suspects = this.idHashes.repeated();
    if (missing.size === 0 && suspects.size === 0 && this.deferred.size === 0 && this.later.size === 0 && this.recheckSchema.size === 0) return [];
    this.missing = missing;
    this.suspects = suspects;
    // Chains that will be recomputed from every transaction of their security.
    const chainOf = (problem: StoredProblem): boolean => problem.security !== undefined && this.deferred.has(problem.security);
    this.dropStored((p) => chainOf(p) || (p.phase === PHASE.file && p.index >= 0 && this.recheckSchema.has(p.problem.file)));
    this.ordinal = 0;
    const issuer = this.pkg.manifest.issuer;
    if (isRecord(issuer) && typeof issuer.id === "string" && suspects.has(idHash(issuer.id))) {
      this.suspectIds.push({ id: issuer.id, type: "ISSUER", location: { file: this.pkg.manifestPath, index: -1, at: "$.issuer", itemId: issuer.id } });
    }
    return this.streamed;
  }

  /** Reads a file again in the second pass. */
  reread(file: ListedFile): FileFeeder {
    return new FileCheck(this, file, undefined, true);
  }

  report(): PackageValidationReport {
    if (this.missing !== undefined) this.finishSecondPass();
    const rank = (p: StoredProblem): number => this.fileRank.get(p.problem.file) ?? this.fileRank.size;
    const found = this.stored
      .sort((a, b) => rank(a) - rank(b) || a.index - b.index || a.phase - b.phase || a.sub - b.sub || a.seq - b.seq)
      .map((entry) => entry.problem);
    const problems = found.filter((p) => ledgerSeverity(p.code) === "problem");
    const warnings = found.filter((p) => ledgerSeverity(p.code) === "warning");
    return {
      valid: problems.length === 0,
      problems,
      warnings,
      counts: {
        files: this.filesRead,
        objects: this.objects,
        objectsByType: Object.fromEntries(this.objectsByType),
        uncheckedByType: Object.fromEntries(this.uncheckedByType),
        transactions: this.transactions,
        securities: this.securities.size,
      },
      lineage: this.lineage,
    };
  }

  private dropStored(drop: (problem: StoredProblem) => boolean): void {
    let kept = 0;
    for (const problem of this.stored) if (!drop(problem)) this.stored[kept++] = problem;
    this.stored.length = kept;
  }

  // ---- one file ----------------------------------------------------------------------------

  /** Called by `FileCheck` once the whole file is read (first pass). */
  fileRead(file: ListedFile, result: { md5: string | undefined; error: JsonScanError | undefined; members: Map<string, unknown>; itemsArray: boolean; itemsCheckedAs: OcfItemsFileType | undefined; notAnObject: { value: unknown } | undefined }): void {
    const { reference, path } = file;
    this.reading?.fileRead(path, { itemsArray: result.itemsArray, error: result.error });
    const md5 = reference.md5;
    if (result.md5 !== undefined && typeof md5 === "string" && /^[0-9a-fA-F]{32}$/.test(md5) && result.md5 !== md5.toLowerCase()) {
      this.manifestProblem("MD5_MISMATCH", `${reference.jsonPath}.md5`, `is ${md5}, but the MD5 of ${describeValue(path)} is ${result.md5}`, file.position + 1);
    }
    if (result.error !== undefined) {
      // What came before the error was checked object by object; the file as a whole cannot be.
      this.add(result.error.kind === "too-large" ? "VALUE_TOO_LARGE" : "NOT_JSON", { file: path, index: -1 }, "$", result.error.message, PHASE.file, 0);
      return;
    }
    const expected = FILE_TYPE_OF_MANIFEST_KEY.get(reference.key) ?? "";
    // The file as `validateOcfFile` sees it, its items already checked one by one.
    const skeleton: unknown = result.notAnObject !== undefined ? result.notAnObject.value : { ...Object.fromEntries(result.members), ...(result.itemsArray ? { items: [] } : {}) };
    let checked = skeleton;
    if (isRecord(skeleton) && skeleton.file_type !== expected) {
      this.add("WRONG_FILE_TYPE", { file: path, index: -1 }, "$.file_type", `is ${describeValue(skeleton.file_type)}, but the manifest lists this file in ${reference.key}, which holds ${expected} files`, PHASE.file, 0);
      // A known type is checked as what it says it is; anything else as what the manifest says it should be.
      if (!isItemsFileType(skeleton.file_type)) checked = { ...skeleton, file_type: expected };
    }
    this.addSchemaIssues({ file: path, index: -1, at: "$", itemId: undefined }, issuesOf(validateOcfFile(checked)), () => undefined);
    // Items read before the file said its type were checked as the type the manifest expects.
    const itemsType = isRecord(skeleton) ? this.itemsTypeOf(file, skeleton.file_type) : undefined;
    // Read as a whole only: nothing of the items to check again.
    if (result.itemsArray && itemsType !== result.itemsCheckedAs && !this.integrityOnly) this.recheckSchema.set(path, itemsType);
  }

  /** The item schema a file's items are checked against, from what is known of it so far. */
  itemsTypeOf(file: ListedFile, declared: unknown): OcfItemsFileType | undefined {
    if (isItemsFileType(declared)) return declared;
    const expected = FILE_TYPE_OF_MANIFEST_KEY.get(file.reference.key);
    return isItemsFileType(expected) ? expected : undefined;
  }

  /** In the second pass: the schema to check a file's items against again, if any. */
  schemaRecheckOf(path: string): { type: OcfItemsFileType | undefined } | undefined {
    return this.recheckSchema.has(path) ? { type: this.recheckSchema.get(path) } : undefined;
  }

  private addSchemaIssues(location: Location, issues: readonly OcfIssue[] | undefined, itemIdAt: (path: string) => string | undefined): void {
    for (const issue of issues ?? []) {
      const path = location.index < 0 ? issue.path : `${pathOf(location)}${issue.path.slice(1)}`;
      this.add("SCHEMA", { file: location.file, index: location.index, itemId: location.index < 0 ? itemIdAt(issue.path) : location.itemId }, path, issue.message, PHASE.file, 0);
    }
  }

  /** One element of a file's `items` (first pass). */
  item(file: ListedFile, index: number, value: unknown, schemaType: OcfItemsFileType | undefined): void {
    this.reading?.item(file.path, value);
    if (this.integrityOnly) {
      if (isRecord(value)) this.objects += 1;
      return;
    }
    this.itemRead(file, index, itemFacts(value, schemaType));
  }

  /** One element of a file's `items`, from its facts (first pass): each element in file order. */
  itemRead(file: ListedFile, index: number, facts: ItemFacts): void {
    const { id } = facts;
    const location: Location = { file: file.path, index, itemId: id };
    this.addSchemaIssues(location, facts.schemaIssues, () => id);
    if (!facts.record) return;
    const { type } = facts;
    this.objects += 1;
    const counted = type ?? "(no object_type)";
    this.objectsByType.set(counted, (this.objectsByType.get(counted) ?? 0) + 1);
    if (facts.unschemed === true) this.uncheckedByType.set(counted, (this.uncheckedByType.get(counted) ?? 0) + 1);
    if (type?.startsWith("TX_") === true) this.transactions += 1;
    if (id !== undefined) this.idHashes.push(idHash(id));
    const ordinal = this.ordinal++;
    // Definitions first: an object may name itself (an issuance among its own resulting securities).
    this.define(facts, location);
    this.checkReferences(facts, location, false);
    if (facts.entry !== undefined) this.transaction(facts, facts.entry, location, ordinal);
  }

  /** One element of a file's `items`, read again for what is in question. */
  itemAgain(file: ListedFile, index: number, value: unknown, recheck: { type: OcfItemsFileType | undefined } | undefined): void {
    const facts = itemFacts(value, recheck?.type);
    const { id, type, entry } = facts;
    const location: Location = { file: file.path, index, itemId: id };
    this.addSchemaIssues(location, facts.schemaIssues, () => id);
    if (!facts.record) return;
    const ordinal = this.ordinal++;
    if (id !== undefined && this.suspects?.has(idHash(id)) === true) this.suspectIds.push({ id, type, location });
    this.checkReferences(facts, location, true);
    if (entry !== undefined && facts.vestings !== undefined && entry.securityId !== undefined && this.deferred.has(entry.securityId)) {
      const issued = this.securities.issuance(this.securities.indexOf(entry.securityId));
      if (issued.file === location.file && issued.itemIndex === index) this.deferredVestings.set(entry.securityId, facts.vestings);
    }
    if (entry === undefined || ISSUANCE_TYPES.has(entry.type)) return;
    const later = this.later.get(ordinal);
    const security = entry.securityId === undefined ? -1 : this.securities.indexOf(entry.securityId);
    if (later !== undefined && security !== -1) this.securityChecks(entry, facts, location, this.securities.issuance(security), later === "kind");
    if (entry.securityId !== undefined && this.deferred.has(entry.securityId)) {
      let chain = this.deferredChains.get(entry.securityId);
      if (chain === undefined) this.deferredChains.set(entry.securityId, (chain = { entries: [], locations: [] }));
      chain.entries.push(entry);
      chain.locations.push(location);
    }
  }

  // ---- ids and references ------------------------------------------------------------------

  private isDefined(space: Space, id: string): boolean {
    return space === "security" ? this.securities.has(id) : this.defined[space].has(id);
  }

  private define(facts: ItemFacts, location: Location): void {
    const { id, type, entry } = facts;
    switch (type) {
      case "STAKEHOLDER":
        if (id !== undefined) this.defined.stakeholder.add(id);
        return;
      case "STOCK_CLASS":
        if (id !== undefined) this.defined.stockClass.add(id);
        return;
      case "STOCK_PLAN":
        if (id !== undefined) this.defined.stockPlan.add(id);
        return;
      case "STOCK_LEGEND_TEMPLATE":
        if (id !== undefined) this.defined.legend.add(id);
        return;
      case "VESTING_TERMS":
        if (facts.terms !== undefined) this.vestingTerms(facts.terms, location, id);
        return;
      default:
        break;
    }
    if (entry === undefined || !ISSUANCE_TYPES.has(entry.type)) return;
    const securityId = entry.securityId;
    if (securityId === undefined) return;
    const added = this.securities.add(securityId, {
      type: entry.type,
      date: entry.date,
      quantity: entry.quantity,
      vestingTermsId: facts.vestingTermsId,
      vestings: facts.vestings,
      file: location.file,
      itemIndex: location.index,
    });
    if (added === undefined) {
      const earlier = this.securities.issuance(this.securities.indexOf(securityId));
      this.addAt("DUPLICATE_SECURITY_ID", location, ".security_id", `${describeValue(securityId)} is already created by the issuance at ${earlier.file} $.items[${earlier.itemIndex}]`, PHASE.securityIds, 0);
    }
  }

  private vestingTerms(terms: NonNullable<ItemFacts["terms"]>, location: Location, id: string | undefined): void {
    for (const problem of terms.problems) this.addAt(problem.code, location, problem.path, problem.message, problem.phase, problem.sub);
    if (id === undefined || this.defined.vestingTerms.has(id)) return;
    this.defined.vestingTerms.add(id);
    this.conditions.set(id, new Map(terms.triggers));
  }

  /**
   * The references of an object, resolved as far as is known: first pass, an id not seen yet is
   * noted; second pass, the ids never seen are reported, in the order the references come.
   */
  private checkReferences(facts: ItemFacts, location: Location, again: boolean): void {
    facts.references.forEach((reference, sub) => {
      if (!again) {
        if (this.isDefined(reference.space, reference.id)) return;
        let ids = this.unresolved.get(reference.space);
        if (ids === undefined) this.unresolved.set(reference.space, (ids = new StringIndex()));
        ids.add(reference.id);
      } else if (this.missing?.get(reference.space)?.has(reference.id) === true) {
        this.addAt("DANGLING_REFERENCE", location, reference.path, danglingMessage(reference), PHASE.references, sub);
      }
    });
  }

  // ---- securities -------------------------------------------------------------------------

  private transaction(facts: ItemFacts, entry: LedgerEntry, location: Location, ordinal: number): void {
    for (const finding of facts.findings ?? []) this.addAt(finding.code, location, finding.path, finding.message, PHASE.securities, SECURITY_STEP.object);
    if (ISSUANCE_TYPES.has(entry.type) || entry.securityId === undefined) return;
    const index = this.securities.indexOf(entry.securityId);
    if (index === -1) {
      // Named before its issuance (or never issued: a dangling reference). The second pass decides.
      this.later.set(ordinal, "kind");
      this.deferred.add(entry.securityId);
      return;
    }
    const security = this.securities.issuance(index);
    if (!this.securityChecks(entry, facts, location, security, true)) this.later.set(ordinal, "condition");
    if (this.deferred.has(entry.securityId)) return;
    const chain = this.securities.chain(index, this.lineage.reading);
    let unsettled = !chain.inOrder(entry);
    if (!unsettled) chain.apply(entry, this.chainSink(location, entry.securityId, () => (unsettled = true)));
    if (unsettled) {
      // Not in (date, kind) order in the package, or a day whose end came after what acted on it that
      // day: followed again in the second pass, from all its transactions.
      this.deferred.add(entry.securityId);
      return;
    }
    this.securities.save(index, chain);
  }

  /**
   * The kind of security a transaction acts on, and the vesting condition it names. Returns false
   * when the condition could not be checked yet (its vesting terms not seen so far).
   */
  private securityChecks(entry: LedgerEntry, facts: ItemFacts, location: Location, security: TabledIssuance, withKind: boolean): boolean {
    if (withKind) {
      const kind = kindFinding(entry, security.type);
      if (kind !== undefined) this.addAt(kind.code, location, kind.path, kind.message, PHASE.securities, SECURITY_STEP.kind);
    }
    const trigger = TRIGGER_FOR[entry.type];
    const conditionId = facts.vestingConditionId;
    if (trigger === undefined || conditionId === undefined) return true;
    const termsId = security.vestingTermsId;
    const step = SECURITY_STEP.condition;
    if (termsId === undefined) {
      this.addAt("DANGLING_REFERENCE", location, ".vesting_condition_id", `names condition ${describeValue(conditionId)}, but the issuance of security ${describeValue(security.securityId)} has no vesting_terms_id`, PHASE.securities, step);
      return true;
    }
    const triggers = this.conditions.get(termsId);
    // Terms the package does not have are reported at the issuance; terms not seen yet are checked in
    // the second pass (`missing` is set once the first pass is over).
    if (triggers === undefined) return this.missing !== undefined;
    if (!triggers.has(conditionId)) {
      this.addAt("DANGLING_REFERENCE", location, ".vesting_condition_id", `names condition ${describeValue(conditionId)}, which VestingTerms ${describeValue(termsId)} does not have`, PHASE.securities, step);
      return true;
    }
    const actual = triggers.get(conditionId);
    if (actual !== trigger) {
      this.addAt(
        "VESTING_TRIGGER_MISMATCH",
        location,
        ".vesting_condition_id",
        `names condition ${describeValue(conditionId)} of VestingTerms ${describeValue(termsId)}, whose trigger is ${describeValue(actual)}; a ${entry.type} needs a ${trigger} condition`,
        PHASE.securities,
        step,
      );
    }
    return true;
  }

  private chainSink(location: Location, security: string, sameDayUnsettled?: () => void): ChainSink {
    return {
      ...(sameDayUnsettled === undefined ? {} : { sameDayUnsettled }),
      problem: (finding: LedgerFinding) => this.addAt(finding.code, location, finding.path, finding.message, PHASE.securities, SECURITY_STEP.chain, security),
      balance: (balance, remainder) => {
        if (this.securities.has(balance)) this.checkBalance(location, balance, remainder, security);
        else this.pendingBalances.push({ location, balance, remainder, security });
      },
    };
  }

  private checkBalance(location: Location, balance: string, remainder: DecimalString, security: string): void {
    const finding = balanceFinding(balance, remainder, this.securities.quantityOf(this.securities.indexOf(balance)), `security ${describeValue(security)}`);
    if (finding !== undefined) this.addAt(finding.code, location, finding.path, finding.message, PHASE.securities, SECURITY_STEP.chain, security);
  }

  /** Balance securities issued after the transaction that names them (a balance never issued is a dangling reference). */
  private settlePendingBalances(): void {
    for (const pending of this.pendingBalances.splice(0)) {
      if (!this.deferred.has(pending.security) && this.securities.has(pending.balance)) {
        this.checkBalance(pending.location, pending.balance, pending.remainder, pending.security);
      }
    }
  }

  private finishSecondPass(): void {
    // Chains of securities not in date order: every transaction, sorted.
    for (const [securityId, { entries, locations }] of this.deferredChains) {
      const index = this.securities.indexOf(securityId);
      if (index === -1) continue;
      const { securityId: id, type, date, quantity } = this.securities.issuance(index);
      const chain = new SecurityChain({ securityId: id, type, date, quantity, vestings: this.deferredVestings.get(securityId) }, this.lineage.reading);
      const positions = sortChain(
        entries.map((_, i) => i),
        entries,
      );
      applyChain(chain, positions, entries, (i) => this.chainSink(locations[i] as Location, securityId));
    }
    this.deferredChains.clear();
    this.deferredVestings.clear();
    this.settlePendingBalances();
    // Ids with one hash: the same id (reported at every object after the first), or a rare collision.
    const byId = new Map<string, { type: string | undefined; location: Location }[]>();
    for (const { id, type, location } of this.suspectIds) {
      let list = byId.get(id);
      if (list === undefined) byId.set(id, (list = []));
      list.push({ type, location });
    }
    for (const [id, [first, ...later]] of byId) {
      if (first === undefined) continue;
      for (const dup of later) {
        const scope = first.type === dup.type ? "" : " (ids must be unique across the package, not only per object type)";
        this.addAt("DUPLICATE_ID", dup.location, ".id", `${describeValue(id)} is already the id of the ${first.type ?? "object"} at ${first.location.file} ${pathOf(first.location)}${scope}`, PHASE.ids, 0);
      }
    }
    this.missing = undefined;
  }
}

/** Reads one listed file: its MD5, its members and its items, each as soon as it is complete. */
class FileCheck implements FileFeeder {
  private readonly scanner: JsonObjectScanner;
  private readonly members = new Map<string, unknown>();
  private itemsArray = false;
  private itemsCheckedAs: OcfItemsFileType | undefined;
  private notAnObject: { value: unknown } | undefined;
  private readonly recheck: { type: OcfItemsFileType | undefined } | undefined;

  constructor(
    private readonly checker: PackageChecker,
    private readonly file: ListedFile,
    private readonly md5: Hash | undefined,
    private readonly again: boolean,
  ) {
    this.recheck = again ? checker.schemaRecheckOf(file.path) : undefined;
    this.scanner = jsonItemsScanner(
      {
        member: (key, value) => {
          this.members.set(key, value);
        },
        itemsStart: () => {
          this.itemsArray = true;
          this.itemsCheckedAs = this.checker.itemsTypeOf(this.file, this.members.get("file_type"));
        },
        item: (index, value) => {
          if (this.again) this.checker.itemAgain(this.file, index, value, this.recheck);
          else this.checker.item(this.file, index, value, this.itemsCheckedAs);
        },
        notAnObject: (value) => {
          this.notAnObject = { value };
        },
      },
      checker.maxValueBytes === undefined ? {} : { maxValueBytes: checker.maxValueBytes },
    );
  }

  push(chunk: Uint8Array): void {
    this.md5?.update(chunk);
    this.scanner.push(chunk);
  }

  end(): void {
    this.scanner.end();
    if (this.again) return;
    this.checker.fileRead(this.file, {
      md5: this.md5?.digest("hex"),
      error: this.scanner.error,
      members: this.members,
      itemsArray: this.itemsArray,
      itemsCheckedAs: this.itemsCheckedAs,
      notAnObject: this.notAnObject,
    });
  }
}
