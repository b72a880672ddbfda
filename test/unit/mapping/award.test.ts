import { describe, expect, it } from "vitest";
import { mapAward } from "../../../src/mapping/award.js";
import type { OcfStockIssuance } from "../../../src/ocf/schemas.js";
import { describeConformance } from "../../helpers/conformance.js";
import { expectOcfSyncValidObjects } from "../../helpers/ocf-verdicts.js";
import { expectOfficiallyValidObjects } from "../../helpers/official-ocf.js";
import { ISSUER_ID, baseAward, mappingErrorOf, timeEvent, txById, txOfType } from "./fixtures.js";

const map = (award = baseAward()) => mapAward(award, { issuerId: ISSUER_ID });
const issuanceOf = (mapped: ReturnType<typeof map>): OcfStockIssuance =>
  txById(mapped, `rsa-${mapped.recordId}-issuance`) as OcfStockIssuance;

describe("mapAward", () => {
  it("makes a TX_STOCK_ISSUANCE flagged RSA from the award's fields", () => {
    const issuance = issuanceOf(map());
    expect(issuance).toMatchObject({
      object_type: "TX_STOCK_ISSUANCE",
      id: "rsa-1191-issuance",
      security_id: "rsa-1191",
      date: "2016-08-25",
      custom_id: "RSA-16",
      stakeholder_id: "stakeholder-6113",
      board_approval_date: "2016-08-01",
      security_law_exemptions: [],
      stock_class_id: "stock-class-Common",
      stock_plan_id: "stock-plan-2016 Equity Incentive Plan",
      share_price: { amount: "0.01", currency: "USD" },
      quantity: "4000",
      stock_legend_ids: [],
      issuance_type: "RSA",
    });
    expect(issuance.security_id).not.toBe(issuance.id);
  });

  it("emits only objects ocf-sync's OCF 1.2.0 schemas accept", () => {
    expectOcfSyncValidObjects([...map().transactions, ...map().vestingTerms]);
  });

  it("uses the award id as custom_id when there is no securityLabel", () => {
    const { securityLabel: _, ...award } = baseAward();
    expect(issuanceOf(map(award)).custom_id).toBe("1191");
  });

  it("keeps the facts OCF has no field for in the issuance's comments", () => {
    const comments = issuanceOf(map()).comments?.join("\n") ?? "";
    for (const fact of [
      'restricted stock award "1191" of issuer "7"',
      "vestedQuantity",
      "2000",
      "f07bc732-8b79-43e8-b5a4-01390fdb4ae6",
      "4519cc18-ee7f-4fb7-8a4b-b70a063de4f5",
      "69d23866-fd77-4347-a301-0441a3582782",
      "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_TRANSFERRED",
      'restricted_stock_award "1877" label "RSA-0"',
      "2021-03-04T05:06:07.000000Z",
      'Vesting schedule "Yearly over 4 years": start 2016-08-20, end 2020-08-20, last modified 2016-08-25.',
      "Vesting start date: 2016-08-20.",
      "Terminated on 2019-01-02 (terminationDate).",
    ]) {
      expect(comments).toContain(fact);
    }
  });

  it("emits the acceptance, the cancellation, the return to pool, and the treasury note", () => {
    const mapped = map();
    expect(txById(mapped, "rsa-1191-acceptance")).toEqual({
      object_type: "TX_STOCK_ACCEPTANCE",
      id: "rsa-1191-acceptance",
      date: "2016-09-01",
      security_id: "rsa-1191",
    });
    expect(txById(mapped, "rsa-1191-cancellation")).toEqual({
      object_type: "TX_STOCK_CANCELLATION",
      id: "rsa-1191-cancellation",
      date: "2019-01-10",
      security_id: "rsa-1191",
      quantity: "2000",
      balance_security_id: "rsa-1191-balance",
      reason_text: "Canceled 2000 (canceledQuantity; stakeholder terminated 2019-01-02)",
      comments: ["500 returned to treasury (returnedToTreasuryQuantity: annulled, not returned to the pool); OCF 1.2.0 has no transaction for this."],
    });
    expect(txById(mapped, "rsa-1191-return-to-pool")).toMatchObject({
      object_type: "TX_STOCK_PLAN_RETURN_TO_POOL",
      date: "2019-01-10",
      security_id: "rsa-1191",
      stock_plan_id: "stock-plan-2016 Equity Incentive Plan",
      quantity: "1500",
    });
    expect(mapped.warnings).toEqual([]);
  });

  it("ends the security at a partial cancellation and issues the remainder as its balance (OCF's documents)", () => {
    const mapped = map();
    const balance = txById(mapped, "rsa-1191-balance-issuance") as OcfStockIssuance;
    const { id: _i, security_id: _s, date: _d, custom_id: _c, quantity: _q, vestings: _v, comments: _m, ...sameAsGrant } = issuanceOf(mapped);
    expect(balance).toMatchObject({ ...sameAsGrant, security_id: "rsa-1191-balance", date: "2019-01-10", custom_id: "RSA-16-balance", quantity: "2000" });
    // Both tranches still to come were never earned (after the termination): the balance is fully vested.
    expect(balance).not.toHaveProperty("vestings");
    expect(balance).not.toHaveProperty("vesting_terms_id");
    expect(balance.comments?.[0]).toContain("the 2000 shares left outstanding by the cancellation of 2000 on 2019-01-10 (rsa-1191-cancellation, balance_security_id)");
    expect(mapped.transactions.filter((tx) => tx.security_id === "rsa-1191" && tx.date > "2019-01-10")).toEqual([]);
  });

  it("keeps the remainder on the same security, with no balance, under lineage same-security (OCF #531)", () => {
    const mapped = mapAward(baseAward(), { issuerId: ISSUER_ID, options: { lineage: "same-security" } });
    const cancellation = txOfType(mapped, "TX_STOCK_CANCELLATION")[0];
    expect(cancellation?.security_id).toBe("rsa-1191");
    expect(cancellation).not.toHaveProperty("balance_security_id");
    expect(mapped.transactions.map((tx) => tx.security_id)).not.toContain("rsa-1191-balance");
  });

  it("leaves tranches never earned (not vested, after the termination) out of the vestings, and names them", () => {
    const issuance = issuanceOf(map());
    expect(issuance.vestings).toEqual([
      { date: "2017-08-20", amount: "1000" },
      { date: "2018-08-20", amount: "1000" },
    ]);
    expect(issuance.comments).toContain('Not vested and after the termination on 2019-01-02, so never earned and left out of the vesting: "e3" 2019-08-20 1000, "e4" 2020-08-20 1000.');
  });

  it("carries the vested shares held over to the balance, and the tranches still to vest, after a cancellation without termination", () => {
    const { terminationDate: _, ...award } = { ...baseAward(), canceledDate: "2018-10-01", canceledQuantity: "1000", returnedToPoolQuantity: "1000", returnedToTreasuryQuantity: "0", vestingEvents: [
      timeEvent("e1", "2017-08-20", "1000", true),
      timeEvent("e2", "2018-08-20", "1000", true),
      timeEvent("e3", "2019-08-20", "1000", false),
    ] };
    const mapped = map(award);
    const balance = txById(mapped, "rsa-1191-balance-issuance") as OcfStockIssuance;
    expect(balance.quantity).toBe("3000");
    expect(balance.vestings).toEqual([
      { date: "2018-10-01", amount: "2000" },
      { date: "2019-08-20", amount: "1000" },
    ]);
    // The events left after the cancellation and the 1000 it took make the grant's 4000: the service lists the grant that remains.
    expect(mapped.warnings.map((w) => w.code)).toEqual([]);
    // Events that make the quantity neither alone nor with the cancellation are said, not fixed.
    const short = map({ ...award, vestingEvents: award.vestingEvents.slice(0, 2) });
    expect(short.warnings.map((w) => w.code)).toContain("VESTING_SUM_MISMATCH");
  });

  it("puts an acceptance after the cancellation on the balance security", () => {
    const mapped = map({ ...baseAward(), stakeholderAcceptanceDate: "2019-02-01" });
    expect(txById(mapped, "rsa-1191-balance-acceptance")).toMatchObject({ security_id: "rsa-1191-balance", date: "2019-02-01" });
  });

  it.each([
    ["cancels more than the grant", { canceledQuantity: "4001", returnedToPoolQuantity: "4001", returnedToTreasuryQuantity: "0" }, "canceledQuantity", "cancels 4001 shares on 2019-01-10, but only 4000 are outstanding"],
    ["cancels before its issue date", { canceledDate: "2016-01-01" }, "canceledDate", "before the grant's issueDate 2016-08-25"],
    ["returns more to the pool than it cancels", { returnedToPoolQuantity: "2500" }, "returnedToPoolQuantity", "more than the 2000 cancelled"],
    ["has a negative quantity", { quantity: "-4000" }, "quantity", "cannot be negative"],
    ["vests more than its quantity", { quantity: "1500", canceledQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" }, "vestingEvents", "more than the 1500 of the grant"],
  ] as const)("fails an award that %s: OCF could not hold it (quarantinable)", (_what, change, path, message) => {
    const error = mappingErrorOf(() => map({ ...baseAward(), ...change }));
    expect(error.code).toBe("MAPPING_CONFLICT");
    expect(error.path).toBe(path);
    expect(error.message).toContain(message);
  });

  it("dates the cancellation with terminationDate when there is no canceledDate, and says so", () => {
    const { canceledDate: _, ...award } = baseAward();
    const cancellation = txById(map(award), "rsa-1191-cancellation");
    expect(cancellation.date).toBe("2019-01-02");
    expect(cancellation.comments).toContain("Dated with terminationDate: the record has no canceledDate.");
  });

  it("fails the award when shares are cancelled without any date", () => {
    const { canceledDate: _c, terminationDate: _t, ...award } = baseAward();
    const error = mappingErrorOf(() => map(award));
    expect(error.code).toBe("MAPPING_MISSING_VALUE");
    expect(error.path).toBe("canceledDate");
    expect(error.message).toContain('restrictedStockAward "1191" of issuer "7"');
  });

  it("emits nothing for zero quantities", () => {
    const award = { ...baseAward(), canceledQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
    const kinds = map(award).transactions.map((tx) => tx.object_type);
    expect(kinds).not.toContain("TX_STOCK_CANCELLATION");
    expect(kinds).not.toContain("TX_STOCK_PLAN_RETURN_TO_POOL");
  });

  it("keeps a return to pool without a plan in the comments, with a warning", () => {
    const { equityIncentivePlanName: _, ...award } = baseAward();
    const mapped = map(award);
    expect(txOfType(mapped, "TX_STOCK_PLAN_RETURN_TO_POOL")).toEqual([]);
    expect(issuanceOf(mapped).comments).toContain("1500 returned to the pool (returnedToPoolQuantity), but the grant names no plan to return them to.");
    expect(issuanceOf(mapped)).not.toHaveProperty("stock_plan_id");
    expect(mapped.warnings.map((w) => w.code)).toEqual(["RETURN_TO_POOL_WITHOUT_PLAN"]);
  });

  it("puts shares returned to treasury on the issuance when nothing is cancelled (and warns about the counters)", () => {
    const award = { ...baseAward(), canceledQuantity: "0", returnedToPoolQuantity: "0" };
    const mapped = map(award);
    expect(issuanceOf(mapped).comments?.some((c) => c.startsWith("500 returned to treasury"))).toBe(true);
    expect(mapped.warnings.map((w) => w.code)).toEqual(["CANCELLATION_BREAKDOWN_MISMATCH"]);
  });

  it.each([
    ["pricePerShare", "share_price"],
    ["issueDate", "date"],
    ["quantity", "quantity"],
    ["stakeholderId", "stakeholder_id"],
  ] as const)("fails the award without %s (OCF requires %s; nothing is invented)", (field, _target) => {
    const award = { ...baseAward() } as Record<string, unknown>;
    delete award[field];
    const error = mappingErrorOf(() => mapAward(award as never, { issuerId: ISSUER_ID }));
    expect(error.code).toBe("MAPPING_MISSING_VALUE");
    expect(error.path).toBe(field);
    expect(error.record).toEqual({ kind: "restrictedStockAward", recordId: "1191" });
  });

  it("fails a value that needs more than 10 decimal places, naming the record and field", () => {
    const error = mappingErrorOf(() => map({ ...baseAward(), pricePerShare: { currency: "USD", amount: "0.00000000001" } }));
    expect(error.code).toBe("MAPPING_DECIMAL_PRECISION");
    expect(error.path).toBe("pricePerShare.amount");
    expect(error.value).toBe("0.00000000001");
    expect(error.message).toContain("0.00000000001");
  });

  it("fails a cancelled quantity that needs more than 10 decimal places, naming the field and the value as sent", () => {
    const error = mappingErrorOf(() => map({ ...baseAward(), canceledDate: "2021-01-01", canceledQuantity: "0.00000000001" }));
    expect([error.code, error.path, error.value]).toEqual(["MAPPING_DECIMAL_PRECISION", "canceledQuantity", "0.00000000001"]);
    expect(error.message).toContain("0.00000000001 needs 11 decimal places");
  });

  it("fails a negative price, naming the field and value (a price of zero is a price)", () => {
    const error = mappingErrorOf(() => map({ ...baseAward(), pricePerShare: { currency: "USD", amount: "-0.5" } }));
    expect([error.code, error.path, error.value]).toEqual(["MAPPING_CONFLICT", "pricePerShare.amount", "-0.5"]);
    expect(error.message).toContain("pricePerShare.amount: is -0.5: a price cannot be negative");
    expect(txOfType(map({ ...baseAward(), pricePerShare: { currency: "USD", amount: "-0" } }), "TX_STOCK_ISSUANCE")[0]?.share_price).toEqual({ currency: "USD", amount: "0" });
  });

  it("keeps 20-digit quantities and 10 decimal places exactly", () => {
    const quantity = "12345678901234567890.0123456789";
    const award = { ...baseAward(), quantity, vestingEvents: [], vestedQuantity: quantity, canceledQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
    expect(issuanceOf(map(award)).quantity).toBe(quantity);
  });

  it("rejects an award of another issuer", () => {
    const error = mappingErrorOf(() => map({ ...baseAward(), issuerId: "8" }));
    expect(error.code).toBe("MAPPING_CONFLICT");
    expect(error.path).toBe("issuerId");
  });

  it("does not depend on the order of the vesting events", () => {
    const award = baseAward();
    const reversed = { ...award, vestingEvents: [...award.vestingEvents].reverse() };
    expect(map(reversed)).toEqual(map(award));
  });
});

describeConformance("the official OCF 1.2.0 schemas", () => {
  it("accept every object mapAward emits", () => {
    expectOfficiallyValidObjects([...map().transactions, ...map().vestingTerms]);
  });
});
