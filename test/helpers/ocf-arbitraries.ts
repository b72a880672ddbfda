/**
 * fast-check arbitraries of valid OCF 1.2.0 transactions, built from the field rules in the OCF
 * reference (not from our zod schemas, which they are meant to test; only the enum value lists are
 * shared), and single-field corruptions that make a valid object invalid.
 */
import fc from "fast-check";
import {
  COMPENSATION_TYPES,
  OPTION_GRANT_TYPES,
  PERIOD_TYPES,
  STOCK_ISSUANCE_TYPES,
  TERMINATION_WINDOW_TYPES,
} from "../../src/ocf/schemas.js";

/** A generated object with what a corruption needs to know about its shape. */
export interface GeneratedObject {
  value: Record<string, unknown>;
  /** Keys whose removal makes the object invalid. */
  requiredKeys: readonly string[];
  /** Every key the object's type allows. */
  knownKeys: readonly string[];
}

const text = fc.string({ maxLength: 12 });
const id = fc.string({ minLength: 1, maxLength: 12 });

/** A real calendar date from 0001-01-01 to 9999-12-31 as `YYYY-MM-DD`, computed by the JS calendar. */
export const ocfDate = fc
  .date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max }).map((a) => a.join(""));

/** An OCF Numeric: optional sign, 1 to 20 integer digits, optionally 1 to 10 fractional digits. */
export const ocfNumeric = fc
  .tuple(fc.constantFrom("", "+", "-"), digits(1, 20), fc.option(digits(1, 10), { nil: undefined }))
  .map(([sign, whole, fraction]) => `${sign}${whole}${fraction === undefined ? "" : `.${fraction}`}`);

/** Strings and values that are not OCF Numerics. */
export const badNumeric = fc.oneof(
  fc.constantFrom("1e3", ".5", "5.", "1,000", " 1", "1 ", "", "+", "0x10", "NaN", "Infinity", "1.00000000001", "--1"),
  digits(1, 5).map((d) => `${d}.${"1".repeat(11)}`),
  digits(1, 5).map((d) => `${d}e${d}`),
  fc.integer(),
  fc.constant(null),
);

