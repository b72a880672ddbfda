/**
 * Payouts above target in reconcile (mappings/README.md: `<security>-payout-<event key>`, a new issuance
 * to the grant's holder of what a performance event paid above its target): the replay counts a payout
 * in its grant's figures, and the source states a grant's figures and holdings with its payouts.
 */
import { describe, expect, it } from "vitest";
import type { PackageObjects } from "../../../src/reconcile/package-objects.js";
import { replayPackage } from "../../../src/reconcile/replay.js";
import { recordHolding, sourceGrant } from "../../../src/reconcile/source-figures.js";
import { performanceAward, performanceUnit } from "../mapping/fixtures.js";

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
