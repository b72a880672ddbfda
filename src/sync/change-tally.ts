/**
 * The bounded summary of a stream of changes, whatever they change: a sync reports its OCF objects
 * (`change-set.ts`) and its source records (`record-changes.ts`) this way. A first pass of a large
 * issuer creates every record and every object, so a summary keeps counts and the first
 * {@link CHANGE_SAMPLE_LIMIT} of each list: its size does not grow with the issuer.
 */

/**
 * The most items of each list a change summary names (`OcfChangeSummary`, `RecordChangeSummary`): the
 * first in order (object type then id; record kind then id). The `object-changed` and `record-changed`
 * events of a sync name every one (`sync --changes FILE` every object).
 *
 * @category Sync
 */
export const CHANGE_SAMPLE_LIMIT = 100;

/** A tally's summary: counts of each list, in all and per group, the sample and how many it left out. */
export interface TallySummary<List extends string, Item> {
  counts: Record<List, number>;
  /** The counts of each group that had a change, in order of group. */
  byGroup: Record<string, Record<List, number>>;
  sample: Record<List, Item[]>;
  leftOut: Record<List, number>;
}

/**
 * Counts changes one at a time, in all and per group (object type, record kind), and keeps the first
 * `limit` of each list by `compare`: its memory does not grow with the number of changes.
 */
export class BoundedTally<List extends string, Item> {
  private readonly counts: Record<List, number>;
  private readonly groups = new Map<string, Record<List, number>>();
  private readonly samples: Record<List, Item[]>;

  constructor(
    private readonly lists: readonly List[],
    private readonly compare: (a: Item, b: Item) => number,
    private readonly limit: number = CHANGE_SAMPLE_LIMIT,
  ) {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a whole number of at least 0, got ${limit}`);
    this.counts = this.zeros();
    this.samples = Object.fromEntries(lists.map((list) => [list, []])) as unknown as Record<List, Item[]>;
  }

  private zeros(): Record<List, number> {
    return Object.fromEntries(this.lists.map((list) => [list, 0])) as Record<List, number>;
  }

  add(list: List, group: string, item: Item): void {
    this.counts[list] += 1;
    let counts = this.groups.get(group);
    if (counts === undefined) {
      counts = this.zeros();
      this.groups.set(group, counts);
    }
    counts[list] += 1;
    const sample = this.samples[list];
    // Kept sorted: most changes of a large pass come after the last one kept, and cost one comparison.
    const last = sample.at(-1);
    if (sample.length === this.limit && (last === undefined || this.compare(item, last) >= 0)) return;
    let low = 0;
    let high = sample.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(sample[middle] as Item, item) <= 0) low = middle + 1;
      else high = middle;
    }
    sample.splice(low, 0, item);
    if (sample.length > this.limit) sample.pop();
  }

  /** How many items of a list were added so far. */
  count(list: List): number {
    return this.counts[list];
  }

  summary(): TallySummary<List, Item> {
    const byGroup: Record<string, Record<List, number>> = {};
    for (const group of [...this.groups.keys()].sort()) byGroup[group] = { ...(this.groups.get(group) as Record<List, number>) };
    const sample = this.zeros() as unknown as Record<List, Item[]>;
    const leftOut = this.zeros();
    for (const list of this.lists) {
      sample[list] = [...this.samples[list]];
      leftOut[list] = this.counts[list] - sample[list].length;
    }
    return { counts: { ...this.counts }, byGroup, sample, leftOut };
  }
}

/** Compares two keys as strings (code unit order), as the change lists are sorted. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