const upper = (length: number) =>
  fc
    .array(fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"), { minLength: length, maxLength: length })
    .map((a) => a.join(""));

const monetary = fc.record({ amount: ocfNumeric, currency: upper(3) });
const exemption = fc.record({ description: text, jurisdiction: text });
const vesting = fc.record({ date: ocfDate, amount: ocfNumeric });
const vestings = fc.array(vesting, { minLength: 1, maxLength: 4 });
const shareRange = fc.record({ starting_share_number: ocfNumeric, ending_share_number: ocfNumeric });
const terminationWindow = fc.record({
  reason: fc.constantFrom(...TERMINATION_WINDOW_TYPES),
  period: fc.integer({ min: -1000, max: 100_000 }),
  period_type: fc.constantFrom(...PERIOD_TYPES),
});
const comments = fc.array(text, { maxLength: 3 });

type Model = Record<string, fc.Arbitrary<unknown>>;

interface Shape {
  objectTypes: readonly [string, ...string[]];
  required: Model;
  optional: Model;
}

const securityTx: Model = { id, date: ocfDate, security_id: id };
const issuance: Model = { ...securityTx, custom_id: text, stakeholder_id: text, security_law_exemptions: fc.array(exemption, { maxLength: 2 }) };
const issuanceOptional: Model = {
  comments,
  board_approval_date: ocfDate,
  stockholder_approval_date: ocfDate,
  consideration_text: text,
};

/** The field rules of each transaction ocf-sync models (reference §7). */
const SHAPES: Readonly<Record<string, Shape>> = {
  TX_STOCK_ISSUANCE: {
    objectTypes: ["TX_STOCK_ISSUANCE"],
    required: { ...issuance, stock_class_id: text, share_price: monetary, quantity: ocfNumeric, stock_legend_ids: fc.array(text, { maxLength: 2 }) },
    optional: {
      ...issuanceOptional,
      stock_plan_id: text,
      share_numbers_issued: fc.array(shareRange, { maxLength: 2 }),
      vesting_terms_id: text,
      vestings,
      cost_basis: monetary,
      issuance_type: fc.constantFrom(...STOCK_ISSUANCE_TYPES),
    },
  },
  TX_EQUITY_COMPENSATION_ISSUANCE: {
    objectTypes: ["TX_EQUITY_COMPENSATION_ISSUANCE", "TX_PLAN_SECURITY_ISSUANCE"],
    required: {
      ...issuance,
      compensation_type: fc.constantFrom(...COMPENSATION_TYPES),
      quantity: ocfNumeric,
      expiration_date: fc.option(ocfDate, { nil: null }),
      termination_exercise_windows: fc.array(terminationWindow, { maxLength: 2 }),
    },
    optional: {
      ...issuanceOptional,
      stock_plan_id: text,
      stock_class_id: text,
      option_grant_type: fc.constantFrom(...OPTION_GRANT_TYPES),
      exercise_price: monetary,
      base_price: monetary,
      early_exercisable: fc.boolean(),
      vesting_terms_id: text,
      vestings,
    },
  },
  TX_VESTING_START: { objectTypes: ["TX_VESTING_START"], required: { ...securityTx, vesting_condition_id: text }, optional: { comments } },
  TX_VESTING_EVENT: { objectTypes: ["TX_VESTING_EVENT"], required: { ...securityTx, vesting_condition_id: text }, optional: { comments } },
  TX_VESTING_ACCELERATION: {
    objectTypes: ["TX_VESTING_ACCELERATION"],
    required: { ...securityTx, quantity: ocfNumeric, reason_text: text },
    optional: { comments },
  },
  TX_EQUITY_COMPENSATION_RELEASE: {
    objectTypes: ["TX_EQUITY_COMPENSATION_RELEASE", "TX_PLAN_SECURITY_RELEASE"],
    required: { ...securityTx, settlement_date: ocfDate, release_price: monetary, quantity: ocfNumeric, resulting_security_ids: fc.array(id, { maxLength: 3 }) },
    optional: { comments, consideration_text: text },
  },
  TX_STOCK_CANCELLATION: {
    objectTypes: ["TX_STOCK_CANCELLATION"],
    required: { ...securityTx, quantity: ocfNumeric, reason_text: text },
    optional: { comments, balance_security_id: id },
  },
  TX_EQUITY_COMPENSATION_CANCELLATION: {
    objectTypes: ["TX_EQUITY_COMPENSATION_CANCELLATION", "TX_PLAN_SECURITY_CANCELLATION"],
    required: { ...securityTx, quantity: ocfNumeric, reason_text: text },
    optional: { comments, balance_security_id: id },
  },
  TX_STOCK_REPURCHASE: {
    objectTypes: ["TX_STOCK_REPURCHASE"],
    required: { ...securityTx, price: monetary, quantity: ocfNumeric },
    optional: { comments, consideration_text: text, balance_security_id: id },
  },
  TX_STOCK_RETRACTION: { objectTypes: ["TX_STOCK_RETRACTION"], required: { ...securityTx, reason_text: text }, optional: { comments } },
  TX_EQUITY_COMPENSATION_RETRACTION: {
    objectTypes: ["TX_EQUITY_COMPENSATION_RETRACTION", "TX_PLAN_SECURITY_RETRACTION"],
    required: { ...securityTx, reason_text: text },
    optional: { comments },
  },
  TX_STOCK_PLAN_RETURN_TO_POOL: {
    objectTypes: ["TX_STOCK_PLAN_RETURN_TO_POOL"],
    required: { ...securityTx, stock_plan_id: text, quantity: ocfNumeric, reason_text: text },
    optional: { comments },
  },
  TX_STOCK_ACCEPTANCE: { objectTypes: ["TX_STOCK_ACCEPTANCE"], required: { ...securityTx }, optional: { comments } },
  TX_EQUITY_COMPENSATION_ACCEPTANCE: {
    objectTypes: ["TX_EQUITY_COMPENSATION_ACCEPTANCE", "TX_PLAN_SECURITY_ACCEPTANCE"],
    required: { ...securityTx },
    optional: { comments },
  },
  TX_STOCK_TRANSFER: {
    objectTypes: ["TX_STOCK_TRANSFER"],
    required: { ...securityTx, quantity: ocfNumeric, resulting_security_ids: fc.uniqueArray(id, { minLength: 1, maxLength: 3 }) },
    optional: { comments, consideration_text: text, balance_security_id: id },
  },
  TX_EQUITY_COMPENSATION_TRANSFER: {
    objectTypes: ["TX_EQUITY_COMPENSATION_TRANSFER", "TX_PLAN_SECURITY_TRANSFER"],
    required: { ...securityTx, quantity: ocfNumeric, resulting_security_ids: fc.uniqueArray(id, { minLength: 1, maxLength: 3 }) },
    optional: { comments, consideration_text: text, balance_security_id: id },
  },
};

/** The transaction types the arbitraries cover (the canonical spelling of each). */
export const GENERATED_TRANSACTION_TYPES = Object.keys(SHAPES);

/** The price key each compensation type requires on an equity-compensation issuance. */
const PRICE_OF: Readonly<Record<string, string>> = {
  OPTION_NSO: "exercise_price",
  OPTION_ISO: "exercise_price",
  OPTION: "exercise_price",
  CSAR: "base_price",
  SSAR: "base_price",
};

/** Valid transactions of one type, with every optional key present or absent at random. */
export function validTransaction(objectType: string): fc.Arbitrary<GeneratedObject> {
  const shape = SHAPES[objectType];
  if (shape === undefined) throw new Error(`no arbitrary for ${objectType}`);
  const model: Model = { object_type: fc.constantFrom(...shape.objectTypes), ...shape.required, ...shape.optional };
  const requiredKeys = ["object_type", ...Object.keys(shape.required)];
  const knownKeys = Object.keys(model);
  return fc.tuple(fc.record(model, { requiredKeys }), monetary).map(([record, price]) => {
    const value = { ...(record as Record<string, unknown>) };
    const priceKey = PRICE_OF[String(value.compensation_type)];
    if (priceKey === undefined) return { value, requiredKeys, knownKeys };
    value[priceKey] ??= price;
    return { value, requiredKeys: [...requiredKeys, priceKey], knownKeys };
  });
}

/** Keys whose values are OCF Numerics, wherever they sit in a transaction. */
const NUMERIC_KEYS = new Set(["quantity", "amount", "starting_share_number", "ending_share_number"]);

function numericPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => numericPaths(v, [...path, i]));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    NUMERIC_KEYS.has(k) && typeof v === "string" ? [[...path, k]] : numericPaths(v, [...path, k]),
  );
}

