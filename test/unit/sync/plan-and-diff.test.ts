import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mapGrant } from "../../../src/mapping/accumulator.js";
import { loadSampleData } from "../../../src/sample-server/data.js";
import { parseRecord } from "../../../src/source/parse.js";
import type { ParsedRecord } from "../../../src/source/records.js";
import { diffPackageObjects, diffStoredPackages, jsonEqual, type PackageObjectMap } from "../../../src/sync/change-set.js";
import { Staging, hashRaw, mergeStaged, recordKey, shardOf, type PackageHeadFile, type StoredRecord } from "../../../src/sync/store.js";
import type { IssuerSyncState } from "../../../src/sync/state.js";
import { planPass } from "../../../src/sync/sync.js";
import { collectChanges, mergeAll } from "../../helpers/change-set.js";

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

function objects(...items: Record<string, unknown>[]): PackageObjectMap {
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

describe("the change set from the store", () => {
  it("sees an object that moved to a record in another shard as changed, not as removed and created", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ocf-sync-moved-"));
    const stored = (id: string, objectId: string, value: string): StoredRecord => {
      const raw = JSON.stringify({ id, value });
      const h = hashRaw(raw);
      const mapped = { kind: "restrictedStockAward", recordId: id, transactions: [{ object_type: "TX_STOCK_ISSUANCE", id: objectId, value }], vestingTerms: [] };
      return { key: recordKey("restrictedStockAward", id, h), header: { k: "restrictedStockAward", i: id, h, m: "" }, mapped: JSON.stringify(mapped), raw };
    };
    // Two ids in different shards of two.
    const ids = Array.from({ length: 20 }, (_, i) => `r${i}`);
    const a = ids.find((id) => shardOf(recordKey("restrictedStockAward", id, ""), 2) === 0) as string;
    const b = ids.find((id) => shardOf(recordKey("restrictedStockAward", id, ""), 2) === 1) as string;
    const head = { issuer: { object_type: "ISSUER", id: "i" }, stakeholders: [], stockClasses: [], stockPlans: [], withdrawn: [] } as unknown as PackageHeadFile;
    const pass = async (generation: number, previous: number[] | undefined, records: StoredRecord[]): Promise<number[]> => {
      const staging = await Staging.open(dir);
      for (const r of records) await staging.add(r);
      const { result } = await mergeAll(mergeStaged(staging, { storeDir: dir, previous, previousRecords: previous === undefined ? 0 : 1, shardCount: 2, generation, full: true, remapAll: false, map: (r) => r, recentFrom: "~" }));
      await staging.remove();
      return result.shards;
    };
    const first = await pass(1, undefined, [stored(a, "shared", "old")]);
    const second = await pass(2, first, [stored(b, "shared", "new")]);
    const { changes, objects } = await collectChanges(diffStoredPackages(dir, { shards: first, head }, { shards: second, head }), 2);
    expect(changes).toEqual({ created: [], changed: [{ objectType: "TX_STOCK_ISSUANCE", id: "shared", fields: ["value"] }], removed: [], unchanged: 1 });
    expect(objects).toBe(2);
  });
});

describe("a stored mapping", () => {
  it("does not depend on asOf, which only the issuer-level objects read (so a sync may keep it across days)", async () => {
    const data = await loadSampleData();
    let mapped = 0;
    for (const [issuerId, issuer] of data.issuers) {
      for (const [kind, records] of [["restrictedStockAward", issuer.awards], ["restrictedStockUnit", issuer.units]] as const) {
        for (const raw of records) {
          let parsed: ParsedRecord;
          try {
            parsed = parseRecord(kind, raw, { issuerId }).parsed;
          } catch {
            continue;
          }
          const at = (asOf: string | undefined): string => {
            try {
              return JSON.stringify(mapGrant(parsed, { issuerId, options: asOf === undefined ? {} : { asOf } }));
            } catch (error) {
              return `error: ${(error as Error).message}`;
            }
          };
          expect(at("2000-01-01"), `${issuerId} ${String(raw.id)}`).toBe(at(undefined));
          expect(at("2099-12-31"), `${issuerId} ${String(raw.id)}`).toBe(at(undefined));
          mapped += 1;
        }
      }
    }
    expect(mapped).toBeGreaterThan(150);
  });
});
