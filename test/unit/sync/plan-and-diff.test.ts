import { describe, expect, it } from "vitest";
import { diffPackageObjects, jsonEqual, type PackageObjects } from "../../../src/sync/change-set.js";
import type { IssuerSyncState } from "../../../src/sync/state.js";
import { planPass } from "../../../src/sync/sync.js";

const previous: IssuerSyncState = {
  issuerId: "7",
  cursor: "2025-03-10T09:30:00.999999Z",
  generation: 3,
  store: { shards: [3], recent: 3, mapping: "m" },
  records: 7,
  incrementalSinceFull: 2,
  lastPass: "incremental",
  syncedAt: "2025-03-11T00:00:00Z",
};

describe("planPass", () => {
  it("starts an incremental pass at the cursor minus the overlap, truncated down to the second (the filter is inclusive)", () => {
    expect(planPass(previous, true, { overlapSeconds: 0 })).toEqual({ pass: "incremental", reason: "incremental", modifiedAfter: "2025-03-10T09:30:00Z" });
    expect(planPass(previous, true, {})).toEqual({ pass: "incremental", reason: "incremental", modifiedAfter: "2025-03-10T09:25:00Z" });
    expect(planPass({ ...previous, cursor: "2025-01-01T00:00:30.000000Z" }, true, { overlapSeconds: 60 })).toMatchObject({ modifiedAfter: "2024-12-31T23:59:30Z" });
  });

  it("pulls everything on a first pass, when asked, every fullEvery-th pass, after a killed full pass, without cursor or snapshot", () => {
    expect(planPass(undefined, false, {})).toEqual({ pass: "full", reason: "first-run" });
    expect(planPass(previous, false, {})).toEqual({ pass: "full", reason: "snapshot-missing" });
    const { store: _store, ...upgraded } = previous;
    expect(planPass(upgraded, false, {})).toEqual({ pass: "full", reason: "state-upgraded" });
    expect(planPass(previous, true, { full: true })).toEqual({ pass: "full", reason: "requested" });
    expect(planPass({ ...previous, fullPending: true }, true, {})).toEqual({ pass: "full", reason: "interrupted-full" });
    expect(planPass(previous, true, { fullEvery: 3 })).toEqual({ pass: "full", reason: "periodic" });
    expect(planPass(previous, true, { fullEvery: 4 }).pass).toBe("incremental");
    expect(planPass(previous, true, { fullEvery: 0 }).pass).toBe("incremental");
    expect(planPass({ ...previous, incrementalSinceFull: 0 }, true, { fullEvery: 1 })).toEqual({ pass: "full", reason: "periodic" });
    expect(planPass({ ...previous, cursor: null }, true, {})).toEqual({ pass: "full", reason: "no-cursor" });
  });
});

function objects(...items: Record<string, unknown>[]): PackageObjects {
  return new Map(items.map((o) => [`${String(o.object_type)}\u0000${String(o.id)}`, o]));
}

describe("diffPackageObjects", () => {
  it("tells created, changed (with the fields), removed and unchanged objects apart by type and id", () => {
    const before = objects(
      { object_type: "STAKEHOLDER", id: "s1", name: { legal_name: "A" } },
      { object_type: "STAKEHOLDER", id: "s2", name: { legal_name: "B" } },
      { object_type: "TX_STOCK_ISSUANCE", id: "t1", quantity: "10", custom_id: "X", comments: ["a"] },
    );
    const after = objects(
      { object_type: "STAKEHOLDER", id: "s1", name: { legal_name: "A" } },
      { object_type: "TX_STOCK_ISSUANCE", id: "t1", custom_id: "Y", quantity: "10.0", comments: ["a"] },
      { object_type: "TX_STOCK_ISSUANCE", id: "t2", quantity: "5" },
      // same id, another type: another object
      { object_type: "STAKEHOLDER", id: "t2" },
    );
    expect(diffPackageObjects(before, after)).toEqual({
      created: [
        { objectType: "STAKEHOLDER", id: "t2" },
        { objectType: "TX_STOCK_ISSUANCE", id: "t2" },
      ],
      // quantities are compared as written: "10" and "10.0" differ in the file
      changed: [{ objectType: "TX_STOCK_ISSUANCE", id: "t1", fields: ["custom_id", "quantity"] }],
      removed: [{ objectType: "STAKEHOLDER", id: "s2" }],
      unchanged: 1,
    });
  });

  it("ignores key order, and sees a field that appears or disappears", () => {
    expect(jsonEqual({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    const diff = diffPackageObjects(objects({ object_type: "X", id: "1", a: 1, b: 2 }), objects({ object_type: "X", id: "1", b: 2, a: 1, c: null }));
    expect(diff.changed).toEqual([{ objectType: "X", id: "1", fields: ["c"] }]);
    expect(diffPackageObjects(objects({ object_type: "X", id: "1", b: 2, a: 1 }), objects({ object_type: "X", id: "1", a: 1, b: 2 })).unchanged).toBe(1);
  });
});
