/**
 * RSU settlements → `TX_EQUITY_COMPENSATION_RELEASE` plus the `TX_STOCK_ISSUANCE`s of the shares it
 * issued. OCF 1.2.0 does not model net settlement (ocf-1.2.0.md §10.4); ocf-sync applies policy A,
 * read the way consumer-true-ocf.md ("Settlement details a reader sees") requires:
 *
 * - the release's `quantity` is the gross `releaseQuantity`; `date` and `settlement_date` are the
 *   `settlementDate`; `release_price` is the settlement's `settlementPrice`, else the unit's
 *   `releasePricePerShare` (neither is a `MappingError`: a price is never invented);
 * - the net shares delivered (`netSettlementQuantity`) are a `TX_STOCK_ISSUANCE` to the holder in the
 *   unit's settlement stock class: `share_price` 0 in the settlement currency (the holder paid
 *   nothing), `cost_basis` the release price (their value at settlement), `custom_id` the certificate
 *   label (else the certificate id, else its own security id);
 * - the shares sold to cover taxes (`saleQuantity`) were issued and are outstanding, held by whoever
 *   bought them: a `TX_STOCK_ISSUANCE` of that many shares to the sell-to-cover stakeholder
 *   (`SELL_TO_COVER_STAKEHOLDER_ID`, an institution standing for the market), priced like the
 *   delivered shares. So the issuer's outstanding shares are the source's issued shares;
 * - withheld shares (`withholdingQuantity`) were never issued: the withholding, sale and net
 *   quantities go, exactly as sent, into the release's `consideration_text`, and the certificate id
 *   and label into its `comments`. No quantity is ever derived from the others (Carta's own example
 *   does not add up). Both issuances are the release's `resulting_security_ids`.
 *
 * A settlement's quantities are parsed once, into exact values, when it is numbered
 * (`numberSettlements`, through `RecordContext.exact`); the checks and tests work on those, and they
 * become OCF Numeric only where they are written (`RecordContext.numeric`). Messages and the
 * release's `consideration_text` show the record's own text.
 */
import { equalExact, formatDecimal, isPositiveExact, sumExact, type Dec, type DecimalString } from "../decimal.js";
import type { CalendarDate } from "../dates.js";
import type { OcfEquityCompensationRelease, OcfMonetary, OcfStockIssuance } from "../ocf/schemas.js";
import type { Settlement, VestingEvent } from "../source/records.js";
import type { Money } from "../source/wire.js";
import { SELL_TO_COVER_STAKEHOLDER_ID, settlementSecurityIdOf, soldSecurityIdOf, txIds } from "./ids.js";
import { compareSettlements, sortIfNeeded } from "./order.js";
import { quoted } from "./quote.js";
import type { RecordContext } from "./record-context.js";
import { plannedAmountOf } from "./vesting.js";

/** What the settlements of one unit are mapped with. */
export interface UnitSettlementContext {
  /** The unit's security id. */
  security: string;
  stakeholderId: string;
  /**
   * The stock class the issued shares belong to (the unit's, or the one chosen for it: see
   * `share-classes.ts`); `undefined` only for a unit whose settlements issue no shares.
   */
  settlementStockClassId: string | undefined;
  /** The unit's `releasePricePerShare`, the fallback price. */
  releasePricePerShare?: Money | undefined;
}

/** The OCF transactions of one settlement. */
export interface MappedSettlement {
  /** Its number among the unit's settlements, from 1 in canonical order (the number in its ids). */
  n: number;
  date: CalendarDate;
  /** The gross units released, as an exact value, and its source path. */
  gross: Dec;
  /** The same as the record's text (as comments show it). */
  grossText: DecimalString;
  path: string;
  /** Acts on the unit's security; `lineage.ts` moves it to a balance security when one is live. */
  release: OcfEquityCompensationRelease;
  /** The shares it issued: net shares delivered to the holder, then shares sold to cover taxes. */
  issuances: OcfStockIssuance[];
}

/** A settlement of the unit with its index in the source's list (its path is `settlements[index]`). */
export interface IndexedSettlement {
  settlement: Settlement;
  index: number;
}

/** The quantities of a settlement, as exact values. */
export interface ExactSettlement {
  releaseQuantity?: Dec | undefined;
  netSettlementQuantity?: Dec | undefined;
  withholdingQuantity?: Dec | undefined;
  saleQuantity?: Dec | undefined;
}

/** A settlement that says something OCF can hold, with its number and its quantities parsed (`numberSettlements`). */
export interface NumberedSettlement extends IndexedSettlement {
  /** From 1 in canonical order: the number in its ids. */
  n: number;
  exact: ExactSettlement;
}

