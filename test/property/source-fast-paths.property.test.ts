/**
 * The fast paths of source parsing agree with the general code they stand in for, on generated input:
 * plain decimals normalized by string manipulation against decimal.js, the single-match calendar date
 * check against `isCalendarDate`, the zod-compiled record schemas (`z.compile`, used by
 * `parseRecord`) against zod's own parser, on valid and broken records alike, and the hand-written
 * reader of plain records (`readPlainRecord`) against the schemas.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatDecimal, normalizePlainDecimal, normalizeSourceDecimal, parseSourceDecimal } from "../../src/decimal.js";
import { DateFormatError, isCalendarDate, parseCalendarDate } from "../../src/dates.js";
import { isOcfSyncError } from "../../src/errors.js";
import type { RecordKind } from "../../src/source/kinds.js";
import { parseRecord, parseRecordBySchema } from "../../src/source/parse.js";
import { PLAIN_FIELDS, PLAIN_RECORD_MAX_DEPTH, readPlainRecord } from "../../src/source/plain-record.js";
import { DEFAULT_JSON_LIMITS, checkJsonLimits } from "../../src/source/json-limits.js";
import { PRECEDED_BY_REASONS, RECORD_SCHEMAS, SPEC_FIELDS } from "../../src/source/records.js";
import { generatedRecord } from "../../bench/generated-issuer.js";
import { SourceRecordError } from "../../src/source/errors.js";

const NUM_RUNS = 500;

/** What a call gave: its value, or the code and message of the ocf-sync error it threw. */
function outcome(fn: () => unknown): unknown {
  try {
    return { value: fn() };
  } catch (error) {
    if (!isOcfSyncError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max }).map((d) => d.join(""));

/** A plain decimal: any sign, `0` or an integer without leading zero (up to 250 digits), any fraction. */
const plainDecimalArb = fc
  .record({
    sign: fc.constantFrom("", "+", "-"),
    int: fc.oneof(fc.constant("0"), fc.tuple(fc.constantFrom(..."123456789"), digits(0, 250)).map(([a, b]) => a + b)),
    fraction: fc.oneof(
      fc.constant(""),
      fc.constant("."),
      digits(1, 30).map((d) => `.${d}`),
      fc.tuple(digits(0, 5), fc.integer({ min: 1, max: 25 })).map(([d, zeros]) => `.${d}${"0".repeat(zeros)}`),
    ),
  })
  .map(({ sign, int, fraction }) => `${sign}${int}${fraction}`);

describe("plain decimal fast path", () => {
  it("gives decimal.js's normalized form for every plain decimal", () => {
    fc.assert(
      fc.property(plainDecimalArb, (text) => {
        expect(normalizePlainDecimal(text)).toBe(formatDecimal(parseSourceDecimal(text)));
      }),
      { numRuns: NUM_RUNS * 4 },
    );
  });

  it("takes only plain text, and normalizeSourceDecimal answers every text exactly as decimal.js does", () => {
    const alphabet = fc.constantFrom(..."0012345679+-.eE x".split(""));
    const textArb = fc.oneof(fc.array(alphabet, { maxLength: 14 }).map((chars) => chars.join("")), plainDecimalArb, fc.string());
    fc.assert(
      fc.property(textArb, (text) => {
        const plain = /^[+-]?(0|[1-9][0-9]*)(\.[0-9]*)?$/.test(text);
        expect(normalizePlainDecimal(text) !== undefined).toBe(plain);
        expect(outcome(() => normalizeSourceDecimal(text))).toEqual(outcome(() => formatDecimal(parseSourceDecimal(text))));
      }),
      { numRuns: NUM_RUNS * 4 },
    );
  });
});

describe("calendar date check", () => {
  it("parseCalendarDate accepts exactly what isCalendarDate accepts, and says which rule failed", () => {
    const dateLike = fc
      .tuple(digits(3, 5), digits(1, 3), digits(1, 3), fc.constantFrom("-", "/"))
      .map(([y, m, d, sep]) => `${y}${sep}${m}-${d}`);
    fc.assert(
      fc.property(fc.oneof(dateLike, fc.string({ maxLength: 12 })), (text) => {
        if (isCalendarDate(text)) {
          expect(parseCalendarDate(text)).toBe(text);
        } else {
          const shaped = /^\d{4}-\d{2}-\d{2}$/.test(text);
          const expected = shaped ? "is not a real calendar date" : "is not a date of the form YYYY-MM-DD";
          expect(() => parseCalendarDate(text)).toThrow(DateFormatError);
          expect(() => parseCalendarDate(text)).toThrow(expected);
        }
      }),
      { numRuns: NUM_RUNS * 4 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Wire records: mostly well formed, with now and then a value that breaks a field.

const ISSUER = "prop-issuer";

/** Values no field accepts (or that a few accept as absent). */
const junk = fc.constantFrom<unknown>(null, "", "x", 0, 1.5, true, {}, [], [null], { foo: 1 }, { value: 5 });

/**
 * Mostly `valid`, rarely `invalid`: a record has about sixty fields, and a good share of the records
 * must come out valid for the compiled fast path to be exercised as much as the fallback.
 */
const rarely = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown> = junk) =>
  fc.oneof({ weight: 80, arbitrary: valid }, { weight: 1, arbitrary: invalid });

const decimalText = rarely(
  fc.oneof(
    { weight: 3, arbitrary: plainDecimalArb.filter((text) => text.length < 40) },
    { weight: 1, arbitrary: fc.stringMatching(/^[+-]?((0|[1-9][0-9]{0,5})(\.[0-9]{0,4})?|\.[0-9]{1,4})([eE][+-]?[0-9]{1,2})?$/) },
  ),
  fc.constantFrom("1,000", "NaN", "1e99", "01", "."),
);
const realDate = fc
  .date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2040-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const dateText = rarely(realDate, fc.constantFrom("2023-02-29", "2023-13-01", "2023-1-01", ""));
const dateTimeText = rarely(
  fc.tuple(realDate, digits(0, 9)).map(([d, f]) => `${d}T12:34:56${f === "" ? "" : `.${f}`}Z`),
  fc.constantFrom("2020-12-04T19:28:07+01:00", "2020-12-04T24:00:00Z", "2020-12-04"),
);

/** `{ value }` wrappers, with their absent spellings and now and then an extra key. */
const wrapper = (text: fc.Arbitrary<unknown>) =>
  rarely(
    fc.oneof(
      { weight: 8, arbitrary: fc.record({ value: text }) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>({}, { value: null }, null) },
      { weight: 1, arbitrary: fc.record({ value: text, extra: junk }) },
    ),
  );
const decimalField = wrapper(decimalText);
const dateField = wrapper(dateText);
const text = rarely(
  fc.oneof(
    { weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 50 }) },
    { weight: 1, arbitrary: fc.constant(null) },
  ),
  fc.oneof(fc.constant(""), fc.string({ unit: "binary", minLength: 51, maxLength: 60 }), junk),
);
const flag = rarely(fc.oneof(fc.boolean(), fc.constant(null)));
const currencyCode = rarely(
  fc.constantFrom<unknown>("USD", "eur", { value: "USD" }, { value: "gbp" }),
  fc.constantFrom<unknown>("US", { value: "U$D" }, 5),
);
const money = rarely(
  fc.oneof(fc.record({ currencyCode, amount: decimalField }), fc.constantFrom<unknown>({}, null)),
  fc.oneof(fc.record({ currencyCode }), fc.record({ amount: decimalField }), junk),
);
const partial = <T>(fields: { [K in keyof T]: fc.Arbitrary<T[K]> }) =>
  fc.tuple(fc.record(fields, { requiredKeys: [] }), fc.option(junk, { freq: 8 })).map(([object, extra]) =>
    extra === null ? object : { ...object, "unknown key": extra },
  );
const list = (item: fc.Arbitrary<unknown>) => rarely(fc.oneof(fc.array(item, { maxLength: 4 }), fc.constant(null)));

const vestingEvent = partial({
  id: text,
  vestDate: dateField,
  quantity: decimalField,
  performanceCondition: flag,
  vested: flag,
  maxQuantity: decimalField,
  targetQuantity: decimalField,
  vestedQuantity: decimalField,
});
const grantFields = {
  id: rarely(fc.stringMatching(/^[0-9A-Za-z-]{1,12}$/)),
  issuerId: rarely(fc.constantFrom<unknown>(ISSUER, null), fc.constantFrom("other", "", 5)),
  stakeholderId: text,
  equityIncentivePlanName: text,
  issueDate: dateField,
  vestingStartDate: dateField,
  boardApprovalDate: dateField,
  stakeholderAcceptanceDate: dateField,
  canceledDate: dateField,
  terminationDate: dateField,
  quantity: decimalField,
  vestedQuantity: decimalField,
  securityLabel: text,
  vestingEvents: list(vestingEvent),
  vestingSchedule: rarely(partial({ name: text, lastModifiedDate: dateField, startDate: dateField, endDate: dateField })),
  canceledQuantity: decimalField,
  returnedToPoolQuantity: decimalField,
  returnedToTreasuryQuantity: decimalField,
  lastModifiedDatetime: wrapper(dateTimeText),
  securityId: text,
  shareClassId: text,
  vestingScheduleTemplateId: text,
};
const awardArb = partial({
  ...grantFields,
  shareClassName: text,
  pricePerShare: money,
  precededBy: rarely(
    partial({
      reason: rarely(fc.constantFrom(...PRECEDED_BY_REASONS, "SOMETHING_NEW", null)),
      securities: list(partial({ id: text, type: text, label: text })),
    }),
  ),
});
const unitArb = partial({
  ...grantFields,
  releasedQuantity: decimalField,
  releasePricePerShare: money,
  netSettledQuantity: decimalField,
  settlements: list(
    partial({
      settlementDate: dateField,
      releaseQuantity: decimalField,
      saleQuantity: decimalField,
      withholdingQuantity: decimalField,
      netSettlementQuantity: decimalField,
      settlementPrice: money,
      certificateId: text,
      certificateLabel: text,
    }),
  ),
  forfeitedQuantity: decimalField,
  expiredQuantity: decimalField,
});

describe.each([
  ["restrictedStockAward", awardArb],
  ["restrictedStockUnit", unitArb],
] as const)("compiled %s schema", (kind: RecordKind, recordArb: fc.Arbitrary<unknown>) => {
  const schema = RECORD_SCHEMAS[kind];
  const compiledSchema = z.compile(schema);

  it("parses every record exactly as zod's own parser does: same data, same issues", () => {
    let valid = 0;
    fc.assert(
      fc.property(recordArb, (raw) => {
        const expected = schema.safeParse(raw, { reportInput: true });
        const actual = compiledSchema.safeParse(raw, { reportInput: true });
        expect(actual.success).toBe(expected.success);
        expect(actual.data).toStrictEqual(expected.data);
        expect(actual.error?.issues).toStrictEqual(expected.error?.issues);
        if (expected.success && (raw as { issuerId?: unknown }).issuerId !== "other") {
          valid += 1;
          expect(parseRecord(kind, raw, { issuerId: ISSUER }).parsed.record).toStrictEqual(expected.data);
        } else {
          expect(() => parseRecord(kind, raw, { issuerId: ISSUER })).toThrow(SourceRecordError);
        }
      }),
      { numRuns: NUM_RUNS },
    );
    // Both paths must have been exercised: a generator that only made broken records proves nothing.
    expect(valid).toBeGreaterThan(NUM_RUNS / 10);
    expect(valid).toBeLessThan(NUM_RUNS);
  });
});

/** What parsing gave: the record as JSON text (so key order counts) and its warnings, or the error. */
function parsedOutcome(parse: () => { parsed: { record: unknown }; warnings: unknown[] }): unknown {
  try {
    const { parsed, warnings } = parse();
    return { record: JSON.stringify(parsed.record), warnings };
  } catch (error) {
    if (!(error instanceof SourceRecordError)) throw error;
    return { code: error.code, message: error.message, issues: error.issues, recordId: error.recordId };
  }
}

/** Every place in a JSON value: the container and the key or index of each value inside it. */
function placesOf(value: unknown, out: { container: Record<string, unknown> | unknown[]; key: string | number }[] = []) {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      out.push({ container: value, key: index });
      placesOf(item, out);
    });
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      out.push({ container: value as Record<string, unknown>, key });
      placesOf(item, out);
    }
  }
  return out;
}

