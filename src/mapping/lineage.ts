/**
 * The security chain of one grant: which security each transaction acts on, so that a reader that
 * follows the OCF documents computes the source's figures (consumer-true-ocf.md, "The chains").
 *
 * Lineage `"documents"` (the default):
 * - a security ends at its first cancellation. The source has one cancellation event per grant; when
 *   it leaves shares or units outstanding (a partial cancellation), the remainder is a new issuance,
 *   the balance security (`<security>-balance`): same holder, class, plan, price and type, dated the
 *   cancellation date, named by the cancellation's `balance_security_id`. Its vesting is what had
 *   vested and is still held (one tranche on its issue date, "carried over") plus the tranches still
 *   to vest; with no tranche to come it is fully vested (no `vestings`).
 * - every later transaction of the grant (releases after the cancellation, vesting events of the
 *   tranches still to vest, a late acceptance) acts on the balance security; the return to pool
 *   stays on the cancelled security (the documented exception).
 * - OCF orders nothing within a day (consumer-true-ocf.md, "Order within a day"), so nothing else of
 *   the grant dated the cancellation day acts on the security it ends: a settlement that day is
 *   released from the balance, which holds its units too (when the grant ends in full that day, the
 *   balance holds exactly the units released that day); an acceptance that day goes on the balance,
 *   and with no balance (cancelled in full) it is left out with a warning, as is an acceptance after
 *   a full cancellation (it carries no quantity); a milestone met that day is written with its date,
 *   not a `TX_VESTING_EVENT` (`GrantVesting.endsOn`); a vesting that starts that day is a `vestings`
 *   list (every event on the security is dated), or, when it vests nothing there, its start is left out.
 * - releases do not end a security: OCF 1.2.0 gives `TX_EQUITY_COMPENSATION_RELEASE` no
 *   `balance_security_id`, so the unreleased units stay on the unit's security (said once in the
 *   manifest's comments).
 *
 * Lineage `"same-security"` (OCF #531): no balance security; the remainder stays on the grant's own
 * security, outstanding = issued − released − cancelled. That reading ends the security once nothing
 * of it is outstanding (after that day's transactions, so their order within it does not matter): an
 * acceptance dated later is left out with a warning.
 *
 * Either way, what a partial cancellation leaves reads as vested as the source says (see
 * `tranchesAfterCancellation`), and a chain that cannot be written as valid OCF, or whose vesting the
 * source leaves open, is a `MappingError` naming the field: a settlement or cancellation dated before
 * the issue date, more released or cancelled than is outstanding, a settlement or vesting after the
 * grant has ended in full, tranches still to vest that do not fit in the balance, a cancellation of
 * some of the tranches to come. Quantities are never trimmed to fit.
 *
 * The chain's sums and comparisons work on exact values: the grant's quantity and the cancellation's
 * (`GrantBasics.exactQuantity`, `PlannedCancellation.exactQuantity`), the settlements' gross and the
 * events' amounts (`RecordContext.exact`, which hands back the values the vesting and settlements
 * parsed). A quantity computed here becomes OCF Numeric in `RecordContext.numeric`, and messages show
 * it in plain form (`formatDecimal`).
 */
import { Dec, type DecimalString, equalExact, formatDecimal, sumExact, ZERO } from "../decimal.js";
import type { CalendarDate } from "../dates.js";
import type {
  OcfEquityCompensationCancellation,
  OcfEquityCompensationIssuance,
  OcfStockCancellation,
  OcfStockIssuance,
  OcfStockPlanReturnToPool,
  OcfTransaction,
  OcfVestingTerms,
} from "../ocf/schemas.js";
import type { VestingEvent } from "../source/records.js";
import type { PlannedEnd } from "./cancellation.js";
import type { GrantBasics } from "./grant-basics.js";
import { balanceSecurityIdOf, txIds } from "./ids.js";
import type { MappedSettlement } from "./settlement.js";
import type { Lineage } from "./types.js";
import { compareText } from "../ocf/order.js";
import { compareVestingEvents, sortIfNeeded } from "./order.js";
import { mapVesting, plannedAmountOf, type GrantVesting, type MappedVesting } from "./vesting.js";

