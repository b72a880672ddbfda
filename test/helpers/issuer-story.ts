/**
 * Generated issuers whose records tell a consistent life story, as the real service's would: grants
 * issued, vesting in dated tranches (whole or fractional shares) and milestones, holders terminated
 * mid-vesting, RSU units settled once a year with shares withheld, sold to cover taxes or both, and
 * cancellations that are partial (a terminated holder keeps the vested shares; vested units wait for a
 * late settlement) or full, with and without a termination. Settlements fall before, on and after the
 * cancellation day (on the day of a partial cancellation, and on the day of one that, with them, ends
 * the grant in full); acceptances come at the issue, on or after the cancellation day (after a full
 * cancellation too), or not at all; milestones are met on the day the grant ends too; awards are of
 * two share classes, and units deliver one of them or name none (the default options then choose the
 * class, stated); a met milestone of a grant that does not end may pay half its target (below
 * target) or twice it (its maximum: a payout above target);
 * amounts have up to 6 decimal places; some records leave out the optional fields (acceptance,
 * vesting start, label, certificate, a settlement's price when the unit has one, zero quantities).
 * Every counter agrees with the events, so every record can become valid OCF; what a reader computes
 * from the package must then equal what the records say (test/helpers/source-truth.ts).
 */
import fc from "fast-check";
import type { RestrictedStockAward, RestrictedStockUnit, Settlement, VestingEvent } from "../../src/source/records.js";
import { Decimal } from "./independent-reader.js";

/** The day the generated records describe: every vested flag is as of then. */
export const STORY_AS_OF = "2026-06-30";
export const STORY_ISSUER = "story";
/** The two share classes of the awards (id and name); a unit delivers one of them. */
const CLASSES = [
  { id: "c0ffee00-0000-4000-8000-000000000001", name: "Common" },
  { id: "c0ffee00-0000-4000-8000-000000000002", name: "Class B" },
] as const;

export interface StoryIssuer {
  awards: RestrictedStockAward[];
  units: RestrictedStockUnit[];
}

/** `YYYY-MM-DD` plus `days` (UTC arithmetic on a calendar date: no time zone involved). */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function addMonths(date: string, months: number): string {
  const [y, m, day] = date.split("-").map(Number) as [number, number, number];
  const total = y * 12 + (m - 1) + months;
  const last = new Date(Date.UTC(Math.floor(total / 12), (total % 12) + 1, 0)).getUTCDate();
  return `${String(Math.floor(total / 12)).padStart(4, "0")}-${String((total % 12) + 1).padStart(2, "0")}-${String(Math.min(day, last)).padStart(2, "0")}`;
}

const dayIn = (from: string, to: string) => {
  const span = Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000));
  return fc.integer({ min: 0, max: span }).map((n) => addDays(from, n));
};

const text = (d: Decimal): string => d.toFixed();

/** How a grant's story goes. */
interface GrantPlan {
  issueDate: string;
  startOffset: number;
  tranches: string[];
  intervalMonths: number;
  /** A milestone: none, met some days after the issue, met on the day the grant ends (its termination or cancellation), or not yet met. */
  milestone: "none" | "met" | "met-on-end" | "pending";
  milestoneAmount: string;
  milestoneMetAfterDays: number;
  /**
   * What a met milestone pays, on a grant that does not end (the counters of an ended grant are
   * stated against targets here): its target, half of it (met below target: the rest stays
   * outstanding, never to vest), or twice it (its maximum, a payout above target).
   */
  milestonePaid: "target" | "half" | "double";
  stakeholder: string;
  end: "none" | "terminated" | "partial-cancel" | "partial-cancel-listed";
  endAfterDays: number;
  cancelDelay: number;
  poolShare: number;
  /** Units only: how settlements withhold taxes, and what happens to vested units not settled at a termination. */
  taxes: "withhold" | "sell" | "both" | "none";
  unsettled: "expire" | "keep" | "half";
  /**
   * Units only: when the vested units a termination leaves are settled: some days after the
   * cancellation, on its day (with it the grant ends in full that day unless units expired), or half
   * on its day and the rest later. A partial cancellation without a termination is dated its own day,
   * or (`on-day`, `split`) the day of one of the unit's settlements.
   */
  late: "after" | "on-day" | "split";
  settleDelay: number;
  label: number;
  /** When the holder accepted: at the issue, some days after the cancellation day (else the issue), on it, or never (no date). */
  acceptance: "issue" | "after-end" | "on-end" | "none";
  acceptDelay: number;
  /** The share class: of the award, or the one the unit delivers. */
  shareClass: 0 | 1;
  /** Units only: whether the unit names its class (`shareClassId`), or names none (the default options then choose one, stated). */
  unitClass: "named" | "none";
  /** Leave out the optional fields: vesting start, label, the certificate, price and zero quantities of a settlement. */
  sparse: boolean;
}

