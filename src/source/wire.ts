/**
 * Zod schemas of the service's value types (source-api.md §9): the `{ value }` wrappers of decimals,
 * dates and date-times, Money with its two `currencyCode` shapes, and the small building blocks the
 * record schemas are made of.
 *
 * Rules that hold for every schema here (source-api.md §9.1, §9.6, §13.7):
 * - explicit `null` is exactly like a missing key, for fields, wrappers and arrays;
 * - a wrapper that arrives as `{}` (proto3 JSON leaves out empty strings) is absent;
 * - unknown keys are stripped from the output; `parse.ts` reports them as warnings by walking these
 *   schemas, so nothing the service adds is dropped without a word;
 * - every conversion goes through `src/decimal.ts` and `src/dates.ts`, and a value they reject becomes a
 *   zod issue (with the value) instead of an exception, so that all issues of a record are collected.
 */
import { z } from "zod";
import { normalizeSourceDecimal, parseSourceDecimal, type DecimalString } from "../decimal.js";
import { parseCalendarDate, parseUtcDateTime, type CalendarDate, type UtcDateTime } from "../dates.js";
import { describeValue, isOcfSyncError } from "../errors.js";

/**
 * An amount of money: an ISO 4217 code and an exact decimal amount.
 *
 * @category Source
 */
export interface Money {
  /** Three upper-case letters, e.g. `"USD"` (upper-cased from the wire). */
  currency: string;
  /** The amount per unit, normalized (`"0.78"`). */
  amount: DecimalString;
}

/**
 * `T` with every key whose type admits `undefined` made optional and `undefined` removed, which is
 * what `compact` returns. Lets the parsed records satisfy `exactOptionalPropertyTypes`.
 */
export type Compact<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** A copy of `value` without the keys whose value is `undefined` (zod keeps a key that arrived as `null`). */
export function compact<T extends object>(value: T): Compact<T> {
  const out: Record<string, unknown> = {};
  const fields = value as Record<string, unknown>;
  // `Object.keys` rather than `Object.entries`: this runs for every object of every parsed record, and
  // the key/value pairs `entries` allocates cost more than the copy itself.
  for (const key of Object.keys(fields)) {
    const item = fields[key];
    if (item !== undefined) out[key] = item;
  }
  return out as Compact<T>;
}

/** A plain JSON object (not an array, not `null`). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A string converted by one of the project's conversion functions. Their typed errors (whose messages
 * already name the value) become zod issues.
 */
function converted<T>(convert: (text: string) => T) {
  return z.string().transform((text, ctx): T => {
    try {
      return convert(text);
    } catch (error) {
      if (!isOcfSyncError(error)) throw error;
      ctx.issues.push({ code: "custom", message: error.message, input: text });
      return z.NEVER;
    }
  });
}

/**
 * A string with length limits counted in Unicode code points, as JSON Schema's `minLength`/`maxLength`
 * count them (zod's `.max()` counts UTF-16 units and would reject a 50-character label with emoji).
 */
function boundedString(limits: { min?: number; max?: number }) {
  const { min, max } = limits;
  return z.string().check((ctx) => {
    const length = [...ctx.value].length;
    if (max !== undefined && length > max) {
      ctx.issues.push({
        code: "custom",
        message: `${describeValue(ctx.value)} is longer than ${max} characters (${length})`,
        input: ctx.value,
      });
    }
    if (min !== undefined && length < min) {
      const message = length === 0 ? `"" is empty` : `${describeValue(ctx.value)} is shorter than ${min} characters`;
      ctx.issues.push({ code: "custom", message, input: ctx.value });
    }
  });
}

/** An optional string field with the declared length limits; `null` is absent. */
export function text(limits: { min?: number; max?: number } = {}) {
  return boundedString(limits)
    .nullish()
    .transform((value) => value ?? undefined);
}

