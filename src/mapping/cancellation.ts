/**
 * The end of a grant's shares or units: cancellation, forfeiture, expiry, return to pool and return
 * to treasury, for awards and units alike (ocf-1.2.0.md §10.5, §10.6; consumer-true-ocf.md).
 *
 * The source records one cancellation event per grant: a `canceledDate` (else the `terminationDate`)
 * and counters. This module plans that event; `lineage.ts` puts it on the grant's security chain.
 *
 * - The counters of the event are one cancellation (a security ends at its first cancellation, so
 *   two could not both be read): an award's `canceledQuantity`; a unit's `canceledQuantity`, else
 *   `forfeitedQuantity` + `expiredQuantity` when it sends no canceled total. The breakdown (forfeited,
 *   expired, the termination date) is said in `reason_text`. A breakdown that does not add up to the
 *   canceled total is a warning; the canceled total is what is cancelled.
 * - `returnedToPoolQuantity` → `TX_STOCK_PLAN_RETURN_TO_POOL` into the grant's plan, on the cancelled
 *   security (the documented exception to "nothing acts on an ended security"); without a plan it is
 *   kept in the issuance's comments, with a warning. More returned to the pool than cancelled cannot
 *   be written as valid OCF and is a `MappingError`.
 * - `returnedToTreasuryQuantity` has no OCF transaction: it goes into the cancellation's comments (or
 *   the issuance's when nothing is cancelled).
 * - Zero quantities emit nothing. Every quantity is a source counter as sent (or the sum of two).
 *
 * The counters are parsed once, into exact values, where the grant's end is read from its record
 * (`grantEndOf`); they become OCF Numeric only where they are written (`RecordContext.numeric`).
 */
import { Dec, type DecimalString, formatDecimal, isPositiveExact, parseSourceDecimal, ZERO } from "../decimal.js";
import type { CalendarDate } from "../dates.js";
import type { GrantFields } from "../source/records.js";
import type { RecordContext } from "./record-context.js";

/** The counters and dates of a grant that end shares or units, its counters exact values. */
export interface GrantEnd {
  /** The plan the grant was made under, for return to pool. */
  stockPlanId?: string | undefined;
  planName?: string | undefined;
  canceledDate?: CalendarDate | undefined;
  terminationDate?: CalendarDate | undefined;
  canceledQuantity?: Dec | undefined;
  returnedToPoolQuantity?: Dec | undefined;
  returnedToTreasuryQuantity?: Dec | undefined;
  /** Units only. */
  forfeitedQuantity?: Dec | undefined;
  /** Units only. */
  expiredQuantity?: Dec | undefined;
}

/** The one cancellation of a grant, before it is placed on a security. */
export interface PlannedCancellation {
  date: CalendarDate;
  /** As OCF Numeric (what the cancellation says). */
  quantity: DecimalString;
  /** The same quantity as an exact value, for the chain's sums and comparisons (`lineage.ts`). */
  exactQuantity: Dec;
  /** The source field(s) the quantity is. */
  path: string;
  reasonText: string;
  comments: string[];
}

/** Shares returned to the plan's pool, dated with the cancellation. */
export interface PlannedReturnToPool {
  stockPlanId: string;
  quantity: DecimalString;
  reasonText: string;
  comments: string[];
}

/** What ends a grant, planned. */
export interface PlannedEnd {
  cancellation?: PlannedCancellation;
  returnToPool?: PlannedReturnToPool;
  /** Notes for the issuance's comments (termination date, treasury or pool without a transaction). */
  issuanceComments: string[];
}

/** A counter of the record as an exact value. */
function exact(text: DecimalString | undefined): Dec | undefined {
  return text === undefined ? undefined : parseSourceDecimal(text);
}

/** A counter as messages and comments show it, `"0"` when absent. */
function shown(value: Dec | undefined): DecimalString {
  return value === undefined ? "0" : formatDecimal(value);
}

/** The end fields of a grant record (forfeited and expired exist on units only), its counters parsed. */
export function grantEndOf(
  plan: { stockPlanId: string; planName: string } | undefined,
  record: GrantFields & { forfeitedQuantity?: DecimalString; expiredQuantity?: DecimalString },
): GrantEnd {
  return {
    stockPlanId: plan?.stockPlanId,
    planName: plan?.planName,
    canceledDate: record.canceledDate,
    terminationDate: record.terminationDate,
    canceledQuantity: exact(record.canceledQuantity),
    returnedToPoolQuantity: exact(record.returnedToPoolQuantity),
    returnedToTreasuryQuantity: exact(record.returnedToTreasuryQuantity),
    forfeitedQuantity: exact(record.forfeitedQuantity),
    expiredQuantity: exact(record.expiredQuantity),
  };
}

