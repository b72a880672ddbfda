/**
 * The I/O around a reconciliation: reading a package, reading a pull's NDJSON or pulling from the
 * API, and choosing the source issuer that a package is about. The comparisons themselves are pure.
 */
import { withDeadline } from "../client/abort.js";
import type { ApiClient } from "../client/create-client.js";
import { OcfSyncError, asOcfSyncError, describeValue } from "../errors.js";
import { MANIFEST_FILE_LIST_KEYS, openOcfPackage, type OpenedOcfPackage } from "../ocf/package-reader.js";
import { validateOpenedPackage, type PackageProblem, type PackageProblemCode } from "../ocf/validate-package.js";
import { LatestCopies, type IssuerRecordSink } from "../pull/latest-copy.js";
import { pullIssuer, streamIssuerRecords } from "../pull/pull-issuer.js";
import { issuerRecordLists, readPulledNdjsonInto } from "../pull/ndjson.js";
import { issuerObjectIdOf, sourceIssuerIdOf } from "../mapping/ids.js";
import { PackageObjectsGrouper, ReconcileInputError, type PackageObjects } from "./package-objects.js";
import { SourceReconciliation, readingFor, resolveOptions } from "./source-vs-ocf.js";
import type { ReconcileOptions, ReconciliationReport, SourceIssuer } from "./types.js";

/** The problems of `validateOcfPackage` that mean the files are not the ones the manifest describes. */
const INTEGRITY_PROBLEMS: ReadonlySet<PackageProblemCode> = new Set([
  "MD5_MISMATCH",
  "FILE_MISSING",
  "FILE_UNREADABLE",
  "FILE_TOO_LARGE",
  "NOT_JSON",
  "WRONG_FILE_TYPE",
  "UNSAFE_PATH",
  "LISTED_TWICE",
  "DUPLICATE_ENTRY",
  "UNLISTED_FILE",
]);

function isIntegrityProblem(problem: PackageProblem, manifestPath: string): boolean {
  if (INTEGRITY_PROBLEMS.has(problem.code)) return true;
  // A file list entry the schema rejects (an md5 missing or malformed) cannot vouch for its file either.
  return problem.code === "SCHEMA" && problem.file === manifestPath && MANIFEST_FILE_LIST_KEYS.some((key) => problem.jsonPath.startsWith(`$.${key}`));
}

/**
 * A package whose files are not the ones its manifest describes (an MD5 that does not match, a listed
 * file missing or of another type, a file the manifest does not list, …): its figures cannot be
 * trusted, so it is not reconciled. Thrown by `loadPackageObjects`.
 *
 * @category Errors
 */
export class PackageIntegrityError extends OcfSyncError {
  declare readonly code: "PACKAGE_INTEGRITY_FAILED";
  /** The folder or zip. */
  readonly location: string;
  /** Every integrity problem found. */
  readonly problems: readonly PackageProblem[];
  constructor(location: string, problems: readonly PackageProblem[]) {
    const shown = problems.slice(0, 3).map((p) => `${p.file} ${p.jsonPath}: ${p.message} [${p.code}]`);
    super(
      "PACKAGE_INTEGRITY_FAILED",
      `${location} does not match its manifest, so its figures cannot be trusted and it was not reconciled (${problems.length} problem${problems.length === 1 ? "" : "s"}: ${shown.join("; ")}${problems.length > 3 ? "; …" : ""}); run 'ocf-sync validate' on it for the full list`,
    );
    this.name = "PackageIntegrityError";
    this.location = location;
    this.problems = problems;
  }
}

/**
 * Reads the package at `path` (folder or `.ocf.zip`), checks its integrity with the package
 * validator (every listed file present, of its manifest list's file type, with the manifest's MD5,
 * and no unlisted OCF file) and groups its objects. Problems of content (schemas, references,
 * quantities) are what a reconciliation reports on, not reasons to refuse the package. Each file is
 * read once, as a stream, object by object: the objects are grouped from the read that is hashed and
 * checked. Neither a file's bytes nor its text is held, only the objects kept.
 *
 * @throws {PackageUnusableError} when `path` is no package; {PackageIntegrityError} when its files do
 *   not match its manifest; {ReconcileInputError} when it lacks what a replay needs.
 *
 * @category Reconcile
 */
export async function loadPackageObjects(path: string, options: { signal?: AbortSignal } = {}): Promise<PackageObjects> {
  const pkg = await openOcfPackage(path, options);
  try {
    return await readPackageObjects(pkg, options.signal);
  } finally {
    await pkg.close();
  }
}

/**
 * The objects of an opened package, grouped as the package validator reads each listed file (once,
 * in manifest order), from the same bytes whose MD5 and file type it checks; none when it finds an
 * integrity problem. Exported for tests.
 *
 * @throws as `loadPackageObjects`.
 */
