/**
 * The mapping's shortcuts agree with the general code they stand in for: `quoted` against
 * `JSON.stringify`; decimal order, sign and sums of mostly-zero counters against decimal.js;
 * `asCanonicalNumeric` against `toOcfNumeric`; the key-precomputing transaction sort and the
 * skip-when-ordered sort against a plain sort; and the vesting-event and settlement orders against
 * their specification written as a list of keys.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Dec, SOURCE_DECIMAL_PATTERN, compareDecimalStrings, formatDecimal, isPositiveDecimal, isZeroDecimal, parseSourceDecimal, sameDecimal, sumDecimalStrings, sumDecimals, toOcfNumeric } from "../../src/decimal.js";
import { compareSettlements, compareVestingEvents, sortIfNeeded } from "../../src/mapping/order.js";
import { compareTransactions, sortTransactions } from "../../src/ocf/order.js";
import { quoted } from "../../src/mapping/quote.js";
import { asCanonicalNumeric } from "../../src/mapping/record-context.js";
import type { OcfTransaction } from "../../src/ocf/schemas.js";
import type { Settlement, VestingEvent } from "../../src/source/records.js";

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max }).map((d) => d.join(""));

/** Decimal text in every spelling the wire pattern allows, normalized ones most often. */
const anyDecimal = fc
  .oneof(
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom("", "-"), digits(1, 22), fc.option(digits(1, 12), { nil: undefined })).map(([s, w, f]) => formatDecimal(new Dec(`${s}${w}${f === undefined ? "" : `.${f}`}`))) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("", "-", "+"), digits(1, 6), fc.option(digits(0, 6), { nil: undefined })).map(([s, w, f]) => `${s}${w}${f === undefined ? "" : `.${f}`}`) },
    { weight: 1, arbitrary: fc.tuple(digits(1, 5), fc.integer({ min: -8, max: 8 })).map(([m, e]) => `${m}e${e}`) },
    { weight: 1, arbitrary: fc.constantFrom("0", "-0", "+0.", ".0", ".5", "-.25", "1.", "0.000", "10", "9", "-1") },
  )
  .filter((text) => SOURCE_DECIMAL_PATTERN.test(text));

/** Counters as the source sends them: mostly whole, often zero. */
const counter = fc.oneof(fc.constant("0"), fc.constant("0"), fc.integer({ min: 1, max: 1_000_000 }).map(String), digits(1, 25).map((d) => formatDecimal(new Dec(d))), anyDecimal);

