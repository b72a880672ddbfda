/**
 * The parser's field lists and limits against the three descriptions of the records: the project spec
 * (its markdown tables), Carta's OpenAPI document (OAS) and the newer data schema (CDS).
 */
import { describe, expect, it } from "vitest";
import type { RecordKind } from "../../../src/source/kinds.js";
import { NEWER_FIELDS, SPEC_FIELDS, WIRE_TYPE_NAMES, type SourceTypeName } from "../../../src/source/records.js";
import { parseRecord } from "../../../src/source/parse.js";
import { OAS_SCHEMAS, readSharedJson, readSharedText, recordErrorOf } from "./fixtures.js";

const SPEC_TEXT = readSharedText("spec/000_1e647d85944e1716.txt");
const CDS_DEFS = (
  readSharedJson("carta-openapi/carta-cap-table-data-schema.2026-06-22.schema.json") as {
    $defs: Record<string, { properties: Record<string, { type?: string; maxLength?: number; minLength?: number }> }>;
  }
).$defs;

/** The first-column names of the table under the heading that contains `heading`. */
function specTableFields(heading: string): string[] {
  const section = SPEC_TEXT.split(/^#{1,3} /m).find((s) => s.split("\n")[0]?.includes(heading));
  if (section === undefined) throw new Error(`no spec section ${heading}`);
  return section
    .split("\n")
    .filter((line) => line.startsWith("| "))
    .slice(1) // the header row (the separator row starts with "|-")
    .map((line) => line.split("|")[1]?.trim() ?? "");
}

const withoutNewer = (type: SourceTypeName): string[] =>
  SPEC_FIELDS[type].filter((field) => !(NEWER_FIELDS[type] ?? []).includes(field));

describe("SPEC_FIELDS", () => {
  it.each([
    ["restrictedStockAward", "(v1alpha1RestrictedStockAward)"],
    ["restrictedStockUnit", "(v1alpha1RestrictedStockUnit)"],
    ["vestingEvent", "Vesting event ("],
    ["settlement", "Settlement ("],
    ["vestingSchedule", "Vesting schedule ("],
  ] as const)("lists the project spec's %s fields, plus the newer ones", (type, heading) => {
    const specFields = specTableFields(heading);
    expect(specFields.length).toBeGreaterThanOrEqual(4);
    expect(new Set(withoutNewer(type))).toEqual(new Set(specFields));
    expect(withoutNewer(type)).toHaveLength(specFields.length);
  });

  it("lists the spec's Money parts", () => {
    expect(SPEC_TEXT).toContain("object `{ currencyCode: { value: string }, amount: { value: string } }`");
    expect(SPEC_FIELDS.money).toEqual(["currencyCode", "amount"]);
  });

  it.each(["restrictedStockAward", "restrictedStockUnit", "vestingEvent", "settlement", "vestingSchedule", "money"] as const)(
    "matches the OAS properties of %s, the newer fields aside",
    (type) => {
      const properties = OAS_SCHEMAS[WIRE_TYPE_NAMES[type]]?.properties ?? {};
      expect(new Set(withoutNewer(type))).toEqual(new Set(Object.keys(properties)));
    },
  );

  it("has identical RSA and RSU vesting events in OAS (one vestingEvent type suffices)", () => {
    const rsa = Object.keys(OAS_SCHEMAS["v1alpha1RestrictedStockAwardVestingEvent"]?.properties ?? {});
    const rsu = Object.keys(OAS_SCHEMAS["v1alpha1RestrictedStockUnitVestingEvent"]?.properties ?? {});
    expect(rsu).toEqual(rsa);
  });

  it.each([
    ["restrictedStockAward", "RestrictedStockAward"],
    ["restrictedStockUnit", "RestrictedStockUnit"],
    ["vestingEvent", "RestrictedStockUnitVestingEvent"],
    ["settlement", "RestrictedStockUnitSettlement"],
    ["vestingSchedule", "VestingSchedule"],
    ["money", "Money"],
    ["precededBy", "RestrictedStockAwardPrecededBy"],
    ["precededBySecurity", "PrecededBySecurity"],
  ] as const)("matches every CDS property of %s, newer fields included", (type, cdsName) => {
    expect(new Set(SPEC_FIELDS[type])).toEqual(new Set(Object.keys(CDS_DEFS[cdsName]?.properties ?? {})));
  });
});

/** How to place a string into a minimal record of each type, and where its issue is reported. */
const CONTAINERS: Record<string, { kind: RecordKind; cds: string; place: (field: string, value: string) => object; at: (string | number)[] }> = {
  award: { kind: "restrictedStockAward", cds: "RestrictedStockAward", place: (f, v) => ({ id: "1", [f]: v }), at: [] },
  unit: { kind: "restrictedStockUnit", cds: "RestrictedStockUnit", place: (f, v) => ({ id: "1", [f]: v }), at: [] },
  event: { kind: "restrictedStockAward", cds: "RestrictedStockAwardVestingEvent", place: (f, v) => ({ id: "1", vestingEvents: [{ [f]: v }] }), at: ["vestingEvents", 0] },
  settlement: { kind: "restrictedStockUnit", cds: "RestrictedStockUnitSettlement", place: (f, v) => ({ id: "1", settlements: [{ [f]: v }] }), at: ["settlements", 0] },
  schedule: { kind: "restrictedStockUnit", cds: "VestingSchedule", place: (f, v) => ({ id: "1", vestingSchedule: { [f]: v } }), at: ["vestingSchedule"] },
  predecessor: { kind: "restrictedStockAward", cds: "PrecededBySecurity", place: (f, v) => ({ id: "1", precededBy: { securities: [{ [f]: v }] } }), at: ["precededBy", "securities", 0] },
};

const limits = Object.entries(CONTAINERS).flatMap(([name, container]) =>
  Object.entries(CDS_DEFS[container.cds]?.properties ?? {})
    .filter(([, property]) => property.type === "string" && (property.maxLength !== undefined || property.minLength !== undefined))
    .map(([field, property]) => ({
      label: `${name}.${field} (${property.minLength ?? 0} to ${property.maxLength ?? "any"} characters)`,
      field,
      container,
      max: property.maxLength,
      min: property.minLength ?? 0,
    })),
);

describe("string limits declared by CDS", () => {
  it("covers every limited string field", () => {
    expect(limits.length).toBeGreaterThanOrEqual(20);
  });

  it.each(limits)("$label", ({ field, container, max, min }) => {
    const parse = (value: string) => {
      // The record id is also the project's identity (never empty), and issuerId must match the request.
      const issuerId = field === "issuerId" && container.at.length === 0 ? value : "7";
      return parseRecord(container.kind, container.place(field, value), { issuerId });
    };
    const isRecordId = field === "id" && container.at.length === 0;
    if (max !== undefined) {
      expect(() => parse("x".repeat(max))).not.toThrow();
      const error = recordErrorOf(() => parse("x".repeat(max + 1)));
      expect(error.issues.map((i) => i.path)).toEqual([[...container.at, field]]);
    }
    const shortest = Math.max(min, isRecordId ? 1 : 0);
    if (shortest > 0) {
      const error = recordErrorOf(() => parse("x".repeat(shortest - 1)));
      expect(error.issues.map((i) => i.path)).toEqual([[...container.at, field]]);
    } else {
      expect(() => parse("")).not.toThrow();
    }
  });
});
