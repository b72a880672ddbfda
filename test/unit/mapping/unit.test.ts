import { describe, expect, it } from "vitest";
import type { OcfEquityCompensationIssuance, OcfEquityCompensationRelease, OcfStockIssuance } from "../../../src/ocf/schemas.js";
import { mapUnit } from "../../../src/mapping/unit.js";
import type { RestrictedStockUnit, Settlement } from "../../../src/source/records.js";
import type { ShareClassDirectory } from "../../../src/mapping/share-classes.js";
import { describeConformance } from "../../helpers/conformance.js";
import { expectOcfSyncValidObjects } from "../../helpers/ocf-verdicts.js";
import { expectOfficiallyValidObjects } from "../../helpers/official-ocf.js";
import { ISSUER_ID, baseUnit, mappingErrorOf, txById, txOfType } from "./fixtures.js";

/** baseUnit's shareClassId, which the issuer's awards name "Common". */
const COMMON_ID = "4519cc18-ee7f-4fb7-8a4b-b70a063de4f5";
const awardsName: ShareClassDirectory = { nameOf: (id) => (id === COMMON_ID ? "Common" : undefined), complete: true };
const map = (unit: RestrictedStockUnit = baseUnit(), settlementStockClassName?: string) =>
  mapUnit(unit, { issuerId: ISSUER_ID, shareClasses: awardsName, ...(settlementStockClassName === undefined ? {} : { options: { settlementStockClassName } }) });
const issuanceOf = (mapped: ReturnType<typeof map>) => txById(mapped, `rsu-${mapped.recordId}-issuance`) as OcfEquityCompensationIssuance;
const withSettlements = (settlements: Settlement[]): RestrictedStockUnit => {
  const { releasedQuantity: _r, netSettledQuantity: _n, ...unit } = baseUnit();
  return { ...unit, settlements };
};
const settlement = (overrides: Partial<Settlement> = {}): Settlement => ({
  settlementDate: "2017-06-05",
  releaseQuantity: "200",
  saleQuantity: "200",
  withholdingQuantity: "55",
  netSettlementQuantity: "145",
  settlementPrice: { currency: "USD", amount: "0.78" },
  certificateId: "78",
  certificateLabel: "CS-124",
  ...overrides,
});

