/**
 * The canonical order of the objects in a package: text by UTF-16 code units (never by locale), and
 * transactions by date, kind (`TRANSACTION_KIND_ORDER`), then id. The mapping sorts what it emits by
 * it and the package writer merges its files by it, so both read it here, below them both.
 */
import type { OcfTransaction } from "./schemas.js";

/** Code-unit order: the same in every locale and time zone. */
export function compareText(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return a < b ? -1 : 1;
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

/** The rank of a transaction kind in `TRANSACTION_KIND_ORDER`; a kind not in it ranks after them all. */
export function transactionKindRank(objectType: string): number {
  return KIND_RANK.get(objectType) ?? TRANSACTION_KIND_ORDER.length;
}

/** Transactions by date, then kind (`TRANSACTION_KIND_ORDER`), then id. */
export function compareTransactions(a: OcfTransaction, b: OcfTransaction): number {
  return compareText(a.date, b.date) || transactionKindRank(a.object_type) - transactionKindRank(b.object_type) || compareText(a.id, b.id);
}

/**
 * `transactions` sorted in place by `compareTransactions`, with each kind's rank looked up once per
 * transaction instead of twice per comparison (an issuer's list runs to thousands).
 */
export function sortTransactions<T extends OcfTransaction>(transactions: T[]): T[] {
  const keyed = transactions.map((tx) => ({ tx, date: tx.date, rank: transactionKindRank(tx.object_type), id: tx.id }));
  keyed.sort((a, b) => compareText(a.date, b.date) || a.rank - b.rank || compareText(a.id, b.id));
  for (let i = 0; i < keyed.length; i++) transactions[i] = (keyed[i] as { tx: T }).tx;
  return transactions;
}

/** Objects with an `id`, by id. */
export function compareById(a: { id: string }, b: { id: string }): number {
  return compareText(a.id, b.id);
}