/**
 * A share class reference (`shareClassName`, `shareClassId`): text of at most 50 characters, where an
 * empty or white-space-only value is absent, with a `BLANK_VALUE` warning (`WIRE_NOTES`). A blank name
 * is no name: kept, it became a class named `""` that the sync state could not hold, and so stopped
 * every later sync (issue 25, item 1). Taken as absent, it follows the rules of a record that names
 * no class, the same way in export and sync, as both parse here.
 */
export const ClassRefWire = text({ max: 50 }).transform((value) => (value === undefined || isBlank(value) ? undefined : value));

/** Empty, or only white space (as `String.prototype.trim` counts it). */
export function isBlank(value: string): boolean {
  return value.trim() === "";
}

/**
 * The record's `id`, which must be present and non-empty although the spec marks every field optional
 * (and the RSA `id` has no minimum length). This is the project's deliberate rule: a record without an
 * id cannot be mapped to stable OCF ids, de-duplicated across pages and incremental runs, or named in a
 * report, so it is rejected rather than guessed at (source-api.md §9.7: "reject empty ids").
 */
export const RecordIdWire = boundedString({ max: 50 })
  .nullish()
  .transform((id, ctx): string => {
    if (id === undefined || id === null || id === "") {
      ctx.issues.push({ code: "custom", message: "required to identify the record", input: id });
      return z.NEVER;
    }
    return id;
  });

/** A boolean that proto3 JSON may leave out when `false` (source-api.md §9.6): absent is `false`. */
export const FlagWire = z
  .boolean()
  .nullish()
  .transform((value) => value ?? false);

/** A repeated field: absent or `null` is `[]`. A `null` element is an issue: proto3 cannot produce one. */
export function listOf<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullish()
    .transform((items): z.output<T>[] => items ?? []);
}

/** A nested message (vesting schedule, precededBy): absent or `null` is absent; present keys are compacted. */
export function nested<O extends z.ZodObject, T>(object: O, build: (fields: Compact<z.output<O>>) => T) {
  return object
    .nullish()
    .transform((fields) =>
      fields === undefined || fields === null ? undefined : build(compact(fields as z.output<O>)),
    );
}

/** `{ value: X }` with `null`, a missing `value` and `{}` all meaning absent (source-api.md §9.1). */
function wrapped<T>(value: z.ZodType<T, string>) {
  return z
    .object({ value: value.nullish() })
    .nullish()
    .transform((wrapper) => wrapper?.value ?? undefined);
}

/** `v1alpha1Decimal.value`: the declared pattern, normalized (`"1500.000"` → `"1500"`, `"1e-05"` → `"0.00001"`). */
export const DecimalValueWire = converted((text): DecimalString => normalizeSourceDecimal(text));

/** `v1alpha1Iso8601CompleteCalendarDate.value`: strict `YYYY-MM-DD` naming a real day. */
export const CalendarDateValueWire = converted((text): CalendarDate => parseCalendarDate(text));

/**
 * `v1alpha1Iso8601CompleteCalendarDateTime.value`: UTC with 0 to 6 fractional digits (more are truncated
 * and reported as a warning), normalized to six digits (source-api.md §9.4).
 */
export const DateTimeValueWire = converted((text): UtcDateTime => parseUtcDateTime(text));

/** A currency code: upper-cased, then exactly three letters A to Z (source-api.md §9.5). */
export const CurrencyValueWire = z.string().transform((code, ctx): string => {
  const upper = code.toUpperCase();
  if (!/^[A-Z]{3}$/.test(upper)) {
    const message = `${describeValue(code)} is not a three-letter currency code`;
    ctx.issues.push({ code: "custom", message, input: code });
    return z.NEVER;
  }
  return upper;
});

/** A `v1alpha1Decimal` field. */
export const DecimalWire = wrapped(DecimalValueWire);

/** A `v1alpha1Iso8601CompleteCalendarDate` field. */
export const CalendarDateWire = wrapped(CalendarDateValueWire);

