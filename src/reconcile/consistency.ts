/**
 * The source's own consistency: the invariants the service's numbers follow (samples/README.md,
 * "Conventions the numbers follow", and the mapping's property tests), checked per record, exactly.
 * A broken invariant is reported with the record, the counter as stated (`expected`) and what the
 * record's other figures give (`actual`); nothing is corrected. An absent counter is not checked,
 * except where the service's data treats absent as 0 (a settlement's withheld and sold shares).
 * A settlement that releases units before they vested is `RELEASED_BEFORE_VESTED` rather than
 * `SOURCE_INCONSISTENT`: the package mapped from it releases as early, which every figure hides.
 */
import { compareIso, type CalendarDate } from "../dates.js";
import { compareDecimalStrings, sameDecimal, sumDecimalStrings, type DecimalString } from "../decimal.js";
import { settlementsSentOnce } from "../mapping/settlement.js";
import type { GrantFields, ParsedRecord, RestrictedStockUnit } from "../source/records.js";
import { recordLabel, type Difference, type QuarantinedSourceRecord, type SourceIssuer } from "./types.js";
import { paidAboveTargetBy } from "./source-figures.js";

/**
 * Every broken invariant of every record of `source`, and each quarantined record.
 *
 * @category Reconcile
 */
export function checkSourceConsistency(source: SourceIssuer): Difference[] {
  const out: Difference[] = [];
  const records: ParsedRecord[] = [
    ...source.awards.map((record) => ({ kind: "restrictedStockAward" as const, record })),
    ...source.units.map((record) => ({ kind: "restrictedStockUnit" as const, record })),
  ];
  for (const parsed of records) out.push(...checkRecord(source.issuerId, parsed));
  for (const q of source.quarantined ?? []) out.push(quarantinedDifference(source.issuerId, q));
  return out;
}

/** The `SOURCE_RECORD_INVALID` difference of a record that could not be parsed. */
export function quarantinedDifference(issuerId: string, q: QuarantinedSourceRecord): Difference {
  return {
    section: "source",
    code: "SOURCE_RECORD_INVALID",
    issuerId,
    kind: q.kind,
    ...(q.recordId === undefined ? {} : { recordId: q.recordId }),
    field: "record",
    expected: null,
    actual: null,
    message: `${recordLabel(q.kind, q.recordId ?? "(no id)")} could not be parsed and is in neither figure: ${q.message}`,
  };
}

