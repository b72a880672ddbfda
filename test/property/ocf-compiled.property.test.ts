/**
 * The fast paths of OCF validation agree with zod's interpreter, on valid and broken objects alike:
 * the zod-compiled schemas behind `validateOcfObject` and `validateOcfFile`, the yes/no check
 * `isValidOcfObject` (compiled assert-only code, and the compiled twins of `withObjectRule` schemas),
 * and the fast path each `withObjectRule` schema carries. zod runs none of its compiled code on an
 * async parse, so `safeParseAsync` of the exported schema is the interpreter's verdict.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { compiledTwinOf } from "../../src/ocf/primitives.js";
import {
  OcfContactInfoSchema,
  OcfContactInfoWithoutNameSchema,
  OcfEquityCompensationIssuanceSchema,
  OcfIssuerSchema,
  OcfStakeholderSchema,
  OcfStakeholdersFileSchema,
  OcfStockClassSchema,
  OcfStockLegendTemplateSchema,
  OcfStockPlanSchema,
  OcfStockPlansFileSchema,
  OcfTransactionSchema,
  OcfTransactionsFileSchema,
  OcfValuationSchema,
  OcfVestingConditionSchema,
  OcfVestingTermsFileSchema,
  OcfVestingTermsSchema,
  isValidOcfObject,
  validateOcfFile,
  validateOcfObject,
} from "../../src/ocf/schemas.js";
import { EXAMPLE_OBJECT_TYPES, example, type ExampleObjectType } from "../helpers/ocf-examples.js";
import { GENERATED_TRANSACTION_TYPES, corrupted, validTransaction } from "../helpers/ocf-arbitraries.js";

const NUM_RUNS = 300;

/** The interpreter's schema for each object type (transactions through their union). */
const SCHEMA_OF: Readonly<Record<string, z.ZodType>> = {
  ISSUER: OcfIssuerSchema,
  STAKEHOLDER: OcfStakeholderSchema,
  STOCK_CLASS: OcfStockClassSchema,
  STOCK_PLAN: OcfStockPlanSchema,
  STOCK_LEGEND_TEMPLATE: OcfStockLegendTemplateSchema,
  VESTING_TERMS: OcfVestingTermsSchema,
  VALUATION: OcfValuationSchema,
};

function interpreterSchemaOf(value: Record<string, unknown>): z.ZodType {
  const type = String(value["object_type"]);
  // Own keys only: an object_type such as "toString" must not find Object.prototype's function.
  return (Object.hasOwn(SCHEMA_OF, type) ? SCHEMA_OF[type] : undefined) ?? OcfTransactionSchema;
}

/** Objects whose object-level rules (`withObjectRule`) hold, fail, or are beside the point. */
const ruleCases: Record<string, unknown>[] = [
  example("STOCK_PLAN", { stock_class_id: "class-common" }),
  { ...example("STOCK_PLAN"), stock_class_ids: undefined },
  (() => {
    const plan = example("STOCK_PLAN", { stock_class_id: "class-common" });
    delete plan["stock_class_ids"];
    return plan;
  })(),
  (() => {
    const plan = example("STOCK_PLAN");
    delete plan["stock_class_ids"];
    return plan;
  })(),
  example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "OPTION_ISO" }),
  example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "OPTION_ISO", exercise_price: { amount: "1", currency: "USD" } }),
  example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "CSAR", quantity: "x" }),
  example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "constructor" }),
  example("STAKEHOLDER", { contact_info: {} }),
  example("STAKEHOLDER", { contact_info: { emails: [] } }),
  example("STAKEHOLDER", { contact_info: { emails: [{ email_type: "BUSINESS", email_address: "a@b.co" }] } }),
  example("STAKEHOLDER", { primary_contact: { name: { legal_name: "P" } } }),
  example("STAKEHOLDER", { primary_contact: { name: { legal_name: "P" }, phone_numbers: [] }, contact_info: null }),
  example("VESTING_TERMS", {
    vesting_conditions: [{ id: "a", quantity: "1", portion: { numerator: "1", denominator: "2" }, trigger: { type: "VESTING_EVENT" }, next_condition_ids: [] }],
  }),
  example("VESTING_TERMS", { vesting_conditions: [{ id: "a", trigger: { type: "VESTING_EVENT" }, next_condition_ids: [] }] }),
  example("VESTING_TERMS", { vesting_conditions: [{ id: "", quantity: "1", trigger: { type: "VESTING_EVENT" }, next_condition_ids: ["b", "b"] }] }),
];

/** One random edit at a random place: a key dropped, a value replaced, an unknown key added. */
interface Edit {
  steps: number[];
  kind: "drop" | "replace" | "add";
  value: unknown;
  key: string;
}

const edit: fc.Arbitrary<Edit> = fc.record({
  steps: fc.array(fc.nat(), { maxLength: 4 }),
  kind: fc.constantFrom("drop", "replace", "add"),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom("0", "1.5", "2024-02-30", "2024-02-29", "USD", "usd", "", "RSU", "OPTION_NSO", null, [], {}),
  ),
  key: fc.string({ maxLength: 6 }),
});