/** A `v1alpha1Iso8601CompleteCalendarDateTime` field. */
export const DateTimeWire = wrapped(DateTimeValueWire);

/**
 * `Money.currencyCode`, which comes as `{ "value": "USD" }` in every record example and as a bare
 * `"USD"` in the schema-level example of `v1alpha1Money` (source-api.md §9.5). Both are accepted; an
 * issue's path ends in `.value` only when the wire had one.
 */
export const CurrencyCodeWire = z
  .union([CurrencyValueWire, z.object({ value: CurrencyValueWire.nullish() })])
  .nullish()
  .transform((code) => (typeof code === "string" ? code : (code?.value ?? undefined)));

const moneyFields = { currencyCode: CurrencyCodeWire, amount: DecimalWire };

/** The field names of `v1alpha1Money`. */
export const MONEY_FIELDS: readonly string[] = Object.keys(moneyFields);

/**
 * A `v1alpha1Money` field. Both parts absent (or `{}`) is absent; exactly one part present is an issue,
 * because half a price cannot be used and must not be completed by guessing.
 */
export const MoneyWire = z
  .object(moneyFields)
  .nullish()
  .transform((money, ctx): Money | undefined => {
    const currency = money?.currencyCode;
    const amount = money?.amount;
    if (currency === undefined && amount === undefined) return undefined;
    if (currency === undefined || amount === undefined) {
      const [missing, present] = currency === undefined ? ["currencyCode", "amount"] : ["amount", "currencyCode"];
      ctx.issues.push({
        code: "custom",
        path: [missing],
        message: `missing while ${present} is present (half a price cannot be used)`,
        input: undefined,
      });
      return z.NEVER;
    }
    return { currency, amount };
  });

/** A warning that a wire value is well formed but deserves attention. */
export interface WireNote {
  code: "NEGATIVE_DECIMAL" | "DATETIME_TRUNCATED" | "UNKNOWN_ENUM_VALUE" | "BLANK_VALUE";
  /** Where inside the field (`["value"]` for a wrapper's value). */
  path: readonly (string | number)[];
  value: unknown;
  message: string;
}

/**
 * Checks run on the raw value of a field that parsed successfully, keyed by the field's schema. Kept
 * next to the schemas so that what is reported stays beside what is accepted.
 */
export const WIRE_NOTES: ReadonlyMap<z.ZodType, (raw: unknown) => WireNote | undefined> = new Map<
  z.ZodType,
  (raw: unknown) => WireNote | undefined
>([
  [
    DecimalWire,
    (raw) => {
      const value = isJsonObject(raw) ? raw["value"] : undefined;
      // A negative quantity or price is allowed by the wire pattern but is a data error worth
      // flagging (source-api.md §9.2); "-0" is zero, not negative.
      if (typeof value !== "string" || !value.startsWith("-") || parseSourceDecimal(value).isZero()) return undefined;
      return { code: "NEGATIVE_DECIMAL", path: ["value"], value, message: `${describeValue(value)} is negative` };
    },
  ],
  [
    ClassRefWire,
    (raw): WireNote | undefined =>
      typeof raw === "string" && isBlank(raw)
        ? { code: "BLANK_VALUE", path: [], value: raw, message: `${describeValue(raw)} is blank: taken as absent (the record names no share class this way)` }
        : undefined,
  ],
  [
    DateTimeWire,
    (raw) => {
      const value = isJsonObject(raw) ? raw["value"] : undefined;
      const fraction = typeof value === "string" ? /\.(\d+)/.exec(value)?.[1] : undefined;
      if (fraction === undefined || fraction.length <= 6) return undefined;
      return {
        code: "DATETIME_TRUNCATED",
        path: ["value"],
        value,
        message: `${describeValue(value)} has ${fraction.length} fractional digits; truncated to microseconds`,
      };
    },
  ],
]);
