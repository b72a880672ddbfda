/**
 * The end of a grant's shares or units: cancellation, forfeiture, expiry, return to pool and return
 * to treasury, for awards and units alike (ocf-1.2.0.md §10.5, §10.6).
 *
 * - Every transaction is dated `canceledDate`, else `terminationDate` (neither is a `MappingError`).
 * - Award: `canceledQuantity` → `TX_STOCK_CANCELLATION`. Unit: the counters become
 *   `TX_EQUITY_COMPENSATION_CANCELLATION`s with `reason_text` "Forfeited …", "Expired …" or
 *   "Canceled …". The service does not document how its counters relate, and its data has
 *   canceled = forfeited + expired; one cancellation per counter would then cancel the same units
 *   twice. So when forfeited + expired equals canceled (or canceled is not reported / 0) one
 *   cancellation is emitted per non-zero forfeited and expired count; otherwise one "Canceled"
 *   cancellation of `canceledQuantity`, with the other counters in its `reason_text` and a warning.
 *   Every emitted quantity is a source counter as sent; none is computed.
 * - `returnedToPoolQuantity` → `TX_STOCK_PLAN_RETURN_TO_POOL` into the grant's plan (without a plan:
 *   the issuance's comments and a warning). `returnedToTreasuryQuantity` has no OCF transaction: it
 *   goes into the comments of the cancellation (or of the issuance when nothing is cancelled).
 * - Partial cancellations keep the same security: no `balance_security_id` and no balance issuance
 *   (OCF #531), so outstanding = issued − released − cancelled on one security id.
 * - Zero quantities emit nothing.
 */
import { isPositiveDecimal, isZeroDecimal, sameDecimal, sumDecimalStrings, type DecimalString } from "../decimal.js";
import type { CalendarDate } from "../dates.js";
import type {
  OcfEquityCompensationCancellation,
  OcfStockCancellation,
  OcfStockPlanReturnToPool,
} from "../ocf/schemas.js";
import type { GrantFields } from "../source/records.js";
import { txIds } from "./ids.js";
import type { RecordContext } from "./record-context.js";

/** The counters and dates of a grant that end shares or units. */
export interface GrantEnd {
  security: string;
  /** The plan the grant was made under, for return to pool. */
  stockPlanId?: string | undefined;
  planName?: string | undefined;
  canceledDate?: CalendarDate | undefined;
  terminationDate?: CalendarDate | undefined;
  canceledQuantity?: DecimalString | undefined;
  returnedToPoolQuantity?: DecimalString | undefined;
  returnedToTreasuryQuantity?: DecimalString | undefined;
  /** Units only. */
  forfeitedQuantity?: DecimalString | undefined;
  /** Units only. */
  expiredQuantity?: DecimalString | undefined;
}

export type EndTransaction = OcfStockCancellation | OcfEquityCompensationCancellation | OcfStockPlanReturnToPool;

export interface MappedEnd {
  transactions: EndTransaction[];
  issuanceComments: string[];
}

/** The end fields of a grant record (forfeited and expired exist on units only). */
export function grantEndOf(
  security: string,
  plan: { stockPlanId: string; planName: string } | undefined,
  record: GrantFields & { forfeitedQuantity?: DecimalString; expiredQuantity?: DecimalString },
): GrantEnd {
  return {
    security,
    stockPlanId: plan?.stockPlanId,
    planName: plan?.planName,
    canceledDate: record.canceledDate,
    terminationDate: record.terminationDate,
    canceledQuantity: record.canceledQuantity,
    returnedToPoolQuantity: record.returnedToPoolQuantity,
    returnedToTreasuryQuantity: record.returnedToTreasuryQuantity,
    forfeitedQuantity: record.forfeitedQuantity,
    expiredQuantity: record.expiredQuantity,
  };
}

function isPositive(value: DecimalString | undefined): value is DecimalString {
  return value !== undefined && isPositiveDecimal(value);
}

