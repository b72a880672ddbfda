/** The source's own consistency: each invariant, broken once, is reported once with its numbers; the samples are clean but for RSA-0003. */
import { describe, expect, it } from "vitest";
import { checkSourceConsistency } from "../../../src/reconcile/consistency.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../../../src/source/records.js";
import { SAMPLE_PACKAGES, sampleSource } from "./helpers.js";

const award: RestrictedStockAward = {
  id: "A1",
  quantity: "100",
  vestedQuantity: "50",
  issueDate: "2024-01-10",
  boardApprovalDate: "2024-01-05",
  stakeholderAcceptanceDate: "2024-01-12",
  canceledQuantity: "0",
  returnedToPoolQuantity: "0",
  returnedToTreasuryQuantity: "0",
  vestingEvents: [
    { id: "e1", vestDate: "2024-06-01", vested: true, performanceCondition: false, targetQuantity: "50", vestedQuantity: "50" },
    { id: "e2", vestDate: "2026-06-01", vested: false, performanceCondition: false, targetQuantity: "50" },
  ],
};
const unit: RestrictedStockUnit = {
  id: "U1",
  quantity: "100",
  vestedQuantity: "60",
  terminationDate: "2025-01-01",
  canceledDate: "2025-01-05",
  canceledQuantity: "40",
  forfeitedQuantity: "40",
  expiredQuantity: "0",
  returnedToPoolQuantity: "40",
  releasedQuantity: "60",
  netSettledQuantity: "36",
  vestingEvents: [],
  settlements: [
    { settlementDate: "2024-06-01", releaseQuantity: "30", netSettlementQuantity: "18", withholdingQuantity: "12" },
    { settlementDate: "2024-09-01", releaseQuantity: "30", netSettlementQuantity: "18", saleQuantity: "12" },
  ],
};
const check = (awards: RestrictedStockAward[], units: RestrictedStockUnit[] = []) =>
  checkSourceConsistency({ issuerId: "i", awards, units }).map((d) => [d.recordId, d.field, d.expected, d.actual]);