/**
 * The settlements of a unit in canonical order, a settlement sent twice counted once. Two settlements
 * with the same certificate id that agree in every field (date, quantities, price, label) are one
 * settlement sent twice: the first in the source's list is kept, and a `DUPLICATE_SETTLEMENT` warning
 * names both paths (releasing and issuing it twice would double the units released and the shares
 * delivered). Two that share a certificate id but differ in anything are both kept, with a
 * `SETTLEMENT_CERTIFICATE_REUSED` warning: which one is right cannot be told, and neither is dropped.
 * Settlements without a certificate id are never taken for one another.
 */
export function distinctSettlements(ctx: RecordContext, settlements: readonly Settlement[]): IndexedSettlement[] {
  const kept: IndexedSettlement[] = [];
  for (const { entry, same, other } of settlementRepeats(settlements)) {
    const certificate = entry.settlement.certificateId;
    if (same !== undefined) {
      ctx.warn(
        "DUPLICATE_SETTLEMENT",
        `settlements[${entry.index}]`,
        `repeats settlements[${same.index}] exactly (certificate id ${quoted(certificate ?? "")}, ${entry.settlement.settlementDate ?? "no date"}, ${considerationText(entry.settlement)}): one settlement sent twice, released and issued once`,
      );
      continue;
    }
    if (other !== undefined) {
      ctx.warn(
        "SETTLEMENT_CERTIFICATE_REUSED",
        `settlements[${entry.index}]`,
        `has the certificate id ${quoted(certificate ?? "")} of settlements[${other.index}], but differs from it (${entry.settlement.settlementDate ?? "no date"}: ${considerationText(entry.settlement)}; against ${other.settlement.settlementDate ?? "no date"}: ${considerationText(other.settlement)}): both are released and issued`,
      );
    }
    kept.push(entry);
  }
  return sortIfNeeded(kept, (a, b) => compareSettlements(a.settlement, b.settlement));
}

/**
 * Each settlement in the source's order, with the earlier one it repeats exactly (`same`: same
 * certificate id, every field alike) or the first earlier one that shares its certificate id but differs
 * (`other`).
 */
function settlementRepeats(settlements: readonly Settlement[]): { entry: IndexedSettlement; same?: IndexedSettlement; other?: IndexedSettlement }[] {
  const byCertificate = new Map<string, IndexedSettlement[]>();
  return settlements.map((settlement, index) => {
    const entry = { settlement, index };
    const certificate = settlement.certificateId;
    const earlier = certificate === undefined ? undefined : byCertificate.get(certificate);
    const same = earlier?.find((e) => compareSettlements(e.settlement, settlement) === 0);
    if (same !== undefined) return { entry, same };
    if (certificate !== undefined) byCertificate.set(certificate, [...(earlier ?? []), entry]);
    const other = earlier?.[0];
    return other === undefined ? { entry } : { entry, other };
  });
}

/**
 * A unit's settlements less those sent twice (`distinctSettlements`' rule, without its warnings), in the
 * source's order: what the source settled, for readers of its figures such as `reconcile`.
 */
export function settlementsSentOnce(settlements: readonly Settlement[]): Settlement[] {
  const once: Settlement[] = [];
  for (const { entry, same } of settlementRepeats(settlements)) if (same === undefined) once.push(entry.settlement);
  return once;
}

/** The quantities of a settlement, parsed (field by field: see `exactQuantities` of `vesting.ts`). */
function exactSettlement(ctx: RecordContext, settlement: Settlement): ExactSettlement {
  return {
    releaseQuantity: ctx.exact(settlement.releaseQuantity),
    netSettlementQuantity: ctx.exact(settlement.netSettlementQuantity),
    withholdingQuantity: ctx.exact(settlement.withholdingQuantity),
    saleQuantity: ctx.exact(settlement.saleQuantity),
  };
}

/**
 * The settlements of a unit (`distinctSettlements`) that say something OCF can hold, each with its
 * number from 1 in canonical order (the number in its ids). A settlement that releases no unit and
 * issues no share writes no transaction (a release of 0 would be a transaction of nothing), takes no
 * number, and gets a `ZERO_QUANTITY` warning.
 */
export function numberSettlements(ctx: RecordContext, settlements: readonly IndexedSettlement[]): NumberedSettlement[] {
  const numbered: NumberedSettlement[] = [];
  for (const { settlement, index } of settlements) {
    const path = `settlements[${index}]`;
    const quantities = exactSettlement(ctx, settlement);
    if (releasesNothing(quantities)) {
      ctx.warn("ZERO_QUANTITY", path, `releases 0 units and delivers no share (${considerationText(settlement)}): no release or share issuance is written for it`);
      continue;
    }
    if (quantities.releaseQuantity?.isZero() === true) {
      // The shares were issued: they are written, and so is the release of 0 that names them.
      ctx.warn("ZERO_QUANTITY", `${path}.releaseQuantity`, `is 0, but the settlement issues shares (${considerationText(settlement)}): they are written, with a release of 0 units that names them`);
    }
    numbered.push({ settlement, index, n: numbered.length + 1, exact: quantities });
  }
  return numbered;
}