/** What a place may become: values of any field (valid or not), removal, an unknown key beside it. */
const replacement = fc.oneof(
  decimalField,
  dateField,
  wrapper(dateTimeText),
  text,
  flag,
  money,
  currencyCode,
  fc.constantFrom<unknown>("-5", "-0", "1e3", "2023-02-29", "\u{1F600}".repeat(30), "x".repeat(51), { value: "-0.0" }, { value: "+7." }),
  fc.constantFrom<unknown>(...PRECEDED_BY_REASONS, "SOMETHING_NEW"),
);
const edit = fc.record({
  at: fc.nat(),
  how: fc.constantFrom("replace", "replace", "replace", "delete", "unknown key"),
  value: replacement,
});

/**
 * A benchmark record (plain: well formed, nothing to warn about) with up to three edits, each of which
 * may leave it plain, make it warn, or break it: both of `parseRecord`'s paths are taken often.
 */
const editedRecordArb = (kind: RecordKind) =>
  fc.tuple(fc.nat({ max: 200 }), fc.array(edit, { maxLength: 3 })).map(([i, edits]) => {
    const raw: unknown = { ...generatedRecord(kind === "restrictedStockAward" ? "award" : "unit", i), issuerId: ISSUER };
    for (const { at, how, value } of edits) {
      const places = placesOf(raw);
      const place = places[at % places.length];
      if (place === undefined) continue;
      const { container, key } = place;
      if (how === "replace") (container as Record<string | number, unknown>)[key] = value;
      else if (how === "delete" && !Array.isArray(container)) delete container[key as string];
      else if (how === "unknown key" && !Array.isArray(container)) container["somethingNew"] = value;
    }
    return raw;
  });