const amount = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 5000 }).map(String) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 1, max: 99 })).map(([w, f]) => `${w}.${String(f).padStart(2, "0")}`) },
  // Up to 6 decimal places (the last one not 0, so the text is what a service would send).
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 999_999 })).map(([w, places, f]) => `${w}.${String(f % 10 ** places || 1).padStart(places, "0")}`.replace(/0+$/, "")) },
);

const grantPlan: fc.Arbitrary<GrantPlan> = fc.record({
  issueDate: dayIn("2018-01-01", "2025-06-30"),
  startOffset: fc.integer({ min: 0, max: 30 }),
  tranches: fc.array(amount, { minLength: 1, maxLength: 8 }),
  intervalMonths: fc.constantFrom(3, 6, 12),
  milestone: fc.constantFrom("none", "none", "met", "met-on-end", "pending"),
  milestoneAmount: amount,
  milestoneMetAfterDays: fc.integer({ min: 30, max: 900 }),
  milestonePaid: fc.constantFrom("target", "target", "half", "double"),
  stakeholder: fc.constantFrom("s1", "s2", "s3", "s4"),
  end: fc.constantFrom("none", "none", "terminated", "terminated", "partial-cancel", "partial-cancel-listed"),
  endAfterDays: fc.integer({ min: 1, max: 1500 }),
  // Often none: a cancellation on the termination day, where a milestone met that day falls too.
  cancelDelay: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 20 })),
  poolShare: fc.constantFrom(0, 0.5, 1),
  taxes: fc.constantFrom("withhold", "sell", "both", "none"),
  unsettled: fc.constantFrom("expire", "keep", "half"),
  late: fc.constantFrom("after", "on-day", "split"),
  settleDelay: fc.integer({ min: 1, max: 60 }),
  label: fc.integer({ min: 1, max: 999 }),
  acceptance: fc.constantFrom("issue", "issue", "after-end", "on-end", "none"),
  acceptDelay: fc.integer({ min: 1, max: 400 }),
  shareClass: fc.constantFrom(0 as const, 1 as const),
  unitClass: fc.constantFrom("named", "named", "none"),
  sparse: fc.boolean(),
});

interface Shaped {
  events: VestingEvent[];
  quantity: Decimal;
  terminationDate?: string;
  cancel?: { date: string; removed: Decimal };
}

/** The events of a grant, its quantity, and its termination or partial cancellation. */
function shape(plan: GrantPlan): Shaped {
  const start = addDays(plan.issueDate, -plan.startOffset);
  const endDate = addDays(plan.issueDate, plan.endAfterDays);
  const ends = plan.end !== "none" && endDate <= STORY_AS_OF;
  const terminationDate = ends && plan.end === "terminated" ? endDate : undefined;
  const cutoff = terminationDate !== undefined && terminationDate < STORY_AS_OF ? terminationDate : STORY_AS_OF;
  let events: VestingEvent[] = plan.tranches.map((a, i) => {
    const vestDate = addMonths(start, plan.intervalMonths * (i + 1));
    const vested = vestDate <= cutoff;
    return {
      id: `t${i + 1}`,
      vestDate,
      quantity: a,
      performanceCondition: false,
      vested,
      maxQuantity: a,
      targetQuantity: a,
      ...(vested ? { vestedQuantity: a } : {}),
    };
  });
  if (plan.milestone !== "none") {
    const metOn = plan.milestone === "met-on-end" && ends ? endDate : addDays(plan.issueDate, plan.milestoneMetAfterDays);
    const met = plan.milestone !== "pending" && metOn <= cutoff;
    const maximum = plan.milestonePaid === "double" && plan.end === "none" ? text(new Decimal(plan.milestoneAmount).times(2)) : plan.milestoneAmount;
    const paid = plan.milestonePaid === "half" && plan.end === "none" ? text(new Decimal(plan.milestoneAmount).div(2)) : maximum;
    events.push({
      id: "m1",
      ...(met ? { vestDate: metOn, vestedQuantity: paid } : {}),
      // The deprecated quantity is the maximum until the condition is met, the target afterwards (§9.8).
      quantity: met ? plan.milestoneAmount : maximum,
      performanceCondition: true,
      vested: met,
      maxQuantity: maximum,
      targetQuantity: plan.milestoneAmount,
    });
  }
  const quantity = events.reduce((sum, e) => sum.plus(e.targetQuantity as string), new Decimal(0));
  if (ends && (plan.end === "partial-cancel" || plan.end === "partial-cancel-listed")) {
    // Cancelled without a termination: the tranches still to vest after the date are cancelled. They
    // leave the list, as the service's records show the grant that remains, or (listed) stay in it,
    // not vested, as a forfeiture with no terminationDate shows them.
    const removed = events.filter((e) => !e.vested && (e.vestDate === undefined || e.vestDate > endDate));
    if (removed.length > 0) {
      if (plan.end === "partial-cancel") events = events.filter((e) => !removed.includes(e));
      const total = removed.reduce((sum, e) => sum.plus(e.targetQuantity as string), new Decimal(0));
      return { events, quantity, cancel: { date: endDate, removed: total } };
    }
  }
  return { events, quantity, ...(terminationDate === undefined ? {} : { terminationDate }) };
}