export async function readPackageObjects(pkg: OpenedOcfPackage, signal?: AbortSignal): Promise<PackageObjects> {
  // A package that does not match its manifest is refused as such, before what a replay lacks is said.
  let grouper: PackageObjectsGrouper | undefined;
  let unusable: unknown;
  try {
    grouper = new PackageObjectsGrouper(pkg);
  } catch (error) {
    unusable = error;
  }
  // The first file (in manifest order, the order read) that cannot be grouped.
  let unreadable: ReconcileInputError | undefined;
  // Only integrity decides here; what is wrong inside the objects is the reconciliation's to report.
  const report = await validateOpenedPackage(pkg, signal === undefined ? {} : { signal }, {
    integrityOnly: true,
    item: (_file, value) => grouper?.add(value),
    fileRead: (file, { itemsArray, error }) => {
      if (unreadable !== undefined || grouper === undefined) return;
      if (error !== undefined) unreadable = new ReconcileInputError(`${pkg.location}: ${file} ${error.message}`);
      else if (!itemsArray) unreadable = grouper.noItems(file);
    },
  });
  const integrity = report.problems.filter((problem) => isIntegrityProblem(problem, pkg.manifestPath));
  if (integrity.length > 0) throw new PackageIntegrityError(pkg.location, integrity);
  if (grouper === undefined) throw unusable;
  if (unreadable !== undefined) throw unreadable;
  return grouper.objects;
}

/**
 * The issuer of a pull's NDJSON file that `pkg` is about: `issuerId` when given; else the one whose
 * Issuer object id (`issuer-<id>`) the package's manifest holds; else, when the manifest names no
 * issuer, the file's only issuer.
 *
 * @throws {ReconcileInputError} when the file has no such issuer, or several and none is named.
 * @throws {NdjsonFormatError} for a malformed file.
 *
 * @category Reconcile
 */
export async function loadSourceFromNdjson(path: string, pkg: PackageObjects, options: { issuerId?: string; signal?: AbortSignal } = {}): Promise<SourceIssuer> {
  return (await readIssuerOf(path, pkg, options, issuerRecordLists)).records;
}

/**
 * Reconciles the records of a pull's NDJSON file with `pkg` (an issuer chosen as
 * `loadSourceFromNdjson` chooses it), keeping of each record only what the report needs, never the
 * record: the same report as `reconcileSourceWithOcf(await loadSourceFromNdjson(path, pkg), pkg)`, in
 * a fraction of the memory.
 *
 * @throws {ReconcileInputError} as `loadSourceFromNdjson`, and for invalid options.
 * @throws {NdjsonFormatError} for a malformed file.
 * @example
 * ```ts
 * // pulled.ndjson: the output of `ocf-sync pull --issuer 7 --out pulled.ndjson`
 * import { loadPackageObjects, reconcileNdjsonWithOcf, reportAgrees } from "ocf-sync";
 * const report = await reconcileNdjsonWithOcf("pulled.ndjson", await loadPackageObjects("out/7"), { asOf: "2025-06-30" });
 * if (!reportAgrees(report)) process.exitCode = 1;
 * ```
 *
 * @category Reconcile
 */
export async function reconcileNdjsonWithOcf(
  path: string,
  pkg: PackageObjects,
  options: ReconcileOptions & { issuerId?: string; signal?: AbortSignal } = {},
): Promise<ReconciliationReport> {
  const { issuerId, signal, ...reconcile } = options;
  // Options are checked before the file is read.
  resolveOptions(reconcile, pkg.asOf);
  readingFor(reconcile, [pkg]);
  const run = await readIssuerOf(path, pkg, { ...(issuerId === undefined ? {} : { issuerId }), ...(signal === undefined ? {} : { signal }) }, (id) => new SourceReconciliation(id, pkg, reconcile));
  return run.finish();
}

/**
 * Reads the records of the issuer of a pull's NDJSON file that `pkg` is about into the sink `open`
 * makes for it, and returns that sink: `issuerId` when given; else the one whose Issuer object id
 * (`issuer-<id>`) the package's manifest holds; else, when the manifest names no issuer, the file's
 * only issuer. Only that issuer's records are parsed.
 */
