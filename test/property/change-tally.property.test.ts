/**
 * The bounded change summaries a sync reports (`ChangeTally` of objects, `RecordTally` of records):
 * whatever the changes and their order, its counts are every change's, its sample is the first `limit`
 * of each list by object type (record kind) then id, and what it leaves out is counted.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ChangeTally, summarizeChangeSet, type OcfChangeSet, type OcfObjectChange } from "../../src/sync/change-set.js";
import { CHANGE_SAMPLE_LIMIT } from "../../src/sync/change-tally.js";
import { RecordTally, type RecordChange } from "../../src/sync/record-changes.js";

const TYPES = ["ISSUER", "STAKEHOLDER", "TX_STOCK_ISSUANCE", "TX_VESTING_EVENT", "VESTING_TERMS"] as const;

/** Distinct objects (type and id), each with one change. */
const changesArbitrary = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...TYPES), fc.string({ maxLength: 4 })), { selector: ([type, id]) => `${type}\u0000${id}`, maxLength: 120 })
  .chain((objects) =>
    fc.tuple(...objects.map(([objectType, id]) => fc.constantFrom<OcfObjectChange>({ change: "created", objectType, id }, { change: "changed", objectType, id, fields: ["custom_id"] }, { change: "removed", objectType, id }))),
  );

/** A summary as both tallies make it, read loosely: counts by list name, then the common fields. */
interface LooseSummary {
  [list: string]: unknown;
  unchanged: number;
  sample: Record<string, unknown[]>;
  leftOut: Record<string, number>;
}

/**
 * Checks a tally's summary against every change added: each list's count, its first `limit` refs in
 * order of `keyOf`, what it left out, and the counts of each group (object type, record kind).
 */
function expectSummary<C extends { change: string }>(
  changes: readonly C[],
  tally: { count: (list: never) => number; summary: (unchanged: number) => unknown },
  how: { lists: readonly string[]; limit: number; unchanged: number; groups: "byType" | "byKind"; refOf: (c: C) => object; keyOf: (c: C) => string; groupOf: (c: C) => string },
): void {
  const summary = tally.summary(how.unchanged) as LooseSummary;
  const groups = summary[how.groups] as Record<string, Record<string, number>>;
  for (const list of how.lists) {
    const all = changes.filter((c) => c.change === list).sort((a, b) => (how.keyOf(a) < how.keyOf(b) ? -1 : how.keyOf(a) > how.keyOf(b) ? 1 : 0));
    expect(summary[list]).toBe(all.length);
    expect(tally.count(list as never)).toBe(all.length);
    expect(summary.sample[list]).toEqual(all.slice(0, how.limit).map(how.refOf));
    expect(summary.leftOut[list]).toBe(all.length - Math.min(how.limit, all.length));
    for (const group of new Set(changes.map(how.groupOf))) expect(groups[group]?.[list]).toBe(all.filter((c) => how.groupOf(c) === group).length);
  }
  expect(summary.unchanged).toBe(how.unchanged);
  expect(Object.keys(groups)).toEqual([...new Set(changes.map(how.groupOf))].sort());
}

describe("ChangeTally", () => {
  it("counts every change, by type too, and keeps the first `limit` of each list in order, the rest counted as left out", () => {
    fc.assert(
      fc.property(changesArbitrary, fc.integer({ min: 0, max: 10 }), fc.nat(1000), (changes, limit, unchanged) => {
        const tally = new ChangeTally(limit);
        for (const change of changes) tally.add(change);
        expectSummary(changes, tally, {
          lists: ["created", "changed", "removed"],
          limit,
          unchanged,
          groups: "byType",
          refOf: ({ change: _change, ...ref }) => ref,
          keyOf: (c) => `${c.objectType}\u0000${c.id}`,
          groupOf: (c) => c.objectType,
        });
      }),
    );
  });

  it("caps each list at CHANGE_SAMPLE_LIMIT by default, and says how many it left out", () => {
    const created = Array.from({ length: CHANGE_SAMPLE_LIMIT + 37 }, (_, i) => ({ objectType: "TX_STOCK_ISSUANCE", id: `t${String(i).padStart(4, "0")}` }));
    const set: OcfChangeSet = { created: [...created].reverse(), changed: [{ objectType: "STAKEHOLDER", id: "s", fields: ["name"] }], removed: [], unchanged: 5 };
    const summary = summarizeChangeSet(set);
    expect(summary.created).toBe(CHANGE_SAMPLE_LIMIT + 37);
    expect(summary.sample.created).toEqual(created.slice(0, CHANGE_SAMPLE_LIMIT));
    expect(summary.leftOut).toEqual({ created: 37, changed: 0, removed: 0 });
    expect(summary.sample.changed).toEqual([{ objectType: "STAKEHOLDER", id: "s", fields: ["name"] }]);
    expect(summary.byType).toEqual({ STAKEHOLDER: { created: 0, changed: 1, removed: 0 }, TX_STOCK_ISSUANCE: { created: CHANGE_SAMPLE_LIMIT + 37, changed: 0, removed: 0 } });
    expect(summary.unchanged).toBe(5);
  });
});

const KINDS = ["restrictedStockAward", "restrictedStockUnit"] as const;

/** Distinct records (kind and id; an invalid record may have none), each with one change. */
const recordChangesArbitrary = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...KINDS), fc.option(fc.string({ maxLength: 4 }), { nil: undefined })), { selector: ([kind, id]) => `${kind}\u0000${id ?? ""}`, maxLength: 120 })
  .chain((records) => fc.tuple(...records.map(([kind, id]) => fc.constantFrom<RecordChange["change"]>("created", "modified", "removed").map((change): RecordChange => ({ change, kind, id })))));

describe("RecordTally", () => {
  it("counts every record change, by kind too, and keeps the first `limit` of each list by kind then id, the rest counted as left out", () => {
    fc.assert(
      fc.property(recordChangesArbitrary, fc.integer({ min: 0, max: 10 }), fc.nat(1000), (changes, limit, unchanged) => {
        const tally = new RecordTally(limit);
        for (const change of changes) tally.add(change);
        expectSummary(changes, tally, {
          lists: ["created", "modified", "removed"],
          limit,
          unchanged,
          groups: "byKind",
          refOf: ({ kind, id }) => ({ kind, id }),
          keyOf: (c) => `${c.kind}\u0000${c.id ?? ""}`,
          groupOf: (c) => c.kind,
        });
      }),
    );
  });
});