const vestedBy = (events: readonly VestingEvent[], date: string) =>
  events.filter((e) => e.vested && (e.vestDate as string) <= date).reduce((sum, e) => sum.plus(e.vestedQuantity as string), new Decimal(0));

function base(plan: GrantPlan, id: string, shaped: Shaped, label: string) {
  return {
    id,
    issuerId: STORY_ISSUER,
    stakeholderId: plan.stakeholder,
    equityIncentivePlanName: "Story Plan",
    issueDate: plan.issueDate,
    ...(plan.sparse ? {} : { vestingStartDate: addDays(plan.issueDate, -plan.startOffset), securityLabel: label }),
    quantity: text(shaped.quantity),
    vestedQuantity: text(vestedBy(shaped.events, STORY_AS_OF)),
    vestingEvents: shaped.events,
    shareClassId: CLASSES[plan.shareClass].id,
    lastModifiedDatetime: `${STORY_AS_OF}T00:00:00.000000Z`,
  };
}

/** The record with its holder's acceptance (see `GrantPlan.acceptance`), never after the story's day. */
function accepted<R extends RestrictedStockAward | RestrictedStockUnit>(plan: GrantPlan, record: R): R {
  if (plan.acceptance === "none") return record;
  const ended = record.canceledDate;
  const on = ended === undefined || plan.acceptance === "issue" ? plan.issueDate : plan.acceptance === "on-end" ? ended : addDays(ended, plan.acceptDelay);
  return { ...record, stakeholderAcceptanceDate: on > STORY_AS_OF ? STORY_AS_OF : on };
}

function cancellationCounters(canceled: Decimal, poolShare: number) {
  const pool = canceled.times(poolShare).floor();
  return { canceledQuantity: text(canceled), returnedToPoolQuantity: text(pool), returnedToTreasuryQuantity: text(canceled.minus(pool)) };
}

function award(plan: GrantPlan, index: number): RestrictedStockAward {
  return accepted(plan, awardStory(plan, index));
}

