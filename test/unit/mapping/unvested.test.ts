/**
 * Tranches the package vests by their dates while the source says they have not vested: noted per
 * record, and warned about when the package's as-of date is on or after them (a reader of the package
 * would count them as vested; the source does not).
 */
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dayNumber, dayOfNumber, previousDay } from "../../../src/dates.js";
import { recordLinesFileIn } from "../../../src/io/file-lines.js";
import { IssuerMappingAccumulator } from "../../../src/mapping/accumulator.js";
import { mapAward } from "../../../src/mapping/award.js";
import { mapUnit } from "../../../src/mapping/unit.js";
import type { RestrictedStockAward } from "../../../src/source/records.js";
import { ISSUER_ID, baseAward, baseUnit, mapRecords, termsAward, timeEvent } from "./fixtures.js";

/** A live award (no cancellation) with three yearly tranches, the first vested. */
function liveAward(id = "3001"): RestrictedStockAward {
  const { canceledDate: _c, terminationDate: _t, ...award } = baseAward();
  return {
    ...award,
    id,
    securityLabel: `RSA-${id}`,
    canceledQuantity: "0",
    returnedToPoolQuantity: "0",
    returnedToTreasuryQuantity: "0",
    quantity: "3000",
    vestedQuantity: "1000",
    vestingEvents: [timeEvent("y1", "2017-08-20", "1000", true), timeEvent("y3", "2019-08-20", "1000", false), timeEvent("y2", "2018-08-20", "1000", false)],
  };
}

const context = { issuerId: ISSUER_ID, options: {} };

describe("the tranche a record's package vests by date that the source has not vested (MappedRecord.unvested)", () => {
  it("is the earliest time-based, dated, non-zero tranche the source says has not vested", () => {
    expect(mapAward(liveAward(), context).unvested).toEqual({ date: "2018-08-20", event: '"y2"', amount: "1000" });
  });

  it("is absent when every dated tranche vested, or the unvested ones come after the termination (never earned, left out)", () => {
    const allVested = { ...liveAward(), vestedQuantity: "3000", vestingEvents: liveAward().vestingEvents.map((e) => timeEvent(e.id ?? "", e.vestDate ?? "", "1000", true)) };
    expect(mapAward(allVested, context).unvested).toBeUndefined();
    // baseAward: terminated 2019-01-02; its unvested tranches are of 2019 and 2020.
    expect(mapAward(baseAward(), context).unvested).toBeUndefined();
  });

  it("leaves out zero tranches and pending milestones (they vest nothing on a date), and counts a dated tranche of a VestingTerms chain", () => {
    const zero = { ...liveAward(), vestingEvents: [timeEvent("y1", "2017-08-20", "1000", true), timeEvent("z", "2018-01-01", "0", false), timeEvent("y2", "2018-08-20", "1000", false)] };
    expect(mapAward(zero, context).unvested?.event).toBe('"y2"');
    // termsAward (VestingTerms): a vested tranche, a vested milestone, a pending milestone and t2, dated, not vested.
    const terms = mapAward(termsAward(), context);
    expect(terms.vestingTerms).toHaveLength(1);
    expect(terms.unvested).toEqual({ date: "2019-08-20", event: '"t2"', amount: "500" });
    const pendingOnly = { ...termsAward(), vestingEvents: termsAward().vestingEvents.filter((e) => e.id !== "t2") };
    expect(mapAward(pendingOnly, context).unvested).toBeUndefined();
  });

  it("is noted for units too, for a tranche before the termination that the source has not vested", () => {
    const classes = { ...context, shareClasses: { nameOf: () => "Common", complete: true } };
    // baseUnit: terminated 2018-06-15; its one unvested tranche (v4, 2019-06-01) comes after, never earned.
    expect(mapUnit(baseUnit(), classes).unvested).toBeUndefined();
    const unit = baseUnit();
    unit.vestingEvents = unit.vestingEvents.map((e) => (e.id === "v3" ? timeEvent("v3", "2018-06-01", "375", false) : e));
    expect(mapUnit(unit, classes).unvested).toEqual({ date: "2018-06-01", event: '"v3"', amount: "375" });
  });
});

const spillDir = mkdtempSync(join(tmpdir(), "ocf-sync-unvested-"));
afterAll(() => rmSync(spillDir, { recursive: true, force: true }));

