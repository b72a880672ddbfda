/**
 * Properties of the only two conversion points the source parser relies on: wire decimals and dates.
 * Expected values are computed independently: decimals with BigInt arithmetic and a hand-written
 * recognizer of the wire grammar, calendar days with the platform's proleptic Gregorian calendar
 * (`Date` in UTC), instants as BigInt microseconds. The conformance suite checks that recognizer
 * against the pattern Carta's OpenAPI document declares for `v1alpha1Decimal.value`.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DecimalError, formatDecimal, normalizeSourceDecimal, parseSourceDecimal } from "../../src/decimal.js";
import { DateFormatError, parseCalendarDate, parseUtcDateTime, utcDateTimeToEpochMs } from "../../src/dates.js";
import { describeConformance, sharedPath } from "../helpers/conformance.js";

const NUM_RUNS = 500;

/** The declared pattern of `v1alpha1Decimal.value`, read from Carta's OpenAPI document (conformance only). */
function declaredPattern(): RegExp {
  const oas = JSON.parse(readFileSync(sharedPath("carta-openapi/carta-issuer-api.openapi.json"), "utf8")) as {
    components: { schemas: { v1alpha1Decimal: { properties: { value: { pattern: string } } } } };
  };
  return new RegExp(oas.components.schemas.v1alpha1Decimal.properties.value.pattern);
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/**
 * The wire grammar of a decimal, read character by character: an optional sign; then either an
 * integer part without leading zeros (a lone 0 is fine) with an optional point and digits after it,
 * or a point followed by at least one digit; then an optional exponent (e or E, optional sign, digits).
 */
function isWireDecimal(text: string): boolean {
  let i = 0;
  const at = (): string | undefined => text[i];
  const digits = (): number => {
    const start = i;
    while (isDigit(at())) i += 1;
    return i - start;
  };
  if (at() === "+" || at() === "-") i += 1;
  if (at() === ".") {
    i += 1;
    if (digits() === 0) return false;
  } else {
    const first = at();
    const integer = digits();
    if (integer === 0 || (first === "0" && integer > 1)) return false;
    if (at() === ".") {
      i += 1;
      digits();
    }
  }
  if (at() === "e" || at() === "E") {
    i += 1;
    if (at() === "+" || at() === "-") i += 1;
    if (digits() === 0) return false;
  }
  return i === text.length;
}

/** Short strings over an alphabet that makes near-misses of decimals likely. */
const decimalishArb = fc.array(fc.constantFrom(..."0123456789+-.eE ,_xN".split("")), { maxLength: 12 }).map((chars) => chars.join(""));

/** A decimal as (negative, digits N, scale s): the value ±N / 10^s. */
interface Scaled {
  negative: boolean;
  digits: bigint;
  scale: number;
}

const scaledArb: fc.Arbitrary<Scaled> = fc.record({
  negative: fc.boolean(),
  digits: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.bigInt({ min: 0n, max: 1000n })),
  scale: fc.integer({ min: 0, max: 30 }),
});

/** The canonical text of ±N / 10^s, by BigInt arithmetic only. */
function canonical({ negative, digits, scale }: Scaled): string {
  let n = digits;
  let s = scale;
  while (s > 0 && n % 10n === 0n) {
    n /= 10n;
    s -= 1;
  }
  if (n === 0n) return "0";
  const unit = 10n ** BigInt(s);
  const fraction = s > 0 ? `.${(n % unit).toString().padStart(s, "0")}` : "";
  return `${negative ? "-" : ""}${n / unit}${fraction}`;
}

/** `text` read back as an integer count of 10^-60 units: the exact value, independently of decimal.js. */
function toUnits(text: string): bigint {
  const negative = text.startsWith("-");
  const [int = "", fraction = ""] = text.replace(/^[-+]/, "").split(".");
  const units = BigInt(int || "0") * 10n ** 60n + BigInt((fraction || "0").padEnd(60, "0"));
  return negative ? -units : units;
}

