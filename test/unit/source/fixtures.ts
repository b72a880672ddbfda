/**
 * Shared inputs of the source-parsing tests: the project's own records, written as the service sends
 * them (every field of the spec filled in, decimals and dates in their wrappers), and readers of the
 * third-party descriptions for the conformance suites (the OpenAPI document's example payloads and
 * schemas, the spec, the data schema), which work only inside `describeConformance`.
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { SourceRecordError } from "../../../src/source/errors.js";
import { sharedPath } from "../../helpers/conformance.js";

type Json = Record<string, unknown>;

const wrapped = (value: string): Json => ({ value });
const usd = (amount: string): Json => ({ currencyCode: { value: "USD" }, amount: { value: amount } });

/** A vesting event with every field, all four quantities equal: one met tranche. */
const tranche = (id: string, date: string, quantity: string): Json => ({
  id,
  vestDate: wrapped(date),
  quantity: wrapped(quantity),
  performanceCondition: false,
  vested: true,
  maxQuantity: wrapped(quantity),
  targetQuantity: wrapped(quantity),
  vestedQuantity: wrapped(quantity),
});

/**
 * An RSA of issuer "7" with every spec field: 48,000 shares at $0.0025, half vested in two yearly
 * tranches before it was cancelled on 2023-04-28.
 */
export const awardRecord = (): Json => ({
  id: "3104",
  issuerId: "7",
  stakeholderId: "5402",
  equityIncentivePlanName: "2020 Stock Plan",
  shareClassName: "Common",
  issueDate: wrapped("2020-10-15"),
  vestingStartDate: wrapped("2020-10-01"),
  boardApprovalDate: wrapped("2020-10-08"),
  stakeholderAcceptanceDate: wrapped("2020-10-22"),
  canceledDate: wrapped("2023-04-28"),
  quantity: wrapped("48000"),
  vestedQuantity: wrapped("24000"),
  securityLabel: "RSA-12",
  pricePerShare: usd("0.0025"),
  vestingEvents: [tranche("77012", "2021-10-01", "12000"), tranche("77013", "2022-10-01", "12000")],
  vestingSchedule: {
    name: "1/4 yearly, no cliff",
    lastModifiedDate: wrapped("2020-10-15"),
    startDate: wrapped("2020-10-01"),
    endDate: wrapped("2024-10-01"),
  },
  lastModifiedDatetime: wrapped("2023-05-02T14:20:05.000000Z"),
});

/**
 * An RSU of issuer "7" with every spec field: 2,400 units, two yearly tranches of 600 vested, the
 * first released on 2022-03-02 (198 withheld for tax, 402 shares delivered on certificate CS-88).
 */
export const unitRecord = (): Json => ({
  id: "5570",
  issuerId: "7",
  stakeholderId: "5417",
  equityIncentivePlanName: "2020 Stock Plan",
  issueDate: wrapped("2021-03-15"),
  vestingStartDate: wrapped("2021-03-01"),
  boardApprovalDate: wrapped("2021-03-10"),
  stakeholderAcceptanceDate: wrapped("2021-03-19"),
  quantity: wrapped("2400"),
  vestedQuantity: wrapped("1200"),
  releasedQuantity: wrapped("600"),
  releasePricePerShare: usd("4.25"),
  netSettledQuantity: wrapped("402"),
  securityLabel: "RSU-31",
  vestingEvents: [tranche("88120", "2022-03-01", "600"), tranche("88121", "2023-03-01", "600")],
  settlements: [
    {
      settlementDate: wrapped("2022-03-02"),
      releaseQuantity: wrapped("600"),
      saleQuantity: wrapped("0"),
      withholdingQuantity: wrapped("198"),
      netSettlementQuantity: wrapped("402"),
      settlementPrice: usd("4.25"),
      certificateId: "2210",
      certificateLabel: "CS-88",
    },
  ],
  vestingSchedule: {
    name: "1/4 yearly",
    lastModifiedDate: wrapped("2021-03-15"),
    startDate: wrapped("2021-03-01"),
    endDate: wrapped("2025-03-01"),
  },
  lastModifiedDatetime: wrapped("2023-03-03T08:00:12.000000Z"),
});

/**
 * An RSU as the service sends many real ones (source-api.md §12): few fields, no issuerId, decimals
 * zero-padded to twenty places.
 */
export const paddedUnitRecord = (): Json => ({
  id: "6021",
  stakeholderId: "5433",
  equityIncentivePlanName: "2022 Equity Plan",
  issueDate: wrapped("2022-09-12"),
  quantity: wrapped("3600.00000000000000000000"),
  vestedQuantity: wrapped("900.00000000000000000000"),
  releasedQuantity: wrapped("0"),
  netSettledQuantity: wrapped("0"),
  securityLabel: "RSU-58",
  vestingSchedule: { name: "1/16 quarterly" },
});

/** A JSON file of the third-party folder (conformance suites only). */
export function readSharedJson(relative: string): Json {
  return JSON.parse(readFileSync(sharedPath(relative), "utf8")) as Json;
}

/** A text file of the third-party folder (conformance suites only). */
export function readSharedText(relative: string): string {
  return readFileSync(sharedPath(relative), "utf8");
}

/** The component schemas of the service's OpenAPI document, by name (conformance suites only). */
export function oasSchemas(): Record<string, { example?: Json; properties?: Json }> {
  const oas = readSharedJson("carta-openapi/carta-issuer-api.openapi.json") as {
    components: { schemas: Record<string, { example?: Json; properties?: Json }> };
  };
  return oas.components.schemas;
}

/** A fresh copy of the `example` of an OpenAPI component schema (conformance suites only). */
export function oasExample(schemaName: string): Json {
  const example = oasSchemas()[schemaName]?.example;
  if (example === undefined) throw new Error(`OAS schema ${schemaName} has no example`);
  return structuredClone(example);
}

/** Runs `fn`, which must throw an instance of `errorClass`, and returns the error. */
export function thrownBy<E extends Error>(errorClass: abstract new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(errorClass);
    return error as E;
  }
  throw new Error(`expected a ${errorClass.name}, but nothing was thrown`);
}

/** Runs `fn`, which must throw a `SourceRecordError`, and returns the error. */
export const recordErrorOf = (fn: () => unknown): SourceRecordError => thrownBy(SourceRecordError, fn);

/** Every `[path, value]` of a JSON-like value whose value is `undefined` (there must be none). */
export function undefinedLeaves(value: unknown, at = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => undefinedLeaves(item, `${at}[${i}]`));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, item]) =>
      item === undefined ? [`${at}.${key}`] : undefinedLeaves(item, `${at}.${key}`),
    );
  }
  return [];
}
