/**
 * RSU settlements → `TX_EQUITY_COMPENSATION_RELEASE` plus the `TX_STOCK_ISSUANCE` of the shares
 * delivered. OCF 1.2.0 does not model net settlement (ocf-1.2.0.md §10.4); ocf-sync applies policy A:
 *
 * - the release's `quantity` is the gross `releaseQuantity`; `date` and `settlement_date` are the
 *   `settlementDate`; `release_price` is the settlement's `settlementPrice`, else the unit's
 *   `releasePricePerShare` (neither is a `MappingError`: a price is never invented);
 * - the delivered shares are one `TX_STOCK_ISSUANCE` of `netSettlementQuantity` shares in the
 *   settlement stock class, `custom_id` the certificate label (else the certificate id, else its own
 *   security id), `share_price` the release price; a net of 0 (or an absent net) issues nothing and
 *   the release has `resulting_security_ids: []`;
 * - withheld and sold shares are never issued: the withholding, sale and net quantities go, exactly as
 *   sent, into the release's `consideration_text`, and the certificate id and label into its
 *   `comments`. No quantity is ever derived from the others (Carta's own example does not add up).
 */
import { isZeroDecimal, sameDecimal, sumDecimalStrings, type DecimalString } from "../decimal.js";
import type { OcfEquityCompensationRelease, OcfMonetary, OcfStockIssuance } from "../ocf/schemas.js";
import type { Settlement } from "../source/records.js";
import type { Money } from "../source/wire.js";
import { settlementSecurityIdOf, txIds } from "./ids.js";
import { compareSettlements, sortIfNeeded } from "./order.js";
import { quoted } from "./quote.js";
import type { RecordContext } from "./record-context.js";

/** What the settlements of one unit are mapped with. */
export interface UnitSettlementContext {
  /** The unit's security id. */
  security: string;
  stakeholderId: string;
  /** The stock class the delivered shares belong to. */
  settlementStockClassId: string;
  /** The unit's `releasePricePerShare`, the fallback price. */
  releasePricePerShare?: Money | undefined;
}

/** The OCF transactions of one settlement. */
export interface MappedSettlement {
  release: OcfEquityCompensationRelease;
  /** The delivered shares; absent when the net quantity is 0 or not given. */
  issuance?: OcfStockIssuance;
}

/** The settlements of a unit in canonical order, each with its 1-based number and source index. */
export function numberSettlements(settlements: readonly Settlement[]): { settlement: Settlement; n: number; index: number }[] {
  const numbered = settlements.map((settlement, index) => ({ settlement, n: 0, index }));
  sortIfNeeded(numbered, (a, b) => compareSettlements(a.settlement, b.settlement));
  for (let position = 0; position < numbered.length; position++) (numbered[position] as { n: number }).n = position + 1;
  return numbered;
}

/** Maps every settlement of a unit (see the module comment for the policy). */
export function mapSettlements(ctx: RecordContext, unit: UnitSettlementContext, settlements: readonly Settlement[]): MappedSettlement[] {
  return numberSettlements(settlements).map(({ settlement, n, index }) => mapSettlement(ctx, unit, settlement, n, `settlements[${index}]`));
}