describe("the issuer's mapping, against its as-of date", () => {
  const awards = () => [liveAward("3001"), { ...liveAward("3002"), vestingEvents: [timeEvent("y1", "2017-08-20", "1000", true), timeEvent("y2", "2018-08-20", "1000", true), timeEvent("y3", "2019-08-20", "1000", false)], vestedQuantity: "2000" }, baseAward()];

  it("warns nothing while the as-of date comes before every unvested tranche", () => {
    const mapped = mapRecords({ awards: awards() }, { asOf: "2018-08-19" });
    expect(mapped.warnings.filter((w) => w.code === "UNVESTED_BEFORE_AS_OF")).toEqual([]);
  });

  it("warns per record on or after such a tranche, and once for the issuer with the latest as-of date no record contradicts", () => {
    const onTheDay = mapRecords({ awards: awards() }, { asOf: "2018-08-20" }).warnings.filter((w) => w.code === "UNVESTED_BEFORE_AS_OF");
    expect(onTheDay.map((w) => [w.record?.recordId, w.path])).toEqual([
      [undefined, "asOf"],
      ["3001", "vestingEvents"],
    ]);
    expect(onTheDay[0]?.message).toContain("is 2018-08-20, but 1 record has tranches dated on or before it that the source says have not vested");
    expect(onTheDay[0]?.message).toContain("export as of 2018-08-19 or earlier (--as-of; library option asOf)");
    expect(onTheDay[1]?.message).toBe(
      `restrictedStockAward "3001" of issuer "7", vestingEvents: event "y2" of 2018-08-20 (1000) has not vested in the source, yet it is dated on or before the package's as-of date 2018-08-20: a reader of the package counts it as vested (and any later tranche the source has not vested, up to that day)`,
    );
    const later = mapRecords({ awards: awards() }, { asOf: "2025-06-30" }).warnings.filter((w) => w.code === "UNVESTED_BEFORE_AS_OF");
    expect(later.map((w) => w.record?.recordId)).toEqual([undefined, "3001", "3002"]);
    expect(later[0]?.message).toContain("but 2 records have tranches");
  });

  it.each([
    ["kept in memory", {}],
    ["kept in a file", { lines: () => recordLinesFileIn(spillDir, 64) }],
  ])("gives the streaming mapper the same warnings as mapIssuer, in the same order, records %s, also after a record is replaced", (_, storage) => {
    for (const asOf of ["2018-08-19", "2018-08-20", "2019-08-20", "2025-06-30"]) {
      const accumulator = new IssuerMappingAccumulator(ISSUER_ID, { asOf }, storage);
      // A first copy of 3002 with nothing unvested, replaced by a newer copy that has.
      const older = { ...awards()[1]!, vestedQuantity: "3000", lastModifiedDatetime: "2020-01-01T00:00:00.000000Z", vestingEvents: liveAward().vestingEvents.map((e) => timeEvent(e.id ?? "", e.vestDate ?? "", "1000", true)) };
      accumulator.add({ kind: "restrictedStockAward", record: older });
      for (const record of awards().reverse()) accumulator.add({ kind: "restrictedStockAward", record });
      expect(accumulator.finish().warnings).toEqual(mapRecords({ awards: awards() }, { asOf }).warnings);
    }
  });
});

describe("day arithmetic of the check", () => {
  const dates = fc.date({ min: new Date(Date.UTC(2, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));

  it("previousDay is the calendar day before (checked against UTC date arithmetic), across months, years and leap days", () => {
    fc.assert(
      fc.property(dates, (date) => {
        const expected = new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
        expect(previousDay(date)).toBe(expected);
      }),
    );
    expect(previousDay("2024-03-01")).toBe("2024-02-29");
    expect(previousDay("2023-03-01")).toBe("2023-02-28");
    expect(previousDay("2026-01-01")).toBe("2025-12-31");
  });

  it("dayNumber sorts as the dates do and dayOfNumber gives the date back", () => {
    fc.assert(
      fc.property(dates, dates, (a, b) => {
        expect(dayOfNumber(dayNumber(a))).toBe(a);
        expect(Math.sign(dayNumber(a) - dayNumber(b))).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
    );
  });
});