/** The quantity, path and reason of the grant's one cancellation, if it cancels anything. */
interface Cancelled {
  quantity: Dec;
  path: string;
  reason: string;
}

/** Plans the end of an award's shares (`"stock"`) or a unit's units (`"equityCompensation"`). */
export function planGrantEnd(ctx: RecordContext, kind: "stock" | "equityCompensation", grant: GrantEnd): PlannedEnd {
  const cancelled = kind === "stock" ? awardCancelled(grant) : unitCancelled(ctx, grant);
  checkPoolAndTreasury(ctx, grant, cancelled);
  const returned = grant.returnedToPoolQuantity;
  const treasury = grant.returnedToTreasuryQuantity;
  const issuanceComments: string[] = [];
  if (grant.terminationDate !== undefined) issuanceComments.push(`Terminated on ${grant.terminationDate} (terminationDate).`);
  if (cancelled === undefined) {
    if (isPositiveExact(returned)) {
      ctx.fail("MAPPING_CONFLICT", "returnedToPoolQuantity", `is ${shown(returned)}, but the grant cancels nothing: shares cannot return to the pool without a cancellation`, { value: shown(returned) });
    }
    if (grant.canceledDate !== undefined) issuanceComments.push(`Canceled on ${grant.canceledDate} (canceledDate), with no canceled quantity.`);
    if (isPositiveExact(treasury)) issuanceComments.push(treasuryNote(treasury));
    return { issuanceComments };
  }
  const date = grant.canceledDate ?? grant.terminationDate;
  if (date === undefined) {
    ctx.fail("MAPPING_MISSING_VALUE", "canceledDate", "is absent, and so is terminationDate: the cancellation and return to pool need a date");
  }
  if (grant.canceledDate === undefined) {
    ctx.choose("canceledDate", `is absent: the cancellation would be dated ${date}, the terminationDate`, "the source must give canceledDate");
  }
  const dateNote = grant.canceledDate === undefined ? ["Dated with terminationDate: the record has no canceledDate."] : [];
  const cancellation: PlannedCancellation = {
    date,
    quantity: ctx.numeric(cancelled.quantity, cancelled.path),
    exactQuantity: cancelled.quantity,
    path: cancelled.path,
    reasonText: cancelled.reason,
    comments: [...dateNote, ...(isPositiveExact(treasury) ? [treasuryNote(treasury)] : [])],
  };
  if (!isPositiveExact(returned)) return { cancellation, issuanceComments };
  if (returned.gt(cancelled.quantity)) {
    ctx.fail(
      "MAPPING_CONFLICT",
      "returnedToPoolQuantity",
      `is ${shown(returned)}, more than the ${shown(cancelled.quantity)} cancelled: OCF cannot return to the pool more than a cancellation frees`,
      { value: shown(returned) },
    );
  }
  if (grant.stockPlanId === undefined) {
    issuanceComments.push(poolWithoutPlanNote(ctx, returned));
    return { cancellation, issuanceComments };
  }
  return {
    cancellation,
    returnToPool: {
      stockPlanId: grant.stockPlanId,
      quantity: ctx.numeric(returned, "returnedToPoolQuantity"),
      reasonText: `Returned to the pool of ${JSON.stringify(grant.planName ?? grant.stockPlanId)} after cancellation (returnedToPoolQuantity ${shown(returned)})`,
      comments: dateNote,
    },
    issuanceComments,
  };
}

function terminationContext(grant: GrantEnd): string {
  return grant.terminationDate === undefined ? "" : `; stakeholder terminated ${grant.terminationDate}`;
}

function awardCancelled(grant: GrantEnd): Cancelled | undefined {
  if (!isPositiveExact(grant.canceledQuantity)) return undefined;
  return {
    quantity: grant.canceledQuantity,
    path: "canceledQuantity",
    reason: `Canceled ${shown(grant.canceledQuantity)} (canceledQuantity${terminationContext(grant)})`,
  };
}

/**
 * A unit's counters as one cancellation (see the module comment): the canceled total, broken down
 * into forfeited and expired in `reason_text` as the source sends them.
 */
