/**
 * The only place where quantities, prices and amounts are converted. Values travel as strings at every
 * boundary and as `Dec` (a private decimal.js clone) inside; never as JS numbers.
 */
import { Decimal as DecimalJs } from "decimal.js";
import { OcfSyncError, describeValue } from "./errors.js";

/**
 * A private decimal.js constructor: ample precision so that no arithmetic on share counts or prices
 * rounds, and exponent notation never used by `toString`. The global `Decimal.set` is never touched.
 */
export const Dec = DecimalJs.clone({
  precision: 200,
  rounding: DecimalJs.ROUND_HALF_UP,
  toExpNeg: -9e15,
  toExpPos: 9e15,
  minE: -9e15,
  maxE: 9e15,
});
export type Dec = InstanceType<typeof Dec>;

/** Zero as an exact value (decimal.js values are immutable: one instance serves every caller). */
export const ZERO: Dec = new Dec(0);

/**
 * A decimal in plain normalized form: no exponent, no leading `+`, no trailing fractional zeros, no `-0`.
 *
 * @category OCF
 */
export type DecimalString = string & { readonly __decimal?: never };

/** The wire pattern of `v1alpha1Decimal.value`, as declared by the service's OpenAPI document. */
export const SOURCE_DECIMAL_PATTERN = /^[+-]?((0|[1-9][0-9]*)(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

/**
 * Largest decimal exponent accepted from the wire. Share counts and prices never come near it; a
 * value like `1e999999` would otherwise expand into a megabyte of digits.
 */
const MAX_ABS_EXPONENT = 60;

/**
 * Thrown when a decimal cannot be represented exactly where it has to go: its code is `DECIMAL_SYNTAX`
 * (not a decimal number), `DECIMAL_RANGE` (an exponent out of range) or `DECIMAL_PRECISION`, and
 * `value` is the text refused.
 *
 * @category Errors
 */
export class DecimalError extends OcfSyncError {
  declare readonly code: "DECIMAL_SYNTAX" | "DECIMAL_RANGE" | "DECIMAL_PRECISION";
  readonly value: string;
  constructor(code: DecimalError["code"], message: string, value: string) {
    super(code, message);
    this.name = "DecimalError";
    this.value = value;
  }
}

/** A whole number of at most 7 digits, without sign or leading zeros. */
const SMALL_WHOLE = /^(0|[1-9][0-9]{0,6})$/;

/**
 * Parses a decimal as the service sends it (`"200000.00000000000000000000"`, `"1e-05"`, `".321"`,
 * `"+1.23456e-3"`, `"1."`) into an exact `Dec`. Rejects anything outside the declared pattern
 * (commas, spaces, `NaN`, `Infinity`, hex) and exponents beyond ±60.
 */
export function parseSourceDecimal(text: string): Dec {
  // Whole numbers below 10^7, the most common share counts: decimal.js builds those from the number
  // without parsing text, and the number is exact.
  if (SMALL_WHOLE.test(text)) return new Dec(Number(text));
  if (!SOURCE_DECIMAL_PATTERN.test(text)) {
    throw new DecimalError("DECIMAL_SYNTAX", `${describeValue(text)} is not a decimal number`, text);
  }
  const exponentMatch = /[eE]([+-]?[0-9]+)$/.exec(text);
  if (exponentMatch !== null && Math.abs(Number.parseInt(exponentMatch[1] ?? "0", 10)) > MAX_ABS_EXPONENT) {
    throw new DecimalError("DECIMAL_RANGE", `${describeValue(text)} has an exponent beyond ±${MAX_ABS_EXPONENT}`, text);
  }
  // decimal.js rejects a trailing "." ("1."), which the wire pattern allows.
  const mantissaEnd = exponentMatch === null ? text.length : exponentMatch.index;
  const mantissa = text.slice(0, mantissaEnd);
  const cleaned = (mantissa.endsWith(".") ? mantissa.slice(0, -1) : mantissa) + text.slice(mantissaEnd);
  return new Dec(cleaned);
}

/** Renders a decimal in plain normalized form: `"200000"`, `"0.00001"`, `"-456"`; never `"-0"` or `"1e-7"`. */
export function formatDecimal(value: Dec): DecimalString {
  if (value.isZero()) return "0";
  // toFixed() with no argument never uses exponent notation; decimal.js keeps no trailing zeros
  // beyond the value's own digits, so trimming the fraction gives one canonical form.
  const fixed = value.toFixed();
  if (!fixed.includes(".")) return fixed;
  return fixed.replace(/0+$/, "").replace(/\.$/, "");
}

/**
 * A plain decimal: optional sign, an integer part without leading zeros, an optional fraction, no
 * exponent. Every decimal in the service's records so far is written this way (`"160272"`, `"0.01"`,
 * `"200000.00000000000000000000"`).
 */
const PLAIN_DECIMAL = /^[+-]?(0|[1-9][0-9]*)(\.[0-9]*)?$/;

/**
 * The normalized form of a plain decimal (`"-12.3400"` → `"-12.34"`, `"+7."` → `"7"`, `"-0.0"` → `"0"`),
 * by string manipulation only; `undefined` for any other spelling. Exists because parsing through
 * decimal.js was the largest cost of parsing a record, and for plain text normalizing only means
 * dropping a `+`, the fraction's trailing zeros and the sign of zero. Property tests check that it
 * agrees with `formatDecimal(parseSourceDecimal(text))`.
 */
export function normalizePlainDecimal(text: string): DecimalString | undefined {
  if (!PLAIN_DECIMAL.test(text)) return undefined;
  const first = text.charCodeAt(0);
  const negative = first === 0x2d; // "-"
  const unsigned = negative || first === 0x2b /* "+" */ ? text.slice(1) : text;
  let end = unsigned.length;
  const point = unsigned.indexOf(".");
  if (point !== -1) {
    while (end > point + 1 && unsigned.charCodeAt(end - 1) === 0x30 /* "0" */) end -= 1;
    if (end === point + 1) end = point;
  }
  const digits = unsigned.slice(0, end);
  if (digits === "0") return "0";
  return negative ? `-${digits}` : digits;
}

/**
 * An OCF Numeric (`OCF_NUMERIC_PATTERN` of `src/ocf/primitives.ts`) in the plain form the decimal helpers read: without a `+`
 * or leading zeros (`"+00.6"` → `"0.6"`, `"-007"` → `"-7"`), which OCF allows and they refuse.
 */
export function plainNumeric(text: string): DecimalString {
  const first = text.charCodeAt(0);
  if (first >= 0x31 && first <= 0x39) return text;
  const from = first === 0x2b || first === 0x2d ? 1 : 0;
  let digits = from;
  while (digits < text.length - 1 && text.charCodeAt(digits) === 0x30 && text.charCodeAt(digits + 1) !== 0x2e) digits++;
  if (from === 0 && digits === 0) return text;
  return (first === 0x2d ? "-" : "") + text.slice(digits);
}

/** Parses a wire decimal and returns its normalized string: `"1500.000"` → `"1500"`, `".5"` → `"0.5"`. */
export function normalizeSourceDecimal(text: string): DecimalString {
  // decimal.js only for exponents, a leading point and invalid text (whose errors it words).
  return normalizePlainDecimal(text) ?? formatDecimal(parseSourceDecimal(text));
}

/** Number of digits after the decimal point that a value needs (`"1.50"` needs 1). */
export function decimalPlaces(value: Dec): number {
  return value.decimalPlaces();
}

/** OCF `Numeric` allows at most this many fractional digits (`types/Numeric.schema.json`). */
export const OCF_MAX_DECIMAL_PLACES = 10;

/**
 * Converts a decimal to OCF `Numeric`: plain fixed-point, at most 10 fractional digits, trailing zeros
 * trimmed. A value that needs more places is an error (`DECIMAL_PRECISION`), never rounded silently.
 */
export function toOcfNumeric(value: Dec | string): string {
  const dec = typeof value === "string" ? parseSourceDecimal(value) : value;
  if (dec.decimalPlaces() > OCF_MAX_DECIMAL_PLACES) {
    const text = formatDecimal(dec);
    throw new DecimalError(
      "DECIMAL_PRECISION",
      `${text} needs ${dec.decimalPlaces()} decimal places; OCF Numeric allows at most ${OCF_MAX_DECIMAL_PLACES}`,
      text,
    );
  }
  return formatDecimal(dec);
}

/** Exact sum of decimal strings. */
export function sumDecimals(values: Iterable<Dec | string>): Dec {
  let total = ZERO;
  for (const v of values) total = total.plus(typeof v === "string" ? new Dec(v) : v);
  return total;
}

/**
 * `value` as the double it equals when it is an integer of at most 15 digits (so exactly a double),
 * else `undefined`. Reads decimal.js's documented representation: `d` holds the digits in words of 7,
 * the first word the leading `e % 7 + 1` digits of the integer part, trailing zero words dropped; `e`
 * is the exponent and `s` the sign.
 */
function smallIntegerOf(value: Dec): number | undefined {
  const { d, e } = value;
  // Words of the integer part; a value with more words has a fraction.
  const integerWords = Math.floor(e / 7) + 1;
  if (e < 0 || e > 14 || d.length > integerWords) return undefined;
  let n = 0;
  for (const word of d) n = n * 1e7 + word;
  for (let dropped = d.length; dropped < integerWords; dropped++) n *= 1e7;
  return value.s < 0 ? -n : n;
}

/**
 * The exact sum of exact values (0 for none). Integers whose magnitudes add up to at most 2^53 - 1 are
 * added as doubles, exactly (as `sumOfSmallIntegers` argues), which is several times faster than
 * decimal.js for the thousands of vesting amounts a mapping adds; anything else through `Dec.sum`,
 * which rounds only the result (to 200 digits: never, for share counts). Property tests check both.
 */
export function sumExact(values: readonly Dec[]): Dec {
  let total = 0;
  let magnitude = 0;
  for (const value of values) {
    const n = smallIntegerOf(value);
    if (n === undefined) return Dec.sum(...values);
    total += n;
    magnitude += n < 0 ? -n : n;
  }
  // `+ 0` turns -0 into 0.
  return magnitude > Number.MAX_SAFE_INTEGER ? Dec.sum(...values) : new Dec(total + 0);
}

/**
 * Exact equality of exact values. Tries `===` first: a record's equal texts are one value
 * (`RecordContext.exact`), and that spares decimal.js a comparison.
 */
export function equalExact(a: Dec, b: Dec): boolean {
  return a === b || a.eq(b);
}

/** Greater than zero (`-0` and `0` are not), without a decimal.js comparison. */
export function isPositiveExact(value: Dec | undefined): value is Dec {
  return value !== undefined && !value.isNegative() && !value.isZero();
}

/** Exact equality of two decimals given as strings or `Dec` (`"1.50"` equals `"1.5"`). */
export function decimalsEqual(a: Dec | string, b: Dec | string): boolean {
  return new Dec(a).equals(new Dec(b));
}

// Cheap exact tests and sums on decimal strings, for hot paths (the mapping). Records from the parser
// hold normalized decimals (one text per number), so equal text is equal value and the common case
// needs no decimal.js object; any other text falls back to an exact decimal computation, so every
// answer is exact for every input. Property tests check each against decimal.js.

/** Zero in plain spellings: "0", "-0", "0.000", ".0", "+0." (exponent forms are parsed). */
const ZERO_TEXT = /^[+-]?(0+\.?0*|\.0+)$/;

/** Exact equality of two decimals. */
export function sameDecimal(a: DecimalString, b: DecimalString): boolean {
  return a === b || compareDecimalStrings(a, b) === 0;
}

/** Exactly zero. */
export function isZeroDecimal(value: DecimalString): boolean {
  // A leading digit 1-9 is a non-zero digit, whatever follows.
  const first = value.charCodeAt(0);
  if (first >= 0x31 && first <= 0x39) return false;
  return value === "0" || ZERO_TEXT.test(value) || (/[eE]/.test(value) && parseSourceDecimal(value).isZero());
}

/** Greater than zero. The sign of a decimal's text is its sign, except for zero (`"-0"`, `"+0.0"`). */
export function isPositiveDecimal(value: DecimalString): boolean {
  return value.charCodeAt(0) !== 0x2d /* "-" */ && !isZeroDecimal(value);
}

/** A whole number without a sign or leading zeros, short enough to stay cheap. */
const WHOLE = /^(0|[1-9][0-9]{0,30})$/;

/** A decimal in plain form: optional minus, digits, optional fraction (what the parser produces). */
const PLAIN = /^(-?)([0-9]+)(?:\.([0-9]+))?$/;

/** A plain decimal as an integer count of units of 10^-scale: `"-1.25"` → -125n at scale 2. */
interface Scaled {
  units: bigint;
  scale: number;
}

/** `value` as a scaled integer, or `undefined` for any spelling but plain (exponent, `+`, leading `.`). */
function scaledOf(value: DecimalString): Scaled | undefined {
  const m = PLAIN.exec(value);
  if (m === null) return undefined;
  const fraction = m[3] ?? "";
  const units = BigInt(`${m[2] ?? "0"}${fraction}`);
  return { units: m[1] === "-" ? -units : units, scale: fraction.length };
}

/** `scaled` counted at the larger scale `scale`. */
function rescaled(scaled: Scaled, scale: number): bigint {
  return scale === scaled.scale ? scaled.units : scaled.units * 10n ** BigInt(scale - scaled.scale);
}

/** An integer of at most 15 digits, optionally negative, without leading zeros: exactly a double. */
const SMALL_INTEGER = /^-?(0|[1-9][0-9]{0,14})$/;

/**
 * The sum of `values` when every one is a `SMALL_INTEGER` and the sum of their magnitudes is at most
 * 2^53 - 1, else `undefined`. Share counts are mostly such integers, and then this is exact: each
 * value converts to a double exactly, and every partial sum is an integer no larger in magnitude
 * than the sum of the magnitudes, so no addition ever rounds. (That bound is itself a sum of
 * non-negative integers: rounding only ever moves it up past 2^53 - 1, never back under.) Several
 * times faster than BigInts for the long lists of vesting amounts the mapping and the validator add.
 */
function sumOfSmallIntegers(values: readonly DecimalString[]): DecimalString | undefined {
  let total = 0;
  let magnitude = 0;
  for (const value of values) {
    if (!SMALL_INTEGER.test(value)) return undefined;
    const n = Number(value);
    total += n;
    magnitude += n < 0 ? -n : n;
  }
  if (magnitude > Number.MAX_SAFE_INTEGER) return undefined;
  // `total` is an exact integer here; `+ 0` turns -0 into 0, and String() of an integer below 2^53
  // is its plain digits.
  return String(total + 0);
}

/**
 * The exact sum of decimal strings, as a normalized decimal string. Integers whose sum provably
 * fits a double's exact range are added as such (`sumOfSmallIntegers`); other plain decimals as
 * scaled BigInts (exact integers); both are several times faster than decimal.js for the long lists
 * of vesting events and settlements the source checks sum. Any other spelling (an exponent, a
 * leading `+` or `.`) goes through `sumDecimals`. Tests check all agree.
 */
export function sumDecimalStrings(values: readonly DecimalString[]): DecimalString {
  const small = sumOfSmallIntegers(values);
  if (small !== undefined) return small;
  // Whole numbers too long for that: added as BigInts.
  let allWhole = true;
  for (const value of values) {
    if (!WHOLE.test(value)) {
      allWhole = false;
      break;
    }
  }
  if (allWhole) {
    let total = 0n;
    for (const value of values) total += BigInt(value);
    return total.toString();
  }
  const parts: Scaled[] = [];
  let scale = 0;
  for (const value of values) {
    const part = scaledOf(value);
    if (part === undefined) return formatDecimal(sumDecimals(values.map(parseSourceDecimal)));
    parts.push(part);
    if (part.scale > scale) scale = part.scale;
  }
  let total = 0n;
  for (const part of parts) total += rescaled(part, scale);
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
  const text = fraction === "" ? whole : `${whole}.${fraction}`;
  return negative && text !== "0" ? `-${text}` : text;
}

/**
 * The numeric order of two decimals, exactly: negative when `a < b`, 0 when equal, positive when
 * `a > b`. Integers of at most 15 digits are compared as the doubles they are exactly, other plain
 * decimals as scaled BigInts, any other spelling with decimal.js.
 */
export function compareDecimalStrings(a: DecimalString, b: DecimalString): number {
  if (a === b) return 0;
  if (SMALL_INTEGER.test(a) && SMALL_INTEGER.test(b)) {
    // Exactly doubles (see SMALL_INTEGER), so compared as such.
    const x = Number(a);
    const y = Number(b);
    return x === y ? 0 : x < y ? -1 : 1;
  }
  const x = scaledOf(a);
  const y = scaledOf(b);
  if (x === undefined || y === undefined) return parseSourceDecimal(a).cmp(parseSourceDecimal(b));
  const scale = Math.max(x.scale, y.scale);
  const left = rescaled(x, scale);
  const right = rescaled(y, scale);
  return left === right ? 0 : left < right ? -1 : 1;
}

/** `-value`, exactly, as a decimal string (the sign of zero is dropped). */
export function negateDecimalString(value: DecimalString): DecimalString {
  if (isZeroDecimal(value)) return "0";
  if (value.startsWith("-")) return value.slice(1);
  return value.startsWith("+") ? `-${value.slice(1)}` : `-${value}`;
}

/** The exact difference `a − b` of two decimals, as a normalized decimal string. */
export function subtractDecimalStrings(a: DecimalString, b: DecimalString): DecimalString {
  return sumDecimalStrings([a, negateDecimalString(b)]);
}
