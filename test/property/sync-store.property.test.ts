/**
 * The sync's record store against a model (a map of records): random passes (records created, changed,
 * re-read unchanged, deleted; full or incremental; the shard count changing; every mapping redone)
 * must leave exactly the model's records, rewrite only the shards a pass touched, say each record
 * created, modified or removed once, and tell the package changes exactly as a diff of all objects would.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffPackageObjects, diffStoredPackages, type PackageObjectMap } from "../../src/sync/change-set.js";
import { Staging, hashRaw, mergeStaged, readShard, recordKey, shardOf, type PackageHeadFile, type StoredRecord } from "../../src/sync/store.js";
import { collectChanges, mergeAll } from "../helpers/change-set.js";

const HEAD: Omit<PackageHeadFile, "withdrawn"> = {
  issuer: { object_type: "ISSUER", id: "issuer" } as unknown as PackageHeadFile["issuer"],
  stakeholders: [],
  stockClasses: [],
  stockPlans: [],
};

/** A record whose JSON is `{ id, v }` and whose mapping has one transaction carrying `v` and the mapping's salt. */
function record(id: string, v: number, salt: number, mapped: boolean): StoredRecord {
  const raw = JSON.stringify({ id, v });
  const h = hashRaw(raw);
  const mapping = { kind: "restrictedStockAward", recordId: id, transactions: [{ object_type: "TX_STOCK_ISSUANCE", id: `t-${id}`, v, salt }], vestingTerms: v % 3 === 0 ? [{ object_type: "VESTING_TERMS", id: `vt-${id}`, v }] : [] };
  return { key: recordKey("restrictedStockAward", id, h), header: { k: "restrictedStockAward", i: id, h, m: `2025-01-01T00:00:${String(v % 60).padStart(2, "0")}.000000Z` }, mapped: mapped ? JSON.stringify(mapping) : "", raw };
}

function objectsOf(records: Iterable<StoredRecord>, withdrawn: ReadonlySet<string>): PackageObjectMap {
  const objects: PackageObjectMap = new Map([["ISSUER\u0000issuer", HEAD.issuer as unknown as Record<string, unknown>]]);
  for (const r of records) {
    if (withdrawn.has(r.key)) continue;
    const mapped = JSON.parse(r.mapped) as { transactions: Record<string, unknown>[]; vestingTerms: Record<string, unknown>[] };
    for (const o of [...mapped.transactions, ...mapped.vestingTerms]) objects.set(`${String(o.object_type)}\u0000${String(o.id)}`, o);
  }
  return objects;
}

const passArb = fc.record({
  writes: fc.array(fc.record({ id: fc.integer({ min: 0, max: 40 }), v: fc.integer({ min: 0, max: 3 }) }), { maxLength: 25 }),
  deletes: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 }),
  full: fc.boolean(),
  shardPower: fc.integer({ min: 0, max: 4 }),
  remap: fc.boolean(),
  withdraw: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 3 }),
});

