/**
 * Vesting, for awards and units alike, kept in this one module because OCF's vesting model is likely
 * to change in 2.x (ocf-1.2.0.md §8). The source gives each grant its own vesting events (dates and
 * amounts) and only the name of a schedule; this module turns the events into one of two OCF forms:
 *
 * - all events time-based and dated: the issuance's `vestings` list (one `{date, amount}` per event,
 *   sorted by date then event id; zero tranches left out). No VestingTerms, no vesting transactions.
 * - any performance-condition or undated event: one VestingTerms per grant holding all of its events
 *   as conditions, a `TX_VESTING_START`, and a `TX_VESTING_EVENT` for each vested performance event.
 *
 * The VestingTerms graph is a single chain: start → c1 → c2 → … → cn. OCF takes only one path among
 * a node's `next_condition_ids` (the first to be satisfied; OCF-Tools' ExecutionPathBuilder picks the
 * earliest sibling and follows only its children), so listing the events as siblings of the start
 * node would vest just one of them. In a chain each condition becomes reachable once the previous one
 * has fired, so the chain lists first the conditions that fire on a known date, by date (time-based
 * tranches, trigger `VESTING_SCHEDULE_ABSOLUTE`, and vested performance events, trigger
 * `VESTING_EVENT` with their `TX_VESTING_EVENT`), then the pending conditions (performance events not
 * yet met, trigger `VESTING_EVENT`). A pending condition therefore never blocks a dated tranche. The
 * one limitation: a pending milestone met before the last dated tranche becomes reachable only after
 * it in the graph; the next export re-sorts the chain by the dates then known. Each condition vests a
 * fixed `quantity`, so `allocation_type` is `FRACTIONAL` (no rounding is ever applied).
 *
 * A condition's quantity, like a tranche's amount, is what vested when the event has vested
 * (`vestedQuantity`) and what is planned otherwise (`targetQuantity`, else the deprecated `quantity`).
 * `maxQuantity` and the deprecated `quantity` are kept in the condition's description.
 *
 * The quantities are parsed once, into exact values, when `mapVesting` starts (the grant's counters,
 * `exactGrant`) and when it plans the events (each event's quantities, `exactQuantities`); sums,
 * comparisons and tests work on those, and they become OCF Numeric only where they are written
 * (`RecordContext.numeric`). Messages show the record's own text.
 */
import { Dec, type DecimalString, equalExact, formatDecimal, sumExact, ZERO } from "../decimal.js";
import type { CalendarDate } from "../dates.js";
import type {
  OcfVesting,
  OcfVestingCondition,
  OcfVestingEvent,
  OcfVestingStart,
  OcfVestingTerms,
} from "../ocf/schemas.js";
import type { VestingEvent, VestingSchedule } from "../source/records.js";
import { VESTING_START_CONDITION_ID, txIds, vestingConditionIdOf, vestingTermsIdOf } from "./ids.js";
import { compareText } from "../ocf/order.js";
import { compareVestingEvents, sortIfNeeded } from "./order.js";
import { quoted } from "./quote.js";
import type { RecordContext } from "./record-context.js";

