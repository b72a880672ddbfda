/**
 * The parse of a plain record, written by hand: a record that the zod schemas of `records.ts` accept
 * and that raises no warning (no unknown key at any depth, no negative decimal, no date-time with more
 * than six fractional digits, no unknown `precededBy.reason`, no `vestedQuantity` on an event not
 * vested), within the JSON limits. Nearly every record the service sends is one. For any other record
 * it answers `undefined` and the caller parses with the schemas, which name every issue and warning;
 * so this reader only has to be exact on what it accepts, and gives up on anything unusual (a label
 * with characters outside the Basic Multilingual Plane, a decimal with an exponent, …).
 *
 * Why: the compiled zod parse, the warning walk over the same values, `compact` of every object and
 * the JSON limit walk were together a quarter of an export's CPU, and each of them visits every value
 * of the record; this visits each once. The property tests hold it to the schemas' output (same
 * values, same key order) and to the same verdict on the limits.
 */
import { normalizePlainDecimal, type DecimalString } from "../decimal.js";
import { isCalendarDate, parseUtcDateTime, type CalendarDate } from "../dates.js";
import type { JsonLimits } from "./json-limits.js";
import type { RecordKind } from "./kinds.js";
import {
  PRECEDED_BY_REASONS,
  type PrecededBy,
  type PrecededBySecurity,
  type RestrictedStockAward,
  type RestrictedStockUnit,
  type Settlement,
  type SourceTypeName,
  type VestingEvent,
  type VestingSchedule,
} from "./records.js";
import { isBlank, type Money } from "./wire.js";

/** Thrown inside the reader when the record is not plain; never leaves this module. */
const NOT_PLAIN: unique symbol = Symbol("not a plain record");

/**
 * How deep a plain record goes: a unit's `settlements[i].settlementPrice.currencyCode` object is at
 * level 5 (the record being level 1), and a plain record has no unknown key that could go deeper.
 */
export const PLAIN_RECORD_MAX_DEPTH = 5;

type Reader<T> = (state: ReadState, value: unknown) => T;

/** One field of an object: its wire name and how its value is read (`undefined` leaves it out). */
type Field = readonly [name: string, read: Reader<unknown>];

/**
 * The bytes `checkJsonLimits` counts for the values read so far (same rules: a string is its length
 * plus 2, a key its length plus 4, an object 2, an array 2 plus one per element, …).
 */
interface ReadState {
  bytes: number;
}

function notPlain(): never {
  throw NOT_PLAIN;
}

/** `null` counts its 4 bytes and is absent, as every optional field of the wire treats it. */
function isAbsent(state: ReadState, value: unknown): value is null | undefined {
  if (value === undefined) return true;
  if (value === null) {
    state.bytes += 4;
    return true;
  }
  return false;
}

/**
 * A JSON object whose keys are all known; counts its braces and keys. An object with another key is
 * not plain (the schema would strip the key and the parser warn about it).
 */
function objectOf(state: ReadState, value: unknown, known: ReadonlySet<string>): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) notPlain();
  const object = value as Record<string, unknown>;
  let bytes = 2;
  for (const key in object) {
    if (!known.has(key)) notPlain();
    bytes += key.length + 4;
  }
  state.bytes += bytes;
  return object;
}

/**
 * An object of `fields`, read in the schema's order, keys whose value is absent left out: what the
 * schema's `z.object(...)` followed by `compact` gives.
 */
function objectReader<T>(fields: readonly Field[]): Reader<T> {
  const known = new Set(fields.map(([name]) => name));
  return (state, value) => {
    const object = objectOf(state, value, known);
    const out: Record<string, unknown> = {};
    for (const [name, read] of fields) {
      const item = read(state, object[name]);
      if (item !== undefined) out[name] = item;
    }
    return out as T;
  };
}

/** `text({ min, max })`: a string within the limits (counted in UTF-16 units, so never more lenient). */
function text(limits: { min?: number; max?: number } = {}): Reader<string | undefined> {
  const { min = 0, max = Number.POSITIVE_INFINITY } = limits;
  return (state, value) => {
    if (isAbsent(state, value)) return undefined;
    // A code point outside the BMP is two UTF-16 units: a string past `max` units may still be within
    // `max` code points, and is left to the schema.
    if (typeof value !== "string" || value.length > max || value.length < min) notPlain();
    state.bytes += value.length + 2;
    return value;
  };
}

/** `ClassRefWire`: a blank value is absent with a warning, which is not plain. */
const classRefText = text({ max: 50 });
const classRef: Reader<string | undefined> = (state, value) => {
  const read = classRefText(state, value);
  if (read !== undefined && isBlank(read)) notPlain();
  return read;
};

