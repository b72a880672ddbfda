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
import { quoted } from "./quote.js";
import type { RecordContext } from "./record-context.js";
import { NO_AWARD_NAMES, assumesAwardClass, awardClassUse } from "./share-classes.js";
import type { MappedRecord, StockClassUse } from "./types.js";

/**
 * Maps one award. `share_price` comes from `pricePerShare` (absent: a `MappingError`, no price is
 * invented) and `stock_class_id` from `shareClassName`. Without a name, the class its `shareClassId`
 * names (through the issuer profile or another award of the issuer, else a placeholder class known by
 * the id); without either, the caller's `settlementStockClassName`, else the placeholder class the
 * issuer's choice replaces, marked `assumedSettlementClass` (`mapIssuer` and the accumulator rebind
 * it, as for a unit: see `share-classes.ts`). Under `strict` both choices are errors.
 *
 * @throws {MappingError} naming the record and field when the award cannot become valid OCF.
 * @example
 * ```ts
 * import { createApiClient, getAward, mapAward } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * const award = await getAward(client, "7", "2207");
 * await client.close();
 * if (award !== undefined) {
 *   const mapped = mapAward(award.record, { issuerId: "7" });
 *   console.log(mapped.transactions.map((tx) => tx.object_type)); // TX_STOCK_ISSUANCE, TX_STOCK_ACCEPTANCE, …
 * }
 * ```
 *
 * @category Mapping
 */
export function mapAward(record: RestrictedStockAward, context: RecordMappingContext): MappedRecord {
  const basics = grantBasics(context.issuerId, "restrictedStockAward", record, context.options);
  const { ctx } = basics;
  const directory = context.shareClasses ?? NO_AWARD_NAMES;
  const resolved = awardClassUse(record, context.options, directory);
  // A caller that resolves classes later (the accumulator) never maps a deferred award.
  const stockClass = resolved === "deferred" ? (awardClassUse(record, context.options, NO_AWARD_NAMES) as StockClassUse) : resolved;
  const assumed = assumesAwardClass(record, context.options);
  // A class id nothing names: its class is a placeholder known by the id (a choice, as for a unit).
  const unnamedId =
    record.shareClassName === undefined && record.shareClassId !== undefined && context.options?.issuerProfile?.shareClasses?.[record.shareClassId]?.name === undefined && directory.nameOf(record.shareClassId) === undefined
      ? record.shareClassId
      : undefined;
  refuseChosenAwardClass(ctx, assumed, unnamedId);
  const price = ctx.monetary(ctx.required(record.pricePerShare, "pricePerShare", "the issuance's share_price (no price is invented)"), "pricePerShare");
  const plan = planOf(record);
  const { vesting: asSent, comments: vestingNotes } = vestingOf(basics, record);
  const { vesting, payouts } = planPayouts(basics, asSent);
  const end = planGrantEnd(ctx, "stock", grantEndOf(plan, record));
  const sourceComments = [...sourceFactComments("restrictedStockAward", context.issuerId, record), ...payoutComment(basics, payouts), ...(assumed ? [ASSUMED_AWARD_CLASS_COMMENT] : [])];
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
  const mapped = finishGrant(basics, record, { chain, stockClass, plan, granted: grantedWithPayouts(basics, payouts) });
  return assumed ? { ...mapped, assumedSettlementClass: true } : mapped;
}

/** Said on the issuance of an award whose shares are in a class the mapping chose (it holds for any choice). */
export const ASSUMED_AWARD_CLASS_COMMENT =
  "The award names no share class (shareClassName, shareClassId) and none was given (--settlement-class, option settlementStockClassName): its shares are in the class the manifest's comments name, a choice of ocf-sync, not a fact of the source.";

/**
 * The choices of an award's class (`RecordContext.choose`: errors under `strict`): the class of an
 * award that names none, and a placeholder for a class id no award and no profile names.
 */
function refuseChosenAwardClass(ctx: RecordContext, assumed: boolean, unnamedId: string | undefined): void {
  if (assumed) {
    ctx.choose(
      "shareClassName",
      "is absent, and so is shareClassId: the award's shares need a stock class in OCF",
      "give it with --settlement-class NAME (option settlementStockClassName)",
    );
  }
  if (unnamedId !== undefined) {
    ctx.choose(
      "shareClassName",
      `is absent, and shareClassId ${quoted(unnamedId)} is a class no other award of the issuer and no issuer profile names (its class would be a placeholder)`,
      `name it in the issuer profile (--issuer-profile, shareClasses.${unnamedId}.name)`,
      { value: unnamedId },
    );
  }
}