/** What the vesting of one grant is mapped from. */
export interface GrantVesting {
  /** The grant's security id. */
  security: string;
  /** The grant's `custom_id`, used to name its VestingTerms. */
  customId: string;
  /** The grant in words, e.g. `restricted stock award "2209" (RSA-3)`, for descriptions. */
  grantLabel: string;
  /** The record's vesting events (errors and warnings name them by their index here). */
  events: readonly VestingEvent[];
  /**
   * Events left out of the vesting (`neverEarnedEvents`). When every event is left out, nothing vests:
   * the grant is not read as fully vested.
   */
  neverEarned?: ReadonlySet<VestingEvent>;
  /** Check the source's own sums (vestedQuantity, quantity). @default true */
  checkSums?: boolean;
  /**
   * The events as the source sent them, when `events` vests some of them otherwise (a payout above
   * target vests its target here: `payout.ts`): the source's sums are checked on these. @default events
   */
  sumsOf?: readonly VestingEvent[];
  quantity: DecimalString;
  vestedQuantity?: DecimalString | undefined;
  /**
   * The grant's `canceledQuantity`: a cancellation may take its tranches off the events' list (the
   * service then lists the grant that remains), and the events plus it make the quantity.
   */
  canceledQuantity?: DecimalString | undefined;
  issueDate: CalendarDate;
  vestingStartDate?: CalendarDate | undefined;
  schedule?: VestingSchedule | undefined;
  /**
   * The day the security ends (its cancellation, in the documents lineage). OCF orders nothing within
   * a day, so a `TX_VESTING_EVENT` that day could be read after the end: a performance condition met
   * that day is written with its date (`VESTING_SCHEDULE_ABSOLUTE`) instead, and its description says so;
   * VestingTerms that would start that day (a `TX_VESTING_START` on it) become a `vestings` list when
   * every event has a date, and the issuance's comments say why.
   */
  endsOn?: CalendarDate | undefined;
}

/** The vesting of one grant in OCF form. */
export interface MappedVesting {
  /** The issuance's `vestings` (present only when every event is time-based and dated, and one is not zero). */
  vestings?: OcfVesting[];
  /** The issuance's `vesting_terms_id` (present exactly when `terms` is). */
  vestingTermsId?: string;
  terms?: OcfVestingTerms;
  /** `TX_VESTING_START` and `TX_VESTING_EVENT`s (only with `terms`). */
  transactions: (OcfVestingStart | OcfVestingEvent)[];
  /** Notes for the issuance's `comments` (schedule and start date when there are no terms). */
  issuanceComments: string[];
}

/** The quantities of one source event, as exact values. */
interface ExactQuantities {
  vestedQuantity?: Dec | undefined;
  targetQuantity?: Dec | undefined;
  maxQuantity?: Dec | undefined;
  quantity?: Dec | undefined;
}

/** The grant's counters that the vesting checks, as exact values. */
interface ExactGrant {
  quantity: Dec;
  vestedQuantity?: Dec | undefined;
  canceledQuantity?: Dec | undefined;
}

/** One source event with what the mapping decided about it. */
interface PlannedEvent {
  event: VestingEvent;
  /** Its position in the source list: `vestingEvents[index]`. */
  index: number;
  /** Source id, or `index-<n>` in canonical order when absent. */
  key: string;
  /** The event's quantities, parsed once. */
  exact: ExactQuantities;
  amount: Dec;
  /** The field of the event that `amount` is. */
  amountField: "vestedQuantity" | "targetQuantity" | "quantity";
}

// Written out field by field, as `exactSettlement` is: a loop over field names costs more than the
// parsing it saves, at thousands of events per issuer.
function exactQuantities(ctx: RecordContext, event: VestingEvent): ExactQuantities {
  return {
    vestedQuantity: ctx.exact(event.vestedQuantity),
    targetQuantity: ctx.exact(event.targetQuantity),
    maxQuantity: ctx.exact(event.maxQuantity),
    quantity: ctx.exact(event.quantity),
  };
}

function exactGrant(ctx: RecordContext, grant: GrantVesting): ExactGrant {
  return { quantity: ctx.exact(grant.quantity), vestedQuantity: ctx.exact(grant.vestedQuantity), canceledQuantity: ctx.exact(grant.canceledQuantity) };
}

/** The record's text of a planned event's amount, as messages show it. */
function amountText(p: PlannedEvent): DecimalString {
  return p.event[p.amountField] as DecimalString;
}

/**
 * The amount an event vests or is planned to vest, by the rule of the module comment (`vestedQuantity`
 * once vested, else `targetQuantity`, else the deprecated `quantity`), without warnings.
 */
export function plannedAmountOf(event: VestingEvent): DecimalString | undefined {
  if (event.vested && event.vestedQuantity !== undefined) return event.vestedQuantity;
  return event.targetQuantity ?? event.quantity;
}

