import { describe, expect, it } from "vitest";
import { isOcfSyncError } from "../../../src/errors.js";
import { isSourceRecordError } from "../../../src/source/errors.js";
import type { RecordKind } from "../../../src/source/kinds.js";
import { parseAward, parseRecord, parseUnit } from "../../../src/source/parse.js";
import { awardRecord, recordErrorOf, unitRecord } from "./fixtures.js";

const ctx = { issuerId: "7" };
type Json = Record<string, unknown>;

/** The complete record of `kind` (see fixtures.ts), changed by `edit`. */
function example(kind: RecordKind, edit: (raw: Json & { vestingEvents: Json[]; settlements: Json[] }) => void): Json {
  const raw = (kind === "restrictedStockAward" ? awardRecord() : unitRecord()) as Json & {
    vestingEvents: Json[];
    settlements: Json[];
  };
  edit(raw);
  return raw;
}

interface Case {
  name: string;
  kind: RecordKind;
  edit: (raw: Json & { vestingEvents: Json[]; settlements: Json[] }) => void;
  path: (string | number)[];
  value: unknown;
  message: string;
}

const A = "restrictedStockAward";
const U = "restrictedStockUnit";
const long = (n: number): string => "x".repeat(n);

const cases: Case[] = [
  // decimals
  { name: "decimal with a comma", kind: A, edit: (r) => (r["quantity"] = { value: "200,000" }), path: ["quantity", "value"], value: "200,000", message: '"200,000" is not a decimal number' },
  { name: "decimal sent as a JSON number", kind: A, edit: (r) => (r["vestedQuantity"] = { value: 200000 }), path: ["vestedQuantity", "value"], value: 200000, message: "200000 is not a string" },
  { name: "NaN", kind: U, edit: (r) => (r["releasedQuantity"] = { value: "NaN" }), path: ["releasedQuantity", "value"], value: "NaN", message: '"NaN" is not a decimal number' },
  { name: "empty decimal", kind: U, edit: (r) => (r["expiredQuantity"] = { value: "" }), path: ["expiredQuantity", "value"], value: "", message: '"" is not a decimal number' },
  { name: "decimal with spaces", kind: A, edit: (r) => (r["canceledQuantity"] = { value: " 1" }), path: ["canceledQuantity", "value"], value: " 1", message: '" 1" is not a decimal number' },
  { name: "leading zeros", kind: A, edit: (r) => (r["returnedToPoolQuantity"] = { value: "007" }), path: ["returnedToPoolQuantity", "value"], value: "007", message: '"007" is not a decimal number' },
  { name: "huge exponent", kind: U, edit: (r) => (r["quantity"] = { value: "1e999999" }), path: ["quantity", "value"], value: "1e999999", message: '"1e999999" has an exponent beyond ±60' },
  { name: "bare decimal without wrapper", kind: A, edit: (r) => (r["quantity"] = "200000"), path: ["quantity"], value: "200000", message: '"200000" is not an object' },
  { name: "decimal in a vesting event", kind: A, edit: (r) => (r.vestingEvents[0]!["targetQuantity"] = { value: "1/2" }), path: ["vestingEvents", 0, "targetQuantity", "value"], value: "1/2", message: '"1/2" is not a decimal number' },
  { name: "decimal in a settlement", kind: U, edit: (r) => (r.settlements[0]!["netSettlementQuantity"] = { value: "Infinity" }), path: ["settlements", 0, "netSettlementQuantity", "value"], value: "Infinity", message: '"Infinity" is not a decimal number' },
  // dates
  { name: "impossible date", kind: A, edit: (r) => (r["issueDate"] = { value: "2023-02-30" }), path: ["issueDate", "value"], value: "2023-02-30", message: '"2023-02-30" is not a real calendar date' },
  { name: "Feb 29 in a common year", kind: U, edit: (r) => (r["boardApprovalDate"] = { value: "2023-02-29" }), path: ["boardApprovalDate", "value"], value: "2023-02-29", message: "is not a real calendar date" },
  { name: "unpadded date", kind: A, edit: (r) => (r["canceledDate"] = { value: "2022-5-2" }), path: ["canceledDate", "value"], value: "2022-5-2", message: "is not a date of the form YYYY-MM-DD" },
  { name: "date-time in a date", kind: U, edit: (r) => (r["terminationDate"] = { value: "2022-05-02T00:00:00Z" }), path: ["terminationDate", "value"], value: "2022-05-02T00:00:00Z", message: "is not a date of the form YYYY-MM-DD" },
  { name: "month 13 in a schedule", kind: A, edit: (r) => ((r["vestingSchedule"] as Json)["endDate"] = { value: "2024-13-01" }), path: ["vestingSchedule", "endDate", "value"], value: "2024-13-01", message: "is not a real calendar date" },
  { name: "date as a number", kind: U, edit: (r) => (r["issueDate"] = { value: 20150601 }), path: ["issueDate", "value"], value: 20150601, message: "20150601 is not a string" },
  // date-times
  { name: "date-time with a space", kind: A, edit: (r) => (r["lastModifiedDatetime"] = { value: "2024-07-30 09:31:57Z" }), path: ["lastModifiedDatetime", "value"], value: "2024-07-30 09:31:57Z", message: "is not a UTC date-time" },
  { name: "date-time with an offset", kind: U, edit: (r) => (r["lastModifiedDatetime"] = { value: "2024-07-30T09:31:57+01:00" }), path: ["lastModifiedDatetime", "value"], value: "2024-07-30T09:31:57+01:00", message: "is not a UTC date-time" },
  { name: "date-time without a zone", kind: A, edit: (r) => (r["lastModifiedDatetime"] = { value: "2024-07-30T09:31:57.000000" }), path: ["lastModifiedDatetime", "value"], value: "2024-07-30T09:31:57.000000", message: "is not a UTC date-time" },
  { name: "hour 24", kind: U, edit: (r) => (r["lastModifiedDatetime"] = { value: "2024-07-30T24:00:00Z" }), path: ["lastModifiedDatetime", "value"], value: "2024-07-30T24:00:00Z", message: "is not a valid time of day" },
  { name: "a date in a date-time wrapper", kind: A, edit: (r) => (r["lastModifiedDatetime"] = { value: "2025-05-15" }), path: ["lastModifiedDatetime", "value"], value: "2025-05-15", message: "is not a UTC date-time" },
  // money, object-shaped currency
  { name: "two-letter currency", kind: A, edit: (r) => (r["pricePerShare"] = { currencyCode: { value: "US" }, amount: { value: "1" } }), path: ["pricePerShare", "currencyCode", "value"], value: "US", message: '"US" is not a three-letter currency code' },
  { name: "currency with a digit", kind: U, edit: (r) => (r["releasePricePerShare"] = { currencyCode: { value: "US1" }, amount: { value: "1" } }), path: ["releasePricePerShare", "currencyCode", "value"], value: "US1", message: "is not a three-letter currency code" },
  { name: "money amount not a decimal", kind: A, edit: (r) => (r["pricePerShare"] = { currencyCode: { value: "USD" }, amount: { value: "$0.01" } }), path: ["pricePerShare", "amount", "value"], value: "$0.01", message: '"$0.01" is not a decimal number' },
  { name: "money without currency", kind: A, edit: (r) => (r["pricePerShare"] = { amount: { value: "0.01" } }), path: ["pricePerShare", "currencyCode"], value: undefined, message: "missing while amount is present" },
  { name: "money with an empty currency wrapper", kind: U, edit: (r) => (r["releasePricePerShare"] = { currencyCode: {}, amount: { value: "0.78" } }), path: ["releasePricePerShare", "currencyCode"], value: undefined, message: "missing while amount is present" },
  { name: "money without amount", kind: U, edit: (r) => (r.settlements[0]!["settlementPrice"] = { currencyCode: { value: "USD" } }), path: ["settlements", 0, "settlementPrice", "amount"], value: undefined, message: "missing while currencyCode is present" },
  // money, bare-string currency
  { name: "bare currency too long", kind: A, edit: (r) => (r["pricePerShare"] = { currencyCode: "EURO", amount: { value: "1" } }), path: ["pricePerShare", "currencyCode"], value: "EURO", message: '"EURO" is not a three-letter currency code' },
  { name: "bare currency symbol", kind: U, edit: (r) => (r["releasePricePerShare"] = { currencyCode: "$", amount: { value: "1" } }), path: ["releasePricePerShare", "currencyCode"], value: "$", message: "is not a three-letter currency code" },
  { name: "bare currency without amount", kind: A, edit: (r) => (r["pricePerShare"] = { currencyCode: "USD" }), path: ["pricePerShare", "amount"], value: undefined, message: "missing while currencyCode is present" },
  { name: "numeric currency", kind: A, edit: (r) => (r["pricePerShare"] = { currencyCode: 840, amount: { value: "1" } }), path: ["pricePerShare", "currencyCode"], value: 840, message: "840 is not a string or an object" },
  { name: "money as a string", kind: U, edit: (r) => (r["releasePricePerShare"] = "USD 0.78"), path: ["releasePricePerShare"], value: "USD 0.78", message: "is not an object" },
  // booleans
  { name: "vested as a string", kind: A, edit: (r) => (r.vestingEvents[0]!["vested"] = "true"), path: ["vestingEvents", 0, "vested"], value: "true", message: '"true" is not a boolean' },
  { name: "performanceCondition as a number", kind: U, edit: (r) => (r.vestingEvents[0]!["performanceCondition"] = 0), path: ["vestingEvents", 0, "performanceCondition"], value: 0, message: "0 is not a boolean" },
  // string lengths and types
  { name: "record id over 50", kind: A, edit: (r) => (r["id"] = long(51)), path: ["id"], value: long(51), message: "is longer than 50 characters (51)" },
  { name: "issuerId empty", kind: U, edit: (r) => (r["issuerId"] = ""), path: ["issuerId"], value: "", message: '"" is empty' },
  { name: "issuerId over 50", kind: A, edit: (r) => (r["issuerId"] = long(51)), path: ["issuerId"], value: long(51), message: "is longer than 50 characters" },
  { name: "stakeholderId over 50", kind: U, edit: (r) => (r["stakeholderId"] = long(51)), path: ["stakeholderId"], value: long(51), message: "is longer than 50 characters" },
  { name: "stakeholderId as a number", kind: A, edit: (r) => (r["stakeholderId"] = 6113), path: ["stakeholderId"], value: 6113, message: "6113 is not a string" },
  { name: "plan name over 100", kind: U, edit: (r) => (r["equityIncentivePlanName"] = long(101)), path: ["equityIncentivePlanName"], value: long(101), message: "is longer than 100 characters (101)" },
  { name: "share class name over 50", kind: A, edit: (r) => (r["shareClassName"] = long(51)), path: ["shareClassName"], value: long(51), message: "is longer than 50 characters" },
  { name: "security label over 50", kind: U, edit: (r) => (r["securityLabel"] = long(51)), path: ["securityLabel"], value: long(51), message: "is longer than 50 characters" },
  { name: "vesting event id over 50", kind: A, edit: (r) => (r.vestingEvents[0]!["id"] = long(51)), path: ["vestingEvents", 0, "id"], value: long(51), message: "is longer than 50 characters" },
  { name: "schedule name over 500", kind: U, edit: (r) => ((r["vestingSchedule"] as Json)["name"] = long(501)), path: ["vestingSchedule", "name"], value: long(501), message: "is longer than 500 characters (501)" },
  { name: "certificateId empty", kind: U, edit: (r) => (r.settlements[0]!["certificateId"] = ""), path: ["settlements", 0, "certificateId"], value: "", message: '"" is empty' },
  { name: "certificateId over 1000", kind: U, edit: (r) => (r.settlements[0]!["certificateId"] = long(1001)), path: ["settlements", 0, "certificateId"], value: long(1001), message: "is longer than 1000 characters (1001)" },
  { name: "securityId over 50", kind: A, edit: (r) => (r["securityId"] = long(51)), path: ["securityId"], value: long(51), message: "is longer than 50 characters" },
  { name: "vestingScheduleTemplateId as an object", kind: U, edit: (r) => (r["vestingScheduleTemplateId"] = { value: "t" }), path: ["vestingScheduleTemplateId"], value: { value: "t" }, message: "is not a string" },
  { name: "precededBy security id empty", kind: A, edit: (r) => (r["precededBy"] = { reason: "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_TRANSFERRED", securities: [{ id: "" }] }), path: ["precededBy", "securities", 0, "id"], value: "", message: '"" is empty' },
  // arrays and nesting
  { name: "vestingEvents as an object", kind: A, edit: (r) => ((r as Json)["vestingEvents"] = { id: "1988" }), path: ["vestingEvents"], value: { id: "1988" }, message: "is not an array" },
  { name: "a null vesting event", kind: U, edit: (r) => r.vestingEvents.push(null as unknown as Json), path: ["vestingEvents", 2], value: null, message: "null is not an object" },
  { name: "settlements as a string", kind: U, edit: (r) => ((r as Json)["settlements"] = "none"), path: ["settlements"], value: "none", message: '"none" is not an array' },
  { name: "deep path in a later settlement", kind: U, edit: (r) => r.settlements.push({ settlementPrice: { currencyCode: { value: "USD" }, amount: { value: "0..5" } } }), path: ["settlements", 1, "settlementPrice", "amount", "value"], value: "0..5", message: '"0..5" is not a decimal number' },
  { name: "schedule as a string", kind: A, edit: (r) => (r["vestingSchedule"] = "1/24 Cliff"), path: ["vestingSchedule"], value: "1/24 Cliff", message: "is not an object" },
  { name: "precededBy securities not an array", kind: A, edit: (r) => (r["precededBy"] = { securities: "CS-1" }), path: ["precededBy", "securities"], value: "CS-1", message: "is not an array" },
  // identity
  { name: "issuer mismatch", kind: U, edit: (r) => (r["issuerId"] = "8"), path: ["issuerId"], value: "8", message: '"8" is not the issuer the record was requested for ("7")' },
];

