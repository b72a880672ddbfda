/**
 * Cheap exact tests on decimal strings. Records from the parser hold normalized decimals (one text
 * per number), so equal text is equal value and the common case needs no decimal.js object; any
 * other text falls back to an exact decimal comparison, so the answers are exact for every input.
 * Property tests (`test/property/mapping-decimals.property.test.ts`) check each against decimal.js.
 */
import { formatDecimal, parseSourceDecimal, sumDecimals, type DecimalString } from "../decimal.js";

/** Zero in plain spellings: "0", "-0", "0.000", ".0", "+0." (exponent forms are parsed). */
const ZERO = /^[+-]?(0+\.?0*|\.0+)$/;

/** Exact equality of two decimals. */
export function sameDecimal(a: DecimalString, b: DecimalString): boolean {
  return a === b || parseSourceDecimal(a).equals(parseSourceDecimal(b));
}

/** Exactly zero. */
export function isZeroDecimal(value: DecimalString): boolean {
  return value === "0" || ZERO.test(value) || (/[eE]/.test(value) && parseSourceDecimal(value).isZero());
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

/**
 * The exact sum of decimal strings, as a normalized decimal string. Plain decimals are added as
 * scaled BigInts (exact integers, never JS numbers), which is several times faster than decimal.js
 * for the long lists of vesting events and settlements the source checks sum; any other spelling
 * (an exponent, a leading `+` or `.`) goes through `sumDecimals`. Tests check both agree.
 */
export function sumDecimalStrings(values: readonly DecimalString[]): DecimalString {
  // Share counts are mostly whole numbers: add them directly. Counters are often 0, and a sum with
  // a single non-zero whole term is that term (WHOLE text is already normalized): no BigInt needed.
  let allWhole = true;
  let nonZero = 0;
  let last = "0";
  for (const value of values) {
    if (!WHOLE.test(value)) {
      allWhole = false;
      break;
    }
    if (value !== "0") {
      nonZero += 1;
      last = value;
    }
  }
  if (allWhole) {
    if (nonZero <= 1) return last;
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
 * `a > b`. Plain decimals are compared as scaled BigInts, any other spelling with decimal.js.
 */
export function compareDecimalStrings(a: DecimalString, b: DecimalString): number {
  if (a === b) return 0;
  const x = scaledOf(a);
  const y = scaledOf(b);
  if (x === undefined || y === undefined) return parseSourceDecimal(a).cmp(parseSourceDecimal(b));
  const scale = Math.max(x.scale, y.scale);
  const left = rescaled(x, scale);
  const right = rescaled(y, scale);
  return left === right ? 0 : left < right ? -1 : 1;
}
