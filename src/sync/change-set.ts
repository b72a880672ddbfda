/**
 * What a sync changed in an issuer's package: OCF objects created, changed (with the fields that
 * changed), removed and unchanged. The mapping derives every object id from source ids
 * (`src/mapping/ids.ts`), so an object keeps its id from one export to the next and a diff by id is exact.
 *
 * The change set comes from the records, not from the packages: the store keeps each record's mapped
 * objects, so only the shards that differ between the store the previous package was written from and
 * the current one are compared, record by record, plus the issuer-level objects kept beside them.
 */
import { rebindSettlementClass, renameClass } from "../mapping/share-classes.js";
import type { MappedRecord, StockClassUse } from "../mapping/types.js";
import { canonicalJson } from "../export/fingerprint.js";
import { readShardMappings, shardOf, type PackageHeadFile, type ShardGenerations, type StoredRecord } from "./store.js";

/**
 * One OCF object, named by its type and id.
 *
 * @category Sync
 */
export interface OcfObjectRef {
  objectType: string;
  id: string;
}

/**
 * An object whose content changed, with the top-level fields that differ.
 *
 * @category Sync
 */
export interface ChangedOcfObject extends OcfObjectRef {
  fields: string[];
}

/**
 * The change set of one package. Lists are sorted by object type, then id.
 *
 * @category Sync
 */
export interface OcfChangeSet {
  created: OcfObjectRef[];
  changed: ChangedOcfObject[];
  removed: OcfObjectRef[];
  /** Objects present before and after with the same content. */
  unchanged: number;
}

/**
 * The objects of a package by `object_type` and `id` (`diffPackageObjects`' input).
 *
 * @category Sync
 */
export type PackageObjectMap = Map<string, Readonly<Record<string, unknown>>>;

function keyOf(objectType: string, id: string): string {
  return `${objectType}\u0000${id}`;
}

function refOf(key: string): OcfObjectRef {
  const cut = key.indexOf("\u0000");
  return { objectType: key.slice(0, cut), id: key.slice(cut + 1) };
}

/** Whether two JSON values are equal (key order aside). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * Compares two packages' objects by type and id.
 *
 * @category Sync
 */
