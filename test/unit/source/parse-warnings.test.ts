import { describe, expect, it } from "vitest";
import { parseAward, parseUnit } from "../../../src/source/parse.js";
import { awardRecord, unitRecord } from "./fixtures.js";

const ctx = { issuerId: "7" };
type Json = Record<string, unknown>;

describe("unknown fields are tolerated and reported with their path", () => {
  it("reports an unknown key at every depth of an award", () => {
    const raw = awardRecord() as Json & { vestingEvents: Json[] };
    raw["foo"] = "bar";
    raw.vestingEvents.push({ id: "2", foo: 3 });
    (raw["vestingSchedule"] as Json)["cliffMonths"] = 12;
    (raw["pricePerShare"] as Json)["exchangeRate"] = { value: "1" };
    ((raw["pricePerShare"] as Json)["currencyCode"] as Json)["numeric"] = "840";
    (raw["quantity"] as Json)["scale"] = 20;
    raw["precededBy"] = { reason: "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_TRANSFERRED", securities: [{ id: "1", note: "x" }], at: null };

    const { record, warnings } = parseAward(raw, ctx);
    expect(record.vestingEvents[2]).toEqual({ id: "2", performanceCondition: false, vested: false });
    expect(Object.hasOwn(record, "foo")).toBe(false);
    expect(warnings.map((w) => [w.code, w.path, w.value])).toEqual([
      ["UNKNOWN_FIELD", "quantity.scale", 20],
      ["UNKNOWN_FIELD", "pricePerShare.currencyCode.numeric", "840"],
      ["UNKNOWN_FIELD", "pricePerShare.exchangeRate", { value: "1" }],
      ["UNKNOWN_FIELD", "vestingEvents[2].foo", 3],
      ["UNKNOWN_FIELD", "vestingSchedule.cliffMonths", 12],
      ["UNKNOWN_FIELD", "foo", "bar"],
      ["UNKNOWN_FIELD", "precededBy.securities[0].note", "x"],
      ["UNKNOWN_FIELD", "precededBy.at", null],
    ]);
    for (const warning of warnings) {
      expect(warning).toMatchObject({ issuerId: "7", kind: "restrictedStockAward", recordId: "3104" });
      expect(warning.message).toMatch(/^restrictedStockAward "3104" of issuer "7": .+: unknown field, ignored \(value .+\)$/);
    }
  });

  it("reports unknown keys of settlements and of a bare-string currency's Money", () => {
    const raw = unitRecord() as Json & { settlements: Json[] };
    raw.settlements[0]!["feeQuantity"] = { value: "1" };
    raw["releasePricePerShare"] = { currencyCode: "USD", amount: { value: "0.78" }, units: 1 };
    const { record, warnings } = parseUnit(raw, ctx);
    expect(record.releasePricePerShare).toEqual({ currency: "USD", amount: "0.78" });
    expect(warnings.map((w) => w.path)).toEqual(["releasePricePerShare.units", "settlements[0].feeQuantity"]);
  });

  it("reports RSU-only fields sent on an award instead of dropping them silently", () => {
    const { warnings } = parseAward({ id: "1", settlements: [{ certificateId: "78" }], forfeitedQuantity: { value: "1" } }, ctx);
    expect(warnings.map((w) => [w.code, w.path])).toEqual([
      ["UNKNOWN_FIELD", "settlements"],
      ["UNKNOWN_FIELD", "forfeitedQuantity"],
    ]);
  });

  it("quotes keys that are not identifiers and is not fooled by __proto__", () => {
    const raw = JSON.parse('{"id":"1","__proto__":{"polluted":true},"odd key":1,"vestingEvents":[{"@type":"x"}]}') as unknown;
    const { record, warnings } = parseAward(raw, ctx);
    expect(warnings.map((w) => w.path)).toEqual(["__proto__", '["odd key"]', 'vestingEvents[0]["@type"]']);
    expect(({} as Json)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
  });
});

describe("other warnings", () => {
  it("flags negative quantities and prices, but not -0", () => {
    const raw = {
      id: "1",
      quantity: { value: "-456.0" },
      canceledQuantity: { value: "-0" },
      pricePerShare: { currencyCode: "USD", amount: { value: "-.5" } },
      vestingEvents: [{ vestedQuantity: { value: "-1e-3" }, vested: true }],
    };
    const { record, warnings } = parseAward(raw, ctx);
    expect(record.quantity).toBe("-456");
    expect(record.canceledQuantity).toBe("0");
    expect(warnings.map((w) => [w.code, w.path, w.value])).toEqual([
      ["NEGATIVE_DECIMAL", "quantity.value", "-456.0"],
      ["NEGATIVE_DECIMAL", "pricePerShare.amount.value", "-.5"],
      ["NEGATIVE_DECIMAL", "vestingEvents[0].vestedQuantity.value", "-1e-3"],
    ]);
  });

  it("reports a date-time truncated to microseconds", () => {
    const { record, warnings } = parseUnit({ id: "1", lastModifiedDatetime: { value: "2024-07-30T09:31:57.123456789Z" } }, ctx);
    expect(record.lastModifiedDatetime).toBe("2024-07-30T09:31:57.123456Z");
    expect(warnings).toEqual([
      {
        code: "DATETIME_TRUNCATED",
        issuerId: "7",
        kind: "restrictedStockUnit",
        recordId: "1",
        path: "lastModifiedDatetime.value",
        value: "2024-07-30T09:31:57.123456789Z",
        message:
          'restrictedStockUnit "1" of issuer "7": lastModifiedDatetime.value: "2024-07-30T09:31:57.123456789Z" has 9 fractional digits; truncated to microseconds',
      },
    ]);
  });

  it("keeps an unknown precededBy reason and reports it", () => {
    const reason = "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_SPLIT";
    const { record, warnings } = parseAward({ id: "1", precededBy: { reason } }, ctx);
    expect(record.precededBy?.reason).toBe(reason);
    expect(warnings.map((w) => [w.code, w.path, w.value])).toEqual([["UNKNOWN_ENUM_VALUE", "precededBy.reason", reason]]);
  });

  it("cross-checks a defaulted vested flag against vestedQuantity", () => {
    const events = [
      { id: "a", vestedQuantity: { value: "10" } },
      { id: "b", vested: false, vestedQuantity: { value: "10" } },
      { id: "c", vested: true, vestedQuantity: { value: "10" } },
      { id: "d", targetQuantity: { value: "10" } },
    ];
    const { warnings } = parseUnit({ id: "1", vestingEvents: events }, ctx);
    expect(warnings.map((w) => [w.code, w.path])).toEqual([
      ["VESTED_QUANTITY_WITHOUT_VESTED", "vestingEvents[0].vested"],
      ["VESTED_QUANTITY_WITHOUT_VESTED", "vestingEvents[1].vested"],
    ]);
  });
});

describe("a blank share class reference is absent (issue 25, item 1)", () => {
  it("takes an empty or white-space-only shareClassName and shareClassId as absent, with a BLANK_VALUE warning each, on awards and units", () => {
    for (const blank of ["", " ", "\t\n", "\u00a0"]) {
      const award = parseAward({ ...awardRecord(), shareClassName: blank, shareClassId: blank }, ctx);
      expect(Object.hasOwn(award.record, "shareClassName")).toBe(false);
      expect(Object.hasOwn(award.record, "shareClassId")).toBe(false);
      expect(award.warnings.map((w) => [w.code, w.path, w.value])).toEqual([
        ["BLANK_VALUE", "shareClassName", blank],
        ["BLANK_VALUE", "shareClassId", blank],
      ]);
      expect(award.warnings[0]?.message).toBe(`restrictedStockAward "3104" of issuer "7": shareClassName: ${JSON.stringify(blank)} is blank: taken as absent (the record names no share class this way)`);
      const unit = parseUnit({ ...unitRecord(), shareClassId: blank }, ctx);
      expect(Object.hasOwn(unit.record, "shareClassId")).toBe(false);
      expect(unit.warnings.map((w) => [w.code, w.path])).toEqual([["BLANK_VALUE", "shareClassId"]]);
    }
    // A name with white space around it is a name, kept as sent.
    expect(parseAward({ ...awardRecord(), shareClassName: " Common " }, ctx)).toMatchObject({ record: { shareClassName: " Common " }, warnings: [] });
  });
});
