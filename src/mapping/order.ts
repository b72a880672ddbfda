/**
 * The canonical orders of the mapping. The service lists records, events and settlements in any
 * order; every list the mapping emits is sorted here by values only, so that the output does not
 * depend on the order the service used. Strings compare by UTF-16 code units (never by locale),
 * decimals as decimals, and an absent value sorts before any present one.
 */
import { compareDecimalStrings, type DecimalString } from "../decimal.js";
import type { OcfTransaction } from "../ocf/schemas.js";
import type { Money } from "../source/wire.js";
import type { Settlement, VestingEvent } from "../source/records.js";

/** Code-unit order: the same in every locale and time zone. */
export function compareText(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return a < b ? -1 : 1;
}

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
 * The order of transaction kinds on one day: a security is issued before anything happens to it,
 * accepted, starts vesting, vests, is released, and is cancelled last. The shares a release delivers
 * are a `TX_STOCK_ISSUANCE` and so come before the release that names them.
 */
export const TRANSACTION_KIND_ORDER = [
  "TX_STOCK_ISSUANCE",
  "TX_EQUITY_COMPENSATION_ISSUANCE",
  "TX_STOCK_ACCEPTANCE",
  "TX_EQUITY_COMPENSATION_ACCEPTANCE",
  "TX_VESTING_START",
  "TX_VESTING_EVENT",
  "TX_EQUITY_COMPENSATION_RELEASE",
  "TX_STOCK_CANCELLATION",
  "TX_EQUITY_COMPENSATION_CANCELLATION",
  "TX_STOCK_PLAN_RETURN_TO_POOL",
] as const satisfies readonly OcfTransaction["object_type"][];

const KIND_RANK: ReadonlyMap<string, number> = new Map(TRANSACTION_KIND_ORDER.map((kind, rank) => [kind, rank]));

function kindRank(objectType: string): number {
  return KIND_RANK.get(objectType) ?? TRANSACTION_KIND_ORDER.length;
}

/** Transactions by date, then kind (`TRANSACTION_KIND_ORDER`), then id. */
export function compareTransactions(a: OcfTransaction, b: OcfTransaction): number {
  return compareText(a.date, b.date) || kindRank(a.object_type) - kindRank(b.object_type) || compareText(a.id, b.id);
}

/**
 * `transactions` sorted in place by `compareTransactions`, with each kind's rank looked up once per
 * transaction instead of twice per comparison (an issuer's list runs to thousands).
 */
export function sortTransactions<T extends OcfTransaction>(transactions: T[]): T[] {
  const keyed = transactions.map((tx) => ({ tx, date: tx.date, rank: kindRank(tx.object_type), id: tx.id }));
  keyed.sort((a, b) => compareText(a.date, b.date) || a.rank - b.rank || compareText(a.id, b.id));
  for (let i = 0; i < keyed.length; i++) transactions[i] = (keyed[i] as { tx: T }).tx;
  return transactions;
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

/** Objects with an `id`, by id. */
export function compareById(a: { id: string }, b: { id: string }): number {
  return compareText(a.id, b.id);
}