/** The identity, quantity and vesting of one issuance of the chain (the grant's own, or its balance). */
export interface IssuancePart {
  txId: string;
  security: string;
  date: CalendarDate;
  customId: string;
  quantity: DecimalString;
  vesting: MappedVesting;
  /** Comments that come before the vesting comments. */
  comments: string[];
}

/** What `buildGrantChain` needs of a grant. */
export interface GrantChainInput {
  lineage: Lineage;
  kind: "stock" | "equityCompensation";
  basics: GrantBasics;
  /** Builds an issuance of the grant's type (RSA stock issuance, RSU equity compensation issuance). */
  issuance: (part: IssuancePart) => OcfStockIssuance | OcfEquityCompensationIssuance;
  /** The vesting of the grant's own security (its events, less those never earned). */
  vesting: GrantVesting;
  end: PlannedEnd;
  /** Units only: the settlements, in canonical order. */
  settlements?: readonly MappedSettlement[];
  /** The holder's acceptance, when dated. */
  acceptance?: { type: "TX_STOCK_ACCEPTANCE" | "TX_EQUITY_COMPENSATION_ACCEPTANCE"; date: CalendarDate };
}

/** The transactions and VestingTerms of one grant. */
export interface GrantChain {
  transactions: OcfTransaction[];
  vestingTerms: OcfVestingTerms[];
  /** The lineage the chain is written in (what `finishGrant` checks it against). */
  lineage: Lineage;
}

/** The id of the synthetic tranche a balance security's vesting starts with. */
const CARRIED_OVER_EVENT_ID = "balance-carried-over";

const NOUN = { stock: "shares", equityCompensation: "units" } as const;

/** Below zero (`-0` is not). */
function isNegative(value: Dec): boolean {
  return value.isNegative() && !value.isZero();
}

/** The exact sum of the settlements' gross units. */
function releasedBy(settlements: readonly MappedSettlement[]): Dec {
  return sumExact(settlements.map((s) => s.gross));
}