function applyEdit(root: unknown, { steps, kind, value, key }: Edit): unknown {
  const copy = structuredClone(root);
  if (typeof copy !== "object" || copy === null) return copy;
  let parent = copy as Record<string, unknown>;
  for (const step of steps) {
    const keys = Object.keys(parent);
    const child = keys.length === 0 ? undefined : parent[keys[step % keys.length] as string];
    if (typeof child !== "object" || child === null) break;
    parent = child as Record<string, unknown>;
  }
  const keys = Object.keys(parent);
  // An empty list has no element to drop or replace, and a random key such as "length" is not one.
  if (Array.isArray(parent) && keys.length === 0) {
    if (kind !== "drop") parent.push(value);
    return copy;
  }
  const target = keys.length === 0 ? key : (keys[(steps.at(-1) ?? 0) % keys.length] as string);
  if (kind === "drop") delete parent[target];
  else if (kind === "replace") parent[target] = value;
  // On a list, "add" appends: a key such as "length" would change the list itself, not add to it.
  else if (Array.isArray(parent)) parent.push(value);
  else parent[key === "" ? "extra" : key] = value;
  return copy;
}

/** Objects of every type, valid or broken by zero to three edits. */
const anyObject: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...EXAMPLE_OBJECT_TYPES), fc.array(edit, { maxLength: 3 }))
      .map(([type, edits]) => edits.reduce<unknown>((value, e) => applyEdit(value, e), example(type as ExampleObjectType)) as Record<string, unknown>),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...ruleCases), fc.array(edit, { maxLength: 1 }))
      .map(([value, edits]) => edits.reduce<unknown>((v, e) => applyEdit(v, e), value) as Record<string, unknown>),
  },
  { weight: 1, arbitrary: fc.constantFrom(...GENERATED_TRANSACTION_TYPES).chain(validTransaction).map((g) => g.value) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(...GENERATED_TRANSACTION_TYPES)
      .chain((type) => corrupted(validTransaction(type)))
      .map((c) => c.value as Record<string, unknown>),
  },
);

/** What a schema gave: its value, or its zod issues. */
function verdict(result: { success: boolean; data?: unknown; error?: { issues: unknown[] } }): unknown {
  return result.success ? { value: result.data } : { issues: result.error?.issues };
}

describe("compiled OCF validation", () => {
  it("validateOcfObject and isValidOcfObject give the interpreter's verdict, and the parsed value", async () => {
    await fc.assert(
      fc.asyncProperty(anyObject, async (value) => {
        // Objects without a known object_type never reach a schema; keep the check to those that do.
        fc.pre(typeof value["object_type"] === "string");
        const reference = await interpreterSchemaOf(value).safeParseAsync(value);
        const ours = validateOcfObject(value);
        expect(ours.ok).toBe(reference.success);
        if (ours.ok) expect(ours.value).toEqual(reference.data);
        expect(isValidOcfObject(value)).toBe(ours.ok);
      }),
      { numRuns: NUM_RUNS * 3 },
    );
  });

  it("refuses object types named like Object.prototype's members, as the interpreter does (found by the property above)", async () => {
    for (const type of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
      const value = { object_type: type, id: "issuer-7", legal_name: "Example Inc.", formation_date: "2015-01-01", country_of_formation: "US" };
      const reference = await interpreterSchemaOf(value).safeParseAsync(value);
      expect(reference.success).toBe(false);
      expect(validateOcfObject(value).ok).toBe(false);
      expect(isValidOcfObject(value)).toBe(false);
    }
  });

  it.each([
    ["OcfStockPlanSchema", OcfStockPlanSchema],
    ["OcfVestingConditionSchema", OcfVestingConditionSchema],
    ["OcfEquityCompensationIssuanceSchema", OcfEquityCompensationIssuanceSchema],
    ["OcfContactInfoSchema", OcfContactInfoSchema],
    ["OcfContactInfoWithoutNameSchema", OcfContactInfoWithoutNameSchema],
  ] as const)("%s: its fast path and its compiled twin agree with the interpreter, issues included", async (_name, schema) => {
    const inner = (value: Record<string, unknown>): unknown[] => {
      const parts: unknown[] = [value];
      for (const key of ["contact_info", "primary_contact"]) if (key in value) parts.push(value[key]);
      if (Array.isArray(value["vesting_conditions"])) parts.push(...(value["vesting_conditions"] as unknown[]));
      return parts;
    };
    const twin = compiledTwinOf(schema);
    expect(twin).toBeDefined();
    await fc.assert(
      fc.asyncProperty(anyObject, async (value) => {
        for (const part of inner(value)) {
          const reference = await schema.safeParseAsync(part);
          expect(verdict(schema.safeParse(part))).toEqual(verdict(reference));
          expect(twin?.validate(part)).toBe(reference.success);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("every schema that holds a withObjectRule schema reports the interpreter's issues", async () => {
    const files = {
      OCF_STAKEHOLDERS_FILE: OcfStakeholdersFileSchema,
      OCF_STOCK_PLANS_FILE: OcfStockPlansFileSchema,
      OCF_VESTING_TERMS_FILE: OcfVestingTermsFileSchema,
      OCF_TRANSACTIONS_FILE: OcfTransactionsFileSchema,
    } as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...(Object.keys(files) as (keyof typeof files)[])), fc.array(anyObject, { maxLength: 4 }), async (fileType, items) => {
        const file = { file_type: fileType, items };
        const schema = files[fileType];
        const reference = await schema.safeParseAsync(file);
        expect(verdict(schema.safeParse(file))).toEqual(verdict(reference));
        expect(validateOcfFile(file).ok).toBe(reference.success);
        for (const holder of [OcfStakeholderSchema, OcfVestingTermsSchema]) {
          for (const item of items) {
            const expected = await holder.safeParseAsync(item);
            expect(verdict(holder.safeParse(item))).toEqual(verdict(expected));
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
