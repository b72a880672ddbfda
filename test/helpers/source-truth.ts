/**
 * What the source says, computed straight from its records (the API's counters and events, read as
 * `reference/consumer-true-ocf.md` and the API spec describe them), without ocf-sync's mapping or
 * reconcile code. The figures a reader of our OCF must reproduce.
 *
 * - A holder's shares as of D: the awards issued by D, less what they cancelled by D, plus the net
 *   shares each settlement delivered by D. The shares sold to cover taxes are outstanding too, held
 *   by their buyers (counted under `market`). Withheld shares were never issued.
 * - A holder's units as of D: the units granted by D, less those released and cancelled by D.
 * - A grant's vested figure as of D (nothing before its issue date): its vesting events dated up to D that were or can still be
 *   earned: a vested event counts its `vestedQuantity`; an event not vested counts its target (else
 *   its `quantity`) unless it falls after the `terminationDate`, or after a cancellation that took
 *   every share or unit not shown as vested (never earned); an undated event that has not vested
 *   never counts. A grant with no events is fully vested at issuance.
 * - A grant's cancellation is dated `canceledDate`, else `terminationDate`, and takes
 *   `canceledQuantity` (a unit: else forfeited + expired).
 * - A performance event paid above its target (source-api.md §9.8: vested, `vestedQuantity` above
 *   `targetQuantity`) adds what it paid above the target to the holder's shares or units from its
 *   `vestDate` on, when the grant's `quantity` does not already hold it: when its events, each as
 *   paid (`vestedQuantity` once vested, else the target), add up to more than the quantity.
 */
import { Decimal } from "./independent-reader.js";
import type { RestrictedStockAward, RestrictedStockUnit, VestingEvent } from "../../src/source/records.js";

export interface SourceRecords {
  awards: readonly RestrictedStockAward[];
  units: readonly RestrictedStockUnit[];
}

const zero = new Decimal(0);
const dec = (value: string | undefined): Decimal => (value === undefined ? zero : new Decimal(value));

function cancelled(record: RestrictedStockAward | RestrictedStockUnit): { date: string | undefined; quantity: Decimal } {
  const date = record.canceledDate ?? record.terminationDate;
  const canceled = dec(record.canceledQuantity);
  if (!canceled.isZero() || !("forfeitedQuantity" in record || "expiredQuantity" in record)) return { date, quantity: canceled };
  const unit = record as RestrictedStockUnit;
  return { date, quantity: dec(unit.forfeitedQuantity).plus(dec(unit.expiredQuantity)) };
}

/** What the grant's performance events paid above their targets by `date`, beyond its quantity (see the module comment). */
function paidAboveTarget(record: RestrictedStockAward | RestrictedStockUnit, date: string): Decimal {
  let asPaid = zero;
  for (const e of record.vestingEvents) asPaid = asPaid.plus(dec(e.vested && e.vestedQuantity !== undefined ? e.vestedQuantity : (e.targetQuantity ?? e.quantity)));
  if (asPaid.lte(dec(record.quantity))) return zero;
  let above = zero;
  for (const e of record.vestingEvents) {
    if (!e.performanceCondition || !e.vested || e.vestedQuantity === undefined || e.targetQuantity === undefined || e.vestDate === undefined || e.vestDate > date) continue;
    const excess = dec(e.vestedQuantity).minus(dec(e.targetQuantity));
    if (excess.isPositive() && !excess.isZero()) above = above.plus(excess);
  }
  return above;
}

/** Shares and units per source stakeholder id as of `date` (every date when absent), and the sell-to-cover total. */
export function sourceHoldings(source: SourceRecords, date = "9999-12-31"): { holders: Map<string, { shares: Decimal; units: Decimal }>; market: Decimal; totalShares: Decimal } {
  const holders = new Map<string, { shares: Decimal; units: Decimal }>();
  const entry = (id: string) => {
    let e = holders.get(id);
    if (e === undefined) holders.set(id, (e = { shares: zero, units: zero }));
    return e;
  };
  let market = zero;
  let totalShares = zero;
  for (const award of source.awards) {
    if ((award.issueDate as string) > date) continue;
    const end = cancelled(award);
    const held = dec(award.quantity).plus(paidAboveTarget(award, date)).minus(end.date !== undefined && end.date <= date ? end.quantity : zero);
    const e = entry(award.stakeholderId as string);
    e.shares = e.shares.plus(held);
    totalShares = totalShares.plus(held);
  }
  for (const unit of source.units) {
    if ((unit.issueDate as string) > date) continue;
    const end = cancelled(unit);
    let units = dec(unit.quantity).plus(paidAboveTarget(unit, date)).minus(end.date !== undefined && end.date <= date ? end.quantity : zero);
    const e = entry(unit.stakeholderId as string);
    for (const s of unit.settlements) {
      if ((s.settlementDate as string) > date) continue;
      units = units.minus(dec(s.releaseQuantity));
      e.shares = e.shares.plus(dec(s.netSettlementQuantity));
      market = market.plus(dec(s.saleQuantity));
      totalShares = totalShares.plus(dec(s.netSettlementQuantity)).plus(dec(s.saleQuantity));
    }
    e.units = e.units.plus(units);
  }
  return { holders, market, totalShares };
}

/** Whether an event can vest: it vested, or it is planned and not after the date earning ended. */
function earned(event: VestingEvent, endedOn: string | undefined): boolean {
  if (event.vested) return true;
  if (event.vestDate === undefined) return false;
  return endedOn === undefined || event.vestDate <= endedOn;
}

/**
 * The date after which a tranche not vested can no longer be earned: the holder's termination, else
 * the date of a cancellation that took every share or unit the source does not show as vested (a
 * forfeiture sent without a `terminationDate`: the tranches not vested are the ones it cancelled).
 */
function earningEnds(record: RestrictedStockAward | RestrictedStockUnit): string | undefined {
  if (record.terminationDate !== undefined) return record.terminationDate;
  const end = cancelled(record);
  if (end.date === undefined || end.quantity.isZero()) return undefined;
  let vested = zero;
  for (const event of record.vestingEvents) if (event.vested) vested = vested.plus(dec(event.vestedQuantity ?? event.targetQuantity ?? event.quantity));
  return end.quantity.gte(dec(record.quantity).minus(vested)) ? end.date : undefined;
}

/** A grant's vested figure as of `date`. */
export function sourceVested(record: RestrictedStockAward | RestrictedStockUnit, date: string): Decimal {
  // Before its issue date the grant does not exist yet, whatever its events date (a vesting
  // commencement may precede the grant).
  if ((record.issueDate as string) > date) return zero;
  if (record.vestingEvents.length === 0) return dec(record.quantity);
  let total = zero;
  const endedOn = earningEnds(record);
  for (const event of record.vestingEvents) {
    if (event.vestDate === undefined || event.vestDate > date || !earned(event, endedOn)) continue;
    total = total.plus(event.vested && event.vestedQuantity !== undefined ? dec(event.vestedQuantity) : dec(event.targetQuantity ?? event.quantity));
  }
  return total;
}