/** Builds the chain of one grant (see the module comment). */
export function buildGrantChain(input: GrantChainInput): GrantChain {
  const { basics, end, lineage, kind } = input;
  const { ctx, security, issueDate, quantity, exactQuantity } = basics;
  const noun = NOUN[kind];
  const settlements = input.settlements ?? [];
  const cancellation = end.cancellation;
  for (const s of settlements) {
    if (s.date < issueDate) notBeforeIssue(basics, s.path.replace(/releaseQuantity$/, "settlementDate"), s.date);
  }
  if (cancellation !== undefined && cancellation.date < issueDate) {
    notBeforeIssue(basics, end.cancellation?.comments.some((c) => c.startsWith("Dated with terminationDate")) ? "terminationDate" : "canceledDate", cancellation.date);
  }
  if (input.acceptance !== undefined && input.acceptance.date < issueDate) notBeforeIssue(basics, "stakeholderAcceptanceDate", input.acceptance.date);

  const transactions: OcfTransaction[] = [];
  const vestingTerms: OcfVestingTerms[] = [];
  const releaseOn = (s: MappedSettlement, on: string): void => {
    transactions.push(on === s.release.security_id ? s.release : { ...s.release, security_id: on }, ...s.issuances);
  };
  /**
   * The acceptance, on `on`; left out with a warning when it comes after `ended`, the end of that
   * security (or on its day, when `ended.sameDay`: the documents end it at the cancellation, whatever
   * else its day holds). It carries no quantity, so no figure changes.
   */
  const acceptOn = (on: string, ended?: { date: CalendarDate; sameDay: boolean; how: string }): void => {
    const acceptance = input.acceptance;
    if (acceptance === undefined) return;
    if (ended !== undefined && (acceptance.date > ended.date || (ended.sameDay && acceptance.date === ended.date))) {
      ctx.warn(
        "ACCEPTANCE_AFTER_END",
        "stakeholderAcceptanceDate",
        `is ${acceptance.date}, ${acceptance.date === ended.date ? "the day" : "after"} ${ended.how}: nothing may act on an ended security, so the acceptance is left out (it carries no quantity)`,
      );
      return;
    }
    transactions.push({ object_type: acceptance.type, id: txIds.acceptance(on), date: acceptance.date, security_id: on });
  };
  /** Same-security: the security ends once nothing of it is outstanding (released or cancelled). */
  const consumed = (): { date: CalendarDate; sameDay: false; how: string } | undefined => {
    const date = consumedOn(exactQuantity, [...settlements.map((s) => ({ date: s.date, quantity: s.gross })), ...(cancellation === undefined ? [] : [{ date: cancellation.date, quantity: cancellation.exactQuantity }])]);
    return date === undefined ? undefined : { date, sameDay: false, how: `nothing of the grant was left outstanding on ${date} (released or cancelled), which ends its security in the same-security reading` };
  };
  /**
   * The grant's own issuance, vesting what `vesting` holds (less `after`, the events past its end);
   * `endsOn`, the day it ends (documents), keeps every vesting transaction off that day.
   */
  const issueOriginal = (after?: { events: readonly VestingEvent[]; comment: string }, endsOn?: CalendarDate): void => {
    const withEnd = endsOn === undefined ? input.vesting : { ...input.vesting, endsOn };
    const grantVesting = after === undefined || after.events.length === 0 ? withEnd : { ...withEnd, neverEarned: new Set([...(input.vesting.neverEarned ?? []), ...after.events]) };
    const vesting = mapVesting(ctx, grantVesting);
    for (const tx of vesting.transactions) {
      // A vesting start may precede the grant (the commencement date, OCF §7.3); a milestone met may not.
      if (tx.object_type === "TX_VESTING_EVENT" && tx.date < issueDate) notBeforeIssue(basics, "vestingEvents", tx.date);
    }
    if (vesting.terms !== undefined) vestingTerms.push(vesting.terms);
    const comments = after === undefined || after.events.length === 0 ? [] : [after.comment];
    transactions.push(input.issuance({ txId: txIds.issuance(security), security, date: issueDate, customId: basics.customId, quantity, vesting, comments }), ...vesting.transactions);
    // A vesting start on the day the security ends starts nothing there when no condition of it vests
    // a share: left out, so that no order within the day makes it act on the ended security.
    if (endsOn !== undefined && !vestsAny(vesting.terms)) {
      const start = transactions.findIndex((tx) => tx.object_type === "TX_VESTING_START" && tx.date === endsOn);
      if (start >= 0) transactions.splice(start, 1);
    }
  };

  if (cancellation === undefined) {
    const released = releasedBy(settlements);
    if (released.gt(exactQuantity)) {
      const text = formatDecimal(released);
      ctx.fail("MAPPING_CONFLICT", "settlements", `release ${text} units in all, more than the ${quantity} of the grant`, { value: text });
    }
    issueOriginal();
    for (const s of settlements) releaseOn(s, security);
    acceptOn(security, lineage === "same-security" ? consumed() : undefined);
    return { transactions, vestingTerms, lineage };
  }

  const d = cancellation.date;
  // The settlements before the cancellation's day, on it, and after it. What a day holds has no order
  // in OCF (consumer-true-ocf.md, "Order within a day"), so the documents lineage releases the units of
  // a settlement on the cancellation day from the balance security, never from the security that ends.
  const before = settlements.filter((s) => s.date < d);
  const onDay = settlements.filter((s) => s.date === d);
  const after = settlements.filter((s) => s.date > d);
  const releasedBefore = releasedBy(before);
  const releasedOnDay = releasedBy(onDay);
  /** Released up to the cancellation's day, that day included. */
  const releasedByDay = sumExact([releasedBefore, releasedOnDay]);
  const outstanding = exactQuantity.minus(releasedByDay);
  if (isNegative(outstanding)) {
    const text = formatDecimal(releasedByDay);
    ctx.fail("MAPPING_CONFLICT", "settlements", `up to the cancellation on ${d} release ${text} units, more than the ${quantity} of the grant`, { value: text });
  }
  const cancelledQuantity = cancellation.exactQuantity;
  if (cancelledQuantity.gt(outstanding)) {
    ctx.fail(
      "MAPPING_CONFLICT",
      cancellation.path,
      `cancels ${cancellation.quantity} ${noun} on ${d}, but only ${formatDecimal(outstanding)} are outstanding then (quantity ${quantity}${releasedByDay.isZero() ? "" : ` less ${formatDecimal(releasedByDay)} released`})`,
      { value: cancellation.quantity },
    );
  }
  const remainder = outstanding.minus(cancelledQuantity);
  const releasedAfter = releasedBy(after);
  if (releasedAfter.gt(remainder)) {
    const text = formatDecimal(releasedAfter);
    ctx.fail(
      "MAPPING_CONFLICT",
      "settlements",
      `after the cancellation on ${d} release ${text} units, more than the ${formatDecimal(remainder)} left outstanding by it`,
      { value: text },
    );
  }
  const ended = remainder.isZero();
  // Documents: what the cancellation leaves, the units released on its day included, is the balance.
  const kept = sumExact([remainder, releasedOnDay]);
  const balance = lineage === "documents" && !kept.isZero() ? balanceSecurityIdOf(security) : undefined;
  const cancelled = cancellationTransaction(kind, security, cancellation, balance);
  const pool: OcfStockPlanReturnToPool[] =
    end.returnToPool === undefined
      ? []
      : [
          {
            object_type: "TX_STOCK_PLAN_RETURN_TO_POOL",
            id: txIds.returnToPool(security),
            date: d,
            security_id: security,
            stock_plan_id: end.returnToPool.stockPlanId,
            quantity: end.returnToPool.quantity,
            reason_text: end.returnToPool.reasonText,
            ...(end.returnToPool.comments.length === 0 ? {} : { comments: end.returnToPool.comments }),
          },
        ];
  if (balance === undefined && !ended) {
    // Same security for what remains (OCF #531): its vesting goes on as the source says, less the
    // tranches the cancellation ended.
    const left = tranchesAfterCancellation(input, eventsAfter(input.vesting, d), cancellation.quantity, d, remainder, releasedByDay);
    issueOriginal(left.ended.length === 0 ? undefined : { events: left.ended, comment: endedComment(noun, cancellation.quantity, d, left.ended) });
    transactions.push(cancelled, ...pool);
    for (const s of settlements) releaseOn(s, security);
    acceptOn(security, consumed());
    return { transactions, vestingTerms, lineage };
  }

  const toCome = eventsAfter(input.vesting, d);
  if (balance === undefined) {
    // Cancelled in full: nothing may follow the end, and a tranche not vested by then never will.
    const vestedAfter = toCome.find((e) => e.vested && ctx.exact(plannedAmountOf(e))?.isZero() === false);
    if (vestedAfter !== undefined) afterEnd(basics, d, `an event vested on ${vestedAfter.vestDate ?? "(no date)"}`, "vestingEvents");
    if (after.length > 0) afterEnd(basics, d, `a settlement on ${(after[0] as MappedSettlement).date}`, "settlements");
    const endsOn = lineage === "documents" ? d : undefined;
    issueOriginal({ events: toCome, comment: `Not vested when the grant was cancelled in full on ${d}, so never earned and left out of the vesting: ${describeEvents(toCome)}.` }, endsOn);
    const start = transactions.find((tx) => tx.object_type === "TX_VESTING_START");
    if (start !== undefined && start.date > d) afterEnd(basics, d, `its vesting start on ${start.date}`, "vestingStartDate");
    transactions.push(cancelled, ...pool);
    for (const s of settlements) releaseOn(s, security);
    // The documents end the security at the cancellation, whatever else its day holds; the
    // same-security reading once nothing is outstanding, after the day's releases.
    acceptOn(security, { date: d, sameDay: endsOn !== undefined, how: `the grant was cancelled in full on ${d}` });
    return { transactions, vestingTerms, lineage };
  }

  // Documents: the remainder lives on a new issuance from the cancellation date on, and so do the
  // tranches still to vest, the releases of the cancellation's day and later, and an acceptance from
  // that day on; the grant's own security vests up to its end only.
  const balanceCustomId = `${basics.customId}-balance`;
  const left = tranchesAfterCancellation(input, toCome, cancellation.quantity, d, kept, releasedBefore);
  const leftOut = [
    ...(left.ended.length === 0 ? [] : [endedComment(noun, cancellation.quantity, d, left.ended)]),
    ...(left.toCome.length === 0 ? [] : [`Tranches still to vest after the cancellation on ${d} vest on the balance security ${balance}: ${describeEvents(left.toCome)}.`]),
  ];
  issueOriginal({ events: [...left.ended, ...left.toCome], comment: leftOut.join(" ") }, d);
  // A vesting start after the end has nothing left to start on this security.
  const lateStart = transactions.findIndex((tx) => tx.object_type === "TX_VESTING_START" && tx.date > d);
  if (lateStart >= 0) transactions.splice(lateStart, 1);
  const balanceVesting = balanceVestingOf(input, left.toCome, d, kept, left.carried, balance);
  const { carried, neverVest } = left;
  if (balanceVesting.terms !== undefined) vestingTerms.push(balanceVesting.terms);
  const keptText = ctx.numeric(kept, "quantity");
  const balanceIssuance = input.issuance({
    txId: txIds.issuance(balance),
    security: balance,
    date: d,
    customId: balanceCustomId,
    quantity: keptText,
    vesting: balanceVesting,
    comments: [
      `Balance of ${security}: the ${keptText} ${noun} left outstanding by the cancellation of ${cancellation.quantity} on ${d} (${cancelled.id}, balance_security_id), as OCF's documents require; every later transaction of the grant acts on this security${
        releasedOnDay.isZero() ? "" : `, and so do the releases of ${formatDecimal(releasedOnDay)} ${noun} that day (OCF orders nothing within a day: none may act on ${security} after its end)`
      }.`,
      balanceVesting.vestings === undefined && balanceVesting.terms === undefined
        ? "Fully vested: no tranche of the grant is still to vest."
        : `${formatDecimal(carried)} carried over as vested on ${d}${left.toCome.length === 0 ? "" : "; the tranches of the grant still to vest follow"}.${neverVest.isZero() ? "" : ` The other ${formatDecimal(neverVest)} ${noun} neither vested nor are to vest, as the source says.`}`,
    ],
  });
  transactions.push(cancelled, ...pool, balanceIssuance, ...balanceVesting.transactions);
  for (const s of before) releaseOn(s, security);
  for (const s of [...onDay, ...after]) releaseOn(s, balance);
  acceptOn(input.acceptance !== undefined && input.acceptance.date >= d ? balance : security);
  return { transactions, vestingTerms, lineage };
}

