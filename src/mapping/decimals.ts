/**
 * Cheap exact tests on decimal strings. Records from the parser hold normalized decimals (one text
 * per number), so equal text is equal value and the common case needs no decimal.js object; any
 * other text falls back to an exact decimal comparison, so the answers are exact for every input.
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

/** A whole number without a sign or leading zeros, short enough to stay cheap. */
const WHOLE = /^(0|[1-9][0-9]{0,30})$/;

/** A decimal in plain form: optional minus, digits, optional fraction (what the parser produces). */
const PLAIN = /^(-?)([0-9]+)(?:\.([0-9]+))?$/;

/**
 * The exact sum of decimal strings, as a normalized decimal string. Plain decimals are added as
 * scaled BigInts (exact integers, never JS numbers), which is several times faster than decimal.js
 * for the long lists of vesting events and settlements the source checks sum; any other spelling
 * (an exponent, a leading `+` or `.`) goes through `sumDecimals`. Tests check both agree.
 */
export function sumDecimalStrings(values: readonly DecimalString[]): DecimalString {
  // Share counts are mostly whole numbers: add them directly.
  if (values.every((value) => WHOLE.test(value))) {
    let total = 0n;
    for (const value of values) total += BigInt(value);
    return total.toString();
  }
  const parts: { negative: boolean; digits: string; scale: number }[] = [];
  let scale = 0;
  for (const value of values) {
    const m = PLAIN.exec(value);
    if (m === null) return formatDecimal(sumDecimals(values.map(parseSourceDecimal)));
    const fraction = m[3] ?? "";
    parts.push({ negative: m[1] === "-", digits: `${m[2] ?? "0"}${fraction}`, scale: fraction.length });
    if (fraction.length > scale) scale = fraction.length;
  }
  let total = 0n;
  for (const part of parts) {
    const scaled = BigInt(part.digits + "0".repeat(scale - part.scale));
    total += part.negative ? -scaled : scaled;
  }
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
  const text = fraction === "" ? whole : `${whole}.${fraction}`;
  return negative && text !== "0" ? `-${text}` : text;
}
