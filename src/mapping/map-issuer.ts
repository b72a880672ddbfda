/**
 * One issuer's parsed records → every OCF object of its package: Issuer, Stakeholders, StockClasses,
 * StockPlans, VestingTerms and Transactions. Pure: no I/O, no clock, no randomness. Records are
 * mapped in a canonical order (kind, then id) and every list is sorted, so the output depends on the
 * records' content only, never on the order the service listed them.
 */
import { AssumedRecords, idCollisionError, isIssuance, issuerObjectsOf, type ClaimSpace, type SettlementClassStatement } from "./accumulator.js";
import { keepDeliveredShares } from "./delivered-shares.js";
import type { RecordMappingContext } from "./grant.js";
import { isCalendarDate, type CalendarDate } from "../dates.js";
import type { OcfTransaction, OcfVestingTerms } from "../ocf/schemas.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../source/records.js";
import { mapAward } from "./award.js";
import { MappingError, isMappingError, type MappingWarning } from "./errors.js";
import { compareById, compareText, sortTransactions } from "../ocf/order.js";
import { sortIfNeeded } from "./order.js";
import { quoted } from "./quote.js";
import { chooseSettlementClass, rebindSettlementClass, renameClass, type ShareClassDirectory } from "./share-classes.js";
import { settleClassNames } from "./class-names.js";
import type { MapIssuerOptions, MappedIssuer, MappedRecord, QuarantinedMapping, RecordUses } from "./types.js";
import { mapUnit } from "./unit.js";
import { tallyUses } from "./uses-tally.js";
import { unvestedIssuerWarning, unvestedRecordWarning } from "./unvested.js";

/**
 * The parsed records of one issuer.
 *
 * @category Mapping
 */
export interface IssuerRecords {
  issuerId: string;
  awards: readonly RestrictedStockAward[];
  units: readonly RestrictedStockUnit[];
}

type AnyRecord = { kind: "restrictedStockAward"; record: RestrictedStockAward } | { kind: "restrictedStockUnit"; record: RestrictedStockUnit };

/**
 * Maps one issuer's records to OCF 1.2.0. Every returned object has passed ocf-sync's OCF schemas;
 * the same records and options always give the same objects in the same order.
 *
 * @throws {MappingError} for an invalid option (issuer profile, `asOf`), and for the first record that
 *   cannot be mapped when `onInvalid` is `"fail"` (the default).
 * @example
 * ```ts
 * import { buildPackageFiles, createApiClient, mapIssuer, pullIssuer } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * const { awards, units } = await pullIssuer(client, "7");
 * await client.close();
 * const mapped = mapIssuer({ issuerId: "7", awards, units }, { onInvalid: "quarantine", asOf: "2025-06-30" });
 * const { files } = buildPackageFiles(mapped, { generatedAt: "2025-06-30T00:00:00Z" });
 * for (const file of files) console.log(file.path);
 * ```
 *
 * @category Mapping
 */