function setAt(root: Record<string, unknown>, path: readonly (string | number)[], replacement: unknown): unknown {
  const copy: unknown = structuredClone(root);
  let current = copy as Record<string | number, unknown>;
  path.slice(0, -1).forEach((key) => {
    current = current[key] as Record<string | number, unknown>;
  });
  current[path[path.length - 1] as string | number] = replacement;
  return copy;
}

/** One way a valid object was broken, for the failure report. */
export interface Corruption {
  kind: "drop-required" | "add-unknown" | "break-numeric";
  detail: string;
  value: unknown;
}

/** Breaks exactly one field of a valid object: drops a required key, adds an unknown key, or spoils a Numeric. */
export function corrupted(generated: fc.Arbitrary<GeneratedObject>): fc.Arbitrary<Corruption> {
  return generated.chain(({ value, requiredKeys, knownKeys }) => {
    const drop = fc.constantFrom(...requiredKeys).map((key): Corruption => {
      const copy = { ...value };
      delete copy[key];
      return { kind: "drop-required", detail: key, value: copy };
    });
    const add = fc
      .tuple(fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !knownKeys.includes(k)), fc.jsonValue())
      .map(([key, extra]): Corruption => ({ kind: "add-unknown", detail: key, value: { ...value, [key]: extra } }));
    const paths = numericPaths(value);
    if (paths.length === 0) return fc.oneof(drop, add);
    const breakNumeric = fc
      .tuple(fc.constantFrom(...paths), badNumeric)
      .map(([path, bad]): Corruption => ({
        kind: "break-numeric",
        detail: `${path.join(".")} = ${JSON.stringify(bad)}`,
        value: setAt(value, path, bad),
      }));
    return fc.oneof(drop, add, breakNumeric);
  });
}