/** The broken invariants of one record. */
export function checkRecord(issuerId: string, parsed: ParsedRecord): Difference[] {
  const { kind, record } = parsed;
  const out: Difference[] = [];
  const report: Report = (field, stated, derived, why) => {
    out.push({
      section: "source",
      code: "SOURCE_INCONSISTENT",
      issuerId,
      kind,
      recordId: record.id,
      field,
      expected: stated,
      actual: derived,
      message: `${recordLabel(kind, record.id)}: ${field} is ${stated}, but ${why}`,
    });
  };
  const sum = (values: readonly (DecimalString | undefined)[]): DecimalString => sumDecimalStrings(values.map((v) => v ?? "0"));
  const differs = (a: DecimalString, b: DecimalString): boolean => !sameDecimal(a, b);

  checkEvents(record, report, sum, differs);
  const { quantity, canceledQuantity, returnedToPoolQuantity: pool, returnedToTreasuryQuantity: treasury } = record;
  // A grant paid above target has granted its quantity and the payouts (source-figures.ts).
  const above = paidAboveTargetBy(record);
  const granted = quantity === undefined ? undefined : sumDecimalStrings([quantity, above]);
  const grantedText = sameDecimal(above, "0") ? `the quantity ${quantity}` : `the quantity ${quantity} and the ${above} its events paid above target`;
  if (granted !== undefined && record.vestedQuantity !== undefined && compareDecimalStrings(record.vestedQuantity, granted) > 0) {
    report("vestedQuantity", record.vestedQuantity, granted, `that is more than ${grantedText}`);
  }
  if (canceledQuantity !== undefined && (pool !== undefined || treasury !== undefined)) {
    const parts = sum([pool, treasury]);
    if (differs(canceledQuantity, parts)) {
      report("canceledQuantity", canceledQuantity, parts, `returnedToPoolQuantity ${pool ?? "0"} + returnedToTreasuryQuantity ${treasury ?? "0"} is ${parts}`);
    }
  }
  let released: DecimalString = "0";
  if (parsed.kind === "restrictedStockUnit") {
    const unit = parsed.record;
    if (canceledQuantity !== undefined && (unit.forfeitedQuantity !== undefined || unit.expiredQuantity !== undefined)) {
      const parts = sum([unit.forfeitedQuantity, unit.expiredQuantity]);
      if (differs(canceledQuantity, parts)) {
        report("canceledQuantity", canceledQuantity, parts, `forfeitedQuantity ${unit.forfeitedQuantity ?? "0"} + expiredQuantity ${unit.expiredQuantity ?? "0"} is ${parts}`);
      }
    }
    unit.settlements.forEach((s, n) => {
      if (s.releaseQuantity === undefined) return;
      const parts = sum([s.netSettlementQuantity, s.withholdingQuantity, s.saleQuantity]);
      if (differs(s.releaseQuantity, parts)) {
        report(`settlements[${n}].releaseQuantity`, s.releaseQuantity, parts, `net ${s.netSettlementQuantity ?? "0"} + withheld ${s.withholdingQuantity ?? "0"} + sold ${s.saleQuantity ?? "0"} is ${parts}`);
      }
    });
    // A settlement sent twice was settled once (the mapping's rule, `distinctSettlements`).
    const once = settlementsSentOnce(unit.settlements);
    const releases = sum(once.map((s) => s.releaseQuantity));
    if (unit.releasedQuantity !== undefined && differs(unit.releasedQuantity, releases)) {
      report("releasedQuantity", unit.releasedQuantity, releases, `the settlements' releaseQuantity add up to ${releases}`);
    }
    const nets = sum(once.map((s) => s.netSettlementQuantity));
    if (unit.netSettledQuantity !== undefined && differs(unit.netSettledQuantity, nets)) {
      report("netSettledQuantity", unit.netSettledQuantity, nets, `the settlements' netSettlementQuantity add up to ${nets}`);
    }
    for (const early of releasedBeforeVested(unit)) {
      out.push({
        section: "source",
        code: "RELEASED_BEFORE_VESTED",
        issuerId,
        kind,
        recordId: record.id,
        field: `settlements[${early.n}]`,
        expected: early.released,
        actual: early.vested,
        message: `${recordLabel(kind, record.id)}: settlements[${early.n}] on ${early.date} brings what is released to ${early.released}, but only ${early.vested} had vested by then (${early.basis})`,
      });
    }
    released = unit.releasedQuantity ?? releases;
    if (record.vestedQuantity !== undefined && compareDecimalStrings(released, record.vestedQuantity) > 0) {
      report("releasedQuantity", released, record.vestedQuantity, `only ${record.vestedQuantity} vested (vestedQuantity)`);
    }
  }
  if (quantity !== undefined && granted !== undefined) {
    const used = sum([released, canceledQuantity]);
    if (compareDecimalStrings(used, granted) > 0) report("quantity", quantity, used, `released ${released} + canceled ${canceledQuantity ?? "0"} is ${used}, more than was granted (${grantedText})`);
  }
  checkDates(record, report);
  return out;
}

type Report = (field: string, stated: string, derived: string, why: string) => void;

/** A settlement (the `n`th) that takes what is `released` by its date past what is `vested` then, as `basis` reads vesting. */
interface EarlyRelease {
  n: number;
  date: CalendarDate;
  released: DecimalString;
  vested: DecimalString;
  basis: string;
}

/**
 * `RELEASED_BEFORE_VESTED`: a settlement that brings what the unit has released by its date to more
 * than had vested by then. Vested: the events marked vested (`vestedQuantity`, else the target),
 * dated up to the settlement (one without a date counts from the start); a unit without events vests
 * everything on its issue date. A settlement sent twice counts once (`settlementsSentOnce`). A package
 * mapped from the unit releases as early (issue 24).
 */