describe("quoted", () => {
  it("is JSON.stringify of any string", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), fc.constantFrom('"', "\\", "\u0000", "\ud800", "a\u001fb", "\u2028")), (text) => {
        expect(quoted(text)).toBe(JSON.stringify(text));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("decimal shortcuts", () => {
  it("compareDecimalStrings orders as decimal.js does", () => {
    fc.assert(
      fc.property(anyDecimal, anyDecimal, (a, b) => {
        expect(Math.sign(compareDecimalStrings(a, b))).toBe(parseSourceDecimal(a).cmp(parseSourceDecimal(b)));
        expect(compareDecimalStrings(a, a)).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it("sameDecimal is decimal.js's equals, and isZeroDecimal its isZero", () => {
    fc.assert(
      fc.property(anyDecimal, anyDecimal, (a, b) => {
        expect(sameDecimal(a, b)).toBe(parseSourceDecimal(a).equals(parseSourceDecimal(b)));
        expect(sameDecimal(a, formatDecimal(parseSourceDecimal(a)))).toBe(true);
        expect(isZeroDecimal(a)).toBe(parseSourceDecimal(a).isZero());
      }),
      { numRuns: 1000 },
    );
  });

  it("isPositiveDecimal is decimal.js's > 0", () => {
    fc.assert(
      fc.property(anyDecimal, (a) => {
        expect(isPositiveDecimal(a)).toBe(parseSourceDecimal(a).gt(0));
      }),
      { numRuns: 1000 },
    );
  });

  it("sumDecimalStrings of counters (zeros, a single term, many terms) equals sumDecimals", () => {
    fc.assert(
      fc.property(fc.array(counter, { maxLength: 6 }), (values) => {
        expect(sumDecimalStrings(values)).toBe(formatDecimal(sumDecimals(values.map(parseSourceDecimal))));
      }),
      { numRuns: 1000 },
    );
  });

  it("sumDecimalStrings of long lists of large integers of either sign equals sumDecimals (past 2^53 too)", () => {
    // Up to 15 digits, the double fast path's limit, and beyond; enough of them that the sum of
    // their magnitudes passes 2^53 - 1 often, and sums that land on either side of it.
    const fifteenDigits = fc.tuple(fc.boolean(), fc.bigInt({ min: 10n ** 14n, max: 10n ** 15n - 1n })).map(([negative, n]) => String(negative ? -n : n));
    const integer = fc.oneof(
      { weight: 4, arbitrary: fifteenDigits },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom("", "-"), digits(1, 17)).map(([s, d]) => formatDecimal(new Dec(`${s}${d}`))) },
      { weight: 1, arbitrary: fc.constantFrom("9007199254740991", "9007199254740992", "900719925474099", "-900719925474099", "1", "-1", "0", "-0") },
    );
    fc.assert(
      fc.property(fc.oneof(fc.array(fifteenDigits, { minLength: 5, maxLength: 40 }), fc.array(fifteenDigits.map((n) => n.replace("-", "")), { minLength: 5, maxLength: 40 }), fc.array(integer, { maxLength: 40 })), (values) => {
        expect(sumDecimalStrings(values)).toBe(formatDecimal(sumDecimals(values.map(parseSourceDecimal))));
      }),
      { numRuns: 2000 },
    );
  });

  it("compareDecimalStrings orders integers near and past 2^53 as decimal.js does", () => {
    const integer = fc.oneof(
      fc.bigInt({ min: -(10n ** 16n), max: 10n ** 16n }).map(String),
      fc.constantFrom("9007199254740991", "9007199254740992", "9007199254740993", "999999999999999", "1000000000000000", "-0", "0"),
    );
    fc.assert(
      fc.property(integer, integer, (a, b) => {
        expect(Math.sign(compareDecimalStrings(a, b))).toBe(parseSourceDecimal(a).cmp(parseSourceDecimal(b)));
      }),
      { numRuns: 2000 },
    );
  });

  it("asCanonicalNumeric returns the value exactly when toOcfNumeric would return it unchanged", () => {
    fc.assert(
      fc.property(anyDecimal, (a) => {
        const fits = parseSourceDecimal(a).decimalPlaces() <= 10;
        expect(asCanonicalNumeric(a)).toBe(fits && toOcfNumeric(a) === a ? a : undefined);
      }),
      { numRuns: 1000 },
    );
  });
});

const date = fc.constantFrom("2020-01-01", "2020-01-02", "2021-06-30");
const smallText = fc.constantFrom("a", "b", "a-1", "b-2", "é");
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const quantity = fc.constantFrom("0", "1", "1.5", "10", "2");

const transaction: fc.Arbitrary<OcfTransaction> = fc
  .record({
    object_type: fc.constantFrom(
      "TX_STOCK_ISSUANCE",
      "TX_EQUITY_COMPENSATION_ISSUANCE",
      "TX_VESTING_START",
      "TX_EQUITY_COMPENSATION_RELEASE",
      "TX_STOCK_CANCELLATION",
      "TX_STOCK_TRANSFER",
      "TX_VESTING_ACCELERATION",
    ),
    id: smallText,
    date,
  })
  .map((tx) => ({ ...tx, security_id: "s" }) as unknown as OcfTransaction);

/** Without `undefined` values, as the parser builds records (absent keys are left out). */
function compacted<T>(value: object): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const vestingEvent: fc.Arbitrary<VestingEvent> = fc
  .record({
    id: maybe(smallText),
    vestDate: maybe(date),
    performanceCondition: fc.boolean(),
    vested: fc.boolean(),
    targetQuantity: maybe(quantity),
    vestedQuantity: maybe(quantity),
    maxQuantity: maybe(quantity),
    quantity: maybe(quantity),
  })
  .map((fields) => compacted<VestingEvent>(fields));

const settlement: fc.Arbitrary<Settlement> = fc
  .record({
    settlementDate: maybe(date),
    certificateId: maybe(smallText),
    certificateLabel: maybe(smallText),
    releaseQuantity: maybe(quantity),
    netSettlementQuantity: maybe(quantity),
    withholdingQuantity: maybe(quantity),
    saleQuantity: maybe(quantity),
    settlementPrice: maybe(fc.record({ currency: fc.constantFrom("EUR", "USD"), amount: quantity })),
  })
  .map((fields) => compacted<Settlement>(fields));

/** The order a spec gives as a list of keys, compared one after the other (absent first). */
function byKeys<T>(keys: readonly ((item: T) => string | number | undefined)[], numeric: ReadonlySet<number>) {
  return (a: T, b: T): number => {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as (item: T) => string | number | undefined;
      const x = key(a);
      const y = key(b);
      if (x === y) continue;
      if (x === undefined) return -1;
      if (y === undefined) return 1;
      if (numeric.has(i)) {
        const order = typeof x === "number" ? x - (y as number) : new Dec(x).cmp(new Dec(y as string));
        if (order !== 0) return order;
        continue;
      }
      return x < y ? -1 : 1;
    }
    return 0;
  };
}

const flag = (v: boolean) => (v ? 1 : 0);
const referenceEventOrder = byKeys<VestingEvent>(
  [(e) => e.vestDate, (e) => e.id, (e) => flag(e.performanceCondition), (e) => flag(e.vested), (e) => e.targetQuantity, (e) => e.vestedQuantity, (e) => e.maxQuantity, (e) => e.quantity],
  new Set([2, 3, 4, 5, 6, 7]),
);
const referenceSettlementOrder = byKeys<Settlement>(
  [
    (s) => s.settlementDate,
    (s) => s.certificateId,
    (s) => s.certificateLabel,
    (s) => s.releaseQuantity,
    (s) => s.netSettlementQuantity,
    (s) => s.withholdingQuantity,
    (s) => s.saleQuantity,
    (s) => s.settlementPrice?.currency,
    (s) => s.settlementPrice?.amount,
  ],
  new Set([3, 4, 5, 6, 8]),
);

describe("order shortcuts", () => {
  it("sortTransactions gives the order of a plain sort by compareTransactions", () => {
    fc.assert(
      fc.property(fc.array(transaction, { maxLength: 30 }), (list) => {
        const expected = [...list].sort(compareTransactions);
        expect(sortTransactions([...list])).toEqual(expected);
        expect(sortTransactions([...list]).every((tx, i) => tx === expected[i])).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("sortIfNeeded gives the order of a plain stable sort, for shuffled and already ordered lists", () => {
    fc.assert(
      fc.property(fc.array(vestingEvent, { maxLength: 12 }), fc.boolean(), (events, presort) => {
        const list = presort ? [...events].sort(compareVestingEvents) : events;
        const expected = [...list].sort(compareVestingEvents);
        const actual = sortIfNeeded([...list], compareVestingEvents);
        expect(actual.every((event, i) => event === expected[i])).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("compareVestingEvents and compareSettlements follow their key lists", () => {
    fc.assert(
      fc.property(vestingEvent, vestingEvent, settlement, settlement, (a, b, s, t) => {
        expect(Math.sign(compareVestingEvents(a, b))).toBe(Math.sign(referenceEventOrder(a, b)));
        expect(Math.sign(compareSettlements(s, t))).toBe(Math.sign(referenceSettlementOrder(s, t)));
      }),
      { numRuns: 1000 },
    );
  });
});
