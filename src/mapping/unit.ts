/**
 * A restricted stock unit → a `TX_EQUITY_COMPENSATION_ISSUANCE` with `compensation_type: "RSU"`
 * (ocf-1.2.0.md §10.2), its acceptance, vesting, settlements (releases and the shares they issue),
 * cancellation (with a balance issuance when units remain: `lineage.ts`) and return to pool. The
 * field-level mapping is `mappings/restricted-stock-unit.json`.
 */
import { Dec, type DecimalString, equalExact, formatDecimal, sumExact, ZERO } from "../decimal.js";
import type { OcfEquityCompensationIssuance } from "../ocf/schemas.js";
import type { RestrictedStockUnit } from "../source/records.js";
import { compact } from "../source/wire.js";
import { grantEndOf, planGrantEnd, type PlannedCancellation } from "./cancellation.js";
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
import { buildGrantChain, type IssuancePart } from "./lineage.js";
import { grantedWithPayouts, paidAboveTarget, payoutComment, payoutPart, planPayouts, splitReleases } from "./payout.js";
import type { RecordContext } from "./record-context.js";
import { checkReleasedBeforeVested, distinctSettlements, mapSettlements, type IndexedSettlement } from "./settlement.js";
import { NO_AWARD_NAMES, isAssumedClass, unitClassUse } from "./share-classes.js";
import { quoted } from "./quote.js";
import type { MappedRecord, StockClassUse } from "./types.js";

/**
 * Maps one unit. Its `stock_class_id` is the class its settlements deliver: the class its
 * `shareClassId` names (through an award of the issuer or the issuer profile), else the caller's
 * `settlementStockClassName`; when neither says and a settlement issues shares, the placeholder class
 * of settled shares, marked `assumedSettlementClass` (`mapIssuer` moves it to the issuer's choice, see
 * `share-classes.ts`). Each settlement becomes a release plus the issuances of the net shares
 * delivered and of the shares sold to cover taxes.
 *
 * @throws {MappingError} naming the record and field when the unit cannot become valid OCF, or, with
 *   `strict`, when its class would be a choice of the mapping.
 * @example
 * ```ts
 * import { createApiClient, getUnit, mapUnit } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * const unit = await getUnit(client, "7", "8801");
 * await client.close();
 * if (unit !== undefined) {
 *   const mapped = mapUnit(unit.record, { issuerId: "7", options: { settlementStockClassName: "Common Stock" } });
 *   console.log(mapped.securityId, mapped.transactions.length, mapped.warnings);
 * }
 * ```
 *
 * @category Mapping
 */
export function mapUnit(record: RestrictedStockUnit, context: RecordMappingContext): MappedRecord {
  const basics = grantBasics(context.issuerId, "restrictedStockUnit", record, context.options);
  const { ctx, security } = basics;
  const resolved = unitClassUse(record, context.options, context.shareClasses ?? NO_AWARD_NAMES);
  // A caller that resolves classes later (the accumulator) never maps a deferred unit.
  const stockClass = resolved === "deferred" ? unitClassUse(record, context.options, NO_AWARD_NAMES) : resolved;
  const assumed = isAssumedClass(record, stockClass);
  if (stockClass !== undefined && stockClass !== "deferred") refuseChosenClass(ctx, stockClass, assumed);
  const stockClassId = stockClass === undefined || stockClass === "deferred" ? undefined : stockClassIdOf(stockClass.key);
  const plan = planOf(record);
  const { vesting: asSent, comments: vestingNotes } = vestingOf(basics, record);
  const { vesting, payouts } = planPayouts(basics, asSent);
  const distinct = distinctSettlements(ctx, record.settlements);
  const settlements = mapSettlements(
    ctx,
    { security, stakeholderId: basics.stakeholderId, settlementStockClassId: stockClassId, releasePricePerShare: record.releasePricePerShare },
    distinct,
  );
  checkReleasedBeforeVested(ctx, settlements, record.vestingEvents);
  const end = planGrantEnd(ctx, "equityCompensation", grantEndOf(plan, record));
  checkUnitCounters(ctx, record, distinct, end.cancellation, paidAboveTarget(payouts));
  const sourceComments = [...sourceFactComments("restrictedStockUnit", context.issuerId, record), ...unitCounterComments(record), ...payoutComment(basics, payouts), ...(assumed ? [ASSUMED_CLASS_COMMENT] : [])];
  const issuance = (part: IssuancePart): OcfEquityCompensationIssuance => {
    const original = part.security === security;
    return compact({
      object_type: "TX_EQUITY_COMPENSATION_ISSUANCE" as const,
      ...issuanceHead(basics, record, part),
      stock_plan_id: plan?.stockPlanId,
      stock_class_id: stockClassId,
      compensation_type: "RSU" as const,
      quantity: part.quantity,
      vesting_terms_id: part.vesting.vestingTermsId,
      vestings: part.vesting.vestings,
      expiration_date: null,
      termination_exercise_windows: [],
      comments: original
        ? [...sourceComments, ...part.vesting.issuanceComments, ...vestingNotes, ...part.comments, ...end.issuanceComments]
        : [...part.comments, ...part.vesting.issuanceComments],
    });
  };
  const { own, onPayouts } = splitReleases(ctx, settlements, payouts);

  const chain = buildGrantChain({
    lineage: context.options?.lineage ?? "documents",
    kind: "equityCompensation",
    basics,
    vesting,
    end,
    settlements: own,
    ...(record.stakeholderAcceptanceDate === undefined ? {} : { acceptance: { type: "TX_EQUITY_COMPENSATION_ACCEPTANCE" as const, date: record.stakeholderAcceptanceDate } }),
    issuance,
  });
  for (const payout of payouts) chain.transactions.push(issuance(payoutPart(basics, payout)));
  chain.transactions.push(...onPayouts);
  const mapped = finishGrant(basics, record, {
    chain,
    stockClass: stockClass === "deferred" ? undefined : stockClass,
    plan,
    granted: grantedWithPayouts(basics, payouts),
    soldToCover: settlements.some((s) => s.issuances.length > 1 || s.issuances.some((i) => i.stakeholder_id !== basics.stakeholderId)),
  });
  return assumed ? { ...mapped, assumedSettlementClass: true } : mapped;
}