/** The exact sum of two counters, an absent one counting as 0. */
function sumOf(a: DecimalString | undefined, b: DecimalString | undefined): DecimalString {
  return sumDecimalStrings([a ?? "0", b ?? "0"]);
}

interface Cancelled {
  id: string;
  quantity: DecimalString;
  path: string;
  reason: string;
}

/** Maps the end of an award's shares (`TX_STOCK_CANCELLATION`) or a unit's units (`TX_EQUITY_COMPENSATION_CANCELLATION`). */
export function mapGrantEnd(ctx: RecordContext, kind: "stock" | "equityCompensation", grant: GrantEnd): MappedEnd {
  const cancelled = kind === "stock" ? awardCancellations(grant) : unitCancellations(ctx, grant);
  checkPoolAndTreasury(ctx, grant);
  const returned = grant.returnedToPoolQuantity;
  const treasury = grant.returnedToTreasuryQuantity;
  const issuanceComments: string[] = [];
  if (grant.terminationDate !== undefined) issuanceComments.push(`Terminated on ${grant.terminationDate} (terminationDate).`);
  const needsDate = cancelled.length > 0 || (isPositive(returned) && grant.stockPlanId !== undefined);
  if (!needsDate) {
    if (grant.canceledDate !== undefined) issuanceComments.push(`Canceled on ${grant.canceledDate} (canceledDate), with no canceled quantity.`);
    if (isPositive(treasury)) issuanceComments.push(treasuryNote(treasury));
    if (isPositive(returned)) issuanceComments.push(poolWithoutPlanNote(ctx, returned));
    return { transactions: [], issuanceComments };
  }
  const date = grant.canceledDate ?? grant.terminationDate;
  if (date === undefined) {
    ctx.fail("MAPPING_MISSING_VALUE", "canceledDate", "is absent, and so is terminationDate: the cancellation and return to pool need a date");
  }
  const dateNote = grant.canceledDate === undefined ? ["Dated with terminationDate: the record has no canceledDate."] : [];
  const transactions: EndTransaction[] = cancelled.map((c, index): EndTransaction => {
    const comments = [...dateNote, ...(index === 0 && isPositive(treasury) ? [treasuryNote(treasury)] : [])];
    const common = {
      id: c.id,
      date,
      security_id: grant.security,
      quantity: ctx.numeric(c.quantity, c.path),
      reason_text: c.reason,
      ...(comments.length === 0 ? {} : { comments }),
    };
    return kind === "stock"
      ? { object_type: "TX_STOCK_CANCELLATION", ...common }
      : { object_type: "TX_EQUITY_COMPENSATION_CANCELLATION", ...common };
  });
  if (cancelled.length === 0 && isPositive(treasury)) issuanceComments.push(treasuryNote(treasury));
  if (isPositive(returned)) {
    if (grant.stockPlanId === undefined) {
      issuanceComments.push(poolWithoutPlanNote(ctx, returned));
    } else {
      transactions.push({
        object_type: "TX_STOCK_PLAN_RETURN_TO_POOL",
        id: txIds.returnToPool(grant.security),
        date,
        security_id: grant.security,
        stock_plan_id: grant.stockPlanId,
        quantity: ctx.numeric(returned, "returnedToPoolQuantity"),
        reason_text: `Returned to the pool of ${JSON.stringify(grant.planName ?? grant.stockPlanId)} after cancellation (returnedToPoolQuantity ${returned})`,
        ...(dateNote.length === 0 ? {} : { comments: dateNote }),
      });
    }
  }
  return { transactions, issuanceComments };
}

function terminationContext(grant: GrantEnd): string {
  return grant.terminationDate === undefined ? "" : `; stakeholder terminated ${grant.terminationDate}`;
}

function awardCancellations(grant: GrantEnd): Cancelled[] {
  if (!isPositive(grant.canceledQuantity)) return [];
  return [
    {
      id: txIds.cancellation(grant.security),
      quantity: grant.canceledQuantity,
      path: "canceledQuantity",
      reason: `Canceled (canceledQuantity ${grant.canceledQuantity}${terminationContext(grant)})`,
    },
  ];
}