describe("mapUnit", () => {
  it("makes a TX_EQUITY_COMPENSATION_ISSUANCE of an RSU, delivering the settlement class", () => {
    const issuance = issuanceOf(map());
    expect(issuance).toMatchObject({
      object_type: "TX_EQUITY_COMPENSATION_ISSUANCE",
      id: "rsu-8550-issuance",
      security_id: "rsu-8550",
      date: "2015-06-01",
      custom_id: "ES-136",
      stakeholder_id: "stakeholder-6113",
      security_law_exemptions: [],
      stock_plan_id: "stock-plan-2015 Equity Incentive Plan",
      stock_class_id: "stock-class-Common",
      compensation_type: "RSU",
      quantity: "1500",
      expiration_date: null,
      termination_exercise_windows: [],
    });
    expect(issuance.comments).toContain(
      "Unit totals reported by the source: releasedQuantity 1000 (units settled); netSettledQuantity 700 (units released to the stakeholder); releasePricePerShare 0.78 USD.",
    );
  });

  it("delivers the class its shareClassId names: by an award, else the id itself; else --settlement-class; else a class it says it chose", () => {
    expect(issuanceOf(mapUnit(baseUnit(), { issuerId: ISSUER_ID })).stock_class_id).toBe(`stock-class-${COMMON_ID}`);
    const { shareClassId: _, ...classless } = baseUnit();
    expect(issuanceOf(map(classless, "Class A Common")).stock_class_id).toBe("stock-class-Class A Common");
    expect(txOfType(map(classless, "Class A Common"), "TX_STOCK_ISSUANCE").map((i) => i.stock_class_id)).toEqual(Array(4).fill("stock-class-Class A Common"));
    // The source's class wins over the option, which is only for units that name none.
    expect(issuanceOf(map(baseUnit(), "Class A Common")).stock_class_id).toBe("stock-class-Common");
    // Neither: the placeholder class, marked for mapIssuer to settle (settlement-class.test.ts).
    const chosen = map(classless);
    expect(chosen.assumedSettlementClass).toBe(true);
    expect(issuanceOf(chosen).stock_class_id).toBe("stock-class-unstated-settlement-class");
    const noSettlements = map({ ...classless, settlements: [], releasedQuantity: "0", netSettledQuantity: "0", canceledQuantity: "0", forfeitedQuantity: "0", expiredQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" });
    expect(issuanceOf(noSettlements)).not.toHaveProperty("stock_class_id");
  });

  it("emits only objects ocf-sync's OCF 1.2.0 schemas accept", () => {
    const mapped = map();
    expectOcfSyncValidObjects([...mapped.transactions, ...mapped.vestingTerms]);
    expect(mapped.warnings).toEqual([]);
  });

  it("numbers settlements by date, whatever order the service lists them in", () => {
    const mapped = map();
    const releases = txOfType(mapped, "TX_EQUITY_COMPENSATION_RELEASE");
    expect(releases.map((r) => [r.id, r.date])).toEqual([
      ["rsu-8550-release-1", "2016-06-05"],
      ["rsu-8550-release-2", "2017-06-05"],
      ["rsu-8550-release-3", "2018-06-05"],
    ]);
    const shuffled = { ...baseUnit(), settlements: [...baseUnit().settlements].reverse() };
    expect(map(shuffled).transactions).toEqual(mapped.transactions);
  });

  it("releases the gross units and issues the net shares (policy A), carrying the rest in text", () => {
    const mapped = map(withSettlements([settlement()]));
    const release = txById(mapped, "rsu-8550-release-1") as OcfEquityCompensationRelease;
    expect(release).toEqual({
      object_type: "TX_EQUITY_COMPENSATION_RELEASE",
      id: "rsu-8550-release-1",
      date: "2017-06-05",
      security_id: "rsu-8550",
      settlement_date: "2017-06-05",
      release_price: { amount: "0.78", currency: "USD" },
      quantity: "200",
      consideration_text: "Gross 200 units released; withheld 55; sold 200; net 145 shares delivered.",
      resulting_security_ids: ["rsu-8550-settlement-1", "rsu-8550-settlement-1-sold"],
      comments: [
        "Settlement 1 of rsu-8550 (net settlement policy A): the gross units are released; the net shares delivered are issued to the holder and the shares sold to cover taxes to the sell-to-cover stakeholder; withheld shares are never issued.",
        "Release price from the settlement's settlementPrice.",
        'Certificate: certificate id "78", certificate label "CS-124".',
      ],
    });
    const delivered = txById(mapped, "rsu-8550-settlement-1-issuance") as OcfStockIssuance;
    expect(delivered).toMatchObject({
      object_type: "TX_STOCK_ISSUANCE",
      security_id: "rsu-8550-settlement-1",
      custom_id: "CS-124",
      stakeholder_id: "stakeholder-6113",
      stock_class_id: "stock-class-Common",
      share_price: { amount: "0", currency: "USD" },
      cost_basis: { amount: "0.78", currency: "USD" },
      quantity: "145",
      date: "2017-06-05",
    });
    expect(delivered).not.toHaveProperty("issuance_type");
    const sold = txById(mapped, "rsu-8550-settlement-1-sold-issuance") as OcfStockIssuance;
    expect(sold).toMatchObject({
      security_id: "rsu-8550-settlement-1-sold",
      custom_id: "CS-124 (sold to cover)",
      stakeholder_id: "market-sell-to-cover",
      stock_class_id: "stock-class-Common",
      share_price: { amount: "0", currency: "USD" },
      cost_basis: { amount: "0.78", currency: "USD" },
      quantity: "200",
    });
    expect(mapped.uses.soldToCover).toBe(true);
    // Carta's own example: 200 released, 200 sold, 55 withheld, 145 net. Reported, never "fixed".
    expect(mapped.warnings.map((w) => [w.code, w.path])).toContainEqual(["SETTLEMENT_PARTS_MISMATCH", "settlements[0]"]);
  });

  it("uses the unit's releasePricePerShare when a settlement has no price, and says so", () => {
    const { settlementPrice: _, ...unpriced } = settlement();
    const mapped = map(withSettlements([unpriced]));
    const release = txById(mapped, "rsu-8550-release-1") as OcfEquityCompensationRelease;
    expect(release.release_price).toEqual({ amount: "0.78", currency: "USD" });
    expect(release.comments).toContain("Release price from the unit's releasePricePerShare (the settlement has no settlementPrice).");
    expect(txOfType(mapped, "TX_STOCK_ISSUANCE")[0]?.cost_basis).toEqual({ amount: "0.78", currency: "USD" });
  });

  it("warns when a settlement is priced in another currency than the unit's release price, and converts nothing", () => {
    const mapped = map(withSettlements([settlement({ settlementPrice: { currency: "EUR", amount: "0.71" } })]));
    const release = txById(mapped, "rsu-8550-release-1") as OcfEquityCompensationRelease;
    expect(release.release_price).toEqual({ amount: "0.71", currency: "EUR" });
    expect(txOfType(mapped, "TX_STOCK_ISSUANCE").map((i) => [i.share_price, i.cost_basis])).toEqual([
      [{ amount: "0", currency: "EUR" }, { amount: "0.71", currency: "EUR" }],
      [{ amount: "0", currency: "EUR" }, { amount: "0.71", currency: "EUR" }],
    ]);
    const warning = mapped.warnings.find((w) => w.code === "SETTLEMENT_CURRENCY_MISMATCH");
    expect(warning?.path).toBe("settlements[0].settlementPrice.currencyCode");
    expect(warning?.message).toContain("is EUR, but the unit's releasePricePerShare is in USD (0.78 USD)");
    // The same currency, or no unit price to compare with: no warning.
    const same = map(withSettlements([settlement()]));
    expect(same.warnings.map((w) => w.code)).not.toContain("SETTLEMENT_CURRENCY_MISMATCH");
    const { releasePricePerShare: _p, ...unpricedUnit } = withSettlements([settlement({ settlementPrice: { currency: "EUR", amount: "0.71" } })]);
    expect(map(unpricedUnit).warnings.map((w) => w.code)).not.toContain("SETTLEMENT_CURRENCY_MISMATCH");
  });

  it("fails the unit when neither the settlement nor the unit has a price", () => {
    const { settlementPrice: _, ...unpriced } = settlement();
    const { releasePricePerShare: _p, ...unit } = withSettlements([unpriced]);
    const error = mappingErrorOf(() => map(unit));
    expect(error.code).toBe("MAPPING_MISSING_VALUE");
    expect(error.path).toBe("settlements[0].settlementPrice");
  });

  it("issues nothing to the holder for a net of 0, and nothing at all when nothing was sold either", () => {
    const mapped = map(withSettlements([settlement({ netSettlementQuantity: "0", saleQuantity: "145" })]));
    expect((txById(mapped, "rsu-8550-release-1") as OcfEquityCompensationRelease).resulting_security_ids).toEqual(["rsu-8550-settlement-1-sold"]);
    expect(txOfType(mapped, "TX_STOCK_ISSUANCE").map((i) => i.stakeholder_id)).toEqual(["market-sell-to-cover"]);
    const withheld = map(withSettlements([settlement({ netSettlementQuantity: "0", saleQuantity: "0", withholdingQuantity: "200" })]));
    expect((txById(withheld, "rsu-8550-release-1") as OcfEquityCompensationRelease).resulting_security_ids).toEqual([]);
    expect(txOfType(withheld, "TX_STOCK_ISSUANCE")).toEqual([]);
  });

  it("issues nothing for an absent net, derives nothing, and warns", () => {
    const { netSettlementQuantity: _, ...noNet } = settlement();
    const mapped = map(withSettlements([noNet]));
    const release = txById(mapped, "rsu-8550-release-1") as OcfEquityCompensationRelease;
    expect(release.resulting_security_ids).toEqual(["rsu-8550-settlement-1-sold"]);
    expect(release.consideration_text).toBe("Gross 200 units released; withheld 55; sold 200; net not reported shares delivered.");
    expect(mapped.warnings.map((w) => w.code)).toContain("SETTLEMENT_NET_MISSING");
  });

  it("falls back to the certificate id, then to the security id, for the delivered shares' custom_id", () => {
    const { certificateLabel: _l, ...noLabel } = settlement();
    const { certificateId: _i, ...neither } = noLabel;
    expect(txOfType(map(withSettlements([noLabel])), "TX_STOCK_ISSUANCE")[0]?.custom_id).toBe("78");
    expect(txOfType(map(withSettlements([neither])), "TX_STOCK_ISSUANCE")[0]?.custom_id).toBe("rsu-8550-settlement-1");
  });

  it("cancels the counters of one event once, with the breakdown in reason_text, and returns to the pool", () => {
    const mapped = map();
    const cancellations = txOfType(mapped, "TX_EQUITY_COMPENSATION_CANCELLATION");
    expect(cancellations.map((c) => [c.id, c.quantity, c.reason_text])).toEqual([
      ["rsu-8550-cancellation", "500", "Canceled 500 (canceledQuantity: 375 forfeited (forfeitedQuantity), 125 expired (expiredQuantity); stakeholder terminated 2018-06-15)"],
    ]);
    // Every unit not released is cancelled: the security ends with nothing left, so no balance.
    expect(cancellations.every((c) => c.date === "2018-07-01" && !("balance_security_id" in c))).toBe(true);
    expect(txById(mapped, "rsu-8550-return-to-pool")).toMatchObject({ quantity: "400", date: "2018-07-01", security_id: "rsu-8550" });
  });

  it("cancels canceledQuantity once when no breakdown is reported", () => {
    const unit = { ...baseUnit(), forfeitedQuantity: "0", expiredQuantity: "0" };
    const mapped = map(unit);
    expect(txOfType(mapped, "TX_EQUITY_COMPENSATION_CANCELLATION").map((c) => [c.id, c.quantity, c.reason_text])).toEqual([
      ["rsu-8550-cancellation", "500", "Canceled 500 (canceledQuantity; stakeholder terminated 2018-06-15)"],
    ]);
    expect(mapped.warnings).toEqual([]);
  });

  it("cancels canceledQuantity once, and warns, when the breakdown disagrees", () => {
    const mapped = map({ ...baseUnit(), forfeitedQuantity: "100" });
    const cancellations = txOfType(mapped, "TX_EQUITY_COMPENSATION_CANCELLATION");
    expect(cancellations.map((c) => [c.id, c.quantity])).toEqual([["rsu-8550-cancellation", "500"]]);
    expect(cancellations[0]?.reason_text).toContain("100 forfeited (forfeitedQuantity), 125 expired (expiredQuantity), which do not add up to it");
    expect(mapped.warnings.map((w) => w.code)).toEqual(["CANCELLATION_BREAKDOWN_MISMATCH"]);
  });

  it("cancels forfeited + expired once when no canceled total is reported", () => {
    const { canceledQuantity: _, ...unit } = baseUnit();
    const mapped = map(unit);
    // Pool 400 + treasury 100 are the 500 forfeited and expired: nothing to report.
    expect(mapped.warnings.map((w) => w.code)).not.toContain("CANCELLATION_BREAKDOWN_MISMATCH");
    const cancellations = txOfType(mapped, "TX_EQUITY_COMPENSATION_CANCELLATION");
    expect(cancellations.map((c) => [c.id, c.quantity, c.reason_text])).toEqual([
      ["rsu-8550-cancellation", "500", "Canceled 500: 375 forfeited (forfeitedQuantity), 125 expired (expiredQuantity) (no canceledQuantity sent); stakeholder terminated 2018-06-15"],
    ]);
  });

  it("moves what remains to a balance issuance when the cancellation leaves units, and later releases act on it", () => {
    // Terminated with the third year vested but not yet settled: only the unvested 375 are forfeited.
    const unit: RestrictedStockUnit = {
      ...baseUnit(),
      canceledQuantity: "375",
      forfeitedQuantity: "375",
      expiredQuantity: "0",
      returnedToPoolQuantity: "375",
      returnedToTreasuryQuantity: "0",
      settlements: baseUnit().settlements.map((s) => (s.certificateId === "c-3" ? { ...s, settlementDate: "2018-09-01" } : s)),
    };
    const mapped = map(unit);
    expect(txById(mapped, "rsu-8550-cancellation")).toMatchObject({ quantity: "375", balance_security_id: "rsu-8550-balance" });
    const balance = txById(mapped, "rsu-8550-balance-issuance") as OcfEquityCompensationIssuance;
    expect(balance).toMatchObject({ compensation_type: "RSU", quantity: "375", date: "2018-07-01", stakeholder_id: "stakeholder-6113", stock_class_id: "stock-class-Common" });
    expect(balance).not.toHaveProperty("vestings");
    expect(txById(mapped, "rsu-8550-release-3")).toMatchObject({ security_id: "rsu-8550-balance", quantity: "250" });
    expect(txById(mapped, "rsu-8550-release-2")).toMatchObject({ security_id: "rsu-8550" });
    // 1125 vested by then, 750 released: 375 held, which is what the balance carries.
    expect(mapped.warnings.filter((w) => w.code === "BALANCE_VESTING_MISMATCH")).toEqual([]);
  });

  it.each([
    ["releasedQuantity", "999", "RELEASED_SUM_MISMATCH"],
    ["netSettledQuantity", "699", "NET_SETTLED_SUM_MISMATCH"],
    ["vestedQuantity", "750", "RELEASED_EXCEEDS_VESTED"],
  ] as const)("reports a %s the settlements contradict, and maps the numbers as sent", (field, value, code) => {
    const mapped = map({ ...baseUnit(), [field]: value });
    expect(mapped.warnings.map((w) => w.code)).toContain(code);
    expect(mapped.warnings.every((w) => w.record?.recordId === "8550")).toBe(true);
    expect(txOfType(mapped, "TX_EQUITY_COMPENSATION_RELEASE").map((r) => r.quantity)).toEqual(["375", "375", "250"]);
  });

  it("compares pool and treasury with the forfeited and expired units when no canceled total is reported", () => {
    const { canceledQuantity: _, ...unit } = { ...baseUnit(), returnedToPoolQuantity: "450" };
    expect(map(unit).warnings.filter((w) => w.code === "CANCELLATION_BREAKDOWN_MISMATCH").map((w) => w.message)).toEqual([
      'restrictedStockUnit "8550" of issuer "7", returnedToPoolQuantity: returnedToPoolQuantity 450 + returnedToTreasuryQuantity 100 is 550, not the 500 forfeited and expired',
    ]);
  });

  it.each([
    ["a settlement's price", (u: RestrictedStockUnit): RestrictedStockUnit => ({ ...u, settlements: u.settlements.map((s, i) => (i === 1 ? { ...s, settlementPrice: { currency: "USD", amount: "-1.2" } } : s)) }), "settlements[1].settlementPrice.amount"],
    ["the unit's release price", (u: RestrictedStockUnit): RestrictedStockUnit => ({ ...u, releasePricePerShare: { currency: "USD", amount: "-0.78" } }), "releasePricePerShare.amount"],
  ])("fails a unit with a negative price: %s", (_what, change, path) => {
    const error = mappingErrorOf(() => map(change(baseUnit())));
    expect([error.code, error.path]).toEqual(["MAPPING_CONFLICT", path]);
    expect(error.message).toMatch(/is -[0-9.]+: a price cannot be negative$/);
  });

  it("fails a unit that cancels more than its releases left outstanding (OCF could not hold it)", () => {
    const error = mappingErrorOf(() => map({ ...baseUnit(), quantity: "1400" }));
    expect(error.code).toBe("MAPPING_CONFLICT");
    expect(error.path).toBe("canceledQuantity");
    expect(error.message).toContain("cancels 500 units on 2018-07-01, but only 400 are outstanding then (quantity 1400 less 1000 released)");
  });

  it("fails a unit that releases after it was cancelled in full", () => {
    const late = baseUnit().settlements.map((s) => (s.certificateId === "c-3" ? { ...s, settlementDate: "2018-09-01" } : s));
    const error = mappingErrorOf(() => map({ ...baseUnit(), settlements: late, canceledQuantity: "750", forfeitedQuantity: "625", returnedToPoolQuantity: "650" }));
    expect(error.code).toBe("MAPPING_CONFLICT");
    expect(error.path).toBe("settlements");
    expect(error.message).toContain("after the cancellation on 2018-07-01 release 250 units, more than the 0 left outstanding by it");
  });

  it("emits the acceptance when the holder accepted", () => {
    expect(txById(map(), "rsu-8550-acceptance")).toEqual({
      object_type: "TX_EQUITY_COMPENSATION_ACCEPTANCE",
      id: "rsu-8550-acceptance",
      date: "2015-06-10",
      security_id: "rsu-8550",
    });
    const { stakeholderAcceptanceDate: _, ...unaccepted } = baseUnit();
    expect(txOfType(map(unaccepted), "TX_EQUITY_COMPENSATION_ACCEPTANCE")).toEqual([]);
  });

  it("fails a settlement without a date or a release quantity", () => {
    const { settlementDate: _d, ...undated } = settlement();
    expect(mappingErrorOf(() => map(withSettlements([undated]))).path).toBe("settlements[0].settlementDate");
    const { releaseQuantity: _q, ...noGross } = settlement();
    expect(mappingErrorOf(() => map(withSettlements([noGross]))).path).toBe("settlements[0].releaseQuantity");
  });
});

describeConformance("the official OCF 1.2.0 schemas", () => {
  it("accept every object mapUnit emits", () => {
    const mapped = map();
    expectOfficiallyValidObjects([...mapped.transactions, ...mapped.vestingTerms]);
  });
});
