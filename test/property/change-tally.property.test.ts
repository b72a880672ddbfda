/**
 * The bounded change summary a sync reports (`ChangeTally`): whatever the changes and their order, its
 * counts are every change's, its sample is the first `limit` of each list by object type then id, and
 * what it leaves out is counted.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CHANGE_SAMPLE_LIMIT, ChangeTally, summarizeChangeSet, type OcfChangeSet, type OcfObjectChange } from "../../src/sync/change-set.js";

const TYPES = ["ISSUER", "STAKEHOLDER", "TX_STOCK_ISSUANCE", "TX_VESTING_EVENT", "VESTING_TERMS"] as const;

/** Distinct objects (type and id), each with one change. */
const changesArbitrary = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...TYPES), fc.string({ maxLength: 4 })), { selector: ([type, id]) => `${type}\u0000${id}`, maxLength: 120 })
  .chain((objects) =>
    fc.tuple(...objects.map(([objectType, id]) => fc.constantFrom<OcfObjectChange>({ change: "created", objectType, id }, { change: "changed", objectType, id, fields: ["custom_id"] }, { change: "removed", objectType, id }))),
  );

const byKey = (a: { objectType: string; id: string }, b: { objectType: string; id: string }): number => {
  const ka = `${a.objectType}\u0000${a.id}`;
  const kb = `${b.objectType}\u0000${b.id}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

describe("ChangeTally", () => {
  it("counts every change, by type too, and keeps the first `limit` of each list in order, the rest counted as left out", () => {
    fc.assert(
      fc.property(changesArbitrary, fc.integer({ min: 0, max: 10 }), fc.nat(1000), (changes, limit, unchanged) => {
        const tally = new ChangeTally(limit);
        for (const change of changes) tally.add(change);
        const summary = tally.summary(unchanged);
        for (const list of ["created", "changed", "removed"] as const) {
          const all = changes.filter((c) => c.change === list).map(({ change: _change, ...ref }) => ref).sort(byKey);
          expect(summary[list]).toBe(all.length);
          expect(tally.count(list)).toBe(all.length);
          expect(summary.sample[list]).toEqual(all.slice(0, limit));
          expect(summary.leftOut[list]).toBe(all.length - Math.min(limit, all.length));
          for (const type of TYPES) {
            const ofType = all.filter((c) => c.objectType === type).length;
            expect(summary.byType[type]?.[list] ?? 0).toBe(ofType);
          }
        }
        expect(summary.unchanged).toBe(unchanged);
        expect(Object.keys(summary.byType)).toEqual([...new Set(changes.map((c) => c.objectType))].sort());
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