describe("a bad field fails its record with issuer, kind, record id, path and value", () => {
  it.each(cases)("$kind: $name", ({ kind, edit, path, value, message }) => {
    const raw = example(kind, edit);
    const error = recordErrorOf(() => parseRecord(kind, raw, ctx));
    expect(error.code).toBe("SOURCE_RECORD_INVALID");
    expect(error.issuerId).toBe("7");
    expect(error.kind).toBe(kind);
    expect(error.recordId).toBe(raw["id"]);
    expect(error.issues).toHaveLength(1);
    const [issue] = error.issues;
    expect(issue?.path).toEqual(path);
    expect(issue?.value).toEqual(value);
    expect(issue?.message).toContain(message);
    expect(error.message).toContain(`${kind} `);
    expect(error.message).toContain(`of issuer "7": ${issue?.pathText}: ${issue?.message}`);
  });
});

describe("SourceRecordError", () => {
  it("has the documented message form", () => {
    const raw = example(A, (r) => {
      r.vestingEvents.push({}, { vestDate: { value: "2023-02-30" } });
    });
    const error = recordErrorOf(() => parseAward(raw, ctx));
    expect(error.message).toBe(
      'restrictedStockAward "3104" of issuer "7": vestingEvents[3].vestDate.value: "2023-02-30" is not a real calendar date',
    );
    expect(error.issues[0]?.pathText).toBe("vestingEvents[3].vestDate.value");
    expect(error.name).toBe("SourceRecordError");
    expect(isOcfSyncError(error)).toBe(true);
    expect(isSourceRecordError(error)).toBe(true);
    expect(isSourceRecordError(new Error("x"))).toBe(false);
  });

  it("collects every issue of a record, not only the first, and names them all", () => {
    const raw = example(U, (r) => {
      r["quantity"] = { value: "1,500" };
      r.vestingEvents[0]!["vestDate"] = { value: "2016-06-31" };
      r.settlements[0]!["settlementPrice"] = { currencyCode: "usd" };
      r["issuerId"] = "9";
      r["extra"] = 1;
    });
    const error = recordErrorOf(() => parseUnit(raw, ctx));
    expect(error.issues.map((i) => i.pathText)).toEqual([
      "quantity.value",
      "vestingEvents[0].vestDate.value",
      "settlements[0].settlementPrice.amount",
      "issuerId",
    ]);
    for (const issue of error.issues) expect(error.message).toContain(`${issue.pathText}: ${issue.message}`);
  });

  it("shortens long values in the message but keeps them whole in the issue", () => {
    const value = `1${"0".repeat(300)},5`;
    const error = recordErrorOf(() => parseAward({ id: "1", quantity: { value } }, ctx));
    expect(error.issues[0]?.value).toBe(value);
    expect(error.message.length).toBeLessThan(200);
    expect(error.message).toContain("…");
  });

  it.each([
    ["missing", {}],
    ["null", { id: null }],
    ["empty", { id: "" }],
  ])("rejects a record whose id is %s: the project's identity rule", (_label, raw) => {
    for (const kind of [A, U] as const) {
      const error = recordErrorOf(() => parseRecord(kind, { ...raw, quantity: { value: "1" } }, ctx));
      expect(error.recordId).toBeUndefined();
      expect(error.issues).toEqual([
        { path: ["id"], pathText: "id", value: (raw as Json)["id"], message: "required to identify the record" },
      ]);
      expect(error.message).toBe(`${kind} (no id) of issuer "7": id: required to identify the record`);
    }
  });

  it("reports an id sent as a number by its digits while rejecting its type", () => {
    const error = recordErrorOf(() => parseAward({ id: 1191 }, ctx));
    expect(error.recordId).toBe("1191");
    expect(error.issues[0]).toMatchObject({ path: ["id"], value: 1191, message: "1191 is not a string" });
  });

  it.each([null, "1191", 42, [{ id: "1" }]])("rejects a record that is not an object (%j)", (raw) => {
    const error = recordErrorOf(() => parseUnit(raw, ctx));
    expect(error.recordId).toBeUndefined();
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toEqual([]);
    expect(error.issues[0]?.pathText).toBe("");
    expect(error.message).toMatch(/^restrictedStockUnit \(no id\) of issuer "7": .* is not an object$/);
  });

  it("counts string lengths in characters (code points), as JSON Schema does", () => {
    const label = "🚀".repeat(50);
    expect(parseAward({ id: "1", securityLabel: label }, ctx).record.securityLabel).toBe(label);
    const error = recordErrorOf(() => parseAward({ id: "1", securityLabel: `${label}x` }, ctx));
    expect(error.issues[0]?.message).toContain("is longer than 50 characters (51)");
  });

  it("accepts the limits themselves", () => {
    const { record } = parseUnit(
      {
        id: long(50),
        issuerId: long(50),
        equityIncentivePlanName: long(100),
        vestingSchedule: { name: long(500) },
        settlements: [{ certificateId: long(1000) }],
      },
      { issuerId: long(50) },
    );
    expect(record.vestingSchedule?.name).toHaveLength(500);
    expect(record.settlements[0]?.certificateId).toHaveLength(1000);
  });
});