/** Ways the service may write the same value: padding, exponent, leading or trailing point, sign. */
const spellingArb = (value: Scaled): fc.Arbitrary<string> => {
  const text = value.digits.toString();
  const unit = 10n ** BigInt(value.scale);
  const int = (value.digits / unit).toString();
  const fraction = value.scale > 0 ? (value.digits % unit).toString().padStart(value.scale, "0") : "";
  const signs = value.negative ? ["-"] : ["", "+"];
  const mantissaWithExponent = fc
    .record({
      point: fc.integer({ min: 1, max: text.length }),
      zeros: fc.integer({ min: 0, max: 5 }),
      e: fc.constantFrom("e", "E"),
      exponentPad: fc.integer({ min: 0, max: 3 }),
      plusSign: fc.boolean(),
    })
    .map(({ point, zeros, e, exponentPad, plusSign }) => {
      // digits × 10^-(len - point) × 10^(len - point - scale) is the value
      const exponent = text.length - point - value.scale;
      const head = text.slice(0, point);
      const tail = text.slice(point) + "0".repeat(zeros);
      const exponentText = Math.abs(exponent).toString().padStart(1 + exponentPad, "0");
      const exponentSign = exponent < 0 ? "-" : plusSign ? "+" : "";
      return `${head}${tail === "" ? "" : `.${tail}`}${e}${exponentSign}${exponentText}`;
    });
  const padded = fc
    .integer({ min: 0, max: 25 })
    .map((zeros) => (fraction === "" ? `${int}.${"0".repeat(zeros)}` : `${int}.${fraction}${"0".repeat(zeros)}`));
  const leadingPoint = int === "0" && fraction !== "" ? [fc.constant(`.${fraction}`)] : [];
  return fc
    .tuple(fc.constantFrom(...signs), fc.oneof(padded, mantissaWithExponent, ...leadingPoint))
    .map(([sign, body]) => sign + body);
};

