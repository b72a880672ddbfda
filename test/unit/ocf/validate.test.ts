/**
 * The public validation API: dispatch on object_type / file_type, the shape of the issues it
 * reports, the constants it exports, and (checked by `tsc`) the types a library user writes against.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  FILE_TYPES,
  LEGACY_OBJECT_TYPES,
  MANIFEST_KEY_OF,
  OBJECT_TYPES,
  OCF_VERSION,
  OcfStockPlanSchema,
  validateOcfFile,
  validateOcfObject,
  type OcfEquityCompensationIssuance,
  type OcfManifest,
  type OcfStockIssuance,
  type OcfStockPlan,
  type OcfTransaction,
  type OcfVestingCondition,
} from "../../../src/ocf/schemas.js";
import { describeConformance } from "../../helpers/conformance.js";
import { validateWithOfficialSchemas } from "../../helpers/official-ocf.js";
import { example, exampleManifest, exampleWithout } from "../../helpers/ocf-examples.js";

/** An object whose own key `__proto__` only JSON.parse can make. */
const PROTO_KEY_JSON = '{"__proto__": {"x": 1}, "object_type": "TX_STOCK_ACCEPTANCE", "id": "a", "security_id": "s", "date": "2020-01-01"}';

describe("validateOcfObject", () => {
  it("returns the object unchanged when it is valid", () => {
    const rsu = example("TX_EQUITY_COMPENSATION_ISSUANCE");
    const verdict = validateOcfObject(rsu);
    expect(verdict).toEqual({ ok: true, value: rsu });
    if (verdict.ok && verdict.value.object_type === "TX_EQUITY_COMPENSATION_ISSUANCE") {
      expectTypeOf(verdict.value).toEqualTypeOf<OcfEquityCompensationIssuance>();
      expect(verdict.value.expiration_date).toBeNull();
    }
  });

  it("reports every problem in one pass, each with its path, and shows the offending value", () => {
    const verdict = validateOcfObject(
      example("TX_STOCK_ISSUANCE", {
        quantity: "1e3",
        share_price: { amount: 5, currency: "usd" },
        custom_field: true,
        vestings: [],
      }),
    );
    expect(verdict).toEqual({
      ok: false,
      issues: [
        { path: "$.share_price.amount", message: "must be a string, got 5" },
        { path: "$.share_price.currency", message: 'must be an upper-case ISO 4217 currency code, like "USD", got "usd"' },
        {
          path: "$.quantity",
          message: 'must be an OCF Numeric: a fixed-point decimal string with at most 10 decimal places, like "1500" or "0.25", got "1e3"',
        },
        { path: "$.vestings", message: "must hold at least one tranche; leave the key out instead of writing []" },
        { path: "$.custom_field", message: "is not an OCF field here (OCF objects are closed; extra data belongs in comments)" },
      ],
    });
  });

  it("says a missing required key is required", () => {
    expect(validateOcfObject(exampleWithout("TX_EQUITY_COMPENSATION_ISSUANCE", "expiration_date"))).toEqual({
      ok: false,
      issues: [{ path: "$.expiration_date", message: "is required" }],
    });
  });

  it("checks one-of rules even when a field of the same object is also wrong", () => {
    const terms = example("VESTING_TERMS", {
      vesting_conditions: [{ id: "", trigger: { type: "VESTING_START_DATE" }, next_condition_ids: ["a", "a"] }],
    });
    const verdict = validateOcfObject(terms);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.issues).toEqual([
      { path: "$.vesting_conditions[0].id", message: 'must not be empty, got ""' },
      { path: "$.vesting_conditions[0].next_condition_ids[1]", message: 'repeats an earlier entry of the list, got "a"' },
      { path: "$.vesting_conditions[0]", message: "needs exactly one of portion or quantity" },
    ]);
  });

  it("names the price a compensation type requires", () => {
    const option = example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "OPTION_ISO", quantity: "x" });
    const verdict = validateOcfObject(option);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) {
      expect(verdict.issues).toContainEqual({ path: "$.exercise_price", message: "is required when compensation_type is OPTION_ISO" });
    }
  });

  it.each([
    ["a string", "TX_STOCK_ISSUANCE", "$", 'must be a JSON object with an object_type, got "TX_STOCK_ISSUANCE"'],
    ["null", null, "$", "must be a JSON object with an object_type, got null"],
    ["an array", [], "$", "must be a JSON object with an object_type, got []"],
    ["no object_type", { id: "x" }, "$.object_type", "is required"],
    ["a numeric object_type", { object_type: 7 }, "$.object_type", "must be a string, got 7"],
    ["an unknown object_type", { object_type: "TX_STOCK_EXPIRY" }, "$.object_type", '"TX_STOCK_EXPIRY" is not an OCF 1.2.0 object type'],
    ["a misspelt object_type", { object_type: "tx_stock_isuance" }, "$.object_type", '"tx_stock_isuance" is not an OCF 1.2.0 object type (did you mean "TX_STOCK_ISSUANCE"?)'],
    ["a prototype key as object_type", { object_type: "toString" }, "$.object_type", '"toString" is not an OCF 1.2.0 object type'],
    ["an official type ocf-sync does not model", example("TX_STOCK_ACCEPTANCE", { object_type: "TX_WARRANT_ACCEPTANCE" }), "$.object_type", '"TX_WARRANT_ACCEPTANCE" is an OCF 1.2.0 object type ocf-sync has no schema for'],
    ["an official object ocf-sync does not model", { object_type: "FINANCING" }, "$.object_type", '"FINANCING" is an OCF 1.2.0 object type ocf-sync has no schema for'],
  ])("rejects %s with one clear issue", (_label, input, path, message) => {
    expect(validateOcfObject(input)).toEqual({ ok: false, issues: [{ path, message }] });
  });

  it("does not trip over a compensation_type that is a prototype key", () => {
    const verdict = validateOcfObject(example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "constructor" }));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.issues.map((i) => i.path)).toEqual(["$.compensation_type"]);
  });

  it("rejects a __proto__ key parsed from JSON (as the official schemas do: see the conformance suite)", () => {
    const parsed: unknown = JSON.parse(PROTO_KEY_JSON);
    expect(validateOcfObject(parsed)).toEqual({
      ok: false,
      issues: [{ path: "$.__proto__", message: "is not an OCF field here (OCF objects are closed; extra data belongs in comments)" }],
    });
  });

  it("quotes keys that are not identifiers in paths", () => {
    const verdict = validateOcfObject(example("TX_STOCK_ACCEPTANCE", { "odd key": 1 }));
    expect(verdict.ok ? [] : verdict.issues.map((i) => i.path)).toEqual(['$["odd key"]']);
  });

  it.each(Object.entries(LEGACY_OBJECT_TYPES))("reads the legacy spelling %s and keeps it", (legacy, current) => {
    expect(OBJECT_TYPES).toContain(current);
    const base = example(current as "TX_EQUITY_COMPENSATION_ISSUANCE");
    const verdict = validateOcfObject({ ...base, object_type: legacy });
    expect(verdict).toEqual({ ok: true, value: { ...base, object_type: legacy } });
  });
});