function mapSettlement(ctx: RecordContext, unit: UnitSettlementContext, settlement: Settlement, n: number, path: string): MappedSettlement {
  const date = ctx.required(settlement.settlementDate, `${path}.settlementDate`, "the date and settlement_date of the release");
  const gross = ctx.required(settlement.releaseQuantity, `${path}.releaseQuantity`, "the quantity of the release");
  const { price, priceSource } = releasePrice(ctx, unit, settlement, path);
  checkParts(ctx, settlement, path);

  const net = settlement.netSettlementQuantity;
  if (net === undefined) {
    ctx.warn("SETTLEMENT_NET_MISSING", `${path}.netSettlementQuantity`, "is absent: no share issuance is emitted for this settlement, and none is derived from the other quantities");
  }
  const delivers = net !== undefined && !isZeroDecimal(net);
  const deliveredSecurity = settlementSecurityIdOf(unit.security, n);
  const certificate = [
    settlement.certificateId === undefined ? undefined : `certificate id ${quoted(settlement.certificateId)}`,
    settlement.certificateLabel === undefined ? undefined : `certificate label ${quoted(settlement.certificateLabel)}`,
  ].filter((part) => part !== undefined);

  const release: OcfEquityCompensationRelease = {
    object_type: "TX_EQUITY_COMPENSATION_RELEASE",
    id: txIds.release(unit.security, n),
    date,
    security_id: unit.security,
    settlement_date: date,
    release_price: price,
    quantity: ctx.numeric(gross, `${path}.releaseQuantity`),
    consideration_text: considerationText(settlement),
    resulting_security_ids: delivers ? [deliveredSecurity] : [],
    comments: [
      `Settlement ${n} of ${unit.security} (net settlement policy A: the gross quantity is released; withheld and sold shares are not issued).`,
      `Release price from ${priceSource}.`,
      ...(certificate.length === 0 ? [] : [`Certificate: ${certificate.join(", ")}.`]),
    ],
  };
  if (!delivers) return { release };
  const issuance: OcfStockIssuance = {
    object_type: "TX_STOCK_ISSUANCE",
    id: txIds.issuance(deliveredSecurity),
    date,
    security_id: deliveredSecurity,
    custom_id: settlement.certificateLabel ?? settlement.certificateId ?? deliveredSecurity,
    stakeholder_id: unit.stakeholderId,
    security_law_exemptions: [],
    stock_class_id: unit.settlementStockClassId,
    share_price: price,
    quantity: ctx.numeric(net, `${path}.netSettlementQuantity`),
    stock_legend_ids: [],
    comments: [
      `Net shares delivered by settlement ${n} of ${unit.security} (release ${release.id}).`,
      ...(certificate.length === 0 ? [] : [`Certificate: ${certificate.join(", ")}.`]),
    ],
  };
  return { release, issuance };
}

function releasePrice(
  ctx: RecordContext,
  unit: UnitSettlementContext,
  settlement: Settlement,
  path: string,
): { price: OcfMonetary; priceSource: string } {
  if (settlement.settlementPrice !== undefined) {
    return { price: ctx.monetary(settlement.settlementPrice, `${path}.settlementPrice`), priceSource: "the settlement's settlementPrice" };
  }
  if (unit.releasePricePerShare !== undefined) {
    return { price: ctx.monetary(unit.releasePricePerShare, "releasePricePerShare"), priceSource: "the unit's releasePricePerShare (the settlement has no settlementPrice)" };
  }
  return ctx.fail(
    "MAPPING_MISSING_VALUE",
    `${path}.settlementPrice`,
    "is absent, and so is the unit's releasePricePerShare: OCF requires a release_price, and none is invented",
  );
}

const quantityText = (value: DecimalString | undefined): string => value ?? "not reported";

/** The settlement's quantities, exactly as sent, in a fixed sentence (tests read it back). */
export function considerationText(settlement: Settlement): string {
  return [
    `Gross ${quantityText(settlement.releaseQuantity)} units released;`,
    `withheld ${quantityText(settlement.withholdingQuantity)};`,
    `sold ${quantityText(settlement.saleQuantity)};`,
    `net ${quantityText(settlement.netSettlementQuantity)} shares delivered.`,
  ].join(" ");
}

/** Reports a settlement whose gross is not net + withheld + sold (absent parts count as 0). */
function checkParts(ctx: RecordContext, settlement: Settlement, path: string): void {
  const { releaseQuantity, netSettlementQuantity, withholdingQuantity, saleQuantity } = settlement;
  if (releaseQuantity === undefined || netSettlementQuantity === undefined) return;
  const parts = sumDecimalStrings([netSettlementQuantity, withholdingQuantity ?? "0", saleQuantity ?? "0"]);
  if (!sameDecimal(parts, releaseQuantity)) {
    ctx.warn(
      "SETTLEMENT_PARTS_MISMATCH",
      path,
      `releaseQuantity ${releaseQuantity} is not net ${netSettlementQuantity} + withheld ${withholdingQuantity ?? "0"} + sold ${saleQuantity ?? "0"} (= ${parts})`,
    );
  }
}
