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
 * - releases do not end a security: OCF 1.2.0 gives `TX_EQUITY_COMPENSATION_RELEASE` no
 *   `balance_security_id`, so the unreleased units stay on the unit's security (said once in the
 *   manifest's comments).
 *
 * Lineage `"same-security"` (OCF #531): no balance security; the remainder stays on the grant's own
 * security, outstanding = issued − released − cancelled.
 *
 * Either way, a chain that cannot be written as valid OCF is a `MappingError` naming the field:
 * a settlement or cancellation dated before the issue date, more released or cancelled than is
 * outstanding, a transaction after the grant has ended in full, tranches still to vest that do not fit
 * in the balance. Quantities are never trimmed to fit.
 */
import { compareDecimalStrings, isZeroDecimal, subtractDecimalStrings, sumDecimalStrings, type DecimalString } from "../decimal.js";
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
import type { GrantBasics } from "./grant.js";
import { balanceSecurityIdOf, txIds } from "./ids.js";
import type { MappedSettlement } from "./settlement.js";
import type { Lineage } from "./types.js";
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

/** Builds the chain of one grant (see the module comment). */
export function buildGrantChain(input: GrantChainInput): GrantChain {
  const { basics, end, lineage, kind } = input;
  const { ctx, security, issueDate, quantity } = basics;
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
  const acceptOn = (on: string): void => {
    if (input.acceptance !== undefined) transactions.push({ object_type: input.acceptance.type, id: txIds.acceptance(on), date: input.acceptance.date, security_id: on });
  };
  /** The grant's own issuance, vesting what `vesting` holds (less `after`, the events past its end). */
  const issueOriginal = (after?: { events: readonly VestingEvent[]; comment: string }): void => {
    const grantVesting = after === undefined || after.events.length === 0 ? input.vesting : { ...input.vesting, neverEarned: new Set([...(input.vesting.neverEarned ?? []), ...after.events]) };
    const vesting = mapVesting(ctx, grantVesting);
    for (const tx of vesting.transactions) {
      // A vesting start may precede the grant (the commencement date, OCF §7.3); a milestone met may not.
      if (tx.object_type === "TX_VESTING_EVENT" && tx.date < issueDate) notBeforeIssue(basics, "vestingEvents", tx.date);
    }
    if (vesting.terms !== undefined) vestingTerms.push(vesting.terms);
    const comments = after === undefined || after.events.length === 0 ? [] : [after.comment];
    transactions.push(input.issuance({ txId: txIds.issuance(security), security, date: issueDate, customId: basics.customId, quantity, vesting, comments }), ...vesting.transactions);
  };

  if (cancellation === undefined) {
    const released = sumDecimalStrings(settlements.map((s) => s.gross));
    if (compareDecimalStrings(released, quantity) > 0) {
      ctx.fail("MAPPING_CONFLICT", "settlements", `release ${released} units in all, more than the ${quantity} of the grant`, { value: released });
    }
    issueOriginal();
    for (const s of settlements) releaseOn(s, security);
    acceptOn(security);
    return { transactions, vestingTerms, lineage };
  }

  const d = cancellation.date;
  const before = settlements.filter((s) => s.date <= d);
  const after = settlements.filter((s) => s.date > d);
  const releasedBefore = sumDecimalStrings(before.map((s) => s.gross));
  const outstanding = subtractDecimalStrings(quantity, releasedBefore);
  if (outstanding.startsWith("-")) {
    ctx.fail("MAPPING_CONFLICT", "settlements", `up to the cancellation on ${d} release ${releasedBefore} units, more than the ${quantity} of the grant`, { value: releasedBefore });
  }
  if (compareDecimalStrings(cancellation.quantity, outstanding) > 0) {
    ctx.fail(
      "MAPPING_CONFLICT",
      cancellation.path,
      `cancels ${cancellation.quantity} ${noun} on ${d}, but only ${outstanding} are outstanding then (quantity ${quantity}${isZeroDecimal(releasedBefore) ? "" : ` less ${releasedBefore} released`})`,
      { value: cancellation.quantity },
    );
  }
  const remainder = subtractDecimalStrings(outstanding, cancellation.quantity);
  const releasedAfter = sumDecimalStrings(after.map((s) => s.gross));
  if (compareDecimalStrings(releasedAfter, remainder) > 0) {
    ctx.fail(
      "MAPPING_CONFLICT",
      "settlements",
      `after the cancellation on ${d} release ${releasedAfter} units, more than the ${remainder} left outstanding by it`,
      { value: releasedAfter },
    );
  }
  const ended = isZeroDecimal(remainder);
  const balance = lineage === "documents" && !ended ? balanceSecurityIdOf(security) : undefined;
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
  const toCome = eventsAfter(input.vesting, d);

  if (balance === undefined && !ended) {
    // Same security for what remains (OCF #531): its vesting goes on as the source says.
    issueOriginal();
    transactions.push(cancelled, ...pool);
    for (const s of settlements) releaseOn(s, security);
    acceptOn(security);
    return { transactions, vestingTerms, lineage };
  }

  if (balance === undefined) {
    // Cancelled in full: nothing may follow the end, and a tranche not vested by then never will.
    const vestedAfter = toCome.find((e) => e.vested && !isZeroDecimal(plannedAmountOf(e) ?? "0"));
    if (vestedAfter !== undefined) afterEnd(basics, d, `an event vested on ${vestedAfter.vestDate ?? "(no date)"}`, "vestingEvents");
    if (after.length > 0) afterEnd(basics, d, `a settlement on ${(after[0] as MappedSettlement).date}`, "settlements");
    if (input.acceptance !== undefined && input.acceptance.date > d) afterEnd(basics, d, `the acceptance on ${input.acceptance.date}`, "stakeholderAcceptanceDate");
    issueOriginal({ events: toCome, comment: `Not vested when the grant was cancelled in full on ${d}, so never earned and left out of the vesting: ${describeEvents(toCome)}.` });
    const start = transactions.find((tx) => tx.object_type === "TX_VESTING_START");
    if (start !== undefined && start.date > d) afterEnd(basics, d, `its vesting start on ${start.date}`, "vestingStartDate");
    transactions.push(cancelled, ...pool);
    for (const s of settlements) releaseOn(s, security);
    acceptOn(security);
    return { transactions, vestingTerms, lineage };
  }

  // Documents: the remainder lives on a new issuance from the cancellation date on, and so do the
  // tranches still to vest; the grant's own security vests up to its end only.
  const balanceCustomId = `${basics.customId}-balance`;
  issueOriginal({ events: toCome, comment: `Tranches still to vest after the cancellation on ${d} vest on the balance security ${balance}: ${describeEvents(toCome)}.` });
  // A vesting start after the end has nothing left to start on this security.
  const lateStart = transactions.findIndex((tx) => tx.object_type === "TX_VESTING_START" && tx.date > d);
  if (lateStart >= 0) transactions.splice(lateStart, 1);
  const { vesting: balanceVesting, carried } = balanceVestingOf(input, toCome, d, remainder, releasedBefore, balance);
  if (balanceVesting.terms !== undefined) vestingTerms.push(balanceVesting.terms);
  const balanceIssuance = input.issuance({
    txId: txIds.issuance(balance),
    security: balance,
    date: d,
    customId: balanceCustomId,
    quantity: remainder,
    vesting: balanceVesting,
    comments: [
      `Balance of ${security}: the ${remainder} ${noun} left outstanding by the cancellation of ${cancellation.quantity} on ${d} (${cancelled.id}, balance_security_id), as OCF's documents require; every later transaction of the grant acts on this security.`,
      balanceVesting.vestings === undefined && balanceVesting.terms === undefined
        ? "Fully vested: no tranche of the grant is still to vest."
        : `${carried} carried over as vested on ${d}; the tranches of the grant still to vest follow.`,
    ],
  });
  transactions.push(cancelled, ...pool, balanceIssuance, ...balanceVesting.transactions);
  for (const s of before) releaseOn(s, security);
  for (const s of after) releaseOn(s, balance);
  acceptOn(input.acceptance !== undefined && input.acceptance.date > d ? balance : security);
  return { transactions, vestingTerms, lineage };
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
 * The balance security's vesting: the tranches still to vest after `d` (dated later, or milestones
 * not yet met), preceded by one tranche on `d` of what remains ("carried over": vested and still
 * held). The carried-over amount is what the balance holds beyond the tranches to come, so that its
 * vesting adds up to its quantity; when the vested events up to `d` less the units released say
 * otherwise, a warning names both.
 */
function balanceVestingOf(
  input: GrantChainInput,
  future: readonly VestingEvent[],
  d: CalendarDate,
  remainder: DecimalString,
  releasedBefore: DecimalString,
  balance: string,
): { vesting: MappedVesting; carried: DecimalString } {
  const { ctx } = input.basics;
  const vestedBy: DecimalString[] = [];
  const never = input.vesting.neverEarned;
  for (const event of input.vesting.events) {
    if (never?.has(event) !== true && !future.includes(event) && event.vested) vestedBy.push(plannedAmountOf(event) ?? "0");
  }
  const toVest = sumDecimalStrings(future.map((e) => plannedAmountOf(e) ?? "0"));
  const carried = subtractDecimalStrings(remainder, toVest);
  if (carried.startsWith("-")) {
    ctx.fail(
      "MAPPING_CONFLICT",
      "vestingEvents",
      `the tranches still to vest after the cancellation on ${d} add up to ${toVest}, more than the ${remainder} left outstanding by it: the balance security cannot vest them`,
      { value: toVest },
    );
  }
  const held = subtractDecimalStrings(sumDecimalStrings(vestedBy), releasedBefore);
  if (compareDecimalStrings(held, carried) !== 0) {
    ctx.warn(
      "BALANCE_VESTING_MISMATCH",
      "vestingEvents",
      `after the cancellation on ${d}, ${remainder} remain and ${toVest} of them are still to vest, so ${carried} carry over as vested; but the events vested by then less the units released make ${held}`,
    );
  }
  if (future.length === 0) return { vesting: { transactions: [], issuanceComments: [] }, carried };
  const events: readonly VestingEvent[] = isZeroDecimal(carried)
    ? future
    : [
        {
          id: CARRIED_OVER_EVENT_ID,
          vestDate: d,
          performanceCondition: false,
          vested: true,
          quantity: carried,
          maxQuantity: carried,
          targetQuantity: carried,
          vestedQuantity: carried,
        },
        ...future,
      ];
  const grant = input.vesting;
  const vesting = mapVesting(ctx, {
    security: balance,
    customId: `${grant.customId}-balance`,
    grantLabel: `the balance of ${grant.grantLabel}`,
    events,
    checkSums: false,
    quantity: remainder,
    issueDate: d,
    vestingStartDate: d,
    schedule: grant.schedule,
  });
  return { vesting, carried };
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