export function diffPackageObjects(before: PackageObjectMap, after: PackageObjectMap): OcfChangeSet {
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

/** A package as its store describes it: the shards it was written from and its issuer-level objects. */
export interface StoredPackage {
  shards: ShardGenerations;
  head: PackageHeadFile;
}

/** The objects of the head (issuer, stakeholders, classes, plans). */
function headObjects(head: PackageHeadFile | undefined): PackageObjectMap {
  const objects: PackageObjectMap = new Map();
  if (head === undefined) return objects;
  for (const item of [head.issuer, ...head.stakeholders, ...head.stockClasses, ...head.stockPlans] as unknown as { object_type: string; id: string }[]) {
    objects.set(keyOf(item.object_type, item.id), item as unknown as Readonly<Record<string, unknown>>);
  }
  return objects;
}

/** The objects a record puts in a package: none when it has no mapping or was withdrawn. */
function recordObjects(record: StoredRecord | undefined, withdrawn: ReadonlySet<string>): string {
  return record === undefined || withdrawn.has(record.key) ? "" : record.mapped;
}

/** The classes a package's head chose (`PackageHeadFile`), which stored mappings are moved to. */
interface ChosenClasses {
  settlement: StockClassUse | undefined;
  names: ReadonlyMap<string, string>;
}

function chosenClassesOf(head: PackageHeadFile | undefined): ChosenClasses {
  return { settlement: head?.settlementClass, names: new Map(Object.entries(head?.classNames ?? {})) };
}

/**
 * Adds a record's objects, read as the package has them: a mapping made with an assumed settlement
 * class, or of a class id named two ways, moved to the class its head chose.
 */
function addObjects(into: PackageObjectMap, mappedJson: string, chosen: ChosenClasses): void {
  if (mappedJson === "") return;
  const stored = JSON.parse(mappedJson) as MappedRecord;
  const mapped = renameClass(chosen.settlement === undefined ? stored : rebindSettlementClass(stored, chosen.settlement), chosen.names);
  for (const item of [...mapped.transactions, ...mapped.vestingTerms] as unknown as { object_type: string; id: string }[]) {
    into.set(keyOf(item.object_type, item.id), item as unknown as Readonly<Record<string, unknown>>);
  }
}

/** The records of the shards of `side` that lie in group `group` of `groups` (a coarser or equal split). */
async function groupRecords(storeDir: string, shards: ShardGenerations, group: number, groups: number): Promise<Map<string, StoredRecord>> {
  const records = new Map<string, StoredRecord>();
  const per = shards.length / groups;
  for (let shard = group * per; shard < (group + 1) * per; shard += 1) {
    const generation = shards[shard] ?? 0;
    if (generation === 0) continue;
    for (const record of await readShardMappings(storeDir, shard, generation)) records.set(record.key, record);
  }
  return records;
}

function compareRefs(a: OcfObjectRef, b: OcfObjectRef): number {
  const ka = keyOf(a.objectType, a.id);
  const kb = keyOf(b.objectType, b.id);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * The change set from the package `before` was written from to the one `after` is written from, and
 * the number of objects in the new package. Reads only the shards that differ (and those holding a
 * record whose objects were withdrawn on one side only).
 *
 * @param before `undefined` when there was no package: every object is created
 * @param objectsBefore the number of objects in the previous package
 */
export async function diffStoredPackages(
  storeDir: string,
  before: StoredPackage | undefined,
  after: StoredPackage,
  objectsBefore: number,
  options: { signal?: AbortSignal } = {},
): Promise<{ changes: OcfChangeSet; objects: number }> {
  const beforeShards = before?.shards ?? after.shards.map(() => 0);
  // Groups are shards of the coarser split (shard counts are powers of two): a group's records are in
  // whole shards on both sides.
  const groups = Math.min(beforeShards.length, after.shards.length);
  const withdrawnBefore = new Set(before?.head.withdrawn ?? []);
  const withdrawnAfter = new Set(after.head.withdrawn);
  const recheck = new Set<number>();
  const classBefore = chosenClassesOf(before?.head);
  const classAfter = chosenClassesOf(after.head);
  // Another class chosen moves every record that took it: no group is the same on both sides.
  const classMoved =
    canonicalJson([before?.head.settlementClass ?? null, before?.head.classNames ?? null]) !== canonicalJson([after.head.settlementClass ?? null, after.head.classNames ?? null]);
  for (const key of [...withdrawnBefore, ...withdrawnAfter]) {
    if (withdrawnBefore.has(key) !== withdrawnAfter.has(key)) recheck.add(shardOf(key, groups));
  }

  const changes: OcfChangeSet = { created: [], changed: [], removed: [], unchanged: 0 };
  // Where each created and removed object came from, to find objects that moved between groups.
  const createdIn = new Map<string, number>();
  const removedIn = new Map<string, number>();
  for (let group = 0; group < groups; group += 1) {
    options.signal?.throwIfAborted();
    const same = beforeShards.length === after.shards.length && beforeShards[group] === after.shards[group];
    if (same && !recheck.has(group) && !classMoved) continue;
    const old = await groupRecords(storeDir, beforeShards, group, groups);
    const now = await groupRecords(storeDir, after.shards, group, groups);
    const oldObjects: PackageObjectMap = new Map();
    const newObjects: PackageObjectMap = new Map();
    for (const key of new Set([...old.keys(), ...now.keys()])) {
      const a = recordObjects(old.get(key), withdrawnBefore);
      const b = recordObjects(now.get(key), withdrawnAfter);
      if (a === b && !classMoved) continue;
      addObjects(oldObjects, a, classBefore);
      addObjects(newObjects, b, classAfter);
    }
    const diff = diffPackageObjects(oldObjects, newObjects);
    changes.changed.push(...diff.changed);
    for (const ref of diff.created) {
      changes.created.push(ref);
      // With no previous package, nothing can have moved: no need to remember where objects came from.
      if (before !== undefined) createdIn.set(keyOf(ref.objectType, ref.id), group);
    }
    for (const ref of diff.removed) {
      changes.removed.push(ref);
      removedIn.set(keyOf(ref.objectType, ref.id), group);
    }
  }

  // An object whose id moved from one record to another in another group: compare its two versions.
  const moved = [...removedIn.keys()].filter((key) => createdIn.has(key));
  if (moved.length > 0) {
    const oldObjects: PackageObjectMap = new Map();
    const newObjects: PackageObjectMap = new Map();
    for (const group of new Set(moved.map((key) => removedIn.get(key) as number))) {
      for (const record of (await groupRecords(storeDir, beforeShards, group, groups)).values()) addObjects(oldObjects, recordObjects(record, withdrawnBefore), classBefore);
    }
    for (const group of new Set(moved.map((key) => createdIn.get(key) as number))) {
      for (const record of (await groupRecords(storeDir, after.shards, group, groups)).values()) addObjects(newObjects, recordObjects(record, withdrawnAfter), classAfter);
    }
    const diff = diffPackageObjects(
      new Map(moved.map((key) => [key, oldObjects.get(key) ?? {}])),
      new Map(moved.map((key) => [key, newObjects.get(key) ?? {}])),
    );
    const settled = new Set(moved);
    changes.created = changes.created.filter((ref) => !settled.has(keyOf(ref.objectType, ref.id)));
    changes.removed = changes.removed.filter((ref) => !settled.has(keyOf(ref.objectType, ref.id)));
    changes.changed.push(...diff.changed);
  }

  const head = diffPackageObjects(headObjects(before?.head), headObjects(after.head));
  changes.created.push(...head.created);
  changes.changed.push(...head.changed);
  changes.removed.push(...head.removed);
  changes.created.sort(compareRefs);
  changes.changed.sort(compareRefs);
  changes.removed.sort(compareRefs);
  const objects = objectsBefore + changes.created.length - changes.removed.length;
  changes.unchanged = objects - changes.created.length - changes.changed.length;
  return { changes, objects };
}
