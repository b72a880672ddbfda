/**
 * The I/O around a reconciliation: reading a package, reading a pull's NDJSON or pulling from the
 * API, and choosing the source issuer that a package is about. The comparisons themselves are pure.
 */
import { withDeadline } from "../client/abort.js";
import type { ApiClient } from "../client/create-client.js";
import { OcfSyncError, describeValue } from "../errors.js";
import { JsonItemsScanner } from "../ocf/json-items.js";
import { MANIFEST_FILE_LIST_KEYS, openOcfPackage, type OpenedOcfPackage } from "../ocf/package-reader.js";
import { validatePackageAt, type PackageProblem, type PackageProblemCode } from "../ocf/validate-package.js";
import { pullIssuer } from "../pull/pull-issuer.js";
import { readPulledNdjson } from "../pull/ndjson.js";
import { issuerObjectIdOf } from "../mapping/ids.js";
import { PackageObjectsGrouper, ReconcileInputError, type PackageObjects } from "./package-objects.js";
import type { SourceIssuer } from "./types.js";

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
 * trusted, so it is not reconciled.
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
 * quantities) are what a reconciliation reports on, not reasons to refuse the package. Files are
 * read as streams, object by object, for the check and again for the objects: neither a file's bytes
 * nor its text is held, only the objects kept.
 *
 * @throws {PackageUnusableError} when `path` is no package; {PackageIntegrityError} when its files do
 *   not match its manifest; {ReconcileInputError} when it lacks what a replay needs.
 */
export async function loadPackageObjects(path: string, options: { signal?: AbortSignal } = {}): Promise<PackageObjects> {
  const report = await validatePackageAt(path, options.signal === undefined ? {} : { signal: options.signal });
  const pkg = await openOcfPackage(path, options);
  try {
    const integrity = report.problems.filter((problem) => isIntegrityProblem(problem, pkg.manifestPath));
    if (integrity.length > 0) throw new PackageIntegrityError(pkg.location, integrity);
    const grouper = new PackageObjectsGrouper(pkg);
    for (const file of grouper.listedPaths()) await groupFile(pkg, file, grouper, options.signal);
    return grouper.objects;
  } finally {
    await pkg.close();
  }
}

/** Reads one listed file of `pkg` object by object into `grouper`. */
async function groupFile(pkg: OpenedOcfPackage, path: string, grouper: PackageObjectsGrouper, signal: AbortSignal | undefined): Promise<void> {
  const content = await pkg.open(path);
  if (content.state !== "stream") {
    throw new ReconcileInputError(`${pkg.location}: the manifest lists ${describeValue(path)}, which could not be read (${content.state}); run 'ocf-sync validate' on it`);
  }
  let items = false;
  const scanner = new JsonItemsScanner({
    member: () => {},
    itemsStart: () => {
      items = true;
    },
    item: (_index, value) => grouper.add(value),
    notAnObject: () => {},
  });
  for await (const chunk of content.chunks) {
    signal?.throwIfAborted();
    scanner.push(chunk);
    if (scanner.error !== undefined) break;
  }
  if (scanner.error === undefined) scanner.end();
  if (scanner.error !== undefined) throw new ReconcileInputError(`${pkg.location}: ${path} ${scanner.error.message}`);
  if (!items) throw grouper.noItems(path);
}

/**
 * The issuer of a pull's NDJSON file that `pkg` is about: `issuerId` when given; else the one whose
 * Issuer object id (`issuer-<id>`) the package's manifest holds; else, when the manifest names no
 * issuer, the file's only issuer.
 *
 * @throws {ReconcileInputError} when the file has no such issuer, or several and none is named.
 * @throws {NdjsonFormatError} for a malformed file.
 */
export async function loadSourceFromNdjson(path: string, pkg: PackageObjects, options: { issuerId?: string; signal?: AbortSignal } = {}): Promise<SourceIssuer> {
  const wanted = options.issuerId;
  // Only the records of the issuer the package is about are parsed and kept: with no issuer named
  // and none in the package, the file's first (which is taken only if it is the file's only one).
  let first: string | undefined;
  const about = (issuerId: string): boolean => {
    first ??= issuerId;
    if (wanted !== undefined) return issuerId === wanted;
    return pkg.issuerObjectId === undefined ? issuerId === first : pkg.issuerObjectId === issuerObjectIdOf(issuerId);
  };
  const issuers = await readPulledNdjson(path, { ...(options.signal === undefined ? {} : { signal: options.signal }), wanted: about });
  if (wanted !== undefined) {
    const found = issuers.get(wanted);
    if (found === undefined) throw new ReconcileInputError(`${path} has no records of issuer ${describeValue(wanted)} (it has ${describeIds([...issuers.keys()])})`);
    return found;
  }
  for (const issuer of issuers.values()) if (pkg.issuerObjectId === issuerObjectIdOf(issuer.issuerId)) return issuer;
  const [only, ...more] = issuers.values();
  // A package with no Issuer id to go by is taken to be about the file's only issuer; one that names
  // another issuer is not silently compared with it.
  if (only !== undefined && more.length === 0 && pkg.issuerObjectId === undefined) return only;
  throw new ReconcileInputError(
    only === undefined
      ? `${path} holds no records`
      : `${path} holds records of ${describeIds([...issuers.keys()])}, and the package's issuer ${describeValue(pkg.issuerObjectId ?? "(none)")} is none of them; name the source issuer with --issuer`,
  );
}

/**
 * Pulls one issuer's records from the API for a reconciliation. Invalid records are set aside and
 * reported (never a reason to stop: a reconciliation should say what it could not compare).
 *
 * @param options.deadlineMs - the longest the pull may take; past it, `DeadlineExceededError`.
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

function describeIds(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).map((id) => describeValue(id));
  return ids.length > 5 ? `${shown.join(", ")}, …` : shown.join(", ");
}