/** The first date by which `changes` (releases, the cancellation) take all of `quantity`, if any. */
function consumedOn(quantity: Dec, changes: readonly { date: CalendarDate; quantity: Dec }[]): CalendarDate | undefined {
  const byDate = [...changes].sort((a, b) => compareText(a.date, b.date));
  let taken = ZERO;
  for (const change of byDate) {
    taken = sumExact([taken, change.quantity]);
    if (taken.gte(quantity)) return change.date;
  }
  return undefined;
}

/**
 * Whether VestingTerms vest a share on some condition (the start vests none). Their quantities are
 * OCF Numeric as `RecordContext.numeric` writes it, in which zero is only `"0"`.
 */
function vestsAny(terms: OcfVestingTerms | undefined): boolean {
  return terms !== undefined && terms.vesting_conditions.some((c) => c.quantity !== undefined && c.quantity !== "0");
}

/** The earned events still to vest after `d`: dated later, or milestones not yet met (no date). */
function eventsAfter(vesting: GrantVesting, d: CalendarDate): VestingEvent[] {
  const never = vesting.neverEarned;
  return vesting.events.filter((event) => never?.has(event) !== true && (event.vestDate === undefined ? !event.vested : event.vestDate > d));
}

/** `"e3" 2019-08-20 1000, "m1" undated 500`, in canonical order. */
function describeEvents(events: readonly VestingEvent[]): string {
  return sortIfNeeded([...events], compareVestingEvents)
    .map((e) => `${e.id === undefined ? "(no id)" : JSON.stringify(e.id)} ${e.vestDate ?? "undated"} ${plannedAmountOf(e) ?? ""}`.trimEnd())
    .join(", ");
}