/** Maps the settlements of a unit (`numberSettlements`; see the module comment for the policy). */
export function mapSettlements(ctx: RecordContext, unit: UnitSettlementContext, settlements: readonly IndexedSettlement[]): MappedSettlement[] {
  return numberSettlements(ctx, settlements).map((numbered) => mapSettlement(ctx, unit, numbered));
}

/**
 * Reports each settlement that brings the units released so far (gross, every settlement dated up to
 * its date) above what the unit's vesting events had vested by that date (`RELEASED_BEFORE_VESTED`,
 * naming the settlement, the date and both figures): units are released once vested, so the source
 * contradicts itself, and the package keeps both facts as sent. A vested event counts its
 * `vestedQuantity` (else its target); a vested event without a date counts from the start, since when
 * it vested cannot be told. A unit without vesting events is vested in full at issuance.
 */
export function checkReleasedBeforeVested(ctx: RecordContext, settlements: readonly MappedSettlement[], events: readonly VestingEvent[]): void {
  if (events.length === 0) return;
  const vested: { date: string; amount: Dec }[] = [];
  for (const e of events) {
    const amount = e.vested ? ctx.exact(plannedAmountOf(e)) : undefined;
    if (amount !== undefined) vested.push({ date: e.vestDate ?? "", amount });
  }
  for (const s of settlements) {
    const releasedBy = sumExact(settlements.filter((o) => o.date <= s.date).map((o) => o.gross));
    const vestedBy = sumExact(vested.filter((v) => v.date <= s.date).map((v) => v.amount));
    if (releasedBy.gt(vestedBy)) {
      ctx.warn(
        "RELEASED_BEFORE_VESTED",
        s.path,
        `the settlement on ${s.date} brings the units released by that date to ${formatDecimal(releasedBy)}, but the vesting events have vested only ${formatDecimal(vestedBy)} by then: units released before they vested (kept as sent)`,
      );
    }
  }
}

/** Whether a settlement issued shares: net shares to the holder, or shares sold to cover taxes (`deliversShares` on exact values). */
export function issuesShares(quantities: ExactSettlement): boolean {
  return isPositiveExact(quantities.netSettlementQuantity) || isPositiveExact(quantities.saleQuantity);
}

/** A settlement whose gross, net and sold quantities are all 0 (absent net or sold count as 0; an absent gross is an error of its own). */
function releasesNothing(quantities: ExactSettlement): boolean {
  const { releaseQuantity, netSettlementQuantity, saleQuantity } = quantities;
  return releaseQuantity?.isZero() === true && netSettlementQuantity?.isZero() !== false && saleQuantity?.isZero() !== false;
}