describe("the sync's record store", () => {
  it("property: holds the model's records, rewrites only touched shards, says each record change once, and tells package changes as a full diff would", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(passArb, { minLength: 1, maxLength: 6 }), async (passes) => {
        const dir = await mkdtemp(join(tmpdir(), "ocf-sync-store-"));
        const source = new Map<string, number>(); // what the service holds: id -> v
        let kept = new Map<string, StoredRecord>(); // the model of the store
        let shards: number[] | undefined;
        let salt = 0;
        let previousPackage: { shards: number[]; head: PackageHeadFile; objects: PackageObjectMap } | undefined;
        for (const [index, pass] of passes.entries()) {
          const generation = index + 1;
          for (const { id, v } of pass.writes) source.set(`r${id}`, v);
          for (const id of pass.deletes) source.delete(`r${id}`);
          const remapAll = pass.remap && shards !== undefined;
          if (remapAll) salt += 1;
          // An incremental pass sees the records written since the last pass; a full one, all of them.
          const pulled = pass.full || shards === undefined ? [...source.keys()] : [...new Set(pass.writes.map((w) => `r${w.id}`))].filter((id) => source.has(id));
          const staging = await Staging.open(dir);
          for (const id of pulled) await staging.add(record(id, source.get(id) as number, salt, false));
          const shardCount = 2 ** pass.shardPower;
          const { result, changes: recordChanges } = await mergeAll(
            mergeStaged(staging, {
            storeDir: dir,
            previous: shards,
            previousRecords: kept.size,
            shardCount,
            generation,
            full: pass.full || shards === undefined,
            remapAll,
            map: (r) => record(r.header.i as string, (JSON.parse(r.raw) as { v: number }).v, salt, true),
            recentFrom: "~",
            }),
          );
          await staging.remove();

          const model = new Map<string, StoredRecord>();
          if (!(pass.full || shards === undefined)) for (const [key, r] of kept) model.set(key, remapAll ? record(r.header.i as string, (JSON.parse(r.raw) as { v: number }).v, salt, true) : r);
          for (const id of pulled) {
            const fresh = record(id, source.get(id) as number, salt, true);
            const old = kept.get(fresh.key);
            model.set(fresh.key, old !== undefined && old.header.h === fresh.header.h && !remapAll ? old : fresh);
          }
          // Read back: exactly the model, each record in its shard, sorted.
          const stored = new Map<string, StoredRecord>();
          for (const [shard, g] of result.shards.entries()) {
            if (g === 0) continue;
            const records = await readShard(dir, shard, g);
            expect(records.map((r) => r.key)).toEqual(records.map((r) => r.key).sort());
            for (const r of records) {
              expect(shardOf(r.key, shardCount)).toBe(shard);
              stored.set(r.key, r);
            }
          }
          expect(new Map([...stored].map(([k, r]) => [k, [r.header.h, r.mapped, r.raw]]))).toEqual(new Map([...model].map(([k, r]) => [k, [r.header.h, r.mapped, r.raw]])));
          expect(result.records).toBe(model.size);
          // Each record created, modified or removed said once, as the model tells it.
          const said = recordChanges.map((c) => `${c.change} ${c.id ?? ""}`);
          expect(new Set(said).size).toBe(said.length);
          const idOf = (key: string): string => (kept.get(key) ?? model.get(key))?.header.i as string;
          const expected = [
            ...[...model.keys()].filter((key) => !kept.has(key)).map((key) => `created ${idOf(key)}`),
            ...[...model.keys()].filter((key) => kept.has(key) && kept.get(key)?.header.h !== model.get(key)?.header.h).map((key) => `modified ${idOf(key)}`),
            ...[...kept.keys()].filter((key) => !model.has(key)).map((key) => `removed ${idOf(key)}`),
          ];
          expect(said.sort()).toEqual(expected.sort());
          expect(recordChanges.every((c) => c.kind === "restrictedStockAward")).toBe(true);
          // A shard no record of the pass fell in keeps its files.
          if (shards !== undefined && shards.length === shardCount && !remapAll && !(pass.full || shards === undefined)) {
            for (const [shard, g] of result.shards.entries()) {
              if (!pulled.some((id) => shardOf(recordKey("restrictedStockAward", id, ""), shardCount) === shard)) expect(g).toBe(shards[shard]);
            }
          }
          // The change set of the package written from this store.
          const withdrawn = pass.withdraw.map((id) => recordKey("restrictedStockAward", `r${id}`, "")).filter((key) => model.has(key));
          const head: PackageHeadFile = { ...HEAD, withdrawn };
          const objects = objectsOf(model.values(), new Set(withdrawn));
          const { changes, objects: count } = await collectChanges(diffStoredPackages(dir, previousPackage, { shards: result.shards, head }), previousPackage?.objects.size ?? 0);
          expect(changes).toEqual(diffPackageObjects(previousPackage?.objects ?? new Map(), objects));
          expect(count).toBe(objects.size);

          previousPackage = { shards: result.shards, head, objects };
          shards = result.shards;
          kept = model;
        }
      }),
      { numRuns: 60 },
    );
  });
});