function cancellationTransaction(
  kind: "stock" | "equityCompensation",
  security: string,
  cancellation: NonNullable<PlannedEnd["cancellation"]>,
  balance: string | undefined,
): OcfStockCancellation | OcfEquityCompensationCancellation {
  const common = {
    id: txIds.cancellation(security),
    date: cancellation.date,
    security_id: security,
    quantity: cancellation.quantity,
    ...(balance === undefined ? {} : { balance_security_id: balance }),
    reason_text: cancellation.reasonText,
    ...(cancellation.comments.length === 0 ? {} : { comments: cancellation.comments }),
  };
  return kind === "stock" ? { object_type: "TX_STOCK_CANCELLATION", ...common } : { object_type: "TX_EQUITY_COMPENSATION_CANCELLATION", ...common };
}

/**
 * What a partial cancellation on `d` leaves: the tranches still to vest (`toCome`, after `d`), those
 * it ended (`ended`), what the balance carries over as vested on `d` (`carried`), and what remains
 * that neither vested nor is to vest (`neverVest`). What remains
 * (`remainder`, after releases and the cancellation) less the tranches still to vest should be what
 * the events vested by `d` less the units released make (`held`). When it is not:
 * - when leaving out every tranche to come that has not vested makes it so, the cancellation took
 *   them (a forfeiture with no `terminationDate`): they are `ended`, never earned;
 * - when more remains than that, the source leaves some outstanding that neither vested nor will:
 *   only `held` is carried over, so a reader counts the rest as not vested, as the source does
 *   (`BALANCE_VESTING_MISMATCH` names them);
 * - when less remains and nothing is to come, the cancellation took vested shares or units: the
 *   remainder is vested (`BALANCE_VESTING_MISMATCH` says how much it took);
 * - when more was released than the events vested (a warning of its own), the events cannot say what
 *   is held: what remains less the tranches to come is carried over (`BALANCE_VESTING_MISMATCH`);
 * - anything else (less remains, and tranches are to come) is a `MappingError`: which tranches the
 *   cancellation took cannot be told, and a reader would count vested what the source says is not.
 * A grant without vesting events is fully vested, and so is what remains of it.
 */
