/**
 * The canonical orders of the mapping. The service lists records, events and settlements in any
 * order; every list the mapping emits is sorted here by values only, so that the output does not
 * depend on the order the service used. Strings compare by UTF-16 code units (never by locale),
 * decimals as decimals, and an absent value sorts before any present one.
 */
import { compareDecimalStrings, type DecimalString } from "../decimal.js";
import { compareText } from "../ocf/order.js";
import type { Money } from "../source/wire.js";
import type { Settlement, VestingEvent } from "../source/records.js";

/** Numeric order of two decimals; absent first. */
export function compareDecimal(a: DecimalString | undefined, b: DecimalString | undefined): number {
  if (a === undefined || b === undefined) return compareText(a, b);
  return compareDecimalStrings(a, b);
}

function compareMoney(a: Money | undefined, b: Money | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  return compareText(a.currency, b.currency) || compareDecimal(a.amount, b.amount);
}

/*
 * The comparators below are plain `||` chains rather than lists of closures: they run inside sorts of
 * thousands of items per issuer, and `||` stops at the first key that tells two items apart.
 */

/**
 * Settlements by date, certificate id, then every other field: a total order on distinct
 * settlements, so that their 1-based numbers (and so the release ids) never depend on list order.
 */
export function compareSettlements(a: Settlement, b: Settlement): number {
  return (
    compareText(a.settlementDate, b.settlementDate) ||
    compareText(a.certificateId, b.certificateId) ||
    compareText(a.certificateLabel, b.certificateLabel) ||
    compareDecimal(a.releaseQuantity, b.releaseQuantity) ||
    compareDecimal(a.netSettlementQuantity, b.netSettlementQuantity) ||
    compareDecimal(a.withholdingQuantity, b.withholdingQuantity) ||
    compareDecimal(a.saleQuantity, b.saleQuantity) ||
    compareMoney(a.settlementPrice, b.settlementPrice)
  );
}

function flag(value: boolean): number {
  return value ? 1 : 0;
}

/** Vesting events by date (undated first), id, then every other field: a total order on distinct events. */
export function compareVestingEvents(a: VestingEvent, b: VestingEvent): number {
  return (
    compareText(a.vestDate, b.vestDate) ||
    compareText(a.id, b.id) ||
    flag(a.performanceCondition) - flag(b.performanceCondition) ||
    flag(a.vested) - flag(b.vested) ||
    compareDecimal(a.targetQuantity, b.targetQuantity) ||
    compareDecimal(a.vestedQuantity, b.vestedQuantity) ||
    compareDecimal(a.maxQuantity, b.maxQuantity) ||
    compareDecimal(a.quantity, b.quantity)
  );
}

/**
 * Sorts `list` in place by `compare`, skipping the sort (and the work array it allocates) when the
 * list is already in order, as the service's lists of events and settlements usually are. The result
 * is the same either way: the sort is stable, so an ordered list comes out unchanged.
 */
export function sortIfNeeded<T>(list: T[], compare: (a: T, b: T) => number): T[] {
  for (let i = 1; i < list.length; i++) {
    if (compare(list[i - 1] as T, list[i] as T) > 0) return list.sort(compare);
  }
  return list;
}
