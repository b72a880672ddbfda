import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordLinesFileIn } from "../../../src/io/file-lines.js";
import { IssuerMappingAccumulator, type AccumulatorStorage } from "../../../src/mapping/accumulator.js";
import type { MapIssuerOptions } from "../../../src/mapping/types.js";
import { mapAward } from "../../../src/mapping/award.js";
import { labelPrefix } from "../../../src/mapping/stock-classes.js";
import type { RestrictedStockAward } from "../../../src/source/records.js";
import { ISSUER_ID, baseAward, baseUnit, mapRecords, termsAward } from "./fixtures.js";

const spillDir = mkdtempSync(join(tmpdir(), "ocf-sync-accumulator-"));
afterAll(() => rmSync(spillDir, { recursive: true, force: true }));

const storages: [string, AccumulatorStorage][] = [
  ["kept in memory", {}],
  // Lines longer than 64 bytes are written at once: every record goes through the file.
  ["kept in a file", { lines: () => recordLinesFileIn(spillDir, 64) }],
];

describe.each(storages)("IssuerMappingAccumulator (the streaming export's mapper), records %s", (_, storage) => {
  const accumulatorFor = (options: MapIssuerOptions): IssuerMappingAccumulator => new IssuerMappingAccumulator(ISSUER_ID, options, storage);

  it("gives the same head objects as mapIssuer, whatever order the records arrive in", () => {
    const records = { awards: [baseAward(), termsAward()], units: [baseUnit()] };
    const expected = mapRecords(records, { asOf: "2025-06-30" });
    const accumulator = accumulatorFor({ asOf: "2025-06-30" });
    // The unit comes first: its share class id is named by awards not seen yet, so it waits.
    expect(accumulator.add({ kind: "restrictedStockUnit", record: baseUnit() }).status).toBe("deferred");
    accumulator.add({ kind: "restrictedStockAward", record: termsAward() });
    accumulator.add({ kind: "restrictedStockAward", record: baseAward() });
    accumulator.awardsComplete();
    expect(accumulator.add({ kind: "restrictedStockUnit", record: baseUnit() }).status).toBe("mapped");
    const head = accumulator.finish();
    expect(head.issuer).toEqual(expected.issuer);
    expect(head.stakeholders).toEqual(expected.stakeholders);
    expect(head.stockClasses).toEqual(expected.stockClasses);
    expect(head.stockPlans).toEqual(expected.stockPlans);
    expect(head.warnings).toEqual(expected.warnings);
    expect(head.manifestComments).toEqual(expected.manifestComments);
    expect(head.withdrawn).toEqual([]);
    // finish() lets go of what it kept of each record: the accumulator takes nothing more.
    expect(() => accumulator.add({ kind: "restrictedStockAward", record: baseAward() })).toThrow(/finish\(\) was called/);
  });

  it("keeps only what the head objects need of each record and still builds them as mapIssuer does (labels by prefix, shared values)", () => {
    const award = (id: string, securityLabel: string, stakeholderId: string): RestrictedStockAward => ({ ...baseAward(), id, securityLabel, stakeholderId });
    const cases: { labels: string[]; prefix: string }[] = [
      { labels: ["RSA-1", "RSA-22", "RSA-303"], prefix: "RSA-" },
      { labels: ["RSA-1", "CS-2"], prefix: "CS-" }, // they disagree: the default prefix
      { labels: ["17", "18"], prefix: "CS-" }, // no prefix at all: the default
      { labels: ["A1B2", "A1B77"], prefix: "A1B" },
    ];
    for (const { labels, prefix } of cases) {
      const awards = labels.map((label, i) => award(`a-${i}`, label, `holder-${i % 2}`));
      const expected = mapRecords({ awards }, { asOf: "2025-06-30" });
      const accumulator = accumulatorFor({ asOf: "2025-06-30" });
      for (const record of awards) accumulator.add({ kind: "restrictedStockAward", record });
      const head = accumulator.finish();
      expect(head.stockClasses).toEqual(expected.stockClasses);
      expect(head.stockClasses.map((c) => c.default_id_prefix)).toEqual([prefix]);
      expect(head.stakeholders).toEqual(expected.stakeholders);
      expect(head.stockPlans).toEqual(expected.stockPlans);
      expect(head.issuer).toEqual(expected.issuer);
    }
  });

  it("shares values without confusing them: a stakeholder id that is the very text of a class use list stays a stakeholder id", () => {
    const plain = baseAward();
    const uses = mapAward(plain, { issuerId: ISSUER_ID }).uses;
    // The key under which the accumulator shares this record's class uses.
    const classesKey = JSON.stringify(uses.stockClasses.map((use) => ({ ...use, labels: [...new Set(use.labels.map(labelPrefix))] })));
    const hostile = { ...plain, stakeholderId: classesKey };
    const expected = mapRecords({ awards: [hostile] }, { asOf: "2025-06-30" });
    const accumulator = accumulatorFor({ asOf: "2025-06-30" });
    accumulator.add({ kind: "restrictedStockAward", record: hostile });
    const head = accumulator.finish();
    expect(head.stakeholders).toEqual(expected.stakeholders);
    expect(head.stockClasses).toEqual(expected.stockClasses);
  });

  it("maps a unit at once when an award already named its class, and with the id as its class once every award is known", () => {
    const named = accumulatorFor({ asOf: "2025-06-30" });
    named.add({ kind: "restrictedStockAward", record: baseAward() });
    const unit = named.add({ kind: "restrictedStockUnit", record: baseUnit() });
    expect(unit.status === "mapped" && unit.mapped.uses.stockClasses.map((c) => c.key)).toEqual(["Common"]);
    const unnamed = accumulatorFor({ asOf: "2025-06-30" });
    unnamed.awardsComplete();
    const alone = unnamed.add({ kind: "restrictedStockUnit", record: baseUnit() });
    expect(alone.status === "mapped" && alone.mapped.uses.stockClasses.map((c) => c.key)).toEqual(["4519cc18-ee7f-4fb7-8a4b-b70a063de4f5"]);
  });

  it("keeps the most recently modified copy of a record listed twice", () => {
    const plain = { ...baseAward(), vestingEvents: [], vestedQuantity: "0", canceledQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
    const older = { ...plain, lastModifiedDatetime: "2024-01-01T00:00:00.000000Z", quantity: "100" };
    const newer = { ...plain, lastModifiedDatetime: "2024-02-01T00:00:00.000000Z", quantity: "200" };
    const accumulator = accumulatorFor({ asOf: "2025-06-30" });
    const first = accumulator.add({ kind: "restrictedStockAward", record: newer });
    const second = accumulator.add({ kind: "restrictedStockAward", record: older });
    expect(first.status).toBe("mapped");
    expect(second.status).toBe("stale");
    const third = accumulator.add({ kind: "restrictedStockAward", record: { ...newer, lastModifiedDatetime: "2024-03-01T00:00:00.000000Z" } });
    expect(third.status === "mapped" && third.replaces).toBe(first.key);
  });

  it("settles id collisions in canonical order, like mapIssuer: the later record is quarantined", () => {
    const milestoneAward = {
      ...termsAward(),
      id: "1",
      vestingEvents: termsAward().vestingEvents.map((e) => (e.id === "m1" ? { ...e, id: "m-issuance" } : e)),
    };
    const spelled = { ...baseAward(), id: "1-vesting-event-m" };
    const expected = mapRecords({ awards: [milestoneAward, spelled] }, { onInvalid: "quarantine", asOf: "2025-06-30" });
    const accumulator = accumulatorFor({ onInvalid: "quarantine", asOf: "2025-06-30" });
    const a = accumulator.add({ kind: "restrictedStockAward", record: spelled }); // arrives first
    accumulator.add({ kind: "restrictedStockAward", record: milestoneAward });
    const head = accumulator.finish();
    expect(head.withdrawn).toEqual([a.key]);
    expect(head.quarantined.map((q) => [q.recordId, q.error.code])).toEqual(expected.quarantined.map((q) => [q.recordId, q.error.code]));
    expect(() => {
      const failing = accumulatorFor({ asOf: "2025-06-30" });
      failing.add({ kind: "restrictedStockAward", record: spelled });
      failing.add({ kind: "restrictedStockAward", record: milestoneAward });
      failing.finish();
    }).toThrow(/already used/);
  });

  it("tells ids apart whose hashes meet: two records whose security ids share finish()'s 30-bit hash both stay", () => {
    // Found by search: "security\0rsa-k3978380551" and "security\0rsa-k1479006305" have the same hash.
    const awards = ["k3978380551", "k1479006305"].map((id) => ({ ...baseAward(), id }));
    const expected = mapRecords({ awards }, { onInvalid: "quarantine", asOf: "2025-06-30" });
    const accumulator = accumulatorFor({ onInvalid: "quarantine", asOf: "2025-06-30" });
    for (const record of awards) expect(accumulator.add({ kind: "restrictedStockAward", record }).status).toBe("mapped");
    const head = accumulator.finish();
    expect(head.withdrawn).toEqual([]);
    expect(head.quarantined).toEqual([]);
    expect(expected.quarantined).toEqual([]);
  });

  it("lets the newest copy count even when it is invalid: an older valid copy arriving later is stale", () => {
    const newerUnpriced = { ...baseAward(), lastModifiedDatetime: "2024-02-01T00:00:00.000000Z" };
    delete (newerUnpriced as { pricePerShare?: unknown }).pricePerShare;
    const older = { ...baseAward(), lastModifiedDatetime: "2024-01-01T00:00:00.000000Z" };
    const accumulator = accumulatorFor({ onInvalid: "quarantine", asOf: "2025-06-30" });
    expect(accumulator.add({ kind: "restrictedStockAward", record: newerUnpriced }).status).toBe("quarantined");
    expect(accumulator.add({ kind: "restrictedStockAward", record: older }).status).toBe("stale");
    expect(accumulator.finish().quarantined.map((q) => q.recordId)).toEqual([baseAward().id]);
  });

  it("withdraws an older valid copy when a newer copy fails the source schema, and ignores an older invalid one", () => {
    const valid = { ...baseAward(), lastModifiedDatetime: "2024-01-01T00:00:00.000000Z" };
    const accumulator = accumulatorFor({ onInvalid: "quarantine", asOf: "2025-06-30" });
    const mapped = accumulator.add({ kind: "restrictedStockAward", record: valid });
    const newerInvalid = accumulator.addInvalid("restrictedStockAward", valid.id, "2024-03-01T00:00:00.000000Z");
    expect(newerInvalid).toEqual({ status: "invalid", key: mapped.key, replaces: mapped.key, repeated: true });
    expect(accumulator.addInvalid("restrictedStockAward", valid.id, "2023-01-01T00:00:00.000000Z").status).toBe("stale");
    expect(accumulator.add({ kind: "restrictedStockAward", record: valid }).status).toBe("stale");
  });

  it("says a copy is repeated whenever a copy of the record came before, valid or not (the caller's DUPLICATE_RECORD)", () => {
    const accumulator = accumulatorFor({ onInvalid: "quarantine", asOf: "2025-06-30" });
    const first = accumulator.addInvalid("restrictedStockAward", baseAward().id, "2024-01-01T00:00:00.000000Z");
    expect(first).toEqual({ status: "invalid", key: first.key });
    // A newer valid copy after an invalid one replaces nothing written, but is a second copy.
    const newer = accumulator.add({ kind: "restrictedStockAward", record: { ...baseAward(), lastModifiedDatetime: "2024-02-01T00:00:00.000000Z" } });
    expect([newer.status, "replaces" in newer, "repeated" in newer && newer.repeated]).toEqual(["mapped", false, true]);
    const other = accumulator.add({ kind: "restrictedStockAward", record: termsAward() });
    expect("repeated" in other).toBe(false);
  });

  it("deletes what it kept once finish() has returned or thrown, or on dispose()", () => {
    // A folder of its own: other tests leave accumulators unfinished.
    const own = storage.lines === undefined ? undefined : mkdtempSync(join(spillDir, "own-"));
    const spilled = (): string[] => (own === undefined ? [] : readdirSync(own));
    const accumulatorFor = (options: MapIssuerOptions): IssuerMappingAccumulator => new IssuerMappingAccumulator(ISSUER_ID, options, own === undefined ? storage : { lines: () => recordLinesFileIn(own, 64) });
    const done = accumulatorFor({ asOf: "2025-06-30" });
    done.add({ kind: "restrictedStockAward", record: baseAward() });
    expect(spilled()).toHaveLength(own === undefined ? 0 : 1);
    done.finish();
    expect(spilled()).toEqual([]);
    const milestoneAward = { ...termsAward(), id: "1", vestingEvents: termsAward().vestingEvents.map((e) => (e.id === "m1" ? { ...e, id: "m-issuance" } : e)) };
    const failing = accumulatorFor({ asOf: "2025-06-30" });
    failing.add({ kind: "restrictedStockAward", record: { ...baseAward(), id: "1-vesting-event-m" } });
    failing.add({ kind: "restrictedStockAward", record: milestoneAward });
    expect(() => failing.finish()).toThrow(/already used/);
    expect(spilled()).toEqual([]);
    const dropped = accumulatorFor({ asOf: "2025-06-30" });
    dropped.add({ kind: "restrictedStockAward", record: baseAward() });
    dropped.dispose();
    expect(spilled()).toEqual([]);
    expect(() => dropped.add({ kind: "restrictedStockAward", record: baseAward() })).toThrow(/finish\(\) was called/);
  });

  it("takes a replaced copy's uses out of the head objects: a plan's reserve and a stakeholder follow the copy that counts", () => {
    const older = { ...baseAward(), lastModifiedDatetime: "2024-01-01T00:00:00.000000Z", stakeholderId: "old-holder" };
    const newer = { ...baseAward(), lastModifiedDatetime: "2024-02-01T00:00:00.000000Z", stakeholderId: "new-holder" };
    const expected = mapRecords({ awards: [newer] }, { asOf: "2025-06-30" });
    const accumulator = accumulatorFor({ asOf: "2025-06-30" });
    accumulator.add({ kind: "restrictedStockAward", record: older });
    expect(accumulator.add({ kind: "restrictedStockAward", record: newer }).status).toBe("mapped");
    const head = accumulator.finish();
    expect(head.stakeholders).toEqual(expected.stakeholders);
    expect(head.stockPlans).toEqual(expected.stockPlans);
    expect(head.issuer).toEqual(expected.issuer);
  });
});
