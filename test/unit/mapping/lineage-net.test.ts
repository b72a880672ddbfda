/**
 * The net under the mapping: one record's transactions that do not read consistently under the
 * package's lineage are a MAPPING_INVALID_LINEAGE error naming the record (quarantinable on its own),
 * never transactions handed on to fail the whole package at validation. And every record the mapping
 * builds passes it, under both lineages.
 */
import { describe, expect, it } from "vitest";
import { isMappingError, type MappingError } from "../../../src/mapping/errors.js";
import { mapAward } from "../../../src/mapping/award.js";
import { mapUnit } from "../../../src/mapping/unit.js";
import { assertConsistentLineage } from "../../../src/mapping/validate.js";
import type { OcfTransaction } from "../../../src/ocf/types.js";
import { ISSUER_ID, baseAward, baseUnit } from "./fixtures.js";

const LOCATION = { issuerId: ISSUER_ID, kind: "restrictedStockAward" as const, recordId: "rsa-x" };

function issuance(id: string, securityId: string, quantity: string): OcfTransaction {
  return {
    object_type: "TX_STOCK_ISSUANCE",
    id,
    security_id: securityId,
    custom_id: securityId,
    date: "2024-01-01",
    stakeholder_id: "stakeholder-1",
    stock_class_id: "stock-class-Common",
    share_price: { amount: "0.01", currency: "USD" },
    quantity,
    stock_legend_ids: [],
    security_law_exemptions: [],
    issuance_type: "RSA",
  } as OcfTransaction;
}

function errorOf(run: () => void): MappingError {
  try {
    run();
  } catch (error) {
    if (isMappingError(error)) return error;
    throw error;
  }
  throw new Error("no error thrown");
}

describe("assertConsistentLineage", () => {
  const partial: OcfTransaction = {
    object_type: "TX_STOCK_CANCELLATION",
    id: "rsa-x-cancellation",
    security_id: "rsa-x",
    date: "2024-06-01",
    quantity: "400",
    reason_text: "Forfeited",
  } as OcfTransaction;

  it("takes a partial cancellation without a balance security under same-security", () => {
    expect(() => assertConsistentLineage(LOCATION, [issuance("rsa-x-issuance", "rsa-x", "1000"), partial], "same-security")).not.toThrow();
  });

  it("refuses it under the documents: the remainder is on no security, named with its code, record and path", () => {
    const error = errorOf(() => assertConsistentLineage(LOCATION, [issuance("rsa-x-issuance", "rsa-x", "1000"), partial], "documents"));
    expect(error.code).toBe("MAPPING_INVALID_LINEAGE");
    expect(error.message).toContain('"rsa-x"');
    expect(error.message).toContain('TX_STOCK_CANCELLATION "rsa-x-cancellation"');
    expect(error.message).toContain("[BALANCE_MISSING]");
  });

  it("refuses a balance of the wrong quantity and a cancellation of more than is outstanding", () => {
    const withBalance = { ...partial, balance_security_id: "rsa-x-balance" } as OcfTransaction;
    const wrongBalance = errorOf(() =>
      assertConsistentLineage(LOCATION, [issuance("rsa-x-issuance", "rsa-x", "1000"), withBalance, { ...issuance("rsa-x-balance-issuance", "rsa-x-balance", "500"), date: "2024-06-01" } as OcfTransaction], "documents"),
    );
    expect(wrongBalance.message).toContain("[BALANCE_MISMATCH]");
    const tooMuch = errorOf(() => assertConsistentLineage(LOCATION, [issuance("rsa-x-issuance", "rsa-x", "300"), partial], "same-security"));
    expect(tooMuch.code).toBe("MAPPING_INVALID_LINEAGE");
  });

  it("takes a release before its units vested (RELEASED_BEFORE_VESTED is a warning: validate calls the package valid), but not a problem beside it", () => {
    const units = {
      object_type: "TX_EQUITY_COMPENSATION_ISSUANCE",
      id: "rsu-x-issuance",
      security_id: "rsu-x",
      custom_id: "rsu-x",
      date: "2024-01-01",
      stakeholder_id: "stakeholder-1",
      stock_class_id: "stock-class-Common",
      compensation_type: "RSU",
      quantity: "1000",
      expiration_date: null,
      termination_exercise_windows: [],
      security_law_exemptions: [],
      vestings: [{ date: "2025-01-01", amount: "1000" }],
    } as unknown as OcfTransaction;
    const release = (id: string, quantity: string, date: string) =>
      ({ object_type: "TX_EQUITY_COMPENSATION_RELEASE", id, security_id: "rsu-x", date, settlement_date: date, quantity, resulting_security_ids: [] }) as unknown as OcfTransaction;
    for (const lineage of ["documents", "same-security"] as const) {
      expect(() => assertConsistentLineage(LOCATION, [units, release("rsu-x-release-1", "400", "2024-06-01")], lineage)).not.toThrow();
      const over = errorOf(() => assertConsistentLineage(LOCATION, [units, release("rsu-x-release-1", "400", "2024-06-01"), release("rsu-x-release-2", "700", "2024-07-01")], lineage));
      expect(over.message).toContain("[OVER_CONSUMED]");
      expect(over.message).not.toContain("[RELEASED_BEFORE_VESTED]");
    }
  });
});

describe("what the mapping builds", () => {
  it.each(["documents", "same-security"] as const)("passes the net under %s (awards and units of the fixtures)", (lineage) => {
    expect(mapAward(baseAward(), { issuerId: ISSUER_ID, options: { lineage } }).transactions.length).toBeGreaterThan(0);
    expect(mapUnit(baseUnit(), { issuerId: ISSUER_ID, options: { lineage, settlementStockClassName: "Common" } }).transactions.length).toBeGreaterThan(0);
  });
});
