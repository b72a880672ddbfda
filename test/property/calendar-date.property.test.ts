/**
 * isCalendarDate, read character by character, against the plain definition: `YYYY-MM-DD` (ASCII
 * digits) naming a day that exists, year 1 or later.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCalendarDate } from "../../src/dates.js";

function reference(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= days;
}

describe("isCalendarDate", () => {
  it("agrees with the plain definition on dates, near-dates and anything else", () => {
    const near = fc
      .tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
      .map(([y, m, d]) => `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`);
    const mangled = fc.tuple(near, fc.nat(9), fc.constantFrom("/", " ", "٣", "x", "", "0", "-", "\u0000")).map(([text, at, c]) => text.slice(0, at) + c + text.slice(at + 1));
    fc.assert(
      fc.property(fc.oneof(near, mangled, fc.string({ maxLength: 12 })), (text) => {
        expect(isCalendarDate(text)).toBe(reference(text));
      }),
      { numRuns: 5_000 },
    );
    for (const text of ["2024-02-29", "2023-02-29", "1900-02-29", "2000-02-29", "0000-01-01", "0001-01-01", "9999-12-31", "2024-1-01", "2024-01-01T00:00:00Z"]) {
      expect(isCalendarDate(text), text).toBe(reference(text));
    }
  });
});
