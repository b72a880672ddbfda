/**
 * The mapping's fast decimal paths agree exactly with `src/decimal.ts`: the BigInt sum with
 * `sumDecimals`, the zero and equality tests with decimal.js, the canonical-form shortcut of
 * `RecordContext.numeric` with `toOcfNumeric`, and the double sum of exact values (`sumExact`) and
 * the parse-once reader (`RecordContext.exact`) with decimal.js.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SOURCE_DECIMAL_PATTERN, formatDecimal, isZeroDecimal, parseSourceDecimal, sameDecimal, sumDecimalStrings, sumDecimals, sumExact, toOcfNumeric } from "../../src/decimal.js";
import { OCF_CANONICAL_NUMERIC, RecordContext } from "../../src/mapping/record-context.js";

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max }).map((d) => d.join(""));

/** Decimal text in every spelling the wire pattern allows: signs, leading/trailing points, zero padding, exponents. */
const sourceDecimal = fc.oneof(
  fc.tuple(fc.constantFrom("", "-", "+"), digits(1, 22), fc.option(digits(0, 14), { nil: undefined })).map(
    ([sign, whole, fraction]) => `${sign}${whole}${fraction === undefined ? "" : `.${fraction}`}`,
  ),
  fc.tuple(fc.constantFrom("", "-"), digits(1, 12)).map(([sign, fraction]) => `${sign}.${fraction}`),
  fc.tuple(digits(1, 6), fc.integer({ min: -12, max: 12 })).map(([mantissa, exponent]) => `${mantissa}e${exponent}`),
  fc.constantFrom("0", "-0", "0.000", "+0.", ".0", "12.500"),
).filter((text) => SOURCE_DECIMAL_PATTERN.test(text));

describe("mapping decimal fast paths", () => {
  it("sumDecimalStrings equals sumDecimals, in normalized form", () => {
    fc.assert(
      fc.property(fc.array(sourceDecimal, { maxLength: 12 }), (values) => {
        const fast = sumDecimalStrings(values);
        expect(fast).toBe(formatDecimal(sumDecimals(values.map(parseSourceDecimal))));
      }),
      { numRuns: 400 },
    );
  });

  it("sumExact equals sumDecimals, integers near decimal.js's word boundaries and 2^53 included", () => {
    // Integers of 1 to 17 digits, many of them multiples of 10^7 and 10^14 (trailing zero words).
    const integer = fc.oneof(
      fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }).map(String),
      fc.tuple(fc.integer({ min: -9_999_999, max: 9_999_999 }), fc.constantFrom(1n, 10n ** 7n, 10n ** 14n)).map(([n, scale]) => String(BigInt(n) * scale)),
      fc.constantFrom("9007199254740991", "9007199254740992", "-9007199254740991", "999999999999999", "1000000000000000", "-0"),
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(integer, integer, sourceDecimal), { maxLength: 12 }), (values) => {
        const exact = values.map(parseSourceDecimal);
        expect(formatDecimal(sumExact(exact))).toBe(formatDecimal(sumDecimals(exact)));
      }),
      { numRuns: 600 },
    );
  });

  it("RecordContext.exact is parseSourceDecimal, the same value for the same text", () => {
    const ctx = new RecordContext("7", "restrictedStockAward", "1");
    fc.assert(
      fc.property(sourceDecimal, (text) => {
        const value = ctx.exact(text);
        expect(value.equals(parseSourceDecimal(text))).toBe(true);
        expect(ctx.exact(text)).toBe(value);
        expect(ctx.exact(undefined)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it("sameDecimal and isZeroDecimal answer as decimal.js does", () => {
    fc.assert(
      fc.property(sourceDecimal, sourceDecimal, (a, b) => {
        const da = parseSourceDecimal(a);
        const db = parseSourceDecimal(b);
        expect(sameDecimal(a, b)).toBe(da.equals(db));
        expect(sameDecimal(a, a)).toBe(true);
        expect(isZeroDecimal(a)).toBe(da.isZero());
      }),
      { numRuns: 400 },
    );
  });

  it("RecordContext.numeric gives exactly what toOcfNumeric gives, or the same precision error", () => {
    const ctx = new RecordContext("7", "restrictedStockAward", "1");
    fc.assert(
      fc.property(sourceDecimal, (value) => {
        const outcome = (fn: () => string): { value?: string; code?: string } => {
          try {
            return { value: fn() };
          } catch (error) {
            return { code: (error as { code?: string }).code ?? "?" };
          }
        };
        const reference = outcome(() => toOcfNumeric(value));
        const fast = outcome(() => ctx.numeric(value, "quantity"));
        if (reference.code === "DECIMAL_PRECISION") expect(fast).toEqual({ code: "MAPPING_DECIMAL_PRECISION" });
        else expect(fast).toEqual(reference);
        // The value parsed once (as the cancellation's counters are) is written the same.
        expect(outcome(() => ctx.numeric(parseSourceDecimal(value), "quantity"))).toEqual(fast);
        if (OCF_CANONICAL_NUMERIC.test(value) && value !== "-0") expect(reference.value).toBe(value);
      }),
      { numRuns: 600 },
    );
  });
});
