/**
 * The figures of a source record as its counters state them, its vesting as tranches, and the
 * holdings of an issuer's stakeholders, read the way the API documents its fields
 * (reference/source-api.md §9.8–9.11) and consumer-true-ocf.md requires of a package:
 * - an event vests its `vestedQuantity` once vested, else its `targetQuantity` (else the deprecated
 *   `quantity`) on its date; an event not vested that falls after the `terminationDate` (or, with none,
 *   after a cancellation that took every share or unit not shown as vested), or a pending milestone
 *   (no date), vests nothing; a record without events vests everything at its issue date;
 * - a grant's one cancellation takes `canceledQuantity`, else (units) forfeited + expired;
 * - a performance event paid above its target (`vestedQuantity` above `targetQuantity`), in a grant
 *   whose `quantity` does not hold its events as paid (they add up to more: the quantity is the
 *   target), issued what it paid above the target on its `vestDate`: the grant has issued its quantity
 *   and those payouts, and its holder holds them from then on (mappings/README.md, `payout.ts`);
 * - a settlement delivers its net shares to the holder and its sold shares to their buyers; withheld
 *   shares were never issued.
 */
import type { CalendarDate } from "../dates.js";
import { Dec, formatDecimal, isZeroDecimal, parseSourceDecimal, subtractDecimalStrings, sumDecimalStrings, sumDecimals, type DecimalString } from "../decimal.js";
import { stakeholderIdOf } from "../mapping/ids.js";
import { eventsPaidAboveTarget } from "../mapping/payout.js";
import { settlementsSentOnce } from "../mapping/settlement.js";
import type { ParsedRecord, RestrictedStockAward, RestrictedStockUnit } from "../source/records.js";
import { mergeTranches } from "./tranches.js";
import type { Figures, SourceIssuer, Tranche } from "./types.js";

/** A source record's figures and vesting. */
export interface SourceGrant {
  figures: Figures;
  /** What vests when (see the module comment). */
  tranches: Tranche[];
}

/** The quantity a grant's one cancellation takes. */
export function cancelledBy(record: RestrictedStockAward | RestrictedStockUnit): DecimalString {
  const canceled = record.canceledQuantity ?? "0";
  if (!new Dec(canceled).isZero() || !("settlements" in record)) return canceled;
  return formatDecimal(sumDecimals([record.forfeitedQuantity ?? "0", record.expiredQuantity ?? "0"]));
}

/**
 * Figures of one record. A counter the record does not send is taken as 0, except where the source
 * can say it another way (released, net settled, sold to cover: the settlements' sums; vested: the
 * vested events), and except `forfeited`, `expired` and `returnedToTreasury`, which are left out when
 * absent.
 */
export function sourceGrant(parsed: ParsedRecord): SourceGrant {
  const { record } = parsed;
  const quantity = record.quantity ?? "0";
  const issued = sumDecimalStrings([quantity, paidAboveTargetBy(record)]);
  const canceled = cancelledBy(record);
  const vestedEvents = record.vestingEvents.filter((e) => e.vested).map((e) => e.vestedQuantity ?? "0");
  const figures: Figures = {
    issued,
    vested: record.vestedQuantity ?? (record.vestingEvents.length === 0 ? quantity : sumDecimalStrings(vestedEvents)),
    canceled,
    returnedToPool: record.returnedToPoolQuantity ?? "0",
    ...(record.returnedToTreasuryQuantity === undefined ? {} : { returnedToTreasury: record.returnedToTreasuryQuantity }),
  };
  if (parsed.kind === "restrictedStockUnit") {
    const unit = parsed.record;
    // A settlement sent twice was settled once (the mapping's rule, `distinctSettlements`).
    const settlements = settlementsSentOnce(unit.settlements);
    figures.released = unit.releasedQuantity ?? sumDecimalStrings(settlements.map((s) => s.releaseQuantity ?? "0"));
    figures.netSettled = unit.netSettledQuantity ?? sumDecimalStrings(settlements.map((s) => s.netSettlementQuantity ?? "0"));
    figures.soldToCover = sumDecimalStrings(settlements.map((s) => s.saleQuantity ?? "0"));
    if (unit.forfeitedQuantity !== undefined) figures.forfeited = unit.forfeitedQuantity;
    if (unit.expiredQuantity !== undefined) figures.expired = unit.expiredQuantity;
  }
  figures.outstanding = subtractDecimalStrings(subtractDecimalStrings(issued, figures.released ?? "0"), canceled);
  return { figures, tranches: scheduleOf(parsed) };
}

/** The record's payouts above target (see the module comment), dated. */
function paidAboveTarget(record: RestrictedStockAward | RestrictedStockUnit): { date: CalendarDate; excess: DecimalString }[] {
  if (record.quantity === undefined) return [];
  // The source's figures are text here: the excess too, in plain form.
  const paid = eventsPaidAboveTarget(record.vestingEvents, record.quantity, parseSourceDecimal)?.paid ?? [];
  return paid.map((p) => ({ date: p.date, excess: formatDecimal(p.excess) }));
}

/** What the record's payouts above target add to its quantity (see the module comment): `"0"` without any. */
export function paidAboveTargetBy(record: RestrictedStockAward | RestrictedStockUnit): DecimalString {
  return sumDecimalStrings(paidAboveTarget(record).map((p) => p.excess));
}