function releasedBeforeVested(unit: RestrictedStockUnit): EarlyRelease[] {
  const found: EarlyRelease[] = [];
  const events = unit.vestingEvents;
  let tranches: { date: string; amount: DecimalString }[];
  if (events.length > 0) {
    tranches = events.filter((e) => e.vested).map((e) => ({ date: e.vestDate ?? "", amount: e.vestedQuantity ?? e.targetQuantity ?? e.quantity ?? "0" }));
  } else if (unit.issueDate !== undefined && unit.quantity !== undefined) {
    tranches = [{ date: unit.issueDate, amount: unit.quantity }];
  } else return found;
  tranches.sort((a, b) => compareIso(a.date, b.date));
  // A settlement sent twice was settled once (the mapping's rule): the repeat releases nothing more.
  const once = new Set(settlementsSentOnce(unit.settlements));
  const settled = unit.settlements
    .map((s, n) => ({ n, date: s.settlementDate, quantity: once.has(s) ? s.releaseQuantity : undefined }))
    .filter((s): s is { n: number; date: CalendarDate; quantity: DecimalString } => s.date !== undefined && s.quantity !== undefined)
    .sort((a, b) => compareIso(a.date, b.date) || a.n - b.n);
  let released: DecimalString = "0";
  let vested: DecimalString = "0";
  let next = 0;
  for (let start = 0; start < settled.length; ) {
    const date = (settled[start] as { date: CalendarDate }).date;
    let end = start;
    // The settlements of one day together: their order within it is nobody's.
    const day: DecimalString[] = [released];
    while (end < settled.length && (settled[end] as { date: CalendarDate }).date === date) day.push((settled[end++] as { quantity: DecimalString }).quantity);
    released = sumDecimalStrings(day);
    const vesting: DecimalString[] = [vested];
    while (next < tranches.length && compareIso((tranches[next] as { date: string }).date, date) <= 0) vesting.push((tranches[next++] as { amount: DecimalString }).amount);
    vested = sumDecimalStrings(vesting);
    if (compareDecimalStrings(released, vested) > 0) {
      const basis = events.length > 0 ? "its vesting events marked vested, dated up to then" : `no vesting events: everything vests on the issue date ${unit.issueDate ?? ""}`;
      for (let k = start; k < end; k++) found.push({ n: (settled[k] as { n: number }).n, date, released, vested, basis });
    }
    start = end;
  }
  return found;
}

function checkEvents(
  record: GrantFields,
  report: Report,
  sum: (values: readonly (DecimalString | undefined)[]) => DecimalString,
  differs: (a: DecimalString, b: DecimalString) => boolean,
): void {
  const events = record.vestingEvents;
  if (events.length === 0) return;
  const planned = sum(events.map((e) => e.targetQuantity ?? e.quantity));
  // A cancellation may take its tranches off the list (the service then lists the grant that remains):
  // the events plus what was cancelled make the quantity then.
  const listedAfterCancellation = record.canceledQuantity === undefined ? undefined : sum([planned, record.canceledQuantity]);
  if (record.quantity !== undefined && differs(record.quantity, planned) && (listedAfterCancellation === undefined || differs(record.quantity, listedAfterCancellation))) {
    report("quantity", record.quantity, planned, `the vesting events' targetQuantity (else quantity) add up to ${planned}`);
  }
  const vested = sum(events.filter((e) => e.vested).map((e) => e.vestedQuantity));
  if (record.vestedQuantity !== undefined && differs(record.vestedQuantity, vested)) {
    const dates = events.filter((e) => e.vested).map((e) => e.vestDate ?? "undated");
    report("vestedQuantity", record.vestedQuantity, vested, `its vested events (${dates.join(", ")}) add up to ${vested}`);
  }
}

/** `boardApprovalDate ≤ issueDate ≤ stakeholderAcceptanceDate` and `terminationDate ≤ canceledDate`. */
function checkDates(record: GrantFields, report: Report): void {
  const order = (earlierField: string, earlier: CalendarDate | undefined, laterField: string, later: CalendarDate | undefined): void => {
    if (earlier !== undefined && later !== undefined && compareIso(earlier, later) > 0) {
      report(laterField, later, earlier, `that is before ${earlierField} ${earlier}`);
    }
  };
  order("boardApprovalDate", record.boardApprovalDate, "issueDate", record.issueDate);
  order("issueDate", record.issueDate, "stakeholderAcceptanceDate", record.stakeholderAcceptanceDate);
  order("terminationDate", record.terminationDate, "canceledDate", record.canceledDate);
}
