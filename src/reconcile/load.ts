/**
 * The I/O around a reconciliation: reading a package, reading a pull's NDJSON or pulling from the
 * API, and choosing the source issuer that a package is about. The comparisons themselves are pure.
 */
import type { ApiClient } from "../client/create-client.js";
import { describeValue } from "../errors.js";
import { readOcfPackage } from "../ocf/package-reader.js";
import { pullIssuer } from "../pull/pull-issuer.js";
import { readPulledNdjson } from "../pull/ndjson.js";
import { issuerObjectIdOf } from "../mapping/ids.js";
import { ReconcileInputError, packageObjects, type PackageObjects } from "./package-objects.js";
import type { SourceIssuer } from "./types.js";

/**
 * Reads the package at `path` (folder or `.ocf.zip`) and groups its objects.
 *
 * @throws {PackageUnusableError} when `path` is no package; {ReconcileInputError} when it lacks what a replay needs.
 */
export async function loadPackageObjects(path: string, options: { signal?: AbortSignal } = {}): Promise<PackageObjects> {
  return packageObjects(await readOcfPackage(path, options));
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
  const issuers = await readPulledNdjson(path, options.signal === undefined ? {} : { signal: options.signal });
  const wanted = options.issuerId;
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
 */
export async function loadSourceFromApi(client: ApiClient, issuerId: string, options: { signal?: AbortSignal } = {}): Promise<SourceIssuer> {
  const pulled = await pullIssuer(client, issuerId, { onInvalid: "quarantine", ...(options.signal === undefined ? {} : { signal: options.signal }) });
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