export function mapIssuer(input: IssuerRecords, options: MapIssuerOptions = {}): MappedIssuer {
  const { issuerId } = input;
  const onInvalid = options.onInvalid ?? "fail";
  if (options.asOf !== undefined && !isCalendarDate(options.asOf)) {
    throw new MappingError("MAPPING_INVALID_OPTION", { issuerId, path: "options.asOf" }, `${JSON.stringify(options.asOf)} is not a real calendar date of the form YYYY-MM-DD`, { value: options.asOf });
  }
  // Kind, then id: every award before every unit ("restrictedStockAward" < "restrictedStockUnit").
  const records: AnyRecord[] = [
    ...[...input.awards].sort(compareById).map((record) => ({ kind: "restrictedStockAward" as const, record })),
    ...[...input.units].sort(compareById).map((record) => ({ kind: "restrictedStockUnit" as const, record })),
  ];

  const mapped: MappedRecord[] = [];
  const quarantined: QuarantinedMapping[] = [];
  const claimed: ClaimedIds = { transaction: new Map(), security: new Map(), vestingTerms: new Map() };
  // Awards come first, so every unit's share class id meets every award that names it. An award that
  // gives only a class id takes the name another award gives it, so those are mapped once every award
  // that names its class is; all are then claimed (or set aside) in canonical order.
  const classNames = new Map<string, string>();
  const shareClasses: ShareClassDirectory = { nameOf: (id) => classNames.get(id), complete: true };
  const awardMappings = new Map<AnyRecord, MappedRecord | MappingError>();
  const mapAwardOf = (entry: AnyRecord): void => {
    try {
      const result = mapOne(entry, issuerId, options, shareClasses);
      for (const use of result.uses.stockClasses) if (use.id !== undefined && use.name !== undefined && !classNames.has(use.id)) classNames.set(use.id, use.name);
      awardMappings.set(entry, result);
    } catch (error) {
      if (!isMappingError(error)) throw error;
      awardMappings.set(entry, error);
    }
  };
  for (const entry of records) if (entry.kind === "restrictedStockAward" && !takesClassName(entry.record, options)) mapAwardOf(entry);
  for (const entry of records) if (entry.kind === "restrictedStockAward" && takesClassName(entry.record, options)) mapAwardOf(entry);
  for (const entry of records) {
    try {
      const early = awardMappings.get(entry);
      if (early instanceof MappingError) throw early;
      const result = early ?? mapOne(entry, issuerId, options, shareClasses);
      claimIds(claimed, result, issuerId);
      mapped.push(result);
    } catch (error) {
      if (!isMappingError(error) || onInvalid === "fail") throw error;
      quarantined.push(quarantine(entry, error, { issuerId, options, shareClasses }, claimed, mapped));
    }
  }
  // The shares of units and awards that name no class go to the class the other records name, if one
  // (share-classes.ts); the mappings were made with the placeholder and are moved to it now.
  const assumed = new AssumedRecords();
  for (const m of mapped) if (m.assumedSettlementClass === true) assumed.add(m.kind, m.recordId);
  let settlement: SettlementClassStatement | undefined;
  if (assumed.count > 0) {
    const classUses = tallyUses(mapped.filter((m) => m.assumedSettlementClass !== true).map((m) => m.uses)).stockClasses;
    const choice = chooseSettlementClass(classUses);
    settlement = assumed.statement(choice, new Set(classUses.map((use) => use.key)).size);
    for (const [index, m] of mapped.entries()) mapped[index] = rebindSettlementClass(m, choice);
  }
  // A class id the records name two ways: one name, by the stated rule (class-names.ts); strict refuses it.
  const chosenNames =
    options.strict === true
      ? undefined
      : settleClassNames(issuerId, options.issuerProfile, tallyUses(mapped.map((m) => m.uses)).stockClasses, () => mapped.map((m) => [m.kind, m.recordId, m.uses] as const));
  if (chosenNames !== undefined) for (const [index, m] of mapped.entries()) mapped[index] = renameClass(m, chosenNames.names);

  const uses: RecordUses[] = [];
  const transactions: OcfTransaction[] = [];
  const vestingTerms: OcfVestingTerms[] = [];
  for (const m of mapped) {
    uses.push(m.uses);
    for (const tx of m.transactions) transactions.push(tx);
    for (const terms of m.vestingTerms) vestingTerms.push(terms);
  }
  sortTransactions(transactions);
  sortIfNeeded(vestingTerms, compareById);
  const asOf = options.asOf ?? defaultAsOf(mapped, transactions);
  if (asOf === undefined) {
    throw new MappingError("MAPPING_MISSING_VALUE", { issuerId, path: "options.asOf" }, "is not given, and no record has a date to take it from");
  }
  const { issuer, stakeholders, stockClasses, stockPlans, manifestComments, warnings: headWarnings } = issuerObjectsOf(issuerId, options, tallyUses(uses), asOf, { settlement, classNames: chosenNames });
  // The records' warnings, with theirs of tranches the package vests by date on or before its as-of
  // date that the source has not vested (see unvested.ts).
  const recordWarnings: MappingWarning[] = [];
  let earliestUnvested: CalendarDate | undefined;
  let unvestedLate = 0;
  for (const m of mapped) {
    for (const warning of m.warnings) recordWarnings.push(warning);
    if (m.unvested === undefined) continue;
    if (earliestUnvested === undefined || m.unvested.date < earliestUnvested) earliestUnvested = m.unvested.date;
    if (m.unvested.date > asOf) continue;
    unvestedLate += 1;
    recordWarnings.push(unvestedRecordWarning(issuerId, { kind: m.kind, recordId: m.recordId }, m.unvested, asOf));
  }
  const issuerWarnings = unvestedLate === 0 || earliestUnvested === undefined ? headWarnings : [...headWarnings, unvestedIssuerWarning(issuerId, unvestedLate, earliestUnvested, asOf)];
  const warnings: MappingWarning[] = [...issuerWarnings, ...recordWarnings];
  return { issuer, asOf, stakeholders, stockClasses, stockPlans, vestingTerms, transactions, manifestComments, warnings, quarantined };
}