describe("validateOcfFile", () => {
  it("returns a valid manifest typed", () => {
    const verdict = validateOcfFile(exampleManifest());
    expect(verdict.ok).toBe(true);
    if (verdict.ok && verdict.value.file_type === "OCF_MANIFEST_FILE") {
      expectTypeOf(verdict.value).toEqualTypeOf<OcfManifest>();
      expect(verdict.value.ocf_version).toBe(OCF_VERSION);
    }
  });

  it("points into the item that is wrong", () => {
    const file = { file_type: "OCF_TRANSACTIONS_FILE", items: [example("TX_STOCK_ACCEPTANCE"), exampleWithout("TX_STOCK_RETRACTION", "reason_text")] };
    expect(validateOcfFile(file)).toEqual({ ok: false, issues: [{ path: "$.items[1].reason_text", message: "is required" }] });
  });

  it.each([
    ["no file_type", { items: [] }, "$.file_type", "is required"],
    ["a financings file", { file_type: "OCF_FINANCINGS_FILE", items: [] }, "$.file_type", '"OCF_FINANCINGS_FILE" is an OCF 1.2.0 file type ocf-sync has no schema for'],
    ["a misspelt file_type", { file_type: "OCF_STAKEHOLDER_FILE", items: [] }, "$.file_type", '"OCF_STAKEHOLDER_FILE" is not an OCF 1.2.0 file type (did you mean "OCF_STAKEHOLDERS_FILE"?)'],
    ["a transaction of an unknown type", { file_type: "OCF_TRANSACTIONS_FILE", items: [{ object_type: "TX_STOCK_EXPIRY" }] }, "$.items[0].object_type", '"TX_STOCK_EXPIRY" is not an OCF 1.2.0 object type'],
    ["a transaction whose object_type is a number", { file_type: "OCF_TRANSACTIONS_FILE", items: [{ object_type: 7 }] }, "$.items[0].object_type", "must be a string, got 7"],
    ["a number", 3, "$", "must be a JSON object with a file_type, got 3"],
  ])("rejects %s", (_label, input, path, message) => {
    expect(validateOcfFile(input)).toEqual({ ok: false, issues: [{ path, message }] });
  });
});