/**
 * The events a grant's holder can never earn (consumer-true-ocf.md, "Vesting as earned"): an event the
 * source says did not vest and that falls after the `terminationDate` (or a pending milestone, with no
 * date, of a terminated grant). They leave `vestings` and the VestingTerms chain; the returned comment
 * names them, in canonical order.
 */
export function neverEarnedEvents(events: readonly VestingEvent[], terminationDate: CalendarDate | undefined): { events: ReadonlySet<VestingEvent>; comment?: string } {
  const never = new Set<VestingEvent>();
  if (terminationDate === undefined) return { events: never };
  for (const event of events) {
    if (!event.vested && (event.vestDate === undefined || event.vestDate > terminationDate)) never.add(event);
  }
  if (never.size === 0) return { events: never };
  const named = sortIfNeeded([...never], compareVestingEvents).map((event) => {
    const amount = plannedAmountOf(event);
    return `${event.id === undefined ? "(no id)" : quoted(event.id)} ${event.vestDate ?? "undated"}${amount === undefined ? "" : ` ${amount}`}`;
  });
  return { events: never, comment: `Not vested and after the termination on ${terminationDate}, so never earned and left out of the vesting: ${named.join(", ")}.` };
}

/** The source path of a planned event (built only for errors, warnings and conversions). */
function eventPath(index: number): string {
  return `vestingEvents[${index}]`;
}

/**
 * Maps the vesting events of a grant. Errors (`MappingError`) for an event without any quantity, a
 * vested event without a date that is not time-based, and two events with the same id. Source
 * inconsistencies become warnings on `ctx`.
 */
export function mapVesting(ctx: RecordContext, grant: GrantVesting): MappedVesting {
  const all = planEvents(ctx, grant.events);
  const counters = exactGrant(ctx, grant);
  if (grant.checkSums !== false) {
    checkVestingSums(ctx, grant, counters, grant.sumsOf?.map((event) => ({ event, exact: exactQuantities(ctx, event) })) ?? all);
  }
  const never = grant.neverEarned;
  const planned = never === undefined || never.size === 0 ? all : all.filter((p) => !never.has(p.event));
  checkVestingTotal(ctx, grant, counters, planned);
  if (all.length > 0 && planned.every((p) => p.amount.isZero())) {
    // The grant has events but none vests a share here (every one left out, or each of 0): OCF would
    // read a grant without vesting as fully vested, so it gets VestingTerms whose only condition, the
    // start, vests nothing. The zero events are named in its description.
    return asVestingTerms(ctx, grant, []);
  }
  if (planned.length === 0) {
    if (counters.vestedQuantity !== undefined && !equalExact(counters.vestedQuantity, counters.quantity)) {
      ctx.warn(
        "NO_VESTING_EVENTS_NOT_FULLY_VESTED",
        "vestingEvents",
        `has no vesting events, so OCF reads the grant as fully vested, but vestedQuantity is ${grant.vestedQuantity} of ${grant.quantity}`,
      );
    }
    return { transactions: [], issuanceComments: scheduleComments(grant) };
  }
  noteUnvestedTranches(ctx, planned);
  let allScheduled = true;
  for (const p of planned) {
    if (p.event.performanceCondition || p.event.vestDate === undefined) {
      allScheduled = false;
      break;
    }
  }
  if (allScheduled) return asVestingsList(ctx, grant, planned);
  if (grant.endsOn !== undefined && planned.every((p) => p.event.vestDate !== undefined) && startDateOf(grant, chainOrder(planned)) === grant.endsOn) {
    // VestingTerms would need a TX_VESTING_START on the day the security ends, which some order
    // within the day reads after the end; every event has its date, so a vestings list says it all.
    const list = asVestingsList(ctx, grant, planned);
    list.issuanceComments.push(
      `Written as a vestings list, not VestingTerms: the vesting starts on ${grant.endsOn}, the day this security ends, and OCF orders nothing within a day, so a TX_VESTING_START that day could be read after the end; every event vesting on it has a date.`,
    );
    return list;
  }
  return asVestingTerms(ctx, grant, planned);
}

