/**
 * A restricted stock award → a `TX_STOCK_ISSUANCE` with `issuance_type: "RSA"` (ocf-1.2.0.md §10.1),
 * its acceptance, vesting, cancellation and return to pool. The field-level mapping is
 * `mappings/restricted-stock-award.json`.
 */
import type { OcfStockIssuance } from "../ocf/schemas.js";
import type { RestrictedStockAward } from "../source/records.js";
import { compact } from "../source/wire.js";
import { grantEndOf, mapGrantEnd } from "./cancellation.js";
import { compareDecimalStrings } from "../decimal.js";
import { finishGrant, grantBasics, issuanceHead, planOf, sourceFactComments, vestingOf, type RecordMappingContext } from "./grant.js";
import { stockClassIdOf } from "./ids.js";
import type { MappedRecord } from "./types.js";
import { mapVesting } from "./vesting.js";

/**
 * Maps one award. `share_price` comes from `pricePerShare` and `stock_class_id` from
 * `shareClassName`; either absent is a `MappingError` (OCF requires both and neither is invented).
 *
 * @throws {MappingError} naming the record and field when the award cannot become valid OCF.
 * @example
 * const mapped = mapAward(award, { issuerId: "7" });
 * mapped.transactions; // TX_STOCK_ISSUANCE, TX_STOCK_ACCEPTANCE, …
 */
export function mapAward(record: RestrictedStockAward, context: RecordMappingContext): MappedRecord {
  const basics = grantBasics(context.issuerId, "restrictedStockAward", record);
  const { ctx, security } = basics;
  const className = ctx.required(record.shareClassName, "shareClassName", "the issuance's stock_class_id");
  const price = ctx.required(record.pricePerShare, "pricePerShare", "the issuance's share_price (no price is invented)");
  const plan = planOf(record);
  const vesting = mapVesting(ctx, vestingOf(basics, record));
  const end = mapGrantEnd(ctx, "stock", grantEndOf(security, plan, record));
  if (record.canceledQuantity !== undefined && compareDecimalStrings(record.canceledQuantity, basics.quantity) > 0) {
    ctx.warn("CANCELED_AND_RELEASED_EXCEED_QUANTITY", "canceledQuantity", `is ${record.canceledQuantity}, more than the award's quantity ${basics.quantity}`);
  }

  const issuance: OcfStockIssuance = compact({
    object_type: "TX_STOCK_ISSUANCE" as const,
    ...issuanceHead(basics, record),
    stock_class_id: stockClassIdOf(className),
    stock_plan_id: plan?.stockPlanId,
    share_price: ctx.monetary(price, "pricePerShare"),
    quantity: basics.quantity,
    vesting_terms_id: vesting.vestingTermsId,
    vestings: vesting.vestings,
    stock_legend_ids: [],
    issuance_type: "RSA" as const,
    comments: [...sourceFactComments("restrictedStockAward", context.issuerId, record), ...vesting.issuanceComments, ...end.issuanceComments],
  });
  return finishGrant(basics, record, {
    acceptance: "TX_STOCK_ACCEPTANCE",
    transactions: [issuance, ...vesting.transactions, ...end.transactions],
    vestingTerms: vesting.terms === undefined ? [] : [vesting.terms],
    stockClass: { name: className, labels: record.securityLabel === undefined ? [] : [record.securityLabel] },
    plan,
  });
}
