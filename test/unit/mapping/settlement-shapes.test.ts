/**
 * Shapes of real data around settlements and quantities (issue 24, item 3): a settlement sent twice,
 * a certificate id shared by two different settlements, a settlement before its units vested, and
 * grants and settlements of 0. Each is mapped with the default options, with a warning that names it.
 */
import { describe, expect, it } from "vitest";
import { mapAward } from "../../../src/mapping/award.js";
import { mapUnit } from "../../../src/mapping/unit.js";
import type { ShareClassDirectory } from "../../../src/mapping/share-classes.js";
import type { OcfEquityCompensationIssuance, OcfStockIssuance } from "../../../src/ocf/schemas.js";
import type { RestrictedStockUnit, Settlement } from "../../../src/source/records.js";
import { ISSUER_ID, baseAward, baseUnit, txById, txOfType } from "./fixtures.js";

const COMMON_ID = "4519cc18-ee7f-4fb7-8a4b-b70a063de4f5";
const awardsName: ShareClassDirectory = { nameOf: (id) => (id === COMMON_ID ? "Common" : undefined), complete: true };
const map = (unit: RestrictedStockUnit) => mapUnit(unit, { issuerId: ISSUER_ID, shareClasses: awardsName });
const codes = (mapped: { warnings: readonly { code: string; path?: string }[] }) => mapped.warnings.map((w) => [w.code, w.path]);
const releases = (mapped: ReturnType<typeof map>) => txOfType(mapped, "TX_EQUITY_COMPENSATION_RELEASE");
/** baseUnit, not cancelled and without the unit's totals: room for more settlements. */
function openUnit(): RestrictedStockUnit {
  const { canceledDate: _c, terminationDate: _t, releasedQuantity: _r, netSettledQuantity: _n, ...unit } = baseUnit();
  return { ...unit, canceledQuantity: "0", forfeitedQuantity: "0", expiredQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
}

describe("a settlement sent twice", () => {
  const unit = baseUnit();
  const [second, first, third] = unit.settlements as [Settlement, Settlement, Settlement];
  // The first settlement sent again at the end of the list: the source's totals count it once.
  const twice: RestrictedStockUnit = { ...unit, settlements: [second, first, third, { ...first }] };

  it("is released and issued once, with a DUPLICATE_SETTLEMENT warning naming both paths", () => {
    const mapped = map(twice);
    expect(releases(mapped).map((r) => [r.date, r.quantity])).toEqual(releases(map(unit)).map((r) => [r.date, r.quantity]));
    expect(txOfType(mapped, "TX_STOCK_ISSUANCE").map((i) => i.security_id)).toEqual(txOfType(map(unit), "TX_STOCK_ISSUANCE").map((i) => i.security_id));
    const warning = mapped.warnings.find((w) => w.code === "DUPLICATE_SETTLEMENT");
    expect(warning?.path).toBe("settlements[3]");
    expect(warning?.message).toContain("repeats settlements[1] exactly");
  });

  it("leaves the unit's counters agreeing: releasedQuantity and netSettledQuantity count it once", () => {
    const mapped = map(twice);
    expect(codes(mapped).map(([code]) => code)).not.toContain("RELEASED_SUM_MISMATCH");
    expect(codes(mapped).map(([code]) => code)).not.toContain("NET_SETTLED_SUM_MISMATCH");
    expect(mapped.transactions).toEqual(map(unit).transactions);
  });

  it("keeps two settlements that share a certificate id but differ, with a SETTLEMENT_CERTIFICATE_REUSED warning", () => {
    const other: Settlement = { ...first, settlementDate: "2016-12-05", releaseQuantity: "100", netSettlementQuantity: "100", saleQuantity: "0" };
    const mapped = map({ ...openUnit(), settlements: [second, first, third, other] });
    expect(releases(mapped)).toHaveLength(4);
    expect(codes(mapped)).toContainEqual(["SETTLEMENT_CERTIFICATE_REUSED", "settlements[3]"]);
    expect(codes(mapped).map(([code]) => code)).not.toContain("DUPLICATE_SETTLEMENT");
  });

  it("never takes two settlements without a certificate id for one another", () => {
    const { certificateId: _c, certificateLabel: _l, ...anonymous } = first;
    const mapped = map({ ...openUnit(), settlements: [second, anonymous, third, { ...anonymous }] });
    expect(releases(mapped)).toHaveLength(4);
    expect(codes(mapped).map(([code]) => code)).not.toContain("DUPLICATE_SETTLEMENT");
  });
});

describe("a settlement before its units vested", () => {
  it("warns RELEASED_BEFORE_VESTED with the settlement's path, date, released and vested figures", () => {
    const unit = openUnit();
    // 2016-06-05: 375 vested (v1) but 500 released; 2017-06-05: 750 vested, 875 released; 2018-06-05: 1125 and 1125.
    const settlements = unit.settlements.map((s) => (s.settlementDate === "2016-06-05" ? { ...s, releaseQuantity: "500", saleQuantity: "200" } : s));
    const mapped = map({ ...unit, settlements });
    const warnings = mapped.warnings.filter((w) => w.code === "RELEASED_BEFORE_VESTED");
    expect(warnings.map((w) => w.path)).toEqual(["settlements[1].releaseQuantity", "settlements[0].releaseQuantity"]);
    expect(warnings[0]?.message).toContain("on 2016-06-05 brings the units released by that date to 500, but the vesting events have vested only 375");
    // Kept as sent.
    expect(releases(mapped).map((r) => r.quantity)).toEqual(["500", "375", "250"]);
  });

  it("counts every settlement of the day, and is quiet when the units had vested", () => {
    expect(codes(map(baseUnit())).map(([code]) => code)).not.toContain("RELEASED_BEFORE_VESTED");
    const unit = openUnit();
    // A second settlement on 2017-06-05: by then 375 + 375 + 375 released against 750 vested (v1, v2).
    const extra: Settlement = { ...(unit.settlements[0] as Settlement), certificateId: "c-2b", certificateLabel: "CS-2b" };
    const mapped = map({ ...unit, settlements: [...unit.settlements.slice(0, 2), extra] });
    expect(mapped.warnings.filter((w) => w.code === "RELEASED_BEFORE_VESTED").map((w) => w.path)).toEqual(["settlements[0].releaseQuantity", "settlements[2].releaseQuantity"]);
  });

  it("is not checked for a unit without vesting events (vested in full at issuance)", () => {
    const { vestedQuantity: _v, ...unit } = { ...baseUnit(), vestingEvents: [] };
    expect(codes(map(unit)).map(([code]) => code)).not.toContain("RELEASED_BEFORE_VESTED");
  });
});

describe("zero quantities", () => {
  it("a settlement that releases and delivers nothing writes nothing and takes no number, with a ZERO_QUANTITY warning", () => {
    const unit = baseUnit();
    const nothing: Settlement = { settlementDate: "2017-01-05", releaseQuantity: "0", netSettlementQuantity: "0", withholdingQuantity: "0", settlementPrice: { currency: "USD", amount: "1" }, certificateId: "c-0" };
    const mapped = map({ ...unit, settlements: [...unit.settlements, nothing] });
    expect(mapped.transactions).toEqual(map(unit).transactions);
    expect(codes(mapped)).toContainEqual(["ZERO_QUANTITY", "settlements[3]"]);
  });

  it("a settlement of 0 units that still delivers shares writes them, and the release of 0 that names them, with a ZERO_QUANTITY warning", () => {
    const unit = baseUnit();
    const odd: Settlement = { settlementDate: "2017-01-05", releaseQuantity: "0", netSettlementQuantity: "10", settlementPrice: { currency: "USD", amount: "1" }, certificateId: "c-0" };
    const mapped = map({ ...unit, settlements: [...unit.settlements, odd] });
    expect(releases(mapped).find((r) => r.date === "2017-01-05")).toMatchObject({ quantity: "0", resulting_security_ids: ["rsu-8550-settlement-2"] });
    expect(codes(mapped)).toContainEqual(["ZERO_QUANTITY", "settlements[3].releaseQuantity"]);
  });

  it("a grant of 0 keeps its issuance, of 0, with a ZERO_QUANTITY warning naming its quantity", () => {
    const award = { ...baseAward(), quantity: "0", vestedQuantity: "0", vestingEvents: [], canceledQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
    const mapped = mapAward(award, { issuerId: ISSUER_ID });
    const issuance = txById(mapped, "rsa-1191-issuance") as OcfStockIssuance;
    expect(issuance.quantity).toBe("0");
    expect(codes(mapped)).toContainEqual(["ZERO_QUANTITY", "quantity"]);
    const { releasedQuantity: _r, netSettledQuantity: _n, ...unit } = { ...baseUnit(), quantity: "0", vestedQuantity: "0", vestingEvents: [], settlements: [], canceledQuantity: "0", forfeitedQuantity: "0", expiredQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
    const mappedUnit = map(unit);
    expect((txById(mappedUnit, "rsu-8550-issuance") as OcfEquityCompensationIssuance).quantity).toBe("0");
    expect(codes(mappedUnit)).toContainEqual(["ZERO_QUANTITY", "quantity"]);
  });

  it("says nothing of a grant that is not 0", () => {
    expect(codes(map(baseUnit())).map(([code]) => code)).not.toContain("ZERO_QUANTITY");
    expect(codes(mapAward(baseAward(), { issuerId: ISSUER_ID })).map(([code]) => code)).not.toContain("ZERO_QUANTITY");
  });
});
