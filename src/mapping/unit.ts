/**
 * A restricted stock unit → a `TX_EQUITY_COMPENSATION_ISSUANCE` with `compensation_type: "RSU"`
 * (ocf-1.2.0.md §10.2), its acceptance, vesting, settlements (releases and the shares they deliver),
 * cancellations and return to pool. The field-level mapping is `mappings/restricted-stock-unit.json`.
 */
import { compareDecimalStrings, sameDecimal, sumDecimalStrings, type DecimalString } from "../decimal.js";
import type { OcfEquityCompensationIssuance, OcfTransaction } from "../ocf/schemas.js";
import type { RestrictedStockUnit } from "../source/records.js";
import { compact } from "../source/wire.js";
import { grantEndOf, mapGrantEnd } from "./cancellation.js";
import {
  finishGrant,
  grantBasics,
  issuanceHead,
  planOf,
  sourceFactComments,
  unitCounterComments,
  vestingOf,
  type RecordMappingContext,
} from "./grant.js";
import { stockClassIdOf } from "./ids.js";
import { compareText } from "./order.js";
import type { RecordContext } from "./record-context.js";
import { mapSettlements } from "./settlement.js";
import type { MappedRecord } from "./types.js";
import { mapVesting } from "./vesting.js";

/** The share class RSU settlements deliver when the caller does not name one. */
export const DEFAULT_SETTLEMENT_STOCK_CLASS_NAME = "Common";

/**
 * Maps one unit. Its `stock_class_id` is the settlement stock class (the source gives units no share
 * class), and each settlement becomes a release plus the issuance of the net shares delivered.
 *
 * @throws {MappingError} naming the record and field when the unit cannot become valid OCF.
 * @example
 * const mapped = mapUnit(unit, { issuerId: "7", options: { settlementStockClassName: "Common Stock" } });
 */
export function mapUnit(record: RestrictedStockUnit, context: RecordMappingContext): MappedRecord {
  const basics = grantBasics(context.issuerId, "restrictedStockUnit", record);
  const { ctx, security } = basics;
  const className = context.options?.settlementStockClassName ?? DEFAULT_SETTLEMENT_STOCK_CLASS_NAME;
  const stockClassId = stockClassIdOf(className);
  const plan = planOf(record);
  const vesting = mapVesting(ctx, vestingOf(basics, record));
  const settlements = mapSettlements(
    ctx,
    { security, stakeholderId: basics.stakeholderId, settlementStockClassId: stockClassId, releasePricePerShare: record.releasePricePerShare },
    record.settlements,
  );
  const end = mapGrantEnd(ctx, "equityCompensation", grantEndOf(security, plan, record));
  const cancelledQuantities: DecimalString[] = [];
  for (const tx of end.transactions) if (tx.object_type !== "TX_STOCK_PLAN_RETURN_TO_POOL") cancelledQuantities.push(tx.quantity);
  const cancelledInPackage = sumDecimalStrings(cancelledQuantities);
  checkUnitCounters(ctx, record, cancelledInPackage);

  const issuance: OcfEquityCompensationIssuance = compact({
    object_type: "TX_EQUITY_COMPENSATION_ISSUANCE" as const,
    ...issuanceHead(basics, record),
    stock_plan_id: plan?.stockPlanId,
    stock_class_id: stockClassId,
    compensation_type: "RSU" as const,
    quantity: basics.quantity,
    vesting_terms_id: vesting.vestingTermsId,
    vestings: vesting.vestings,
    expiration_date: null,
    termination_exercise_windows: [],
    comments: [
      ...sourceFactComments("restrictedStockUnit", context.issuerId, record),
      ...unitCounterComments(record),
      ...vesting.issuanceComments,
      ...end.issuanceComments,
    ],
  });
  const transactions: OcfTransaction[] = [issuance, ...vesting.transactions, ...end.transactions];
  for (const { release, issuance: delivered } of settlements) {
    transactions.push(release);
    if (delivered !== undefined) transactions.push(delivered);
  }
  const certificateLabels: string[] = [];
  for (const s of record.settlements) if (s.certificateLabel !== undefined) certificateLabels.push(s.certificateLabel);
  certificateLabels.sort(compareText);
  return finishGrant(basics, record, {
    acceptance: "TX_EQUITY_COMPENSATION_ACCEPTANCE",
    transactions,
    vestingTerms: vesting.terms === undefined ? [] : [vesting.terms],
    stockClass: { name: className, labels: certificateLabels },
    plan,
  });
}

/**
 * The unit's totals against its settlements and quantity (source-api.md §9.10, §9.11); reported,
 * never fixed. "Canceled + released exceeds the grant" is checked on the source's counters and on
 * what the package cancels and releases, so a package that over-cancels is never silent.
 */
function checkUnitCounters(ctx: RecordContext, record: RestrictedStockUnit, cancelledInPackage: DecimalString): void {
  const { releasedQuantity, netSettledQuantity, vestedQuantity, canceledQuantity, quantity } = record;
  const gross: DecimalString[] = [];
  const net: DecimalString[] = [];
  for (const s of record.settlements) {
    gross.push(s.releaseQuantity ?? "0");
    net.push(s.netSettlementQuantity ?? "0");
  }
  const grossTotal = sumDecimalStrings(gross);
  const netTotal = sumDecimalStrings(net);
  if (releasedQuantity !== undefined && !sameDecimal(grossTotal, releasedQuantity)) {
    ctx.warn("RELEASED_SUM_MISMATCH", "releasedQuantity", `is ${releasedQuantity}, but the settlements' releaseQuantity add up to ${grossTotal}`);
  }
  if (netSettledQuantity !== undefined && !sameDecimal(netTotal, netSettledQuantity)) {
    ctx.warn("NET_SETTLED_SUM_MISMATCH", "netSettledQuantity", `is ${netSettledQuantity}, but the settlements' netSettlementQuantity add up to ${netTotal}`);
  }
  const released = releasedQuantity ?? grossTotal;
  if (vestedQuantity !== undefined && compareDecimalStrings(released, vestedQuantity) > 0) {
    ctx.warn("RELEASED_EXCEEDS_VESTED", "releasedQuantity", `${released} units are released (settled), more than the ${vestedQuantity} vested`);
  }
  if (quantity === undefined) return;
  const bySource = sumDecimalStrings([released, canceledQuantity ?? "0"]);
  const inPackage = sumDecimalStrings([grossTotal, cancelledInPackage]);
  if (compareDecimalStrings(bySource, quantity) > 0 || compareDecimalStrings(inPackage, quantity) > 0) {
    ctx.warn(
      "CANCELED_AND_RELEASED_EXCEED_QUANTITY",
      "canceledQuantity",
      `canceled ${canceledQuantity ?? "0"} + released ${released} (the package: cancelled ${cancelledInPackage} + released ${grossTotal}) exceeds the grant's quantity ${quantity}`,
    );
  }
}
