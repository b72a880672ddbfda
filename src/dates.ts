/**
 * The only place where calendar dates and date-times are converted. Calendar dates stay `YYYY-MM-DD`
 * strings from the wire to the OCF file; they are never turned into `Date` objects that a time zone
 * could shift. Date-times (`lastModifiedDatetime`) are instants and are kept as normalized UTC strings.
 */
import { OcfSyncError, describeValue } from "./errors.js";

/**
 * A real calendar date as `YYYY-MM-DD`.
 *
 * @category OCF
 */
export type CalendarDate = string & { readonly __calendarDate?: never };

/**
 * A UTC instant as `YYYY-MM-DDThh:mm:ss.ffffffZ` (always six fractional digits). Strings of this form
 * sort in time order.
 *
 * @category OCF
 */
export type UtcDateTime = string & { readonly __utcDateTime?: never };

export class DateFormatError extends OcfSyncError {
  declare readonly code: "DATE_FORMAT";
  readonly value: string;
  constructor(message: string, value: string) {
    super("DATE_FORMAT", message);
    this.name = "DateFormatError";
    this.value = value;
  }
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True when the year, month and day of a `CALENDAR_DATE` match name a day that exists. */
function isRealDay(match: RegExpExecArray): boolean {
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** The value of the ASCII digit at `text[i]`, or -1. */
function digitAt(text: string, i: number): number {
  const c = text.charCodeAt(i) - 0x30;
  return c >= 0 && c <= 9 ? c : -1;
}

/**
 * True when `text` is `YYYY-MM-DD` and names a day that exists (2024-02-29 yes, 2023-02-29 no).
 * Read character by character rather than with `CALENDAR_DATE`: validating a package checks every
 * date of every object (dozens per issuance), and this is several times faster; the property tests
 * hold it to the same answers as `parseCalendarDate`.
 */
export function isCalendarDate(text: string): text is CalendarDate {
  if (text.length !== 10 || text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d) return false;
  const y1 = digitAt(text, 0);
  const y2 = digitAt(text, 1);
  const y3 = digitAt(text, 2);
  const y4 = digitAt(text, 3);
  const m1 = digitAt(text, 5);
  const m2 = digitAt(text, 6);
  const d1 = digitAt(text, 8);
  const d2 = digitAt(text, 9);
  if ((y1 | y2 | y3 | y4 | m1 | m2 | d1 | d2) < 0) return false;
  const year = y1 * 1000 + y2 * 100 + y3 * 10 + y4;
  const month = m1 * 10 + m2;
  const day = d1 * 10 + d2;
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** Checks a calendar date from the wire; throws `DATE_FORMAT` for anything but a real `YYYY-MM-DD` day. */
export function parseCalendarDate(text: string): CalendarDate {
  // One match for both checks: every record carries a dozen dates, so this is on the parser's hot path.
  const m = CALENDAR_DATE.exec(text);
  if (m === null) throw new DateFormatError(`${describeValue(text)} is not a date of the form YYYY-MM-DD`, text);
  if (!isRealDay(m)) throw new DateFormatError(`${describeValue(text)} is not a real calendar date`, text);
  return text;
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]00:00)$/i;

/**
 * Parses a UTC date-time as the service sends it: 0 to 6 fractional digits (more are truncated to
 * microseconds), ending in `Z` (or `+00:00`). Returns the normalized six-digit form. Other offsets are
 * rejected: the service documents UTC only, and a silent conversion would hide a wire change.
 */
export function parseUtcDateTime(text: string): UtcDateTime {
  const m = DATE_TIME.exec(text);
  if (m === null) {
    throw new DateFormatError(`${describeValue(text)} is not a UTC date-time of the form YYYY-MM-DDThh:mm:ss[.ffffff]Z`, text);
  }
  const [, date = "", hh = "", mm = "", ss = "", fraction = ""] = m;
  if (!isCalendarDate(date)) throw new DateFormatError(`${describeValue(text)} is not a real calendar date`, text);
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) {
    throw new DateFormatError(`${describeValue(text)} is not a valid time of day`, text);
  }
  // Already normalized (what the service sends): the text itself. Otherwise one flat string: a
  // template literal would make a tree of string parts, and a sync or export keeps one per record.
  if (fraction.length === 6 && text.length === 27 && text[10] === "T" && text[26] === "Z") return text;
  return [date, "T", hh, ":", mm, ":", ss, ".", (fraction + "000000").slice(0, 6), "Z"].join("");
}

/** The date-time truncated down to whole seconds, as the service's filters expect (`YYYY-MM-DDThh:mm:ssZ`). */
export function toFilterDateTime(value: UtcDateTime): string {
  return `${value.slice(0, 19)}Z`;
}

/** Compares two calendar dates or two normalized date-times: negative, zero or positive. */
export function compareIso(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The UTC instant of a normalized date-time, in epoch milliseconds (sub-millisecond digits dropped). */
export function utcDateTimeToEpochMs(value: UtcDateTime): number {
  return Date.parse(`${value.slice(0, 23)}Z`);
}

/** Formats an epoch-millisecond instant as a normalized UTC date-time. */
export function epochMsToUtcDateTime(ms: number): UtcDateTime {
  const iso = new Date(ms).toISOString(); // always UTC, "YYYY-MM-DDThh:mm:ss.sssZ"
  return `${iso.slice(0, 23)}000Z`;
}

/** An RFC 3339 UTC date-time without fractional seconds (`2025-06-30T12:00:00Z`), from an injectable clock. */
export function utcNowRfc3339(nowMs: number = Date.now()): string {
  return `${new Date(nowMs).toISOString().slice(0, 19)}Z`;
}

/** Today's calendar date in UTC, from an injectable clock. */
export function utcToday(nowMs: number = Date.now()): CalendarDate {
  return new Date(nowMs).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` of a year, month and day. */
function formatCalendarDate(year: number, month: number, day: number): CalendarDate {
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** The calendar day before `date` (a real date of year 2 or later), by calendar arithmetic alone. */
export function previousDay(date: CalendarDate): CalendarDate {
  let year = Number(date.slice(0, 4));
  let month = Number(date.slice(5, 7));
  let day = Number(date.slice(8, 10)) - 1;
  if (day === 0) {
    month -= 1;
    if (month === 0) {
      month = 12;
      year -= 1;
    }
    day = daysInMonth(year, month);
  }
  return formatCalendarDate(year, month, day);
}

/** A calendar date as a number that sorts the same way (`2026-03-01` → 20260301), for compact storage. */
export function dayNumber(date: CalendarDate): number {
  return Number(date.slice(0, 4)) * 10000 + Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));
}

/** The date of a `dayNumber`. */
export function dayOfNumber(day: number): CalendarDate {
  return formatCalendarDate(Math.floor(day / 10000), Math.floor(day / 100) % 100, day % 100);
}
