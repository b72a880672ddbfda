/**
 * Payouts above target in reconcile (mappings/README.md: `<security>-payout-<event key>`, a new issuance
 * to the grant's holder of what a performance event paid above its target): the replay counts a payout
 * in its grant's figures, the source states a grant's figures and holdings with its payouts, and the
 * source's own consistency checks take the payouts as granted. End to end: the integration test of the
 * same name.
 */
import { describe, expect, it } from "vitest";
import type { PackageObjects } from "../../../src/reconcile/package-objects.js";
import { checkRecord } from "../../../src/reconcile/consistency.js";
import { replayPackage } from "../../../src/reconcile/replay.js";
import { recordHolding, sourceGrant } from "../../../src/reconcile/source-figures.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../../../src/source/records.js";
import { performanceAward, performanceEvents, performanceUnit } from "../mapping/fixtures.js";

type Json = Record<string, unknown>;

const issuance = (security: string, quantity: string, date: string, holder = "stakeholder-1", type = "TX_EQUITY_COMPENSATION_ISSUANCE"): Json => ({
  object_type: type,
  id: `${security}-issuance`,
  security_id: security,
  stakeholder_id: holder,
  date,
  quantity,
});

function pkgOf(transactions: Json[]): PackageObjects {
  return { location: "(test)", asOf: "2024-12-31", transactions, vestingTerms: [], stakeholders: [], stockClasses: [], stockPlans: [] };
}

describe("the replay of a grant with payouts above target", () => {
  it("counts a payout in its grant: issued, released, net settled, outstanding and vesting; the payout is no grant of its own", () => {
    const replayed = replayPackage(
      pkgOf([
        { ...issuance("rsu-1", "100", "2020-01-01"), vestings: [{ date: "2021-01-01", amount: "100" }] },
        issuance("rsu-1-payout-p1", "20", "2021-01-01"),
        { object_type: "TX_EQUITY_COMPENSATION_RELEASE", id: "rsu-1-payout-p1-release-1", security_id: "rsu-1-payout-p1", date: "2021-02-01", quantity: "20", resulting_security_ids: ["rsu-1-settlement-1"] },
        issuance("rsu-1-settlement-1", "15", "2021-02-01", "stakeholder-1", "TX_STOCK_ISSUANCE"),
      ]),
    );
    expect([...replayed.securities.keys()]).toEqual(["rsu-1", "rsu-1-settlement-1"]);
    const grant = replayed.securities.get("rsu-1");
    expect(grant?.figures).toMatchObject({ issued: "120", released: "20", netSettled: "15", soldToCover: "0", outstanding: "100" });
    expect(grant?.chain).toEqual(["rsu-1"]);
    expect(grant?.payouts).toEqual(["rsu-1-payout-p1"]);
    expect(grant?.tranches).toEqual([{ date: "2021-01-01", amount: "120" }]);
  });

  it("links a payout only to an issuance of its kind to its holder, by the longest prefix that is no payout itself", () => {
    const replayed = replayPackage(
      pkgOf([
        issuance("rsu-5", "100", "2020-01-01"),
        issuance("rsu-5-payout-a", "10", "2021-01-01"),
        // A payout of a payout is none: it goes to the grant.
        issuance("rsu-5-payout-a-payout-b", "1", "2021-01-01"),
        // Another holder, another kind, no such grant: each a grant of its own.
        issuance("rsu-5-payout-c", "2", "2021-01-01", "stakeholder-2"),
        issuance("rsu-5-payout-d", "3", "2021-01-01", "stakeholder-1", "TX_STOCK_ISSUANCE"),
        issuance("rsu-6-payout-e", "4", "2021-01-01"),
        // A grant whose id reads as a payout, held by another holder, keeps its own payout.
        issuance("rsu-7", "100", "2020-01-01"),
        issuance("rsu-7-payout-f", "50", "2020-01-01", "stakeholder-2"),
        issuance("rsu-7-payout-f-payout-g", "5", "2021-01-01", "stakeholder-2"),
      ]),
    );
    const payouts = Object.fromEntries([...replayed.securities].map(([id, s]) => [id, [s.figures.issued, s.payouts]]));
    expect(payouts).toEqual({
      "rsu-5": ["111", ["rsu-5-payout-a", "rsu-5-payout-a-payout-b"]],
      "rsu-5-payout-c": ["2", []],
      "rsu-5-payout-d": ["3", []],
      "rsu-6-payout-e": ["4", []],
      "rsu-7": ["100", []],
      "rsu-7-payout-f": ["55", ["rsu-7-payout-f-payout-g"]],
    });
  });
});

describe("the source's figures of a grant paid above target", () => {
  it("issued and outstanding count the payouts, and the holder holds them from their vest date", () => {
    const unit = { kind: "restrictedStockUnit" as const, record: performanceUnit() };
    expect(sourceGrant(unit).figures).toMatchObject({ issued: "1250", vested: "1000", released: "1000", outstanding: "250" });
    expect(recordHolding(unit, "2021-05-31")).toMatchObject({ units: "750", shares: "200" });
    expect(recordHolding(unit, "2021-06-01")).toMatchObject({ units: "1000", shares: "200" });
    const award = { kind: "restrictedStockAward" as const, record: performanceAward() };
    expect(sourceGrant(award).figures).toMatchObject({ issued: "1250", outstanding: "1250" });
    expect(recordHolding(award, "2021-05-31")?.shares).toBe("1000");
    expect(recordHolding(award, "2021-06-01")?.shares).toBe("1250");
  });

  it("a quantity that holds every event as paid (the maximum) has no payout", () => {
    const unit = { kind: "restrictedStockUnit" as const, record: { ...performanceUnit(), quantity: "1250" } };
    expect(sourceGrant(unit).figures).toMatchObject({ issued: "1250", outstanding: "250" });
    expect(recordHolding(unit, "2021-06-01")?.units).toBe("1000");
  });
});

describe("the source's consistency of a grant paid above target", () => {
  /** Every event vested, the last (a time event of 250) paid `last`: `vestedQuantity` in all. */
  const allVested = (last: string, vestedQuantity: string): RestrictedStockAward => ({
    ...performanceAward(),
    vestedQuantity,
    vestingEvents: performanceEvents().map((e) => (e.id === "t2" ? { ...e, vested: true, vestedQuantity: last } : e)),
  });
  const cancelled = (canceledQuantity: string): RestrictedStockUnit => ({
    ...performanceUnit(),
    terminationDate: "2021-12-15",
    canceledDate: "2022-01-05",
    canceledQuantity,
    forfeitedQuantity: canceledQuantity,
    returnedToTreasuryQuantity: canceledQuantity,
  });

  it("takes the payouts as granted: vested and released + canceled may pass the quantity by them", () => {
    expect(checkRecord("7", { kind: "restrictedStockAward", record: allVested("250", "1250") })).toEqual([]);
    expect(checkRecord("7", { kind: "restrictedStockUnit", record: cancelled("250") })).toEqual([]);
  });

  it("still reports what passes the quantity and the payouts", () => {
    const award = checkRecord("7", { kind: "restrictedStockAward", record: allVested("300", "1300") });
    expect(award.map((d) => d.message)).toEqual(['award "2300": vestedQuantity is 1300, but that is more than the quantity 1000 and the 250 its events paid above target']);
    const unit = checkRecord("7", { kind: "restrictedStockUnit", record: cancelled("300") });
    expect(unit.map((d) => d.message)).toEqual(['unit "9100": quantity is 1000, but released 1000 + canceled 300 is 1300, more than was granted (the quantity 1000 and the 250 its events paid above target)']);
  });
});
