/**
 * What a sync changed in an issuer's package: OCF objects created, changed (with the fields that
 * changed), removed and unchanged. The mapping derives every object id from source ids
 * (`src/mapping/ids.ts`), so an object keeps its id from one export to the next and a diff by id is exact.
 *
 * The change set comes from the records, not from the packages: the store keeps each record's mapped
 * objects, so only the shards that differ between the store the previous package was written from and
 * the current one are compared, record by record, plus the issuer-level objects kept beside them.
 *
 * A first pass of a large issuer creates hundreds of thousands of objects, so a sync never lists them
 * all at once: `diffStoredPackages` yields each change as it is found, and `ChangeTally` keeps of them
 * only counts and a bounded sample (`OcfChangeSummary`, made by `change-tally.ts` as the records' is).
 */
import { rebindSettlementClass, renameClass } from "../mapping/share-classes.js";
import type { MappedRecord, StockClassUse } from "../mapping/types.js";
import { canonicalJson } from "../export/fingerprint.js";
import { BoundedTally, CHANGE_SAMPLE_LIMIT, compareKeys } from "./change-tally.js";
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
 * What happened to one OCF object: created, changed (with the top-level fields that differ) or removed.
 *
 * @category Sync
 */
export type OcfObjectChange = ({ change: "created" | "removed" } & OcfObjectRef) | ({ change: "changed" } & ChangedOcfObject);

/**
 * How many objects were created, changed and removed.
 *
 * @category Sync
 */
export interface OcfChangeCounts {
  created: number;
  changed: number;
  removed: number;
}

/**
 * What a sync changed in an issuer's package, in a size that does not grow with the package: counts,
 * counts per object type, and at most {@link CHANGE_SAMPLE_LIMIT} objects of each list, with how many
 * each list left out. Every change comes as an `object-changed` event of the sync.
 *
 * @example
 * ```ts
 * import { createApiClient, sync } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * for await (const event of sync(client, ["7"], { outDir: "synced", stateFile: "synced/sync-state.json" })) {
 *   if (event.type !== "package-written") continue;
 *   const { changes } = event;
 *   console.log(`${changes.created} created, of them ${changes.byType.TX_STOCK_ISSUANCE?.created ?? 0} issuances`);
 *   if (changes.leftOut.created > 0) console.log(`the sample names the first ${changes.sample.created.length} only`);
 * }
 * await client.close();
 * ```
 *
 * @category Sync
 */
export interface OcfChangeSummary extends OcfChangeCounts {
  /** Objects present before and after with the same content. */
  unchanged: number;
  /** The counts of each object type that had a change, by `object_type`, in order. */
  byType: Record<string, OcfChangeCounts>;
  /** The first objects of each list, by object type then id: at most {@link CHANGE_SAMPLE_LIMIT} each. */
  sample: { created: OcfObjectRef[]; changed: ChangedOcfObject[]; removed: OcfObjectRef[] };
  /** How many objects of each list `sample` leaves out: its count minus its sample's length. */
  leftOut: OcfChangeCounts;
}

/**
 * Counts object changes one at a time and keeps the first `limit` of each list (by object type, then
 * id): its memory does not grow with the number of changes.
 */
export class ChangeTally {
  private readonly tally: BoundedTally<OcfObjectChange["change"], OcfObjectRef>;

  constructor(limit: number = CHANGE_SAMPLE_LIMIT) {
    this.tally = new BoundedTally(["created", "changed", "removed"], compareRefs, limit);
  }

  add(change: OcfObjectChange): void {
    const ref = change.change === "changed" ? { objectType: change.objectType, id: change.id, fields: change.fields } : { objectType: change.objectType, id: change.id };
    this.tally.add(change.change, change.objectType, ref);
  }

  /** How many objects of a list were added so far. */
  count(change: OcfObjectChange["change"]): number {
    return this.tally.count(change);
  }

  /** The summary, with the number of objects that did not change. */
  summary(unchanged: number): OcfChangeSummary {
    const { counts, byGroup, sample, leftOut } = this.tally.summary();
    return { ...counts, unchanged, byType: byGroup, sample: sample as OcfChangeSummary["sample"], leftOut };
  }
}

/** The changes of a change set one by one: created, then changed, then removed. */
export function* changesOf(changes: OcfChangeSet): Generator<OcfObjectChange, void, undefined> {
  for (const ref of changes.created) yield { change: "created", ...ref };
  for (const ref of changes.changed) yield { change: "changed", ...ref };
  for (const ref of changes.removed) yield { change: "removed", ...ref };
}

/**
 * A change set's summary, as a sync reports it: counts, counts per type, the first `limit` objects of
 * each list and how many it leaves out.
 *
 * @category Sync
 */
export function summarizeChangeSet(changes: OcfChangeSet, limit: number = CHANGE_SAMPLE_LIMIT): OcfChangeSummary {
  const tally = new ChangeTally(limit);
  for (const change of changesOf(changes)) tally.add(change);
  return tally.summary(changes.unchanged);
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

function compareRefs(a: OcfObjectRef, b: OcfObjectRef): number {
  return compareKeys(keyOf(a.objectType, a.id), keyOf(b.objectType, b.id));
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

/**
 * Every change from the package `before` was written from to the one `after` is written from, one at
 * a time, as it is found: no list of them is kept. Reads only the shards that differ (and those
 * holding a record whose objects were withdrawn on one side only), a group of them at a time.
 *
 * Order: group by group, each by object type then id; then, after a previous package, the objects
 * created and removed (an object whose id moved from one record to another in another group is found
 * changed or unchanged only once every group is read, so until then only the keys of the objects
 * created and removed are kept); last, the issuer-level objects.
 *
 * @param before `undefined` when there was no package: every object is created
 */
export async function* diffStoredPackages(
  storeDir: string,
  before: StoredPackage | undefined,
  after: StoredPackage,
  options: { signal?: AbortSignal } = {},
): AsyncGenerator<OcfObjectChange, void, undefined> {
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
    if (before === undefined) {
      // With no previous package, nothing can have moved: every object is created, and said so at once.
      yield* changesOf(diff);
      continue;
    }
    for (const ref of diff.changed) yield { change: "changed", ...ref };
    for (const ref of diff.created) createdIn.set(keyOf(ref.objectType, ref.id), group);
    for (const ref of diff.removed) removedIn.set(keyOf(ref.objectType, ref.id), group);
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
    for (const ref of diff.changed) yield { change: "changed", ...ref };
    for (const key of moved) {
      createdIn.delete(key);
      removedIn.delete(key);
    }
  }
  for (const key of createdIn.keys()) yield { change: "created", ...refOf(key) };
  for (const key of removedIn.keys()) yield { change: "removed", ...refOf(key) };

  yield* changesOf(diffPackageObjects(headObjects(before?.head), headObjects(after.head)));
}