/** `FlagWire`: absent is `false`. */
const flag: Reader<boolean> = (state, value) => {
  if (isAbsent(state, value)) return false;
  if (typeof value !== "boolean") notPlain();
  state.bytes += value ? 4 : 5;
  return value;
};

const VALUE_KEY = new Set(["value"]);

/** A `{ value }` wrapper of a string that `convert` turns into its parsed form (absent: `null`, `{}`, `{ value: null }`). */
function wrapped<T>(convert: (text: string) => T): Reader<T | undefined> {
  return (state, value) => {
    if (isAbsent(state, value)) return undefined;
    const inner = objectOf(state, value, VALUE_KEY)["value"];
    if (isAbsent(state, inner)) return undefined;
    if (typeof inner !== "string") notPlain();
    state.bytes += inner.length + 2;
    return convert(inner);
  };
}

/** A plain decimal that is not negative (a negative one is reported as a warning). */
const decimal = wrapped((value): DecimalString => {
  const normalized = value.charCodeAt(0) === 0x2d /* "-" */ ? undefined : normalizePlainDecimal(value);
  return normalized ?? notPlain();
});

const calendarDate = wrapped((value): CalendarDate => (isCalendarDate(value) ? value : notPlain()));

/** Six fractional digits at most: more are truncated, with a warning. */
const dateTime = wrapped((value) => {
  const fraction = /\.(\d+)/.exec(value)?.[1];
  if (fraction !== undefined && fraction.length > 6) notPlain();
  return parseUtcDateTime(value);
});

function currencyValue(code: string): string {
  const upper = code.toUpperCase();
  return /^[A-Z]{3}$/.test(upper) ? upper : notPlain();
}

/** `CurrencyCodeWire`: `"USD"` or `{ "value": "USD" }`. */
const currencyCode: Reader<string | undefined> = (state, value) => {
  if (isAbsent(state, value)) return undefined;
  if (typeof value === "string") {
    state.bytes += value.length + 2;
    return currencyValue(value);
  }
  const inner = objectOf(state, value, VALUE_KEY)["value"];
  if (isAbsent(state, inner)) return undefined;
  if (typeof inner !== "string") notPlain();
  state.bytes += inner.length + 2;
  return currencyValue(inner);
};

const MONEY_KEYS = new Set(["currencyCode", "amount"]);

/** `MoneyWire`: both parts or neither (half a price is an issue). */
const money: Reader<Money | undefined> = (state, value) => {
  if (isAbsent(state, value)) return undefined;
  const object = objectOf(state, value, MONEY_KEYS);
  const currency = currencyCode(state, object["currencyCode"]);
  const amount = decimal(state, object["amount"]);
  if (currency === undefined && amount === undefined) return undefined;
  if (currency === undefined || amount === undefined) notPlain();
  return { currency, amount };
};

/** `listOf(item)`: absent is `[]`; a `null` element is an issue. */
function listOf<T>(item: Reader<T>): Reader<T[]> {
  return (state, value) => {
    if (isAbsent(state, value)) return [];
    if (!Array.isArray(value)) notPlain();
    state.bytes += 2 + value.length;
    const out: T[] = [];
    for (const element of value as unknown[]) {
      if (element === null || element === undefined) notPlain();
      out.push(item(state, element));
    }
    return out;
  };
}

/** `nested(...)`: an object whose absent keys are left out; the object itself absent on `null`. */
function nested<T>(read: Reader<T>): Reader<T | undefined> {
  return (state, value) => (isAbsent(state, value) ? undefined : read(state, value));
}

/** `precededBy.reason`: an open string, plain only when empty or one of the known reasons. */
const anyText = text();
const reason: Reader<string | undefined> = (state, value) => {
  const read = anyText(state, value);
  if (read !== undefined && read !== "" && !(PRECEDED_BY_REASONS as readonly string[]).includes(read)) notPlain();
  return read;
};

/**
 * The fields of each source type, in the order of its schema in `records.ts` (a test holds these
 * names to `SPEC_FIELDS`, order included, so a field added there and not here fails it).
 */