function awardStory(plan: GrantPlan, index: number): RestrictedStockAward {
  const shaped = shape(plan);
  const record: RestrictedStockAward = {
    ...base(plan, `a${index}`, shaped, `RSA-${plan.label}`),
    shareClassName: CLASSES[plan.shareClass].name,
    pricePerShare: { currency: "USD", amount: "0.01" },
  };
  if (shaped.cancel !== undefined) {
    return { ...record, canceledDate: shaped.cancel.date, ...cancellationCounters(shaped.cancel.removed, plan.poolShare) };
  }
  if (shaped.terminationDate !== undefined) {
    // A terminated holder keeps what vested; the rest is cancelled.
    const unvested = shaped.quantity.minus(vestedBy(shaped.events, shaped.terminationDate));
    const canceledDate = addDays(shaped.terminationDate, plan.cancelDelay) > STORY_AS_OF ? STORY_AS_OF : addDays(shaped.terminationDate, plan.cancelDelay);
    return { ...record, terminationDate: shaped.terminationDate, ...(unvested.isZero() ? {} : { canceledDate, ...cancellationCounters(unvested, plan.poolShare) }) };
  }
  return { ...record, canceledQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
}

/**
 * A settlement of `gross` units on `date`. A sparse plan leaves out, on every other settlement, the
 * certificate and the price (the unit's releasePricePerShare prices it), and on all of them the
 * quantities that are zero (absent counts as 0).
 */
function settle(gross: Decimal, date: string, plan: GrantPlan, n: number, index: number): Settlement {
  const { taxes } = plan;
  const withheld = taxes === "withhold" || taxes === "both" ? gross.times(0.3).floor() : new Decimal(0);
  const sold = taxes === "sell" || taxes === "both" ? gross.times(0.2).floor() : new Decimal(0);
  const bare = plan.sparse && n % 2 === 1;
  return {
    settlementDate: date,
    releaseQuantity: text(gross),
    ...(plan.sparse && sold.isZero() ? {} : { saleQuantity: text(sold) }),
    ...(plan.sparse && withheld.isZero() ? {} : { withholdingQuantity: text(withheld) }),
    netSettlementQuantity: text(gross.minus(withheld).minus(sold)),
    ...(bare ? {} : { settlementPrice: { currency: "USD", amount: `${10 + n}.25` }, certificateId: `cert-${index}-${n}`, certificateLabel: `CS-${index * 10 + n}` }),
  };
}

function unit(plan: GrantPlan, index: number): RestrictedStockUnit {
  const record = accepted(plan, unitStory(plan, index));
  if (plan.unitClass === "named") return record;
  const { shareClassId: _none, ...classless } = record;
  return classless;
}

function unitStory(plan: GrantPlan, index: number): RestrictedStockUnit {
  const shaped = shape(plan);
  const record = { ...base(plan, `u${index}`, shaped, `RSU-${plan.label}`), releasePricePerShare: { currency: "USD", amount: "9.5" } };
  // Each year's vested units settle together, some days after the year's last tranche.
  const byYear = new Map<string, VestingEvent[]>();
  for (const e of shaped.events) if (e.vested) byYear.set((e.vestDate as string).slice(0, 4), [...(byYear.get((e.vestDate as string).slice(0, 4)) ?? []), e]);
  let settlements: Settlement[] = [];
  for (const batch of byYear.values()) {
    const date = addDays(batch.reduce((last, e) => ((e.vestDate as string) > last ? (e.vestDate as string) : last), ""), plan.settleDelay);
    if (date > STORY_AS_OF) continue;
    settlements.push(settle(batch.reduce((sum, e) => sum.plus(e.vestedQuantity as string), new Decimal(0)), date, plan, settlements.length + 1, index));
  }
  const releasedBy = (date: string) => settlements.filter((s) => (s.settlementDate as string) <= date).reduce((sum, s) => sum.plus(s.releaseQuantity as string), new Decimal(0));
  let counters: Partial<RestrictedStockUnit> = { canceledQuantity: "0", forfeitedQuantity: "0", expiredQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
  let dates: Partial<RestrictedStockUnit> = {};
  if (shaped.cancel !== undefined) {
    counters = { ...cancellationCounters(shaped.cancel.removed, plan.poolShare), forfeitedQuantity: text(shaped.cancel.removed), expiredQuantity: "0" };
    // Only tranches after the story's day are cancelled, so the cancellation may fall on the day of
    // any settlement: the settlements before it are released from the unit, the later ones and
    // those of its day from what it leaves.
    const onSettlement = plan.late === "after" || settlements.length === 0 ? undefined : settlements[plan.label % settlements.length]?.settlementDate;
    dates = { canceledDate: onSettlement ?? shaped.cancel.date };
  } else if (shaped.terminationDate !== undefined) {
    const t = shaped.terminationDate;
    const c = addDays(t, plan.cancelDelay) > STORY_AS_OF ? STORY_AS_OF : addDays(t, plan.cancelDelay);
    const forfeited = shaped.quantity.minus(vestedBy(shaped.events, t));
    const waiting = vestedBy(shaped.events, t).minus(releasedBy(c));
    const expired = plan.unsettled === "expire" ? waiting : plan.unsettled === "half" ? waiting.div(2).floor() : new Decimal(0);
    settlements = settlements.filter((s) => (s.settlementDate as string) <= c);
    // The units that did not expire are settled later (if that day comes by the as-of date), on the
    // cancellation day, or half on it and the rest later.
    const left = waiting.minus(expired);
    const onDay = plan.late === "on-day" ? left : plan.late === "split" ? left.div(2).floor() : new Decimal(0);
    const later = addDays(c, plan.settleDelay);
    if (!onDay.isZero()) settlements.push(settle(onDay, c, plan, settlements.length + 1, index));
    if (!left.minus(onDay).isZero() && later <= STORY_AS_OF) settlements.push(settle(left.minus(onDay), later, plan, settlements.length + 1, index));
    const canceled = forfeited.plus(expired);
    dates = { terminationDate: t, ...(canceled.isZero() ? {} : { canceledDate: c }) };
    counters = { ...cancellationCounters(canceled, plan.poolShare), forfeitedQuantity: text(forfeited), expiredQuantity: text(expired) };
  }
  const released = settlements.reduce((sum, s) => sum.plus(s.releaseQuantity as string), new Decimal(0));
  const net = settlements.reduce((sum, s) => sum.plus(s.netSettlementQuantity as string), new Decimal(0));
  return { ...record, ...dates, ...counters, settlements, releasedQuantity: text(released), netSettledQuantity: text(net) };
}

/** An issuer of up to 4 awards and 4 units with consistent stories. */
export const storyIssuer: fc.Arbitrary<StoryIssuer> = fc
  .record({ awards: fc.array(grantPlan, { maxLength: 4 }), units: fc.array(grantPlan, { maxLength: 4 }) })
  .map(({ awards, units }) => ({ awards: awards.map(award), units: units.map(unit) }));
