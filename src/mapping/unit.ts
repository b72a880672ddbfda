/**
 * A restricted stock unit → a `TX_EQUITY_COMPENSATION_ISSUANCE` with `compensation_type: "RSU"`
 * (ocf-1.2.0.md §10.2), its acceptance, vesting, settlements (releases and the shares they deliver),
 * cancellations and return to pool. The field-level mapping is `mappings/restricted-stock-unit.json`.
 */
import { Dec, formatDecimal, sumDecimals } from "../decimal.js";
import type { OcfEquityCompensationIssuance, OcfTransaction } from "../ocf/schemas.js";
import type { RestrictedStockUnit } from "../source/records.js";
import { compact } from "../source/wire.js";
import { grantEndOf, mapGrantEnd } from "./cancellation.js";
import {
  finishRecord,
  grantBasics,
  grantDates,
  planOf,
  sourceFactComments,
  unitCounterComments,
  vestingOf,
  type RecordMappingContext,
} from "./grant.js";
import { stockClassIdOf, txIds } from "./ids.js";
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
    compact({ security, stakeholderId: basics.stakeholderId, settlementStockClassId: stockClassId, releasePricePerShare: record.releasePricePerShare }),
    record.settlements,
  );
  checkUnitCounters(ctx, record);
  const end = mapGrantEnd(ctx, "equityCompensation", grantEndOf(security, plan, record));

  const issuance: OcfEquityCompensationIssuance = compact({
    object_type: "TX_EQUITY_COMPENSATION_ISSUANCE" as const,
    id: txIds.issuance(security),
    date: basics.issueDate,
    security_id: security,
    custom_id: basics.customId,
    stakeholder_id: basics.stakeholderId,
    board_approval_date: record.boardApprovalDate,
    security_law_exemptions: [],
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
  if (record.stakeholderAcceptanceDate !== undefined) {
    transactions.push({
      object_type: "TX_EQUITY_COMPENSATION_ACCEPTANCE",
      id: txIds.acceptance(security),
      date: record.stakeholderAcceptanceDate,
      security_id: security,
    });
  }
  const certificateLabels = record.settlements.flatMap((s) => (s.certificateLabel === undefined ? [] : [s.certificateLabel]));
  return finishRecord(basics, transactions, vesting.terms === undefined ? [] : [vesting.terms], {
    stakeholderId: basics.sourceStakeholderId,
    stockClasses: [{ name: className, labels: certificateLabels }],
    ...(plan === undefined ? {} : { plan: { name: plan.planName, quantity: basics.quantity, stockClassName: className } }),
    dates: grantDates(record),
    ...(record.lastModifiedDatetime === undefined ? {} : { lastModifiedDatetime: record.lastModifiedDatetime }),
  });
}

/** The unit's totals against its settlements and quantity (source-api.md §9.10, §9.11); reported, never fixed. */
function checkUnitCounters(ctx: RecordContext, record: RestrictedStockUnit): void {
  const { releasedQuantity, netSettledQuantity, vestedQuantity, canceledQuantity, quantity } = record;
  const grossTotal = sumDecimals(record.settlements.map((s) => s.releaseQuantity ?? "0"));
  const netTotal = sumDecimals(record.settlements.map((s) => s.netSettlementQuantity ?? "0"));
  if (releasedQuantity !== undefined && !grossTotal.equals(new Dec(releasedQuantity))) {
    ctx.warn("RELEASED_SUM_MISMATCH", "releasedQuantity", `is ${releasedQuantity}, but the settlements' releaseQuantity add up to ${formatDecimal(grossTotal)}`);
  }
  if (netSettledQuantity !== undefined && !netTotal.equals(new Dec(netSettledQuantity))) {
    ctx.warn("NET_SETTLED_SUM_MISMATCH", "netSettledQuantity", `is ${netSettledQuantity}, but the settlements' netSettlementQuantity add up to ${formatDecimal(netTotal)}`);
  }
  const released = releasedQuantity === undefined ? grossTotal : new Dec(releasedQuantity);
  if (vestedQuantity !== undefined && released.gt(new Dec(vestedQuantity))) {
    ctx.warn("RELEASED_EXCEEDS_VESTED", "releasedQuantity", `${formatDecimal(released)} units are released (settled), more than the ${vestedQuantity} vested`);
  }
  if (quantity !== undefined && released.plus(canceledQuantity ?? "0").gt(new Dec(quantity))) {
    ctx.warn(
      "CANCELED_AND_RELEASED_EXCEED_QUANTITY",
      "canceledQuantity",
      `canceled ${canceledQuantity ?? "0"} + released ${formatDecimal(released)} exceeds the grant's quantity ${quantity}`,
    );
  }
}
