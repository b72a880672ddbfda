/**
 * Vesting as dated tranches, the common ground of both sides: the source's vesting events and an OCF
 * package's `vestings`, vesting conditions and vesting transactions both become tranches. Each side
 * is read as it stands: nothing is capped or adjusted to make the two agree.
 */
import { compareIso, type CalendarDate } from "../dates.js";
import { Dec, formatDecimal } from "../decimal.js";
import type { Tranche, VestingPoint } from "./types.js";

/** Tranches merged per date, sorted by date, zero amounts left out. */
export function mergeTranches(tranches: readonly { date: CalendarDate; amount: Dec }[]): Tranche[] {
  const byDate = new Map<CalendarDate, Dec>();
  for (const { date, amount } of tranches) byDate.set(date, (byDate.get(date) ?? new Dec(0)).plus(amount));
  return [...byDate]
    .sort(([a], [b]) => compareIso(a, b))
    .filter(([, amount]) => !amount.isZero())
    .map(([date, amount]) => ({ date, amount: formatDecimal(amount) }));
}

/** What `tranches` have vested by `date` (inclusive). */
export function vestedBy(tranches: readonly Tranche[], date: CalendarDate): Dec {
  let total = new Dec(0);
  for (const tranche of tranches) if (compareIso(tranche.date, date) <= 0) total = total.plus(tranche.amount);
  return total;
}

/** The cumulative curve of many grants' tranches: one point per date on which anything vests. */
export function cumulativeCurve(grants: readonly (readonly Tranche[])[]): VestingPoint[] {
  const merged = mergeTranches(grants.flat().map((t) => ({ date: t.date, amount: new Dec(t.amount) })));
  let total = new Dec(0);
  return merged.map(({ date, amount }) => {
    total = total.plus(amount);
    return { date, vested: formatDecimal(total) };
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
