/**
 * What a sync changed in an issuer's package: OCF objects created, changed (with the fields that
 * changed), removed and unchanged. The mapping derives every object id from source ids
 * (`src/mapping/ids.ts`), so an object keeps its id from one export to the next and a diff by id is exact.
 */
import { stat } from "node:fs/promises";
import { manifestFileReferences, normalizePackagePath, parseJsonBytes, readOcfPackage } from "../ocf/package-reader.js";
import { OcfSyncError } from "../errors.js";

/** One OCF object, named by its type and id. */
export interface OcfObjectRef {
  objectType: string;
  id: string;
}

/** An object whose content changed, with the top-level fields that differ. */
export interface ChangedOcfObject extends OcfObjectRef {
  fields: string[];
}

/** The change set of one package. Lists are sorted by object type, then id. */
export interface OcfChangeSet {
  created: OcfObjectRef[];
  changed: ChangedOcfObject[];
  removed: OcfObjectRef[];
  /** Objects present before and after with the same content. */
  unchanged: number;
}

/** The objects of a package by `object_type` and `id`. */
export type PackageObjects = Map<string, Readonly<Record<string, unknown>>>;

function keyOf(objectType: string, id: string): string {
  return `${objectType}\u0000${id}`;
}

function refOf(key: string): OcfObjectRef {
  const cut = key.indexOf("\u0000");
  return { objectType: key.slice(0, cut), id: key.slice(cut + 1) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads the OCF objects (the manifest's issuer and every item of every listed file) of the package
 * folder at `folder`; an empty map when there is no package there yet.
 * @throws {OcfSyncError} `SYNC_PACKAGE_UNREADABLE` when a listed file is missing or not JSON
 */
export async function readPackageObjects(folder: string, options: { signal?: AbortSignal } = {}): Promise<PackageObjects> {
  const objects: PackageObjects = new Map();
  try {
    await stat(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return objects;
    throw error;
  }
  const pkg = await readOcfPackage(folder, options);
  const add = (item: unknown): void => {
    if (isObject(item) && typeof item.object_type === "string" && typeof item.id === "string") objects.set(keyOf(item.object_type, item.id), item);
  };
  add(pkg.manifest.issuer);
  for (const reference of manifestFileReferences(pkg.manifest)) {
    const path = normalizePackagePath(reference.filepath);
    const content = path.ok ? pkg.files.get(path.path) : undefined;
    const parsed = content?.state === "read" ? parseJsonBytes(content.bytes) : undefined;
    if (parsed === undefined || !parsed.ok || !isObject(parsed.value) || !Array.isArray(parsed.value.items)) {
      throw new OcfSyncError("SYNC_PACKAGE_UNREADABLE", `the package ${folder} cannot be compared: its file ${JSON.stringify(reference.filepath)} is missing or not an OCF file`);
    }
    for (const item of parsed.value.items) add(item);
  }
  return objects;
}

/** JSON with object keys sorted, so that two objects compare equal whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Whether two JSON values are equal (key order aside). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** Compares two packages' objects by type and id. */
export function diffPackageObjects(before: PackageObjects, after: PackageObjects): OcfChangeSet {
  const changes: OcfChangeSet = { created: [], changed: [], removed: [], unchanged: 0 };
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const key of keys) {
    const old = before.get(key);
    const current = after.get(key);
    if (old === undefined) changes.created.push(refOf(key));
    else if (current === undefined) changes.removed.push(refOf(key));
    // Both sides come from the same writer, so equal objects have equal key order: the cheap test first.
    else if (JSON.stringify(old) === JSON.stringify(current)) changes.unchanged += 1;
    else {
      const fields = [...new Set([...Object.keys(old), ...Object.keys(current)])].filter((f) => !jsonEqual(old[f], current[f])).sort();
      if (fields.length === 0) changes.unchanged += 1;
      else changes.changed.push({ ...refOf(key), fields });
    }
  }
  return changes;
}
