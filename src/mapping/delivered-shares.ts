/**
 * The shares a quarantined unit's settlements delivered. Quarantine leaves a unit out of the package,
 * but the shares its settlements delivered (net to the holder, sold to cover taxes) were issued and
 * are outstanding: leaving them out too would make the issuer's total short of the source's
 * (consumer-true-ocf.md, "Settlement details a reader sees"). They are kept as the `TX_STOCK_ISSUANCE`s
 * the unit's own mapping writes (same ids, same class), each saying why it stands alone; a settlement
 * that cannot be mapped (no date, no quantity, no price) cannot be kept, and the report says so.
 */
import type { OcfStockIssuance } from "../ocf/schemas.js";
import type { RestrictedStockUnit } from "../source/records.js";
import { isMappingError } from "./errors.js";
import type { RecordMappingContext } from "./grant.js";
import { securityIdOf, stakeholderIdOf, stockClassIdOf } from "./ids.js";
import { compareTransactions } from "../ocf/order.js";
import { sortIfNeeded } from "./order.js";
import { quoted } from "./quote.js";
import { RecordContext } from "./record-context.js";
import { distinctSettlements, issuesShares, mapSettlement, numberSettlements } from "./settlement.js";
import { NO_AWARD_NAMES, isAssumedClass, unitClassUse } from "./share-classes.js";
import type { DeliveredShares, MappedRecord } from "./types.js";
import { refuseChosenClass } from "./unit.js";
import { assertValidOcf } from "./validate.js";

/** What is kept of a quarantined unit: its delivered shares as a mapped record (if any), and the account of them. */
export interface KeptDeliveredShares {
  mapped: MappedRecord | undefined;
  delivered: DeliveredShares;
}

/**
 * The delivered shares of a unit the mapping could not take whole; `undefined` when its settlements
 * delivered none.
 */
export function keepDeliveredShares(record: RestrictedStockUnit, context: RecordMappingContext): KeptDeliveredShares | undefined {
  const strict = { strict: context.options?.strict };
  const ctx = new RecordContext(context.issuerId, "restrictedStockUnit", record.id, strict);
  // Numbered as the unit's own mapping numbers them, so that the kept shares keep their ids.
  const delivering = numberSettlements(ctx, distinctSettlements(ctx, record.settlements)).filter(({ exact }) => issuesShares(exact));
  if (delivering.length === 0) return undefined;
  const lost = (why: string): KeptDeliveredShares => ({ mapped: undefined, delivered: { kept: [], notKept: [why] } });
  if (record.issuerId !== undefined && record.issuerId !== context.issuerId) return lost("the unit names another issuer: its shares are not this issuer's");
  if (record.stakeholderId === undefined || record.stakeholderId === "") return lost("the unit has no stakeholderId: the holder of the shares its settlements delivered is not known");
  const resolved = unitClassUse(record, context.options, context.shareClasses ?? NO_AWARD_NAMES);
  const stockClass = resolved === "deferred" ? unitClassUse(record, context.options, NO_AWARD_NAMES) : resolved;
  if (stockClass === undefined || stockClass === "deferred") return undefined;
  const assumed = isAssumedClass(record, stockClass);
  try {
    refuseChosenClass(ctx, stockClass, assumed);
  } catch (error) {
    if (!isMappingError(error)) throw error;
    return lost(`their class is a choice --strict refuses (${error.message})`);
  }
  const security = securityIdOf("restrictedStockUnit", record.id);
  const unit = { security, stakeholderId: stakeholderIdOf(record.stakeholderId), settlementStockClassId: stockClassIdOf(stockClass.key), releasePricePerShare: record.releasePricePerShare };
  const issuances: OcfStockIssuance[] = [];
  const notKept: string[] = [];
  for (const numbered of delivering) {
    const { n, index } = numbered;
    try {
      const mapped = mapSettlement(new RecordContext(context.issuerId, "restrictedStockUnit", record.id, strict), unit, numbered);
      for (const issuance of mapped.issuances) {
        issuances.push({
          ...issuance,
          comments: [
            ...(issuance.comments ?? []),
            `Kept although restricted stock unit ${quoted(record.id)} is quarantined (left out of the package with its release; see the export report): these shares were delivered by its settlement ${n} and are outstanding.`,
          ],
        });
      }
    } catch (error) {
      if (!isMappingError(error)) throw error;
      notKept.push(`settlement ${n} (settlements[${index}]) cannot be mapped, so its shares are not in the package: ${error.message}`);
    }
  }
  const delivered: DeliveredShares = { kept: issuances.map((i) => i.security_id), notKept };
  if (issuances.length === 0) return { mapped: undefined, delivered };
  sortIfNeeded(issuances, compareTransactions);
  assertValidOcf(ctx.at(), issuances);
  let earliestDate = issuances[0]?.date;
  for (const i of issuances) if (earliestDate === undefined || i.date < earliestDate) earliestDate = i.date;
  const mapped: MappedRecord = {
    kind: "restrictedStockUnit",
    recordId: record.id,
    securityId: security,
    transactions: issuances,
    vestingTerms: [],
    warnings: [],
    uses: {
      stakeholderId: record.stakeholderId,
      stockClasses: [stockClass],
      ...(issuances.some((i) => i.stakeholder_id !== unit.stakeholderId) ? { soldToCover: true } : {}),
      ...(earliestDate === undefined ? {} : { earliestDate }),
    },
    ...(assumed ? { assumedSettlementClass: true as const } : {}),
  };
  return { mapped, delivered };
}
