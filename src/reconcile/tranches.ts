/**
 * Vesting as dated tranches, the common ground of both sides: the source's vesting events and an OCF
 * package's `vestings`, vesting conditions and vesting transactions both become tranches. Each side
 * is read as it stands: nothing is capped or adjusted to make the two agree.
 */
import { compareIso, type CalendarDate } from "../dates.js";
import { formatDecimal, isZeroDecimal, sumDecimalStrings, type Dec, type DecimalString } from "../decimal.js";
import type { Tranche, VestingPoint } from "./types.js";

/**
 * Tranches merged per date, sorted by date, zero amounts left out. Amounts are added exactly as
 * decimal strings (`sumDecimalStrings`), much faster than decimal.js for the many tranches of a large
 * reconciliation; a string amount must be in the plain form those helpers read (an OCF Numeric goes
 * through `plainNumeric` first).
 */
export function mergeTranches(tranches: readonly { date: CalendarDate; amount: Dec | DecimalString }[]): Tranche[] {
  const byDate = new Map<CalendarDate, DecimalString[]>();
  for (const { date, amount } of tranches) {
    const text = typeof amount === "string" ? amount : formatDecimal(amount);
    const amounts = byDate.get(date);
    if (amounts === undefined) byDate.set(date, [text]);
    else amounts.push(text);
  }
  const merged: Tranche[] = [];
  for (const [date, amounts] of byDate) {
    const amount = sumDecimalStrings(amounts);
    if (!isZeroDecimal(amount)) merged.push({ date, amount });
  }
  return merged.sort((a, b) => compareIso(a.date, b.date));
}

/** What `tranches` have vested by `date` (inclusive). */
export function vestedBy(tranches: readonly Tranche[], date: CalendarDate): DecimalString {
  const amounts: DecimalString[] = [];
  for (const tranche of tranches) if (compareIso(tranche.date, date) <= 0) amounts.push(tranche.amount);
  return sumDecimalStrings(amounts);
}

/** The cumulative curve of many grants' tranches: one point per date on which anything vests. */
export function cumulativeCurve(grants: readonly (readonly Tranche[])[]): VestingPoint[] {
  const curve = new CurveBuilder();
  for (const tranches of grants) curve.add(tranches);
  return curve.points();
}

/** `cumulativeCurve` built grant by grant: holds one sum per date, not the grants' tranches. */
export class CurveBuilder {
  private readonly byDate = new Map<CalendarDate, DecimalString>();

  /** Adds one grant's tranches. */
  add(tranches: readonly Tranche[]): void {
    for (const { date, amount } of tranches) {
      const sum = this.byDate.get(date);
      this.byDate.set(date, sum === undefined ? amount : sumDecimalStrings([sum, amount]));
    }
  }

  /** The curve: one point per date whose amounts do not add up to zero, in date order. */
  points(): VestingPoint[] {
    let total: DecimalString = "0";
    const points: VestingPoint[] = [];
    for (const [date, amount] of [...this.byDate].sort(([a], [b]) => compareIso(a, b))) {
      if (isZeroDecimal(amount)) continue;
      total = sumDecimalStrings([total, amount]);
      points.push({ date, vested: total });
    }
    return points;
  }
}

/**
 * Tranches as one string (`"2024-01-31 100;2024-02-29 100"`): a grant's vesting kept without an object per
 * tranche. Joined, not concatenated piece by piece: V8 keeps `+=` results as a tree of their pieces (a
 * "cons string", about five times the text's size) until the string is first read whole.
 */
export function packTranches(tranches: readonly Tranche[]): string {
  return tranches.map(({ date, amount }) => `${date} ${amount}`).join(";");
}

/** The tranches `packTranches` packed. */
export function unpackTranches(packed: string): Tranche[] {
  if (packed === "") return [];
  return packed.split(";").map((part) => {
    const space = part.indexOf(" ");
    return { date: part.slice(0, space), amount: part.slice(space + 1) };
  });
}


/**
 * The entries of each side that the other does not have (same date and same amount), for a
 * `VESTING_DATES` difference; both empty when the schedules agree.
 */
export function trancheDifference(expected: readonly Tranche[], actual: readonly Tranche[]): { expected: Tranche[]; actual: Tranche[] } {
  const key = (t: Tranche): string => `${t.date} ${t.amount}`;
  const expectedKeys = new Set(expected.map(key));
  const actualKeys = new Set(actual.map(key));
  return { expected: expected.filter((t) => !actualKeys.has(key(t))), actual: actual.filter((t) => !expectedKeys.has(key(t))) };
}

/** `"2024-11-12 10000; 2025-11-12 5000"`, or `"none"`. */
export function describeTranches(tranches: readonly Tranche[]): string {
  return tranches.length === 0 ? "none" : tranches.map((t) => `${t.date} ${t.amount}`).join("; ");
}