function mapOne(entry: AnyRecord, issuerId: string, options: MapIssuerOptions, shareClasses: ShareClassDirectory): MappedRecord {
  return entry.kind === "restrictedStockAward"
    ? mapAward(entry.record, { issuerId, options, shareClasses })
    : mapUnit(entry.record, { issuerId, options, shareClasses });
}

/** An award that gives a class id but no name, which the issuer profile does not name: it takes the name other awards give the id. */
function takesClassName(record: RestrictedStockAward, options: MapIssuerOptions): boolean {
  return record.shareClassName === undefined && record.shareClassId !== undefined && options.issuerProfile?.shareClasses?.[record.shareClassId]?.name === undefined;
}

/**
 * A record set aside: a unit keeps the shares its settlements delivered (`delivered-shares.ts`), when
 * their ids are free, as the accumulator does.
 */
function quarantine(entry: AnyRecord, error: MappingError, context: RecordMappingContext, claimed: ClaimedIds, mapped: MappedRecord[]): QuarantinedMapping {
  const base = { kind: entry.kind, recordId: entry.record.id, error };
  const kept = entry.kind === "restrictedStockUnit" ? keepDeliveredShares(entry.record, context) : undefined;
  if (kept === undefined) return base;
  if (kept.mapped === undefined) return { ...base, deliveredShares: kept.delivered };
  try {
    claimIds(claimed, kept.mapped, context.issuerId);
  } catch (collision) {
    if (!isMappingError(collision)) throw collision;
    return { ...base, deliveredShares: { kept: [], notKept: [...kept.delivered.notKept, `its delivered shares cannot be kept: ${collision.message}`] } };
  }
  mapped.push(kept.mapped);
  return { ...base, deliveredShares: kept.delivered };
}

/** Which record claimed each id, per id space (transaction ids, security ids, VestingTerms ids). */
type ClaimedIds = Record<ClaimSpace, Map<string, string>>;

/**
 * OCF ids must be unique in a package. Ids derive from source ids, so two records can collide only
 * when the service sends the same id twice or ids that spell each other's derived ids; the later
 * record (in canonical order) is the one reported.
 */
function claimIds(claimed: ClaimedIds, result: MappedRecord, issuerId: string): void {
  const owner = `${result.kind} ${quoted(result.recordId)}`;
  for (const tx of result.transactions) {
    assertFree(claimed, "transaction", tx.id, owner, result, issuerId);
    if (isIssuance(tx)) assertFree(claimed, "security", tx.security_id, owner, result, issuerId);
  }
  for (const terms of result.vestingTerms) assertFree(claimed, "vestingTerms", terms.id, owner, result, issuerId);
  // Claimed only once every id is known to be free, so that a record that fails claims none.
  for (const tx of result.transactions) {
    claimed.transaction.set(tx.id, owner);
    if (isIssuance(tx)) claimed.security.set(tx.security_id, owner);
  }
  for (const terms of result.vestingTerms) claimed.vestingTerms.set(terms.id, owner);
}

function assertFree(claimed: ClaimedIds, space: ClaimSpace, id: string, owner: string, result: MappedRecord, issuerId: string): void {
  const other = claimed[space].get(id);
  if (other === undefined) return;
  // mapIssuer takes records as given, so the same id twice is possible here (the accumulator keeps one copy).
  throw idCollisionError(issuerId, { kind: result.kind, recordId: result.recordId }, space, id, other === owner ? "an earlier record with the same id" : other);
}

/** The latest transaction date or `lastModifiedDatetime` day: the package shows the records as of then. */
function defaultAsOf(mapped: readonly MappedRecord[], transactions: readonly OcfTransaction[]): CalendarDate | undefined {
  let latest: CalendarDate | undefined;
  for (const tx of transactions) if (compareText(tx.date, latest) > 0) latest = tx.date;
  for (const m of mapped) {
    const day = m.uses.lastModifiedDatetime?.slice(0, 10);
    if (day !== undefined && compareText(day, latest) > 0) latest = day;
  }
  return latest;
}