function unitCancelled(ctx: RecordContext, grant: GrantEnd): Cancelled | undefined {
  const { canceledQuantity: canceled, forfeitedQuantity: forfeited, expiredQuantity: expired } = grant;
  const parts = (forfeited ?? ZERO).plus(expired ?? ZERO);
  const breakdown = [
    isPositiveExact(forfeited) ? `${shown(forfeited)} forfeited (forfeitedQuantity)` : undefined,
    isPositiveExact(expired) ? `${shown(expired)} expired (expiredQuantity)` : undefined,
  ].filter((part) => part !== undefined);
  const context = terminationContext(grant);
  if (isPositiveExact(canceled)) {
    const partsDisagree = !parts.isZero() && !parts.eq(canceled);
    if (partsDisagree) {
      ctx.warn(
        "CANCELLATION_BREAKDOWN_MISMATCH",
        "canceledQuantity",
        `is ${shown(canceled)}, but forfeitedQuantity ${shown(forfeited)} + expiredQuantity ${shown(expired)} is ${shown(parts)}; one cancellation of the canceled quantity is emitted`,
      );
    }
    const said = breakdown.length === 0 ? "" : `: ${breakdown.join(", ")}${partsDisagree ? `, which do not add up to it` : ""}`;
    return { quantity: canceled, path: "canceledQuantity", reason: `Canceled ${shown(canceled)} (canceledQuantity${said}${context})` };
  }
  if (parts.isZero()) return undefined;
  if (canceled !== undefined) {
    ctx.warn(
      "CANCELLATION_BREAKDOWN_MISMATCH",
      "canceledQuantity",
      `is ${shown(canceled)}, but forfeitedQuantity ${shown(forfeited)} + expiredQuantity ${shown(expired)} is ${shown(parts)}; the forfeited and expired units are cancelled`,
    );
  }
  return {
    quantity: parts,
    path: breakdown.length === 1 ? (isPositiveExact(forfeited) ? "forfeitedQuantity" : "expiredQuantity") : "forfeitedQuantity",
    reason: `Canceled ${shown(parts)}: ${breakdown.join(", ")}${canceled === undefined ? " (no canceledQuantity sent)" : ` (canceledQuantity ${shown(canceled)})`}${context}`,
  };
}

/**
 * What was cancelled = returned to pool + returned to treasury in the service's data; reported when
 * not. What was cancelled is the one cancellation planned (a unit with no canceled total: its
 * forfeited + expired units), else nothing.
 */
function checkPoolAndTreasury(ctx: RecordContext, grant: GrantEnd, cancelled: Cancelled | undefined): void {
  const { returnedToPoolQuantity, returnedToTreasuryQuantity } = grant;
  if (returnedToPoolQuantity === undefined && returnedToTreasuryQuantity === undefined) return;
  const parts = (returnedToPoolQuantity ?? ZERO).plus(returnedToTreasuryQuantity ?? ZERO);
  if (!parts.eq(cancelled?.quantity ?? ZERO)) {
    const what = cancelled === undefined ? `canceledQuantity ${shown(grant.canceledQuantity)}` : cancelled.path === "canceledQuantity" ? `canceledQuantity ${shown(cancelled.quantity)}` : `the ${shown(cancelled.quantity)} forfeited and expired`;
    ctx.warn(
      "CANCELLATION_BREAKDOWN_MISMATCH",
      "returnedToPoolQuantity",
      `returnedToPoolQuantity ${shown(returnedToPoolQuantity)} + returnedToTreasuryQuantity ${shown(returnedToTreasuryQuantity)} is ${shown(parts)}, not ${what}`,
    );
  }
}

function treasuryNote(quantity: Dec): string {
  return `${shown(quantity)} returned to treasury (returnedToTreasuryQuantity: annulled, not returned to the pool); OCF 1.2.0 has no transaction for this.`;
}

function poolWithoutPlanNote(ctx: RecordContext, quantity: Dec): string {
  ctx.warn(
    "RETURN_TO_POOL_WITHOUT_PLAN",
    "returnedToPoolQuantity",
    `is ${shown(quantity)}, but the grant names no equity incentive plan: no TX_STOCK_PLAN_RETURN_TO_POOL can be emitted; the quantity is kept in the issuance's comments`,
  );
  return `${shown(quantity)} returned to the pool (returnedToPoolQuantity), but the grant names no plan to return them to.`;
}
