/**
 * The canonical orders of the mapping. The service lists records, events and settlements in any
 * order; every list the mapping emits is sorted here by values only, so that the output does not
 * depend on the order the service used. Strings compare by UTF-16 code units (never by locale),
 * decimals as decimals, and an absent value sorts before any present one.
 */
import { Dec, type DecimalString } from "../decimal.js";
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
  return new Dec(a).cmp(new Dec(b));
}

function compareMoney(a: Money | undefined, b: Money | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  return compareText(a.currency, b.currency) || compareDecimal(a.amount, b.amount);
}

/** Applies comparators in turn until one tells the two apart. */
function chain<T>(...comparators: ((a: T, b: T) => number)[]): (a: T, b: T) => number {
  return (a, b) => {
    for (const compare of comparators) {
      const result = compare(a, b);
      if (result !== 0) return result;
    }
    return 0;
  };
}

/**
 * Settlements by date, certificate id, then every other field: a total order on distinct
 * settlements, so that their 1-based numbers (and so the release ids) never depend on list order.
 */
export const compareSettlements: (a: Settlement, b: Settlement) => number = chain<Settlement>(
  (a, b) => compareText(a.settlementDate, b.settlementDate),
  (a, b) => compareText(a.certificateId, b.certificateId),
  (a, b) => compareText(a.certificateLabel, b.certificateLabel),
  (a, b) => compareDecimal(a.releaseQuantity, b.releaseQuantity),
  (a, b) => compareDecimal(a.netSettlementQuantity, b.netSettlementQuantity),
  (a, b) => compareDecimal(a.withholdingQuantity, b.withholdingQuantity),
  (a, b) => compareDecimal(a.saleQuantity, b.saleQuantity),
  (a, b) => compareMoney(a.settlementPrice, b.settlementPrice),
);

const flag = (value: boolean): number => (value ? 1 : 0);

/** Vesting events by date (undated first), id, then every other field: a total order on distinct events. */
export const compareVestingEvents: (a: VestingEvent, b: VestingEvent) => number = chain<VestingEvent>(
  (a, b) => compareText(a.vestDate, b.vestDate),
  (a, b) => compareText(a.id, b.id),
  (a, b) => flag(a.performanceCondition) - flag(b.performanceCondition),
  (a, b) => flag(a.vested) - flag(b.vested),
  (a, b) => compareDecimal(a.targetQuantity, b.targetQuantity),
  (a, b) => compareDecimal(a.vestedQuantity, b.vestedQuantity),
  (a, b) => compareDecimal(a.maxQuantity, b.maxQuantity),
  (a, b) => compareDecimal(a.quantity, b.quantity),
);

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
export const compareTransactions: (a: OcfTransaction, b: OcfTransaction) => number = chain<OcfTransaction>(
  (a, b) => compareText(a.date, b.date),
  (a, b) => kindRank(a.object_type) - kindRank(b.object_type),
  (a, b) => compareText(a.id, b.id),
);

/** Objects with an `id`, by id. */
export function compareById(a: { id: string }, b: { id: string }): number {
  return compareText(a.id, b.id);
}