function scheduleOf(parsed: ParsedRecord): Tranche[] {
  const { record } = parsed;
  if (record.vestingEvents.length === 0) {
    return record.issueDate === undefined ? [] : mergeTranches([{ date: record.issueDate, amount: record.quantity ?? "0" }]);
  }
  const tranches: { date: CalendarDate; amount: DecimalString }[] = [];
  const ended = earningEnds(record);
  for (const event of record.vestingEvents) {
    if (event.vestDate === undefined) continue;
    if (!event.vested && (event.performanceCondition || (ended !== undefined && event.vestDate > ended))) continue;
    const amount = event.vested && event.vestedQuantity !== undefined ? event.vestedQuantity : (event.targetQuantity ?? event.quantity);
    if (amount !== undefined) tranches.push({ date: event.vestDate, amount });
  }
  return mergeTranches(tranches);
}

/**
 * The date after which an event not vested can no longer vest: the `terminationDate`, else the date
 * of a cancellation that took every share or unit the events do not show as vested (a forfeiture
 * sent without a termination date: the tranches not vested are the ones it cancelled).
 */
function earningEnds(record: RestrictedStockAward | RestrictedStockUnit): CalendarDate | undefined {
  if (record.terminationDate !== undefined) return record.terminationDate;
  const date = record.canceledDate;
  const cancelled = new Dec(cancelledBy(record));
  if (date === undefined || cancelled.isZero() || record.quantity === undefined) return undefined;
  const vested = sumDecimals(record.vestingEvents.filter((e) => e.vested).map((e) => e.vestedQuantity ?? e.targetQuantity ?? e.quantity ?? "0"));
  return cancelled.gte(new Dec(record.quantity).minus(vested)) ? date : undefined;
}

/**
 * Outstanding shares and units per OCF stakeholder id as of `asOf`, from the source records: awards
 * issued less cancelled, net shares delivered, and units granted less released and cancelled. Shares
 * sold to cover taxes are held by their buyers, under `sellToCoverId`.
 */
export function sourceHoldings(source: SourceIssuer, asOf: CalendarDate, sellToCoverId: string): Map<string, { shares: Dec; units: Dec }> {
  const records: ParsedRecord[] = [
    ...source.awards.map((record) => ({ kind: "restrictedStockAward" as const, record })),
    ...source.units.map((record) => ({ kind: "restrictedStockUnit" as const, record })),
  ];
  return addHoldings(
    records.map((parsed) => recordHolding(parsed, asOf)),
    sellToCoverId,
  );
}

/** What one record adds to its holder's shares and units as of a date, and the shares it sold to cover. */
export interface RecordHolding {
  /** The OCF stakeholder id. */
  holder: string;
  shares: DecimalString;
  units: DecimalString;
  soldToCover: DecimalString;
}

/** One record's part of `sourceHoldings` as of `asOf`; undefined when it holds nothing then (no holder, not issued yet). */
export function recordHolding(parsed: ParsedRecord, asOf: CalendarDate): RecordHolding | undefined {
  const { record } = parsed;
  if (record.stakeholderId === undefined || record.issueDate === undefined || record.issueDate > asOf) return undefined;
  const cancelledDate = record.canceledDate ?? record.terminationDate;
  const cancelled = cancelledDate !== undefined && cancelledDate <= asOf ? new Dec(cancelledBy(record)) : new Dec(0);
  const holder = stakeholderIdOf(record.stakeholderId);
  const paid = paidAboveTarget(record).filter((p) => p.date <= asOf);
  const held = sumDecimals([record.quantity ?? "0", ...paid.map((p) => p.excess)]).minus(cancelled);
  if (parsed.kind === "restrictedStockAward") return { holder, shares: formatDecimal(held), units: "0", soldToCover: "0" };
  let units = held;
  let shares = new Dec(0);
  let sold = new Dec(0);
  for (const s of settlementsSentOnce(parsed.record.settlements)) {
    if (s.settlementDate === undefined || s.settlementDate > asOf) continue;
    units = units.minus(s.releaseQuantity ?? "0");
    shares = shares.plus(s.netSettlementQuantity ?? "0");
    if (s.saleQuantity !== undefined) sold = sold.plus(s.saleQuantity);
  }
  return { holder, shares: formatDecimal(shares), units: formatDecimal(units), soldToCover: formatDecimal(sold) };
}

/** The holdings per OCF stakeholder id that records' parts add up to; shares sold to cover go to `sellToCoverId`. */
export function addHoldings(parts: Iterable<RecordHolding | undefined>, sellToCoverId: string): Map<string, { shares: Dec; units: Dec }> {
  const holdings = new Map<string, { shares: Dec; units: Dec }>();
  const of = (id: string) => {
    let entry = holdings.get(id);
    if (entry === undefined) holdings.set(id, (entry = { shares: new Dec(0), units: new Dec(0) }));
    return entry;
  };
  for (const part of parts) {
    if (part === undefined) continue;
    const entry = of(part.holder);
    entry.shares = entry.shares.plus(part.shares);
    entry.units = entry.units.plus(part.units);
    if (!isZeroDecimal(part.soldToCover)) {
      const buyers = of(sellToCoverId);
      buyers.shares = buyers.shares.plus(part.soldToCover);
    }
  }
  return holdings;
}