describe("checkSourceConsistency", () => {
  it("finds nothing in consistent records", () => {
    expect(check([award], [unit])).toEqual([]);
  });

  it("takes the events plus what was cancelled as the quantity when the cancelled tranches left the list", () => {
    // 50 vested stay listed; the 50 cancelled on 2025-01-05 are off the list, as the service shows the grant that remains.
    const cancelledOff = { ...award, canceledDate: "2025-01-05", canceledQuantity: "50", returnedToPoolQuantity: "50", vestingEvents: award.vestingEvents.slice(0, 1) };
    expect(check([cancelledOff])).toEqual([]);
    // Neither the events alone (50) nor with the cancellation (90) make the quantity.
    expect(check([{ ...cancelledOff, canceledQuantity: "40", returnedToPoolQuantity: "40" }])).toEqual([["A1", "quantity", "100", "50"]]);
  });

  it("finds nothing in the sample data but acme-robotics RSA-0003", async () => {
    for (const issuerId of Object.keys(SAMPLE_PACKAGES)) {
      const found = checkSourceConsistency(await sampleSource(issuerId)).map((d) => [d.recordId, d.field, d.expected, d.actual]);
      expect(found).toEqual(issuerId === "acme-robotics" ? [["RSA-0003", "vestedQuantity", "47500", "45000"]] : []);
    }
  });

  it.each([
    ["vested events", { vestedQuantity: "55" }, [["A1", "vestedQuantity", "55", "50"]]],
    ["planned events", { quantity: "120" }, [["A1", "quantity", "120", "100"]]],
    ["vested over quantity", { quantity: "40", vestingEvents: [] }, [["A1", "vestedQuantity", "50", "40"]]],
    ["pool and treasury", { canceledQuantity: "10", returnedToPoolQuantity: "4", returnedToTreasuryQuantity: "5" }, [["A1", "canceledQuantity", "10", "9"]]],
    ["board approval after issue", { boardApprovalDate: "2024-01-11" }, [["A1", "issueDate", "2024-01-10", "2024-01-11"]]],
    ["acceptance before issue", { stakeholderAcceptanceDate: "2024-01-09" }, [["A1", "stakeholderAcceptanceDate", "2024-01-09", "2024-01-10"]]],
  ] as const)("reports an award's broken %s", (_name, change, expected) => {
    expect(check([{ ...award, ...change } as RestrictedStockAward])).toEqual(expected);
  });

  it.each([
    ["forfeited + expired", { expiredQuantity: "1" }, [["U1", "canceledQuantity", "40", "41"]]],
    ["released vs settlements", { releasedQuantity: "59" }, [["U1", "releasedQuantity", "59", "60"]]],
    ["net settled vs settlements", { netSettledQuantity: "35.5" }, [["U1", "netSettledQuantity", "35.5", "36"]]],
    ["released over vested", { vestedQuantity: "50" }, [["U1", "releasedQuantity", "60", "50"]]],
    ["released + canceled over quantity", { quantity: "99" }, [["U1", "quantity", "99", "100"]]],
    ["cancellation before termination", { canceledDate: "2024-12-31" }, [["U1", "canceledDate", "2024-12-31", "2025-01-01"]]],
  ] as const)("reports a unit's broken %s", (_name, change, expected) => {
    expect(check([], [{ ...unit, ...change } as RestrictedStockUnit])).toEqual(expected);
  });

  it("reports a settlement whose parts do not make up its release", () => {
    const settlements = [{ ...unit.settlements[0], saleQuantity: "0.0000000001" }, unit.settlements[1]] as RestrictedStockUnit["settlements"];
    expect(check([], [{ ...unit, settlements }])).toEqual([["U1", "settlements[0].releaseQuantity", "30", "30.0000000001"]]);
  });

  describe("a settlement before the units it releases have vested (RELEASED_BEFORE_VESTED, issue 24)", () => {
    const vesting: RestrictedStockUnit["vestingEvents"] = [
      { id: "v1", vestDate: "2024-06-01", vested: true, performanceCondition: false, targetQuantity: "30", vestedQuantity: "30" },
      { id: "v2", vestDate: "2024-09-01", vested: true, performanceCondition: false, targetQuantity: "30", vestedQuantity: "30" },
      { id: "v3", vestDate: "2025-06-01", vested: false, performanceCondition: false, targetQuantity: "40" },
    ];
    const { canceledDate: _c, terminationDate: _t, releasedQuantity: _r, netSettledQuantity: _n, vestedQuantity: _v, ...rest } = unit;
    const vesting100: RestrictedStockUnit = { ...rest, canceledQuantity: "0", forfeitedQuantity: "0", returnedToPoolQuantity: "0", vestingEvents: vesting };
    const settledOn = (...dates: string[]): RestrictedStockUnit => ({
      ...vesting100,
      settlements: dates.map((settlementDate, n) => ({ ...unit.settlements[n % 2], settlementDate })),
    });
    const early = (units: RestrictedStockUnit[]) =>
      checkSourceConsistency({ issuerId: "i", awards: [], units }).filter((d) => d.code === "RELEASED_BEFORE_VESTED").map((d) => [d.recordId, d.field, d.expected, d.actual]);

    it("is none when each settlement comes on or after the vesting it releases", () => {
      expect(early([settledOn("2024-06-01", "2024-09-01")])).toEqual([]);
      expect(early([settledOn("2024-09-01", "2024-06-15")])).toEqual([]);
    });

    it("is each settlement that brings what is released past what had vested by its date", () => {
      expect(early([settledOn("2024-05-31", "2024-09-01")])).toEqual([["U1", "settlements[0]", "30", "0"]]);
      expect(early([settledOn("2024-06-01", "2024-08-31")])).toEqual([["U1", "settlements[1]", "60", "30"]]);
      // A tranche not marked vested releases nothing, whatever its date.
      expect(early([settledOn("2024-06-01", "2025-07-01", "2025-07-01")])).toEqual([
        ["U1", "settlements[1]", "90", "60"],
        ["U1", "settlements[2]", "90", "60"],
      ]);
      const [difference] = checkSourceConsistency({ issuerId: "i", awards: [], units: [settledOn("2024-05-31")] }).filter((d) => d.code === "RELEASED_BEFORE_VESTED");
      expect(difference?.section).toBe("source");
      expect(difference?.message).toBe('unit "U1": settlements[0] on 2024-05-31 brings what is released to 30, but only 0 had vested by then (its vesting events marked vested, dated up to then)');
    });

    it("counts a settlement sent twice once, as the mapping releases it", () => {
      const twice = settledOn("2024-06-01", "2024-09-01");
      const [first, second] = twice.settlements as [RestrictedStockUnit["settlements"][number], RestrictedStockUnit["settlements"][number]];
      const sent = { ...first, certificateId: "c-1" };
      expect(early([{ ...twice, settlements: [sent, { ...sent }, second] }])).toEqual([]);
      // Two that share a certificate id but differ are both settled.
      expect(early([{ ...twice, settlements: [sent, { ...sent, releaseQuantity: "31", netSettlementQuantity: "19" }, second] }])).toEqual([
        ["U1", "settlements[0]", "61", "30"],
        ["U1", "settlements[1]", "61", "30"],
        ["U1", "settlements[2]", "91", "60"],
      ]);
    });

    it("reads a unit without vesting events as vested in full on its issue date", () => {
      const plain = { ...unit, issueDate: "2024-06-01" } as RestrictedStockUnit;
      expect(early([plain])).toEqual([]);
      expect(early([{ ...plain, issueDate: "2024-06-02" }])).toEqual([["U1", "settlements[0]", "30", "0"]]);
    });
  });

  it("reports each quarantined record", () => {
    const found = checkSourceConsistency({ issuerId: "i", awards: [], units: [], quarantined: [{ kind: "restrictedStockUnit", recordId: "bad", message: "quantity: not a decimal" }] });
    expect(found.map((d) => [d.code, d.recordId, d.message])).toEqual([["SOURCE_RECORD_INVALID", "bad", 'unit "bad" could not be parsed and is in neither figure: quantity: not a decimal']]);
  });
});