/**
 * The date VestingTerms start on: the vesting start (else the issue date), or the first dated event of
 * the chain (`ordered`, in `chainOrder`) when the source dates it earlier, so that it vests on its own date.
 */
function startDateOf(grant: GrantVesting, ordered: readonly PlannedEvent[]): CalendarDate {
  const stated = grant.vestingStartDate ?? grant.issueDate;
  const first = ordered.find((p) => p.event.vestDate !== undefined)?.event.vestDate;
  return first !== undefined && first < stated ? first : stated;
}

/**
 * Notes on `ctx` each tranche that the OCF form vests on its date while the source says it has not
 * vested: a time-based event with a date and an amount, which becomes a `vestings` entry or an
 * absolute-date condition of the chain, so a reader counts it as vested from that day. (A pending
 * milestone has no date and vests nothing until it is met; a zero tranche vests nothing.)
 */
function noteUnvestedTranches(ctx: RecordContext, planned: readonly PlannedEvent[]): void {
  for (const p of planned) {
    const { event } = p;
    if (event.vested || event.performanceCondition || event.vestDate === undefined || p.amount.isZero()) continue;
    ctx.noteUnvested({ date: event.vestDate, event: event.id === undefined ? p.key : quoted(event.id), amount: amountText(p) });
  }
}

