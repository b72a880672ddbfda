/**
 * The parser's field lists and string limits. The limits are the project's own table, tested on their
 * own; the conformance suites check the field lists and that table against the three third-party
 * descriptions of the records: the project spec (its markdown tables), Carta's OpenAPI document (OAS)
 * and the newer data schema (CDS).
 */
import { describe, expect, it } from "vitest";
import type { RecordKind } from "../../../src/source/kinds.js";
import { NEWER_FIELDS, SPEC_FIELDS, WIRE_TYPE_NAMES, type SourceTypeName } from "../../../src/source/records.js";
import { parseRecord } from "../../../src/source/parse.js";
import { describeConformance } from "../../helpers/conformance.js";
import { oasSchemas, readSharedJson, readSharedText, recordErrorOf } from "./fixtures.js";

type CdsDefs = Record<string, { properties: Record<string, { type?: string; maxLength?: number; minLength?: number }> }>;

const specText = (): string => readSharedText("spec/000_1e647d85944e1716.txt");
const cdsDefs = (): CdsDefs =>
  (readSharedJson("carta-openapi/carta-cap-table-data-schema.2026-06-22.schema.json") as { $defs: CdsDefs }).$defs;

/** The first-column names of the table under the heading that contains `heading`. */
function specTableFields(heading: string): string[] {
  const section = specText().split(/^#{1,3} /m).find((s) => s.split("\n")[0]?.includes(heading));
  if (section === undefined) throw new Error(`no spec section ${heading}`);
  return section
    .split("\n")
    .filter((line) => line.startsWith("| "))
    .slice(1) // the header row (the separator row starts with "|-")
    .map((line) => line.split("|")[1]?.trim() ?? "");
}

const withoutNewer = (type: SourceTypeName): string[] =>
  SPEC_FIELDS[type].filter((field) => !(NEWER_FIELDS[type] ?? []).includes(field));

describeConformance("SPEC_FIELDS against the spec, the OpenAPI document and the data schema", () => {
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
    expect(specText()).toContain("object `{ currencyCode: { value: string }, amount: { value: string } }`");
    expect(SPEC_FIELDS.money).toEqual(["currencyCode", "amount"]);
  });

  it.each(["restrictedStockAward", "restrictedStockUnit", "vestingEvent", "settlement", "vestingSchedule", "money"] as const)(
    "matches the OAS properties of %s, the newer fields aside",
    (type) => {
      const properties = oasSchemas()[WIRE_TYPE_NAMES[type]]?.properties ?? {};
      expect(new Set(withoutNewer(type))).toEqual(new Set(Object.keys(properties)));
    },
  );

  it("has identical RSA and RSU vesting events in OAS (one vestingEvent type suffices)", () => {
    const schemas = oasSchemas();
    const rsa = Object.keys(schemas["v1alpha1RestrictedStockAwardVestingEvent"]?.properties ?? {});
    const rsu = Object.keys(schemas["v1alpha1RestrictedStockUnitVestingEvent"]?.properties ?? {});
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
    expect(new Set(SPEC_FIELDS[type])).toEqual(new Set(Object.keys(cdsDefs()[cdsName]?.properties ?? {})));
  });
});

/** How to place a string into a minimal record of each type, and where its issue is reported. */
const CONTAINERS = {
  award: { kind: "restrictedStockAward", cds: "RestrictedStockAward", place: (f: string, v: string) => ({ id: "1", [f]: v }), at: [] },
  unit: { kind: "restrictedStockUnit", cds: "RestrictedStockUnit", place: (f: string, v: string) => ({ id: "1", [f]: v }), at: [] },
  event: { kind: "restrictedStockAward", cds: "RestrictedStockAwardVestingEvent", place: (f: string, v: string) => ({ id: "1", vestingEvents: [{ [f]: v }] }), at: ["vestingEvents", 0] },
  settlement: { kind: "restrictedStockUnit", cds: "RestrictedStockUnitSettlement", place: (f: string, v: string) => ({ id: "1", settlements: [{ [f]: v }] }), at: ["settlements", 0] },
  schedule: { kind: "restrictedStockUnit", cds: "VestingSchedule", place: (f: string, v: string) => ({ id: "1", vestingSchedule: { [f]: v } }), at: ["vestingSchedule"] },
  predecessor: { kind: "restrictedStockAward", cds: "PrecededBySecurity", place: (f: string, v: string) => ({ id: "1", precededBy: { securities: [{ [f]: v }] } }), at: ["precededBy", "securities", 0] },
} satisfies Record<string, { kind: RecordKind; cds: string; place: (field: string, value: string) => object; at: (string | number)[] }>;

type ContainerName = keyof typeof CONTAINERS;

/**
 * Every length-limited string field the parser knows, with its limits in characters (the data
 * schema's; a record id is also never empty, the project's identity rule).
 */
const LIMITS: readonly { container: ContainerName; field: string; min: number; max: number | undefined }[] = [
  ...(["award", "unit"] as const).flatMap((container) => [
    { container, field: "id", min: container === "unit" ? 1 : 0, max: 50 },
    { container, field: "securityId", min: 0, max: 50 },
    { container, field: "shareClassId", min: 0, max: 50 },
    { container, field: "vestingScheduleTemplateId", min: 0, max: 50 },
    { container, field: "issuerId", min: 1, max: 50 },
    { container, field: "stakeholderId", min: 0, max: 50 },
    { container, field: "equityIncentivePlanName", min: 0, max: 100 },
    { container, field: "securityLabel", min: 0, max: 50 },
  ]),
  { container: "award", field: "shareClassName", min: 0, max: 50 },
  { container: "event", field: "id", min: 0, max: 50 },
  { container: "settlement", field: "certificateId", min: 1, max: 1000 },
  { container: "schedule", field: "name", min: 0, max: 500 },
  { container: "predecessor", field: "id", min: 1, max: 50 },
  { container: "predecessor", field: "type", min: 0, max: 50 },
  { container: "predecessor", field: "label", min: 0, max: 50 },
];

describe("string limits", () => {
  it.each(LIMITS.map((limit) => ({ ...limit, label: `${limit.container}.${limit.field} (${limit.min} to ${limit.max ?? "any"} characters)` })))(
    "$label",
    ({ container: name, field, max, min }) => {
      const container = CONTAINERS[name];
      const parse = (value: string) => {
        // issuerId must match the issuer the record was requested for.
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
    },
  );
});

describeConformance("the string limits against the data schema (CDS)", () => {
  it("are exactly the limits CDS declares", () => {
    const defs = cdsDefs();
    const declared = Object.entries(CONTAINERS).flatMap(([container, { cds }]) =>
      Object.entries(defs[cds]?.properties ?? {})
        .filter(([, property]) => property.type === "string" && (property.maxLength !== undefined || property.minLength !== undefined))
        .map(([field, property]) => ({ container, field, min: property.minLength ?? 0, max: property.maxLength })),
    );
    const key = (l: { container: string; field: string }) => `${l.container}.${l.field}`;
    expect([...declared].sort((a, b) => key(a).localeCompare(key(b)))).toEqual([...LIMITS].sort((a, b) => key(a).localeCompare(key(b))));
  });
});
