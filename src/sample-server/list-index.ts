/**
 * The index the sample server pages from, so that a page costs O(page size) and a full pull of N
 * records O(N), not O(N log N) per page: built once per collection (its service order and each
 * record's modification time computed once), and filtered listings by `lastModifiedDatetime` taken
 * from a time-sorted copy by binary search, then cached for the pages that follow.
 *
 * The data stays live (tests edit it between requests, `SampleServerOptions.data`): an index
 * remembers, for each record, the object it indexed, where it was in the array, and the id and
 * modification time it was indexed under. A listing's first page checks every record against that
 * (a pointer comparison each, no hashing or sorting); every page checks the records it serves and
 * the array's length. Any difference rebuilds the index. A record edited in place in the middle of a
 * listing, away from the pages being served, shows from the next listing on, much as the real service
 * promises nothing about consistency across pages (source-api.md §5).
 */
import { createHash } from "node:crypto";
import { compareIso, parseUtcDateTime } from "../dates.js";
import type { WireRecord } from "./data.js";

interface Indexed {
  readonly record: WireRecord;
  /** Where the record was in the array. */
  readonly position: number;
  /** `record.id` when indexed. */
  readonly id: unknown;
  /** `record.lastModifiedDatetime` when indexed (the wrapper object) and its `value`. */
  readonly stamp: unknown;
  readonly stampValue: unknown;
  /** The normalized modification time; `undefined` when it has none that parses. */
  readonly at: string | undefined;
  /** The record's place in the service order. */
  readonly order: string;
}

function stampValueOf(stamp: unknown): unknown {
  return typeof stamp === "object" && stamp !== null ? (stamp as Record<string, unknown>).value : undefined;
}

function modifiedAt(stampValue: unknown): string | undefined {
  if (typeof stampValue !== "string") return undefined;
  try {
    return parseUtcDateTime(stampValue);
  } catch {
    return undefined;
  }
}

/**
 * A fixed order that is neither by id nor by modification time, as the real service promises no
 * order (source-api.md §6): records sort by a hash of their id.
 */
function orderKey(collection: string, record: WireRecord): string {
  const id = typeof record.id === "string" ? record.id : JSON.stringify(record);
  return createHash("sha256").update(`${collection}\u0000${id}`).digest("hex");
}

function intact(entry: Indexed, records: readonly WireRecord[]): boolean {
  const { record } = entry;
  return records[entry.position] === record && record.id === entry.id && record.lastModifiedDatetime === entry.stamp && stampValueOf(entry.stamp) === entry.stampValue;
}

const FILTER_CACHE_SIZE = 8;

class CollectionIndex {
  /** Every record in service order. */
  readonly ordered: readonly Indexed[];
  /** Records with a usable modification time, by that time. */
  private readonly byTime: readonly Indexed[];
  private readonly byId = new Map<string, Indexed>();
  /** The matches of recent filters, in service order (most recently used last). */
  private readonly filtered = new Map<string, readonly Indexed[]>();

  constructor(
    readonly records: readonly WireRecord[],
    collection: string,
  ) {
    const entries = records.map((record, position): Indexed => {
      const stamp = record.lastModifiedDatetime;
      const stampValue = stampValueOf(stamp);
      return { record, position, id: record.id, stamp, stampValue, at: modifiedAt(stampValue), order: orderKey(collection, record) };
    });
    for (const entry of entries) {
      if (typeof entry.id === "string" && !this.byId.has(entry.id)) this.byId.set(entry.id, entry);
    }
    this.ordered = [...entries].sort((a, b) => compareIso(a.order, b.order));
    this.byTime = entries.filter((e) => e.at !== undefined).sort((a, b) => compareIso(a.at as string, b.at as string));
  }

  /** Whether every record is still the one indexed, with the same id and modification time. */
  stillMatches(records: readonly WireRecord[]): boolean {
    if (records !== this.records || records.length !== this.ordered.length) return false;
    return this.ordered.every((entry) => intact(entry, records));
  }

  /** The records modified within the inclusive bounds, in service order. */
  matching(after: string | undefined, before: string | undefined): readonly Indexed[] {
    if (after === undefined && before === undefined) return this.ordered;
    const key = `${after ?? ""}\u0000${before ?? ""}`;
    let found = this.filtered.get(key);
    if (found === undefined) {
      const from = after === undefined ? 0 : this.firstAtOrAfter(after);
      const to = before === undefined ? this.byTime.length : this.firstAfter(before);
      found = this.byTime.slice(from, Math.max(from, to)).sort((a, b) => compareIso(a.order, b.order));
      if (this.filtered.size >= FILTER_CACHE_SIZE) this.filtered.delete(this.filtered.keys().next().value as string);
    } else {
      this.filtered.delete(key);
    }
    this.filtered.set(key, found);
    return found;
  }

  byRecordId(id: string): Indexed | undefined {
    return this.byId.get(id);
  }

  private firstAtOrAfter(bound: string): number {
    return this.search((at) => compareIso(at, bound) >= 0);
  }

  private firstAfter(bound: string): number {
    return this.search((at) => compareIso(at, bound) > 0);
  }

  /** The first position of `byTime` whose time passes `test` (a monotone predicate). */
  private search(test: (at: string) => boolean): number {
    let low = 0;
    let high = this.byTime.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (test(this.byTime[middle]?.at as string)) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}

/** Indexes of the collections being served, each found by its records array. */
export class ListIndexes {
  private readonly indexes = new WeakMap<readonly WireRecord[], CollectionIndex>();

  private indexOf(records: readonly WireRecord[], collection: string, checkAll: boolean): CollectionIndex {
    const known = this.indexes.get(records);
    if (known !== undefined && (checkAll ? known.stillMatches(records) : known.ordered.length === records.length)) return known;
    const fresh = new CollectionIndex(records, collection);
    this.indexes.set(records, fresh);
    return fresh;
  }

  /**
   * The records of one page of a listing: those modified within the inclusive bounds, in service order,
   * from `offset`; and how many match in all.
   *
   * @param firstPage a listing's first page (no page token) checks every record against the index
   */
  page(
    records: readonly WireRecord[],
    collection: string,
    query: { after: string | undefined; before: string | undefined; offset: number; pageSize: number; firstPage: boolean },
  ): { records: WireRecord[]; total: number } {
    for (let attempt = 0; ; attempt += 1) {
      const index = this.indexOf(records, collection, query.firstPage || attempt > 0);
      const matching = index.matching(query.after, query.before);
      const page = matching.slice(query.offset, query.offset + query.pageSize);
      // The records served must be those indexed; else the data changed: index it again (once).
      if (attempt > 0 || page.every((entry) => intact(entry, records))) return { records: page.map((e) => e.record), total: matching.length };
      this.indexes.delete(records);
    }
  }

  /** The record with this id, or `undefined`. */
  get(records: readonly WireRecord[], collection: string, id: string): WireRecord | undefined {
    const entry = this.indexOf(records, collection, false).byRecordId(id);
    if (entry !== undefined && intact(entry, records)) return entry.record;
    // Edited, replaced or added since the index was built: a rare case, answered directly.
    return records.find((r) => r.id === id);
  }
}
