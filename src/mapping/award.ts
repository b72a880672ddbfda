/**
 * A restricted stock award → a `TX_STOCK_ISSUANCE` with `issuance_type: "RSA"` (ocf-1.2.0.md §10.1),
 * its acceptance, vesting, cancellation (with a balance issuance when shares remain: `lineage.ts`)
 * and return to pool. The field-level mapping is `mappings/restricted-stock-award.json`.
 */
import type { OcfStockIssuance } from "../ocf/schemas.js";
import type { RestrictedStockAward } from "../source/records.js";
import { compact } from "../source/wire.js";
import { grantEndOf, planGrantEnd } from "./cancellation.js";
import { finishGrant, grantBasics, issuanceHead, planOf, sourceFactComments, vestingOf, type RecordMappingContext } from "./grant.js";
import { stockClassIdOf } from "./ids.js";
import { buildGrantChain, type IssuancePart } from "./lineage.js";
import { grantedWithPayouts, payoutComment, payoutPart, planPayouts } from "./payout.js";
import { awardClassUse } from "./share-classes.js";
import type { MappedRecord } from "./types.js";

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
  const basics = grantBasics(context.issuerId, "restrictedStockAward", record, context.options);
  const { ctx } = basics;
  const className = ctx.required(record.shareClassName, "shareClassName", "the issuance's stock_class_id");
  const stockClass = awardClassUse(record, className);
  const price = ctx.monetary(ctx.required(record.pricePerShare, "pricePerShare", "the issuance's share_price (no price is invented)"), "pricePerShare");
  const plan = planOf(record);
  const { vesting: asSent, comments: vestingNotes } = vestingOf(basics, record);
  const { vesting, payouts } = planPayouts(basics, asSent);
  const end = planGrantEnd(ctx, "stock", grantEndOf(plan, record));
  const sourceComments = [...sourceFactComments("restrictedStockAward", context.issuerId, record), ...payoutComment(basics, payouts)];
  const issuance = (part: IssuancePart): OcfStockIssuance => {
    const original = part.security === basics.security;
    return compact({
      object_type: "TX_STOCK_ISSUANCE" as const,
      ...issuanceHead(basics, record, part),
      stock_class_id: stockClassIdOf(stockClass.key),
      stock_plan_id: plan?.stockPlanId,
      share_price: price,
      quantity: part.quantity,
      vesting_terms_id: part.vesting.vestingTermsId,
      vestings: part.vesting.vestings,
      stock_legend_ids: [],
      issuance_type: "RSA" as const,
      comments: original
        ? [...sourceComments, ...part.vesting.issuanceComments, ...vestingNotes, ...part.comments, ...end.issuanceComments]
        : [...part.comments, ...part.vesting.issuanceComments],
    });
  };

  const chain = buildGrantChain({
    lineage: context.options?.lineage ?? "documents",
    kind: "stock",
    basics,
    vesting,
    end,
    ...(record.stakeholderAcceptanceDate === undefined ? {} : { acceptance: { type: "TX_STOCK_ACCEPTANCE" as const, date: record.stakeholderAcceptanceDate } }),
    issuance,
  });
  for (const payout of payouts) chain.transactions.push(issuance(payoutPart(basics, payout)));
  return finishGrant(basics, record, { chain, stockClass, plan, granted: grantedWithPayouts(basics, payouts) });
}