function planEvents(ctx: RecordContext, events: readonly VestingEvent[]): PlannedEvent[] {
  // Key and amount are filled in once the events are in canonical order (keys number that order).
  const planned = events.map((event, index): PlannedEvent => ({ event, index, key: "", exact: exactQuantities(ctx, event), amount: ZERO, amountField: "quantity" }));
  sortIfNeeded(planned, comparePlanned);
  const seen = new Map<string, number>();
  for (let position = 0; position < planned.length; position++) {
    const p = planned[position] as PlannedEvent;
    const { event, index } = p;
    const key = event.id ?? `index-${position + 1}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      ctx.fail("MAPPING_CONFLICT", `${eventPath(index)}.id`, `repeats the id of ${eventPath(earlier)} (${JSON.stringify(key)}); vesting conditions need distinct ids`, {
        value: event.id,
      });
    }
    seen.set(key, index);
    p.key = key;
    p.amountField = eventAmountField(ctx, p);
    p.amount = p.exact[p.amountField] as Dec;
  }
  return planned;
}

function comparePlanned(a: PlannedEvent, b: PlannedEvent): number {
  return compareVestingEvents(a.event, b.event);
}

/** Which quantity vested (when vested) or is planned to vest: see the module comment. */
function eventAmountField(ctx: RecordContext, p: PlannedEvent): PlannedEvent["amountField"] {
  const { event, index, exact: quantities } = p;
  if (event.vested && quantities.vestedQuantity !== undefined) {
    if (!event.performanceCondition && quantities.targetQuantity !== undefined && !equalExact(quantities.targetQuantity, quantities.vestedQuantity)) {
      ctx.warn(
        "VESTING_EVENT_QUANTITY",
        eventPath(index),
        `is time-based but its vestedQuantity ${event.vestedQuantity} differs from its targetQuantity ${event.targetQuantity}; the vested quantity is used`,
      );
    }
    return "vestedQuantity";
  }
  if (event.vested) {
    ctx.warn("VESTING_EVENT_QUANTITY", eventPath(index), "is marked vested but has no vestedQuantity; its targetQuantity (else quantity) is used");
  }
  if (event.targetQuantity !== undefined) return "targetQuantity";
  if (event.quantity !== undefined) return "quantity";
  return ctx.fail("MAPPING_MISSING_VALUE", `${eventPath(index)}.targetQuantity`, "is absent, and so are vestedQuantity and quantity: the event has no amount");
}

/** `ctx.numeric` of a planned event's amount; its path is built only when the value needs converting. */
function amountNumeric(ctx: RecordContext, p: PlannedEvent): string {
  return ctx.numeric(p.amount, `${eventPath(p.index)}.${p.amountField}`);
}

/**
 * What the mapping vests must fit the grant: a negative amount, or amounts adding up to more than the
 * quantity, cannot be written as valid OCF (ocf-sync's validate reports both), so the record is a
 * `MappingError` (failed or quarantined, never trimmed to fit).
 */
function checkVestingTotal(ctx: RecordContext, grant: GrantVesting, counters: ExactGrant, planned: readonly PlannedEvent[]): void {
  const amounts: Dec[] = [];
  for (const p of planned) {
    if (p.amount.isNegative() && !p.amount.isZero()) {
      ctx.fail("MAPPING_CONFLICT", `${eventPath(p.index)}.${p.amountField}`, `is ${amountText(p)}: a vesting tranche cannot be negative`, { value: amountText(p) });
    }
    amounts.push(p.amount);
  }
  const total = sumExact(amounts);
  if (total.gt(counters.quantity)) {
    const shown = formatDecimal(total);
    ctx.fail(
      "MAPPING_CONFLICT",
      "vestingEvents",
      `the tranches to vest add up to ${shown}, more than the ${grant.quantity} of the grant: OCF cannot vest more than a security holds`,
      { value: shown },
    );
  }
}

/** The source's own totals, checked and reported, never corrected (source-api.md §9.11). */
function checkVestingSums(ctx: RecordContext, grant: GrantVesting, counters: ExactGrant, events: readonly { event: VestingEvent; exact: ExactQuantities }[]): void {
  if (events.length === 0) return;
  const targets: Dec[] = [];
  const vested: Dec[] = [];
  for (const { event, exact: quantities } of events) {
    const target = quantities.targetQuantity ?? quantities.quantity;
    if (target !== undefined) targets.push(target);
    if (event.vested && quantities.vestedQuantity !== undefined) vested.push(quantities.vestedQuantity);
  }
  const planTotal = sumExact(targets);
  const remainsListed = counters.canceledQuantity !== undefined && equalExact(planTotal.plus(counters.canceledQuantity), counters.quantity);
  if (!equalExact(planTotal, counters.quantity) && !remainsListed) {
    ctx.warn(
      "VESTING_SUM_MISMATCH",
      "vestingEvents",
      `the events' targetQuantity (else quantity) add up to ${formatDecimal(planTotal)}, not to the grant's quantity ${grant.quantity}${grant.canceledQuantity === undefined ? "" : ` (nor with the canceledQuantity ${grant.canceledQuantity})`}`,
    );
  }
  if (counters.vestedQuantity !== undefined) {
    const vestedTotal = sumExact(vested);
    if (!equalExact(vestedTotal, counters.vestedQuantity)) {
      ctx.warn(
        "VESTED_SUM_MISMATCH",
        "vestedQuantity",
        `is ${grant.vestedQuantity}, but the vested events' vestedQuantity add up to ${formatDecimal(vestedTotal)}`,
      );
    }
  }
}

function asVestingsList(ctx: RecordContext, grant: GrantVesting, planned: readonly PlannedEvent[]): MappedVesting {
  const vestings: OcfVesting[] = [];
  for (const p of planned) {
    // An OCF tranche vests shares; a zero tranche says nothing and is left out (and is named in the comment).
    if (p.amount.isZero()) continue;
    vestings.push({ date: p.event.vestDate as CalendarDate, amount: amountNumeric(ctx, p) });
  }
  const issuanceComments = scheduleComments(grant);
  issuanceComments.push(eventsComment(planned));
  return vestings.length === 0 ? { transactions: [], issuanceComments } : { vestings, transactions: [], issuanceComments };
}

/**
 * An OCF tranche has only a date and an amount, so the events' ids, their vested flags and any
 * quantity that differs from the tranche amount are kept in one comment line, in tranche order.
 */
