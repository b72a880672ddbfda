/**
 * The figures of a source record as its counters state them, and its vesting as tranches, read the
 * way ocf-sync's mapping reads them (mappings/README.md): an event vests its `vestedQuantity` once
 * vested, else its `targetQuantity`, else the deprecated `quantity`; a pending performance event or
 * an undated one vests nothing yet; a record without events vests everything at its issue date.
 */
import type { CalendarDate } from "../dates.js";
import { Dec, formatDecimal, sumDecimals, type DecimalString } from "../decimal.js";
import type { ParsedRecord, RestrictedStockUnit } from "../source/records.js";
import { capTranches, mergeTranches } from "./tranches.js";
import type { Figures, Tranche } from "./types.js";

/** A source record's figures and vesting. */
export interface SourceGrant {
  figures: Figures;
  /** What vests when, cut to what cancellations leave (`capTranches`). */
  tranches: Tranche[];
}

/**
 * Figures of one record. A counter the record does not send is taken as 0, except where the source
 * can say it another way (released and net settled: the settlements' sums; vested: the vested
 * events), and except `forfeited`, `expired` and `returnedToTreasury`, which are left out (not
 * compared) when absent, because the package can only state them when the source broke them down.
 */
export function sourceGrant(parsed: ParsedRecord): SourceGrant {
  const { record } = parsed;
  const quantity = record.quantity ?? "0";
  const canceled = record.canceledQuantity ?? "0";
  const vestedEvents = record.vestingEvents.filter((e) => e.vested).map((e) => e.vestedQuantity ?? "0");
  const figures: Figures = {
    issued: quantity,
    vested: record.vestedQuantity ?? (record.vestingEvents.length === 0 ? quantity : formatDecimal(sumDecimals(vestedEvents))),
    canceled,
    returnedToPool: record.returnedToPoolQuantity ?? "0",
    ...(record.returnedToTreasuryQuantity === undefined ? {} : { returnedToTreasury: record.returnedToTreasuryQuantity }),
  };
  let unvestedCancelled: DecimalString = canceled;
  if (parsed.kind === "restrictedStockUnit") {
    const unit = parsed.record;
    figures.released = unit.releasedQuantity ?? formatDecimal(sumDecimals(unit.settlements.map((s) => s.releaseQuantity ?? "0")));
    figures.netSettled = unit.netSettledQuantity ?? formatDecimal(sumDecimals(unit.settlements.map((s) => s.netSettlementQuantity ?? "0")));
    if (unit.forfeitedQuantity !== undefined) figures.forfeited = unit.forfeitedQuantity;
    if (unit.expiredQuantity !== undefined) figures.expired = unit.expiredQuantity;
    unvestedCancelled = unitUnvestedCancelled(unit);
  }
  figures.outstanding = formatDecimal(new Dec(quantity).minus(figures.released ?? "0").minus(canceled));
  return { figures, tranches: capTranches(scheduleOf(parsed), new Dec(quantity).minus(unvestedCancelled)) };
}

/**
 * The units cancelled before vesting, as the mapping cancels them: the forfeited units when
 * forfeited + expired make up the canceled total (or nothing is canceled), else the whole canceled
 * quantity in one cancellation that does not say which units it took.
 */
function unitUnvestedCancelled(unit: RestrictedStockUnit): DecimalString {
  const canceled = unit.canceledQuantity;
  const parts = sumDecimals([unit.forfeitedQuantity ?? "0", unit.expiredQuantity ?? "0"]);
  if (canceled === undefined || new Dec(canceled).isZero() || parts.equals(canceled)) return unit.forfeitedQuantity ?? "0";
  return canceled;
}

function scheduleOf(parsed: ParsedRecord): Tranche[] {
  const { record } = parsed;
  if (record.vestingEvents.length === 0) {
    return record.issueDate === undefined ? [] : mergeTranches([{ date: record.issueDate, amount: new Dec(record.quantity ?? "0") }]);
  }
  const tranches: { date: CalendarDate; amount: Dec }[] = [];
  for (const event of record.vestingEvents) {
    if (event.vestDate === undefined) continue;
    if (!event.vested && event.performanceCondition) continue;
    const amount = event.vested && event.vestedQuantity !== undefined ? event.vestedQuantity : (event.targetQuantity ?? event.quantity);
    if (amount !== undefined) tranches.push({ date: event.vestDate, amount: new Dec(amount) });
  }
  return mergeTranches(tranches);
}
