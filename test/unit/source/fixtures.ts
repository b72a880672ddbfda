/**
 * Shared inputs of the source-parsing tests: the example payloads of Carta's OpenAPI document (read from
 * the shared reference copy, never copied into the project) and the Meetly record quoted in
 * source-api.md §12.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { SourceRecordError } from "../../../src/source/errors.js";

/** The read-only reference folder next to the project. */
export const SHARED_DIR = path.resolve(import.meta.dirname, "../../../../shared");

export function readSharedJson(relative: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(SHARED_DIR, relative), "utf8")) as Record<string, unknown>;
}

export function readSharedText(relative: string): string {
  return readFileSync(path.join(SHARED_DIR, relative), "utf8");
}

type Json = Record<string, unknown>;

const OAS = readSharedJson("carta-openapi/carta-issuer-api.openapi.json") as {
  components: { schemas: Record<string, { example?: Json; properties?: Json }> };
};

/** The OAS component schemas, by name. */
export const OAS_SCHEMAS = OAS.components.schemas;

/** A fresh deep copy of the `example` of an OAS component schema. */
export function oasExample(schemaName: string): Json {
  const example = OAS_SCHEMAS[schemaName]?.example;
  if (example === undefined) throw new Error(`OAS schema ${schemaName} has no example`);
  return structuredClone(example);
}

/** The RSA example of source-api.md §12 (the OAS example). */
export const awardExample = (): Json => oasExample("v1alpha1RestrictedStockAward");

/** The RSU example of source-api.md §12 (the OAS example). */
export const unitExample = (): Json => oasExample("v1alpha1RestrictedStockUnit");

/** The real, zero-padded RSU from Carta's Meetly sample issuer (source-api.md §12, quoted from CDS-G). */
export const meetlyUnit = (): Json => ({
  id: "8550",
  stakeholderId: "6113",
  equityIncentivePlanName: "Equity Incentive Plan 2023",
  issueDate: { value: "2015-06-01" },
  quantity: { value: "1500.00000000000000000000" },
  vestedQuantity: { value: "1500.00000000000000000000" },
  releasedQuantity: { value: "0" },
  netSettledQuantity: { value: "0" },
  securityLabel: "ES-136",
  vestingSchedule: { name: "1/48, 1Y cliff" },
});

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