function eventsComment(planned: readonly PlannedEvent[]): string {
  const entries: string[] = [];
  for (const p of planned) {
    const { event, exact: quantities, amount } = p;
    const extra: string[] = [];
    if (amount.isZero()) extra.push("amount 0, not in vestings");
    if (differs(quantities.vestedQuantity, amount)) extra.push(`vestedQuantity ${event.vestedQuantity}`);
    if (differs(quantities.targetQuantity, amount)) extra.push(`targetQuantity ${event.targetQuantity}`);
    if (differs(quantities.maxQuantity, amount)) extra.push(`maxQuantity ${event.maxQuantity}`);
    if (differs(quantities.quantity, amount)) extra.push(`quantity (deprecated) ${event.quantity}`);
    const id = event.id === undefined ? `(no id, ${p.key})` : quoted(event.id);
    // A list holds performance conditions only when VestingTerms could not (see `mapVesting`): said so.
    const kind = event.performanceCondition ? "performance condition " : "";
    entries.push(`${id} ${kind}${event.vested ? "vested" : "not vested"}${extra.length === 0 ? "" : ` (${extra.join(", ")})`}`);
  }
  return `Vesting events in the order of vestings (time-based; other quantities equal to the tranche amount unless shown): ${entries.join(", ")}.`;
}

/** The event has this quantity and it is not the tranche amount. */
function differs(value: Dec | undefined, amount: Dec): boolean {
  return value !== undefined && !equalExact(value, amount);
}

/** Dated conditions by date (then canonical event order); pending ones after, in canonical order. */
function chainOrder(planned: readonly PlannedEvent[]): PlannedEvent[] {
  const firesOnDate = (p: PlannedEvent): boolean =>
    p.event.vestDate !== undefined && (!p.event.performanceCondition || p.event.vested);
  const dated = planned.filter(firesOnDate).sort((a, b) => compareText(a.event.vestDate, b.event.vestDate));
  const pending = planned.filter((p) => !firesOnDate(p));
  return [...dated, ...pending];
}

function asVestingTerms(ctx: RecordContext, grant: GrantVesting, planned: readonly PlannedEvent[]): MappedVesting {
  const termsId = vestingTermsIdOf(grant.security);
  const ordered = chainOrder(planned);
  const conditionIds = ordered.map((p) => vestingConditionIdOf(p.key));
  // A condition in the chain fires no earlier than the start: a tranche the source dates before the
  // vesting start (or the issue date) moves the start back to it, so that it vests on its own date.
  const stated = grant.vestingStartDate ?? grant.issueDate;
  const startDate = startDateOf(grant, ordered);
  const startSaid = grant.vestingStartDate === undefined ? `no vestingStartDate; the issue date ${grant.issueDate}` : `vestingStartDate ${grant.vestingStartDate}`;
  const conditions: OcfVestingCondition[] = [
    {
      id: VESTING_START_CONDITION_ID,
      description: `Vesting start (${startDate === stated ? startSaid : `${startSaid}; started on ${startDate}, the date of the first tranche, which comes earlier`})`,
      quantity: "0",
      trigger: { type: "VESTING_START_DATE" },
      next_condition_ids: conditionIds.slice(0, 1),
    },
  ];
  const transactions: (OcfVestingStart | OcfVestingEvent)[] = [
    {
      object_type: "TX_VESTING_START",
      id: txIds.vestingStart(grant.security),
      date: startDate,
      security_id: grant.security,
      vesting_condition_id: VESTING_START_CONDITION_ID,
    },
  ];
  for (let index = 0; index < ordered.length; index++) {
    const p = ordered[index] as PlannedEvent;
    const { event } = p;
    const conditionId = conditionIds[index] as string;
    // Met on the day the security ends: dated, so no transaction acts on it that day.
    const metOnEnd = event.performanceCondition && event.vested && event.vestDate !== undefined && event.vestDate === grant.endsOn;
    const scheduled = (!event.performanceCondition || metOnEnd) && event.vestDate !== undefined;
    conditions.push({
      id: conditionId,
      description: metOnEnd
        ? `${describeEvent(p)} Written with the date it was met (VESTING_SCHEDULE_ABSOLUTE), not a TX_VESTING_EVENT: the security ends that day, and OCF orders nothing within a day.`
        : describeEvent(p),
      quantity: amountNumeric(ctx, p),
      trigger: scheduled ? { type: "VESTING_SCHEDULE_ABSOLUTE", date: event.vestDate as CalendarDate } : { type: "VESTING_EVENT" },
      next_condition_ids: conditionIds.slice(index + 1, index + 2),
    });
    if (scheduled || !event.vested) continue;
    const date = ctx.required(event.vestDate, `${eventPath(p.index)}.vestDate`, `the TX_VESTING_EVENT of this vested ${event.performanceCondition ? "performance" : "undated"} event`);
    transactions.push({
      object_type: "TX_VESTING_EVENT",
      id: txIds.vestingEvent(grant.security, p.key),
      date,
      security_id: grant.security,
      vesting_condition_id: conditionId,
    });
  }
  const terms: OcfVestingTerms = {
    object_type: "VESTING_TERMS",
    id: termsId,
    name: `${grant.schedule?.name ?? "Vesting events"} (${grant.customId})`,
    description: termsDescription(grant, planned.length),
    allocation_type: "FRACTIONAL",
    vesting_conditions: conditions,
  };
  return { vestingTermsId: termsId, terms, transactions, issuanceComments: [] };
}