/** See the module comment: one cancellation per forfeited/expired count when they make up the canceled total. */
function unitCancellations(ctx: RecordContext, grant: GrantEnd): Cancelled[] {
  const { canceledQuantity: canceled, forfeitedQuantity: forfeited, expiredQuantity: expired } = grant;
  const parts = sumOf(forfeited, expired);
  const context = terminationContext(grant);
  const ofTotal = canceled === undefined ? "" : ` of canceledQuantity ${canceled}`;
  if (canceled === undefined || isZeroDecimal(canceled) || sameDecimal(parts, canceled)) {
    if (canceled !== undefined && !sameDecimal(parts, canceled)) {
      ctx.warn(
        "CANCELLATION_BREAKDOWN_MISMATCH",
        "canceledQuantity",
        `is ${canceled}, but forfeitedQuantity ${forfeited ?? "0"} + expiredQuantity ${expired ?? "0"} is ${parts}; the forfeited and expired units are cancelled`,
      );
    }
    const out: Cancelled[] = [];
    if (isPositive(forfeited)) {
      out.push({ id: txIds.forfeiture(grant.security), quantity: forfeited, path: "forfeitedQuantity", reason: `Forfeited (forfeitedQuantity ${forfeited}${ofTotal}${context})` });
    }
    if (isPositive(expired)) {
      out.push({ id: txIds.expiry(grant.security), quantity: expired, path: "expiredQuantity", reason: `Expired (expiredQuantity ${expired}${ofTotal}${context})` });
    }
    return out;
  }
  const partsZero = isZeroDecimal(parts);
  const breakdown = partsZero ? "" : `; forfeitedQuantity ${forfeited ?? "0"} and expiredQuantity ${expired ?? "0"} do not add up to it`;
  if (!partsZero) {
    ctx.warn(
      "CANCELLATION_BREAKDOWN_MISMATCH",
      "canceledQuantity",
      `is ${canceled}, but forfeitedQuantity ${forfeited ?? "0"} + expiredQuantity ${expired ?? "0"} is ${parts}; one cancellation of the canceled quantity is emitted`,
    );
  }
  return [
    {
      id: txIds.cancellation(grant.security),
      quantity: canceled,
      path: "canceledQuantity",
      reason: `Canceled (canceledQuantity ${canceled}${breakdown}${context})`,
    },
  ];
}

/** canceled = returned to pool + returned to treasury in the service's data; reported when not. */
function checkPoolAndTreasury(ctx: RecordContext, grant: GrantEnd): void {
  const { canceledQuantity, returnedToPoolQuantity, returnedToTreasuryQuantity } = grant;
  if (returnedToPoolQuantity === undefined && returnedToTreasuryQuantity === undefined) return;
  const parts = sumOf(returnedToPoolQuantity, returnedToTreasuryQuantity);
  if (!sameDecimal(parts, canceledQuantity ?? "0")) {
    ctx.warn(
      "CANCELLATION_BREAKDOWN_MISMATCH",
      "returnedToPoolQuantity",
      `returnedToPoolQuantity ${returnedToPoolQuantity ?? "0"} + returnedToTreasuryQuantity ${returnedToTreasuryQuantity ?? "0"} is ${parts}, not canceledQuantity ${canceledQuantity ?? "0"}`,
    );
  }
}

function treasuryNote(quantity: DecimalString): string {
  return `${quantity} returned to treasury (returnedToTreasuryQuantity: annulled, not returned to the pool); OCF 1.2.0 has no transaction for this.`;
}

function poolWithoutPlanNote(ctx: RecordContext, quantity: DecimalString): string {
  ctx.warn(
    "RETURN_TO_POOL_WITHOUT_PLAN",
    "returnedToPoolQuantity",
    `is ${quantity}, but the grant names no equity incentive plan: no TX_STOCK_PLAN_RETURN_TO_POOL can be emitted; the quantity is kept in the issuance's comments`,
  );
  return `${quantity} returned to the pool (returnedToPoolQuantity), but the grant names no plan to return them to.`;
}