export const PLAIN_FIELDS = (() => {
  const vestingEvent: readonly Field[] = [
    ["id", text({ max: 50 })],
    ["vestDate", calendarDate],
    ["quantity", decimal],
    ["performanceCondition", flag],
    ["vested", flag],
    ["maxQuantity", decimal],
    ["targetQuantity", decimal],
    ["vestedQuantity", decimal],
  ];
  const vestingSchedule: readonly Field[] = [
    ["name", text({ max: 500 })],
    ["lastModifiedDate", calendarDate],
    ["startDate", calendarDate],
    ["endDate", calendarDate],
  ];
  const settlement: readonly Field[] = [
    ["settlementDate", calendarDate],
    ["releaseQuantity", decimal],
    ["saleQuantity", decimal],
    ["withholdingQuantity", decimal],
    ["netSettlementQuantity", decimal],
    ["settlementPrice", money],
    ["certificateId", text({ min: 1, max: 1000 })],
    ["certificateLabel", text()],
  ];
  const precededBySecurity: readonly Field[] = [
    ["id", text({ min: 1, max: 50 })],
    ["type", text({ max: 50 })],
    ["label", text({ max: 50 })],
  ];
  const precededBy: readonly Field[] = [
    ["reason", reason],
    ["securities", listOf(objectReader<PrecededBySecurity>(precededBySecurity))],
  ];
  const events = objectReader<VestingEvent>(vestingEvent);
  /** A vested quantity on an event not marked vested is reported as a warning. */
  const plainEvent: Reader<VestingEvent> = (state, value) => {
    const event = events(state, value);
    if (event.vestedQuantity !== undefined && !event.vested) notPlain();
    return event;
  };
  const idText = text({ max: 50 });
  const grant: readonly Field[] = [
    // `RecordIdWire`: required and non-empty.
    ["id", (state, value) => idText(state, value) || notPlain()],
    ["issuerId", text({ min: 1, max: 50 })],
    ["stakeholderId", text({ max: 50 })],
    ["equityIncentivePlanName", text({ max: 100 })],
    ["issueDate", calendarDate],
    ["vestingStartDate", calendarDate],
    ["boardApprovalDate", calendarDate],
    ["stakeholderAcceptanceDate", calendarDate],
    ["canceledDate", calendarDate],
    ["terminationDate", calendarDate],
    ["quantity", decimal],
    ["vestedQuantity", decimal],
    ["securityLabel", text({ max: 50 })],
    ["vestingEvents", listOf(plainEvent)],
    ["vestingSchedule", nested(objectReader<VestingSchedule>(vestingSchedule))],
    ["canceledQuantity", decimal],
    ["returnedToPoolQuantity", decimal],
    ["returnedToTreasuryQuantity", decimal],
    ["lastModifiedDatetime", dateTime],
    ["securityId", text({ max: 50 })],
    ["shareClassId", classRef],
    ["vestingScheduleTemplateId", text({ max: 50 })],
  ];
  const fields = {
    restrictedStockAward: [
      ...grant,
      ["shareClassName", classRef],
      ["pricePerShare", money],
      ["precededBy", nested(objectReader<PrecededBy>(precededBy))],
    ],
    restrictedStockUnit: [
      ...grant,
      ["releasedQuantity", decimal],
      ["releasePricePerShare", money],
      ["netSettledQuantity", decimal],
      ["settlements", listOf(objectReader<Settlement>(settlement))],
      ["forfeitedQuantity", decimal],
      ["expiredQuantity", decimal],
    ],
    vestingEvent,
    settlement,
    vestingSchedule,
    precededBy,
    precededBySecurity,
  } satisfies Partial<Record<SourceTypeName, readonly Field[]>>;
  return fields;
})();

const READERS = {
  restrictedStockAward: objectReader<RestrictedStockAward>(PLAIN_FIELDS.restrictedStockAward),
  restrictedStockUnit: objectReader<RestrictedStockUnit>(PLAIN_FIELDS.restrictedStockUnit),
};

/**
 * The parsed record, exactly as the schema of its kind parses it, when `raw` is a plain record within
 * `limits`; otherwise `undefined` (parse it with the schema).
 */
export function readPlainRecord(kind: "restrictedStockAward", raw: unknown, limits: JsonLimits): RestrictedStockAward | undefined;
export function readPlainRecord(kind: "restrictedStockUnit", raw: unknown, limits: JsonLimits): RestrictedStockUnit | undefined;
export function readPlainRecord(kind: RecordKind, raw: unknown, limits: JsonLimits): RestrictedStockAward | RestrictedStockUnit | undefined;
export function readPlainRecord(kind: RecordKind, raw: unknown, limits: JsonLimits): RestrictedStockAward | RestrictedStockUnit | undefined {
  if (limits.maxDepth < PLAIN_RECORD_MAX_DEPTH) return undefined;
  const state: ReadState = { bytes: 0 };
  try {
    const record = READERS[kind](state, raw);
    return state.bytes > limits.maxBytes ? undefined : record;
  } catch {
    // Anything else (a conversion that throws, …) is for the schema's parse to report as it does.
    return undefined;
  }
}