function termsDescription(grant: GrantVesting, eventCount: number): string {
  if (eventCount === 0) {
    return [
      `Built by ocf-sync for ${grant.grantLabel}: none of its vesting events vests on this security (the issuance's comments say why),`,
      "so the only condition is the vesting start, which vests nothing.",
      ...scheduleComments(grant),
    ].join(" ");
  }
  return [
    `Built by ocf-sync from the ${eventCount} vesting event${eventCount === 1 ? "" : "s"} of ${grant.grantLabel}:`,
    "one chain of conditions after the vesting start, with the conditions that vest on a known date first, by date",
    "(time-based tranches as VESTING_SCHEDULE_ABSOLUTE, vested performance conditions as VESTING_EVENT),",
    "then the performance conditions not yet met (VESTING_EVENT). Each condition vests a fixed quantity.",
    ...scheduleComments(grant),
  ].join(" ");
}

/** The schedule (name and dates) and the vesting start date: OCF has no field for either outside VestingTerms. */
function scheduleComments(grant: GrantVesting): string[] {
  const lines: string[] = [];
  const { schedule } = grant;
  if (schedule !== undefined) {
    const parts: string[] = [];
    if (schedule.startDate !== undefined) parts.push(`start ${schedule.startDate}`);
    if (schedule.endDate !== undefined) parts.push(`end ${schedule.endDate}`);
    if (schedule.lastModifiedDate !== undefined) parts.push(`last modified ${schedule.lastModifiedDate}`);
    const name = schedule.name === undefined ? "Vesting schedule (no name)" : `Vesting schedule ${quoted(schedule.name)}`;
    lines.push(`${name}${parts.length === 0 ? "" : `: ${parts.join(", ")}`}.`);
  }
  if (grant.vestingStartDate !== undefined) lines.push(`Vesting start date: ${grant.vestingStartDate}.`);
  return lines;
}

function describeEvent(p: PlannedEvent): string {
  const { event } = p;
  const kind = event.performanceCondition ? "performance condition" : "time-based";
  const state = event.vested
    ? `vested${event.vestDate === undefined ? "" : ` on ${event.vestDate}`}`
    : `not vested${event.vestDate === undefined ? "" : `, vest date ${event.vestDate}`}`;
  const quantities: string[] = [];
  if (event.vestedQuantity !== undefined) quantities.push(`vestedQuantity ${event.vestedQuantity}`);
  if (event.targetQuantity !== undefined) quantities.push(`targetQuantity ${event.targetQuantity}`);
  if (event.maxQuantity !== undefined) quantities.push(`maxQuantity ${event.maxQuantity}`);
  if (event.quantity !== undefined) quantities.push(`quantity (deprecated) ${event.quantity}`);
  const name = event.id === undefined ? `Vesting event without an id (${p.key})` : `Vesting event ${quoted(event.id)}`;
  return `${name}: ${kind}, ${state}; ${quantities.join(", ")}.`;
}