async function readIssuerOf<S extends IssuerRecordSink>(path: string, pkg: PackageObjects, options: { issuerId?: string; signal?: AbortSignal }, open: (issuerId: string) => S): Promise<S> {
  const wanted = options.issuerId;
  const ids: string[] = [];
  const sinks = new Map<string, S>();
  // With no issuer named and none in the package, the file's first (taken only if it is the only one).
  const about = (issuerId: string): boolean => {
    if (wanted !== undefined) return issuerId === wanted;
    return pkg.issuerObjectId === undefined ? issuerId === ids[0] : pkg.issuerObjectId === issuerObjectIdOf(issuerId);
  };
  const sinkOf = (issuerId: string): S | undefined => {
    ids.push(issuerId);
    if (!about(issuerId)) return undefined;
    const sink = open(issuerId);
    sinks.set(issuerId, sink);
    return sink;
  };
  await readPulledNdjsonInto(path, sinkOf, options.signal === undefined ? {} : { signal: options.signal });
  if (wanted !== undefined) {
    const found = sinks.get(wanted);
    if (found === undefined) throw new ReconcileInputError(`${path} has no records of issuer ${describeValue(wanted)} (it has ${describeIds(ids)})`);
    return found;
  }
  for (const id of ids) {
    const found = pkg.issuerObjectId === issuerObjectIdOf(id) ? sinks.get(id) : undefined;
    if (found !== undefined) return found;
  }
  const [only, ...more] = ids;
  // A package with no Issuer id to go by is taken to be about the file's only issuer; one that names
  // another issuer is not silently compared with it.
  const found = only !== undefined && more.length === 0 && pkg.issuerObjectId === undefined ? sinks.get(only) : undefined;
  if (found !== undefined) return found;
  throw new ReconcileInputError(
    only === undefined
      ? `${path} holds no records`
      : `${path} holds records of ${describeIds(ids)}, and the package is of none of them: ${packageIssuer(pkg.issuerObjectId)}; give the file of that issuer's records, or name the source issuer to compare with --issuer`,
  );
}

/** The issuer a package is of, in the source's terms where ocf-sync wrote it (`issuer-<source id>`). */
function packageIssuer(issuerObjectId: string | undefined): string {
  if (issuerObjectId === undefined) return "it names no issuer id";
  const sourceId = sourceIssuerIdOf(issuerObjectId);
  return sourceId === undefined
    ? `its issuer id is ${describeValue(issuerObjectId)}`
    : `it is of issuer ${describeValue(sourceId)} (OCF issuer id ${describeValue(issuerObjectId)})`;
}

/**
 * Pulls one issuer's records from the API for a reconciliation. Invalid records are set aside and
 * reported (never a reason to stop: a reconciliation should say what it could not compare).
 *
 * @param options.deadlineMs - the longest the pull may take; past it, `DeadlineExceededError`.
 *
 * @category Reconcile
 */
export async function loadSourceFromApi(client: ApiClient, issuerId: string, options: { signal?: AbortSignal; deadlineMs?: number } = {}): Promise<SourceIssuer> {
  const job = withDeadline(options.signal, options.deadlineMs);
  let pulled;
  try {
    pulled = await pullIssuer(client, issuerId, { onInvalid: "quarantine", ...(job.signal === undefined ? {} : { signal: job.signal }) });
  } finally {
    job.dispose();
  }
  return {
    issuerId,
    awards: pulled.awards,
    units: pulled.units,
    quarantined: pulled.quarantined.map((q) => ({ kind: q.kind, recordId: q.recordId, message: q.error.message })),
  };
}

/**
 * Reconciles one issuer's records, pulled from the API as `loadSourceFromApi` pulls them, with `pkg`,
 * keeping of each record only what the report needs: the same report as
 * `reconcileSourceWithOcf(await loadSourceFromApi(client, issuerId), pkg)` in a fraction of the memory.
 * A record listed twice keeps its copy modified last, as a pull does.
 *
 * @param options.deadlineMs - the longest the pull may take; past it, `DeadlineExceededError`.
 * @throws {ReconcileInputError} for invalid options (before any request).
 * @example
 * ```ts
 * import { createApiClient, loadPackageObjects, reconcileApiWithOcf, renderReconciliationText } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * const report = await reconcileApiWithOcf(client, "7", await loadPackageObjects("out/7"));
 * await client.close();
 * console.log(renderReconciliationText(report));
 * ```
 *
 * @category Reconcile
 */
export async function reconcileApiWithOcf(
  client: ApiClient,
  issuerId: string,
  pkg: PackageObjects,
  options: ReconcileOptions & { signal?: AbortSignal; deadlineMs?: number } = {},
): Promise<ReconciliationReport> {
  const { signal, deadlineMs, ...reconcile } = options;
  const run = new SourceReconciliation(issuerId, pkg, reconcile);
  const copies = new LatestCopies();
  const job = withDeadline(signal, deadlineMs);
  try {
    for await (const item of streamIssuerRecords(client, issuerId, { onInvalid: "quarantine", ...(job.signal === undefined ? {} : { signal: job.signal }) })) {
      if (item.type === "quarantined") run.quarantined({ kind: item.kind, recordId: item.recordId, message: item.error.message });
      if (item.type === "record") copies.offer(`${item.kind}\u0000${item.record.id}`, item.record.lastModifiedDatetime ?? "", item, run);
    }
  } catch (error) {
    // As `pullIssuer` (and so `loadSourceFromApi`) throws them.
    throw asOcfSyncError(error);
  } finally {
    job.dispose();
  }
  return run.finish();
}

function describeIds(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).map((id) => describeValue(id));
  return ids.length > 5 ? `${shown.join(", ")}, …` : shown.join(", ");
}