/** Said on the issuance of a unit whose settled shares are in a class the mapping chose (it holds for any choice). */
export const ASSUMED_CLASS_COMMENT =
  "The unit names no share class (shareClassId) and none was given (--settlement-class, option settlementStockClassName): the shares its settlements deliver are in the class the manifest's comments name, a choice of ocf-sync, not a fact of the source.";

/**
 * The choices of a unit's class (`RecordContext.choose`: errors under `strict`): the class of the
 * settled shares of a unit without `shareClassId`, and a placeholder for a class id no award and no
 * profile names.
 */
export function refuseChosenClass(ctx: RecordContext, stockClass: StockClassUse, assumed: boolean): void {
  if (assumed) {
    ctx.choose(
      "shareClassId",
      "is absent, and the unit's settlements deliver shares whose stock class OCF needs",
      "give it with --settlement-class NAME (option settlementStockClassName)",
    );
  }
  if (stockClass.name === undefined && stockClass.id !== undefined) {
    ctx.choose(
      "shareClassId",
      `is ${quoted(stockClass.id)}, a class no award of the issuer and no issuer profile names (its class would be a placeholder)`,
      `name it in the issuer profile (--issuer-profile, shareClasses.${stockClass.id}.name)`,
      { value: stockClass.id },
    );
  }
}

/**
 * The unit's totals against its settlements and quantity (source-api.md §9.10, §9.11); reported,
 * never fixed. "Canceled + released exceeds the grant" is checked on the source's counters and on
 * what the package cancels and releases, so a package that over-cancels is never silent. The
 * settlements are the distinct ones (`distinctSettlements`): one sent twice counts once, as it is
 * released once. The counters and the settlements' quantities are read as exact values
 * (`RecordContext.exact`: the settlements' are those `numberSettlements` parsed); messages show the
 * record's text, and sums in plain form.
 */
function checkUnitCounters(
  ctx: RecordContext,
  record: RestrictedStockUnit,
  settlements: readonly IndexedSettlement[],
  cancellation: PlannedCancellation | undefined,
  paidAboveTarget: Dec,
): void {
  const { releasedQuantity, netSettledQuantity, vestedQuantity, canceledQuantity, quantity } = record;
  const gross: Dec[] = [];
  const net: Dec[] = [];
  for (const { settlement: s } of settlements) {
    gross.push(ctx.exact(s.releaseQuantity) ?? ZERO);
    net.push(ctx.exact(s.netSettlementQuantity) ?? ZERO);
  }
  const grossTotal = sumExact(gross);
  const netTotal = sumExact(net);
  const releasedExact = ctx.exact(releasedQuantity);
  if (releasedExact !== undefined && !equalExact(grossTotal, releasedExact)) {
    ctx.warn("RELEASED_SUM_MISMATCH", "releasedQuantity", `is ${releasedQuantity}, but the settlements' releaseQuantity add up to ${formatDecimal(grossTotal)}`);
  }
  if (netSettledQuantity !== undefined && !equalExact(netTotal, ctx.exact(netSettledQuantity))) {
    ctx.warn("NET_SETTLED_SUM_MISMATCH", "netSettledQuantity", `is ${netSettledQuantity}, but the settlements' netSettlementQuantity add up to ${formatDecimal(netTotal)}`);
  }
  const released = releasedExact ?? grossTotal;
  const releasedText = releasedQuantity ?? formatDecimal(grossTotal);
  if (vestedQuantity !== undefined && released.gt(ctx.exact(vestedQuantity))) {
    ctx.warn("RELEASED_EXCEEDS_VESTED", "releasedQuantity", `${releasedText} units are released (settled), more than the ${vestedQuantity} vested`);
  }
  if (quantity === undefined) return;
  // A payout above target (payout.ts) adds to what the grant can release and cancel.
  const granted = sumExact([ctx.exact(quantity), paidAboveTarget]);
  const bySource = sumExact([released, ctx.exact(canceledQuantity) ?? ZERO]);
  const inPackage = sumExact([grossTotal, cancellation?.exactQuantity ?? ZERO]);
  if (bySource.gt(granted) || inPackage.gt(granted)) {
    ctx.warn(
      "CANCELED_AND_RELEASED_EXCEED_QUANTITY",
      "canceledQuantity",
      `canceled ${canceledQuantity ?? "0"} + released ${releasedText} (the package: cancelled ${cancellation?.quantity ?? "0"} + released ${formatDecimal(grossTotal)}) exceeds the grant's quantity ${quantity}${paidAboveTarget.isZero() ? "" : ` and the ${formatDecimal(paidAboveTarget)} paid above target`}`,
    );
  }
}