function tranchesAfterCancellation(
  input: GrantChainInput,
  toCome: readonly VestingEvent[],
  cancelledQuantity: DecimalString,
  d: CalendarDate,
  remainder: Dec,
  releasedBefore: Dec,
): { toCome: readonly VestingEvent[]; ended: readonly VestingEvent[]; carried: Dec; neverVest: Dec } {
  const { ctx } = input.basics;
  const vesting = input.vesting;
  const amountOf = (events: readonly VestingEvent[]): Dec => sumExact(events.map((e) => ctx.exact(plannedAmountOf(e)) ?? ZERO));
  const toVest = amountOf(toCome);
  const carried = remainder.minus(toVest);
  if (vesting.events.length === 0) return { toCome, ended: [], carried, neverVest: ZERO };
  const vestedBy = vesting.events.filter((event) => vesting.neverEarned?.has(event) !== true && !toCome.includes(event) && event.vested);
  const held = amountOf(vestedBy).minus(releasedBefore);
  const order = carried.cmp(held);
  if (order === 0) return { toCome, ended: [], carried, neverVest: ZERO };
  const kept = toCome.filter((e) => e.vested);
  const ended = toCome.filter((e) => !e.vested);
  if (ended.length > 0 && equalExact(remainder.minus(amountOf(kept)), held)) return { toCome: kept, ended, carried: held, neverVest: ZERO };
  const [toVestText, remainderText, heldText, carriedText] = [toVest, remainder, held, carried].map(formatDecimal);
  if (isNegative(carried)) {
    ctx.fail(
      "MAPPING_CONFLICT",
      "vestingEvents",
      `the tranches still to vest after the cancellation on ${d} add up to ${toVestText}, more than the ${remainderText} left outstanding by it: the balance security cannot vest them`,
      { value: toVestText },
    );
  }
  if (isNegative(held)) {
    // More released than the events vested (RELEASED_EXCEEDS_VESTED): the events cannot say what is
    // held, so the balance carries what is not still to vest, as the counters leave it.
    ctx.warn(
      "BALANCE_VESTING_MISMATCH",
      "vestingEvents",
      `after the cancellation of ${cancelledQuantity} on ${d}, the events vested by then less the units released make ${heldText}: more was released than vested, so the ${carriedText} of the ${remainderText} remaining that are not still to vest are carried over as vested`,
    );
    return { toCome, ended: [], carried, neverVest: ZERO };
  }
  if (order > 0) {
    const neverVest = carried.minus(held);
    ctx.warn(
      "BALANCE_VESTING_MISMATCH",
      "vestingEvents",
      `after the cancellation of ${cancelledQuantity} on ${d}, ${remainderText} remain, but the events vested by then less the units released make ${heldText} and ${toVestText} are still to vest: the other ${formatDecimal(neverVest)} never vest, and are written as not vested`,
    );
    return { toCome, ended: [], carried: held, neverVest };
  }
  if (order < 0 && toCome.length === 0) {
    ctx.warn(
      "BALANCE_VESTING_MISMATCH",
      "canceledQuantity",
      `the cancellation of ${cancelledQuantity} on ${d} takes ${formatDecimal(held.minus(carried))} that had vested: the events vested by then less the units released make ${heldText}, and the ${remainderText} that remain are vested`,
    );
    return { toCome, ended: [], carried, neverVest: ZERO };
  }
  return ctx.fail(
    "MAPPING_CONFLICT",
    "canceledQuantity",
    `after the cancellation of ${cancelledQuantity} on ${d}, ${remainderText} remain and ${toVestText} of them are still to vest, but the events vested by then less the units released make ${heldText}: which tranches the cancellation took cannot be told`,
    { value: cancelledQuantity },
  );
}