/** Maps one settlement of its unit, numbered (`numberSettlements`). */
export function mapSettlement(ctx: RecordContext, unit: UnitSettlementContext, numbered: NumberedSettlement): MappedSettlement {
  const { settlement, n, exact: quantities } = numbered;
  const path = `settlements[${numbered.index}]`;
  const date = ctx.required(settlement.settlementDate, `${path}.settlementDate`, "the date and settlement_date of the release");
  const gross = ctx.required(settlement.releaseQuantity, `${path}.releaseQuantity`, "the quantity of the release");
  const grossValue = quantities.releaseQuantity as Dec;
  const { price, priceSource } = releasePrice(ctx, unit, settlement, path);
  checkParts(ctx, settlement, quantities, path);

  const net = settlement.netSettlementQuantity;
  if (net === undefined) {
    ctx.choose(`${path}.netSettlementQuantity`, "is absent: no share issuance would be emitted for the net shares of this settlement", "the source must give netSettlementQuantity");
    ctx.warn("SETTLEMENT_NET_MISSING", `${path}.netSettlementQuantity`, "is absent: no share issuance is emitted for the net shares of this settlement, and none is derived from the other quantities");
  }
  const certificate = [
    settlement.certificateId === undefined ? undefined : `certificate id ${quoted(settlement.certificateId)}`,
    settlement.certificateLabel === undefined ? undefined : `certificate label ${quoted(settlement.certificateLabel)}`,
  ].filter((part) => part !== undefined);
  const certificateComment = certificate.length === 0 ? [] : [`Certificate: ${certificate.join(", ")}.`];
  const releaseId = txIds.release(unit.security, n);
  const issued = (field: "netSettlementQuantity" | "saleQuantity", quantity: Dec): OcfStockIssuance => {
    const stockClassId = unit.settlementStockClassId;
    // unitClassUse gives a class to every unit whose settlements issue shares.
    if (stockClassId === undefined) throw new Error(`settlement ${n} of ${unit.security} issues shares, but the unit was given no stock class`);
    const delivered = field === "netSettlementQuantity";
    const security = delivered ? settlementSecurityIdOf(unit.security, n) : soldSecurityIdOf(unit.security, n);
    const label = settlement.certificateLabel ?? settlement.certificateId;
    return {
      object_type: "TX_STOCK_ISSUANCE",
      id: txIds.issuance(security),
      date,
      security_id: security,
      custom_id: delivered ? (label ?? security) : label === undefined ? security : `${label} (sold to cover)`,
      stakeholder_id: delivered ? unit.stakeholderId : SELL_TO_COVER_STAKEHOLDER_ID,
      security_law_exemptions: [],
      stock_class_id: stockClassId,
      share_price: { amount: "0", currency: price.currency },
      quantity: ctx.numeric(quantity, `${path}.${field}`),
      cost_basis: price,
      stock_legend_ids: [],
      comments: delivered
        ? [`Net shares delivered to the holder by settlement ${n} of ${unit.security} (release ${releaseId}); no price was paid for them, cost_basis is their value at settlement.`, ...certificateComment]
        : [
            `Shares sold to cover taxes in settlement ${n} of ${unit.security} (release ${releaseId}, saleQuantity): issued, and held by their buyers, whom the sell-to-cover stakeholder stands for.`,
            ...certificateComment,
          ],
    };
  };
  const issuances: OcfStockIssuance[] = [];
  if (isPositiveExact(quantities.netSettlementQuantity)) issuances.push(issued("netSettlementQuantity", quantities.netSettlementQuantity));
  if (isPositiveExact(quantities.saleQuantity)) issuances.push(issued("saleQuantity", quantities.saleQuantity));

  const release: OcfEquityCompensationRelease = {
    object_type: "TX_EQUITY_COMPENSATION_RELEASE",
    id: releaseId,
    date,
    security_id: unit.security,
    settlement_date: date,
    release_price: price,
    quantity: ctx.numeric(grossValue, `${path}.releaseQuantity`),
    consideration_text: considerationText(settlement),
    resulting_security_ids: issuances.map((i) => i.security_id),
    comments: [
      `Settlement ${n} of ${unit.security} (net settlement policy A): the gross units are released; the net shares delivered are issued to the holder and the shares sold to cover taxes to the sell-to-cover stakeholder; withheld shares are never issued.`,
      `Release price from ${priceSource}.`,
      ...certificateComment,
    ],
  };
  return { n, date, gross: grossValue, grossText: gross, path: `${path}.releaseQuantity`, release, issuances };
}

function releasePrice(
  ctx: RecordContext,
  unit: UnitSettlementContext,
  settlement: Settlement,
  path: string,
): { price: OcfMonetary; priceSource: string } {
  if (settlement.settlementPrice !== undefined) {
    const unitPrice = unit.releasePricePerShare;
    if (unitPrice !== undefined && unitPrice.currency !== settlement.settlementPrice.currency) {
      ctx.warn(
        "SETTLEMENT_CURRENCY_MISMATCH",
        `${path}.settlementPrice.currencyCode`,
        `is ${settlement.settlementPrice.currency}, but the unit's releasePricePerShare is in ${unitPrice.currency} (${unitPrice.amount} ${unitPrice.currency}): the release and the shares it issued are priced in ${settlement.settlementPrice.currency}, as the settlement says; no amount is converted`,
      );
    }
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
function checkParts(ctx: RecordContext, settlement: Settlement, quantities: ExactSettlement, path: string): void {
  const { releaseQuantity, netSettlementQuantity, withholdingQuantity, saleQuantity } = quantities;
  if (releaseQuantity === undefined || netSettlementQuantity === undefined) return;
  const parts = sumExact([netSettlementQuantity, withholdingQuantity, saleQuantity].filter((part) => part !== undefined));
  if (!equalExact(parts, releaseQuantity)) {
    ctx.warn(
      "SETTLEMENT_PARTS_MISMATCH",
      path,
      `releaseQuantity ${settlement.releaseQuantity} is not net ${settlement.netSettlementQuantity} + withheld ${settlement.withholdingQuantity ?? "0"} + sold ${settlement.saleQuantity ?? "0"} (= ${formatDecimal(parts)})`,
    );
  }
}
