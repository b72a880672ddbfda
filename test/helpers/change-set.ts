/** Changes said one at a time (a sync's `object-changed` events, `diffStoredPackages`, the store's merge), gathered. */
import type { OcfChangeSet, OcfObjectChange, OcfObjectRef } from "../../src/sync/change-set.js";
import type { RecordChange } from "../../src/sync/record-changes.js";
import type { MergeResult } from "../../src/sync/store.js";

const keyOf = (ref: OcfObjectRef): string => `${ref.objectType}\u0000${ref.id}`;
const byKey = (a: OcfObjectRef, b: OcfObjectRef): number => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0);

/**
 * The change set of `changes`, its lists sorted as `diffPackageObjects` sorts them, with the package's
 * size after them. Throws when an object is said twice: each must be said exactly once.
 */
export async function collectChanges(changes: AsyncIterable<OcfObjectChange> | Iterable<OcfObjectChange>, objectsBefore: number): Promise<{ changes: OcfChangeSet; objects: number }> {
  const set: OcfChangeSet = { created: [], changed: [], removed: [], unchanged: 0 };
  const seen = new Set<string>();
  for await (const change of changes) {
    const key = keyOf(change);
    if (seen.has(key)) throw new Error(`${change.objectType} ${change.id} was said twice`);
    seen.add(key);
    if (change.change === "changed") set.changed.push({ objectType: change.objectType, id: change.id, fields: change.fields });
    else set[change.change].push({ objectType: change.objectType, id: change.id });
  }
  set.created.sort(byKey);
  set.changed.sort(byKey);
  set.removed.sort(byKey);
  const objects = objectsBefore + set.created.length - set.removed.length;
  set.unchanged = objects - set.created.length - set.changed.length;
  return { changes: set, objects };
}

/** Runs a merge of the store to its end: what it returns, and every record change it yielded, in order. */
export async function mergeAll(merging: AsyncGenerator<RecordChange, MergeResult, undefined>): Promise<{ result: MergeResult; changes: RecordChange[] }> {
  const changes: RecordChange[] = [];
  for (let step = await merging.next(); ; step = await merging.next()) {
    if (step.done === true) return { result: step.value, changes };
    changes.push(step.value);
  }
}