describe("wire decimals", () => {
  it("every spelling of a value normalizes to its one canonical string", () => {
    fc.assert(
      fc.property(
        scaledArb.chain((value) => fc.tuple(fc.constant(value), spellingArb(value))),
        ([value, spelling]) => {
          expect(isWireDecimal(spelling), spelling).toBe(true);
          expect(normalizeSourceDecimal(spelling)).toBe(canonical(value));
        },
      ),
      { numRuns: NUM_RUNS * 4 },
    );
  });

  it("the normalized string has exactly the value computed with BigInt", () => {
    fc.assert(
      fc.property(
        scaledArb.chain((value) => fc.tuple(fc.constant(value), spellingArb(value))),
        ([value, spelling]) => {
          const expected = (value.negative ? -1n : 1n) * value.digits * 10n ** BigInt(60 - value.scale);
          expect(toUnits(normalizeSourceDecimal(spelling))).toBe(expected);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it("formatting then re-parsing is the identity", () => {
    fc.assert(
      fc.property(
        scaledArb.chain((value) => spellingArb(value)),
        (spelling) => {
          const once = normalizeSourceDecimal(spelling);
          expect(isWireDecimal(once), once).toBe(true);
          expect(normalizeSourceDecimal(once)).toBe(once);
          expect(formatDecimal(parseSourceDecimal(once))).toBe(once);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it("accepts exactly what the wire grammar accepts (within the exponent bound)", () => {
    fc.assert(
      fc.property(decimalishArb, (text) => {
        const exponent = /[eE]([+-]?\d+)$/.exec(text)?.[1];
        const inRange = exponent === undefined || Math.abs(Number.parseInt(exponent, 10)) <= 60;
        if (isWireDecimal(text) && inRange) {
          expect(() => parseSourceDecimal(text)).not.toThrow();
        } else {
          expect(() => parseSourceDecimal(text)).toThrow(DecimalError);
        }
      }),
      { numRuns: NUM_RUNS * 4 },
    );
  });

  it.each(["NaN", "Infinity", "-Infinity", "0x10", "1,000", "1 000", "1_000", "", " ", ".", "+", "e5", "1e", "--1", "01", "１"])(
    "rejects %j",
    (text) => {
      expect(() => parseSourceDecimal(text)).toThrow(DecimalError);
    },
  );
});

describeConformance("the wire grammar against the OpenAPI document's declared pattern", () => {
  it("agrees with the pattern on near-misses and on every spelling the properties above generate", () => {
    const pattern = declaredPattern();
    fc.assert(
      fc.property(decimalishArb, (text) => {
        expect(isWireDecimal(text), text).toBe(pattern.test(text));
      }),
      { numRuns: NUM_RUNS * 4 },
    );
    fc.assert(
      fc.property(scaledArb.chain((value) => spellingArb(value)), (spelling) => {
        expect(spelling).toMatch(pattern);
        expect(normalizeSourceDecimal(spelling)).toMatch(pattern);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it.each(["0", "7.", "0.50", "-12.000", ".5", "+4.2E+7", "3e-05", "00", "012", "1.2.3", "e5", "1e", "-.", "", "+"])("agrees on %j", (text) => {
    expect(isWireDecimal(text)).toBe(declaredPattern().test(text));
  });
});

/** Days in a month by the platform calendar, independent of `src/dates.ts`. */
function daysInMonthByDate(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0); // day 0 of the next month: the last day of `month`
  return date.getUTCDate();
}

const pad = (n: number, width: number): string => n.toString().padStart(width, "0");

/** Years 1 to 9999, with the century years (leap only when divisible by 400) drawn often. */
const yearArb = fc.oneof(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 99 }).map((c) => c * 100));

describe("calendar dates", () => {
  it("accepts a day exactly when the calendar has it, and returns it unchanged", () => {
    fc.assert(
      fc.property(
        yearArb,
        fc.integer({ min: 0, max: 13 }),
        fc.oneof(fc.integer({ min: 0, max: 32 }), fc.integer({ min: 28, max: 31 })),
        (year, month, day) => {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          const real = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonthByDate(year, month);
          if (real) expect(parseCalendarDate(text)).toBe(text);
          else expect(() => parseCalendarDate(text)).toThrow(DateFormatError);
        },
      ),
      { numRuns: NUM_RUNS * 4 },
    );
  });

  it("round-trips every real date, agreeing with the platform calendar", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true }), (date) => {
        const text = date.toISOString().slice(0, 10);
        expect(parseCalendarDate(text)).toBe(text);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("rejects day 0, day 32, month 0, month 13 and Feb 29 of common years", () => {
    fc.assert(
      fc.property(yearArb, fc.integer({ min: 1, max: 12 }), (year, month) => {
        const y = pad(year, 4);
        const m = pad(month, 2);
        for (const bad of [`${y}-${m}-00`, `${y}-${m}-32`, `${y}-00-01`, `${y}-13-01`]) {
          expect(() => parseCalendarDate(bad)).toThrow(DateFormatError);
        }
        const leap = daysInMonthByDate(year, 2) === 29;
        if (leap) expect(parseCalendarDate(`${y}-02-29`)).toBe(`${y}-02-29`);
        else expect(() => parseCalendarDate(`${y}-02-29`)).toThrow("is not a real calendar date");
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

/** Microseconds from the epoch to 0001-01-01T00:00:00Z and to the end of 9999. */
const MIN_MICROS = -62135596800000000n;
const MAX_MICROS = 253402300799999999n;

/** An instant in microseconds, written with `digits` fractional digits (extra digits past 6 are noise). */
const dateTimeArb = fc
  .record({
    micros: fc.oneof(
      fc.bigInt({ min: MIN_MICROS, max: MAX_MICROS }),
      fc.bigInt({ min: 1722331917000000n, max: 1722331917000000n + 3_000_000n }), // dense: near-equal instants
    ),
    digits: fc.integer({ min: 0, max: 9 }),
    noise: fc.stringMatching(/^[0-9]{3}$/),
    zone: fc.constantFrom("Z", "z", "+00:00"),
  })
  .map(({ micros, digits, noise, zone }) => {
    const offset = micros - MIN_MICROS; // non-negative, so BigInt division floors
    const ms = Number(MIN_MICROS / 1000n + offset / 1000n);
    const iso = new Date(ms).toISOString(); // YYYY-MM-DDThh:mm:ss.sssZ for years 1 to 9999
    const sixDigits = `${iso.slice(20, 23)}${pad(Number(offset % 1000n), 3)}`;
    const written = (sixDigits + noise).slice(0, digits);
    const kept = written.slice(0, 6).padEnd(6, "0");
    const instant = MIN_MICROS + offset - (offset % 10n ** BigInt(6 - Math.min(digits, 6)));
    return {
      wire: `${iso.slice(0, 19)}${digits > 0 ? `.${written}` : ""}${zone}`,
      expected: `${iso.slice(0, 19)}.${kept}Z`,
      instant,
    };
  });

describe("UTC date-times", () => {
  it("normalizes 0 to 9 fractional digits to six, truncating past microseconds", () => {
    fc.assert(
      fc.property(dateTimeArb, ({ wire, expected, instant }) => {
        const normalized = parseUtcDateTime(wire);
        expect(normalized).toBe(expected);
        expect(utcDateTimeToEpochMs(normalized)).toBe(Number(instant / 1000n - (instant % 1000n < 0n ? 1n : 0n)));
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });

  it("orders normalized strings exactly as their instants", () => {
    fc.assert(
      fc.property(dateTimeArb, dateTimeArb, (a, b) => {
        const [x, y] = [parseUtcDateTime(a.wire), parseUtcDateTime(b.wire)];
        const byString = x < y ? -1 : x > y ? 1 : 0;
        const byInstant = a.instant < b.instant ? -1 : a.instant > b.instant ? 1 : 0;
        expect(byString).toBe(byInstant);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });

  it.each([
    "2024-07-30T24:00:00Z",
    "2024-07-30T23:60:00Z",
    "2024-07-30T23:59:60Z",
    "2023-02-29T00:00:00Z",
    "2024-07-30T09:31:57+01:00",
    "2024-07-30T09:31:57",
    "2024-07-30T09:31:57.Z",
    "2024-07-30",
  ])("rejects %j", (text) => {
    expect(() => parseUtcDateTime(text)).toThrow(DateFormatError);
  });
});