/** The comment that names the tranches a partial cancellation ended. */
function endedComment(noun: string, cancelledQuantity: DecimalString, d: CalendarDate, ended: readonly VestingEvent[]): string {
  return `Not vested when ${cancelledQuantity} ${noun} were cancelled on ${d}, which leaves only what had vested, so never earned and left out of the vesting: ${describeEvents(ended)}.`;
}

/**
 * The balance security's vesting: one tranche on `d` of what is vested and still held (`carried`,
 * "carried over"; see `tranchesAfterCancellation`), then the tranches still to vest after `d` (dated
 * later, or milestones not yet met). Fully vested (no vesting) when all it holds is carried over.
 */
function balanceVestingOf(
  input: GrantChainInput,
  future: readonly VestingEvent[],
  d: CalendarDate,
  remainder: Dec,
  carried: Dec,
  balance: string,
): MappedVesting {
  const { ctx } = input.basics;
  if (future.length === 0 && equalExact(carried, remainder)) return { transactions: [], issuanceComments: [] };
  // The carried-over tranche is an event in the source's form: its quantities are text.
  const carriedText = formatDecimal(carried);
  // A zero carried over is left out, unless it is all there is: vesting nothing, not fully vested.
  const events: readonly VestingEvent[] =
    carried.isZero() && future.length > 0
      ? future
      : [
          {
            id: CARRIED_OVER_EVENT_ID,
            vestDate: d,
            performanceCondition: false,
            vested: true,
            quantity: carriedText,
            maxQuantity: carriedText,
            targetQuantity: carriedText,
            vestedQuantity: carriedText,
          },
          ...future,
        ];
  const grant = input.vesting;
  return mapVesting(ctx, {
    security: balance,
    customId: `${grant.customId}-balance`,
    grantLabel: `the balance of ${grant.grantLabel}`,
    events,
    checkSums: false,
    quantity: formatDecimal(remainder),
    issueDate: d,
    vestingStartDate: d,
    schedule: grant.schedule,
  });
}

function notBeforeIssue(basics: GrantBasics, path: string, date: CalendarDate): never {
  return basics.ctx.fail("MAPPING_CONFLICT", path, `is ${date}, before the grant's issueDate ${basics.issueDate}: OCF dates nothing on a security before its issuance`, { value: date });
}

function afterEnd(basics: GrantBasics, d: CalendarDate, what: string, path: string): never {
  return basics.ctx.fail(
    "MAPPING_CONFLICT",
    path,
    `has ${what}, after the grant was cancelled in full on ${d}: nothing may act on an ended security`,
  );
}