describe("constants", () => {
  it("OCF_VERSION is 1.2.0", () => {
    expect(OCF_VERSION).toBe("1.2.0");
  });

  it("MANIFEST_KEY_OF names the manifest list of every items-file type", () => {
    const itemsFileTypes = FILE_TYPES.filter((t) => t !== "OCF_MANIFEST_FILE");
    expect(Object.keys(MANIFEST_KEY_OF).sort()).toEqual([...itemsFileTypes].sort());
    const manifest = exampleManifest();
    for (const key of Object.values(MANIFEST_KEY_OF)) expect(manifest[key], key).toEqual([]);
  });

  it("OBJECT_TYPES lists the 7 objects and 16 transactions ocf-sync models", () => {
    expect(OBJECT_TYPES).toHaveLength(23);
    expect(OBJECT_TYPES.filter((t) => t.startsWith("TX_"))).toHaveLength(16);
  });
});

describe("types a library user writes against", () => {
  it("keep optional keys truly optional and one-of rules in the type", () => {
    const issuance = example("TX_STOCK_ISSUANCE") as unknown as OcfStockIssuance;
    // @ts-expect-error exactOptionalPropertyTypes: an optional key is left out, never undefined.
    const withUndefined: OcfStockIssuance = { ...issuance, stock_plan_id: undefined };
    expect(validateOcfObject(withUndefined).ok).toBe(false);

    const plan: OcfStockPlan = {
      object_type: "STOCK_PLAN",
      id: "p",
      plan_name: "Plan",
      initial_shares_reserved: "100",
      stock_class_ids: ["c"],
    };
    // @ts-expect-error a stock plan names its classes in exactly one of the two forms.
    const both: OcfStockPlan = { ...plan, stock_class_id: "c" };
    expect(OcfStockPlanSchema.safeParse(both).success).toBe(false);

    // @ts-expect-error a vesting condition vests a portion or a quantity, not both.
    const condition: OcfVestingCondition = {
      id: "a",
      portion: { numerator: "1", denominator: "2" },
      quantity: "1",
      trigger: { type: "VESTING_EVENT" },
      next_condition_ids: [],
    };
    expect(condition.id).toBe("a");

    expectTypeOf<OcfStockIssuance>().toExtend<OcfTransaction>();
    expectTypeOf<OcfStockIssuance["quantity"]>().toEqualTypeOf<string>();
  });
});

describeConformance("the official OCF 1.2.0 schemas on keys JSON.parse makes special", () => {
  it("reject a __proto__ key, as we do", () => {
    expect(validateWithOfficialSchemas(JSON.parse(PROTO_KEY_JSON)).valid).toBe(false);
  });
});