/** The size `checkJsonLimits` counts for a value: the smallest `maxBytes` it accepts. */
function jsonLimitBytes(value: unknown): number {
  let low = 0;
  let high = 1 << 24;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (checkJsonLimits(value, { maxDepth: 1000, maxBytes: mid }) === undefined) high = mid;
    else low = mid + 1;
  }
  return low;
}

describe("plain-record reader", () => {
  it("knows the fields of every source type it reads, in the schemas' order", () => {
    for (const [type, fields] of Object.entries(PLAIN_FIELDS)) {
      expect(fields.map(([name]) => name)).toEqual(SPEC_FIELDS[type as keyof typeof SPEC_FIELDS]);
    }
  });

  it("reads the benchmark's records (awards and units with 40 events and a settlement)", () => {
    for (const [kind, short] of [
      ["restrictedStockAward", "award"],
      ["restrictedStockUnit", "unit"],
    ] as const) {
      for (const i of [0, 7, 31]) {
        const raw = generatedRecord(short, i);
        const record = readPlainRecord(kind, raw, DEFAULT_JSON_LIMITS);
        expect(record).toBeDefined();
        expect(JSON.stringify(record)).toBe(JSON.stringify(RECORD_SCHEMAS[kind].parse(raw)));
      }
    }
  });

  describe.each([
    ["restrictedStockAward", fc.oneof(awardArb, editedRecordArb("restrictedStockAward"))],
    ["restrictedStockUnit", fc.oneof(unitArb, editedRecordArb("restrictedStockUnit"))],
  ] as const)("%s", (kind: RecordKind, recordArb: fc.Arbitrary<unknown>) => {
    it("parseRecord gives exactly what the schemas give (record, key order, warnings, errors), whichever path it took", () => {
      let plain = 0;
      let other = 0;
      fc.assert(
        fc.property(recordArb, (raw) => {
          const ctx = { issuerId: ISSUER };
          const read = readPlainRecord(kind, raw, DEFAULT_JSON_LIMITS);
          if (read === undefined || (raw as { issuerId?: unknown }).issuerId !== ISSUER) other += 1;
          else plain += 1;
          expect(parsedOutcome(() => parseRecord(kind, raw, ctx))).toEqual(parsedOutcome(() => parseRecordBySchema(kind, raw, ctx)));
        }),
        { numRuns: NUM_RUNS * 2 },
      );
      // Both paths must have been taken.
      expect(plain).toBeGreaterThan(NUM_RUNS / 20);
      expect(other).toBeGreaterThan(NUM_RUNS / 20);
    });

    it("refuses a record past the JSON limits just as the schema path does", () => {
      fc.assert(
        fc.property(recordArb, (raw) => {
          // Byte limits at the record's own size as `checkJsonLimits` counts it and one byte below; depth
          // limits below, at and above a plain record's depth.
          const size = jsonLimitBytes(raw);
          for (const maxBytes of [size - 1, size]) {
            for (const maxDepth of [PLAIN_RECORD_MAX_DEPTH - 1, PLAIN_RECORD_MAX_DEPTH, 64]) {
              const ctx = { issuerId: ISSUER, limits: { maxDepth, maxBytes } };
              expect(parsedOutcome(() => parseRecord(kind, raw, ctx))).toEqual(parsedOutcome(() => parseRecordBySchema(kind, raw, ctx)));
            }
          }
        }),
        { numRuns: NUM_RUNS },
      );
    });
  });
});
