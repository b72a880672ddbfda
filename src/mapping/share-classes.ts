/**
 * Which share class a record's shares belong to. The source names a class two ways: awards carry a
 * `shareClassName` (and, on newer data, a `shareClassId`), units only a `shareClassId` (source-api.md
 * §9.11, §10). A class is keyed by its name whenever the name can be known, so that awards and units of
 * one class share one OCF stock class:
 *
 * - an award: its `shareClassName`; without one, as a unit (below): the class its `shareClassId` names
 *   (but the award does not name the class: its use has no `name`), else, without an id either, the
 *   class chosen for units that name none (`assumesAwardClass`);
 * - a unit with a `shareClassId`: the name the issuer profile gives that id, else the name an award of
 *   the issuer with the same `shareClassId` gives it, else the id itself (a class known only by id:
 *   its StockClass gets a placeholder name, with a warning);
 * - a unit without one: the caller's `settlementStockClassName`; else, when its settlements deliver
 *   shares, a class the mapping chooses and says it chose (consumer-true-ocf.md, "Settlement details
 *   a reader sees"): the one class the issuer's records name, else a labelled placeholder class
 *   (`chooseSettlementClass`). Which one can only be told once every record is known, so `mapUnit`
 *   writes the placeholder and marks the mapping (`assumedSettlementClass`), and `mapIssuer` and the
 *   accumulator rebind it (`rebindSettlementClass`): only class ids change, so a sync's stored mapping
 *   is rebound exactly as a fresh one.
 *
 * A unit (or an award without `shareClassName`) can only be resolved once every award of the issuer
 * is known (`ShareClassDirectory.complete`); until then one whose id no award has named yet waits (the
 * accumulator defers it, `mapIssuer` maps such awards after the others, a sync after the pull).
 */
import { isPositiveDecimal } from "../decimal.js";
import type { RestrictedStockAward, RestrictedStockUnit, Settlement } from "../source/records.js";
import { stockClassIdOf } from "./ids.js";
import type { MappedRecord, MappingOptions, RecordUses, StockClassUse } from "./types.js";

/** The key (so `stock-class-unstated-settlement-class`) of the placeholder class of settled shares. */
export const UNSTATED_SETTLEMENT_CLASS_KEY = "unstated-settlement-class";
/** The name of the placeholder class of settled shares: it says what it is. */
export const UNSTATED_SETTLEMENT_CLASS_NAME = "Placeholder class: shares delivered by settlements whose class the source does not give";
/** The name of the placeholder class when awards that name no class are in it too: it says what it is. */
export const UNSTATED_CLASS_NAME = "Placeholder class: shares whose class the source does not give";

/**
 * The names the issuer's awards give class ids.
 *
 * @category Mapping
 */
export interface ShareClassDirectory {
  /** The name awards give `shareClassId`, if any has. */
  nameOf(shareClassId: string): string | undefined;
  /** Every award of the issuer has been seen: an id no award names now stays unnamed. */
  readonly complete: boolean;
}

/** A directory that knows no names and is complete: only the issuer profile names ids. */
export const NO_AWARD_NAMES: ShareClassDirectory = { nameOf: () => undefined, complete: true };

/**
 * The class of an award: its `shareClassName`. Without one, the class its `shareClassId` names, as a
 * unit's (the issuer profile's name for the id, else the name another award gives it, else the id
 * itself: a placeholder class), with no `name` of its own: the award does not name the class, so it
 * is not counted among the awards that name an id (`class-names.ts`) and names no id for others.
 * Without either: the caller's `settlementStockClassName`, else the placeholder class of
 * `chooseSettlementClass`, which `mapIssuer` and the accumulator rebind (`assumesAwardClass`).
 * `"deferred"` when the award's class id may still be named by an award not yet seen.
 */
export function awardClassUse(record: RestrictedStockAward, options: MappingOptions | undefined, directory: ShareClassDirectory): StockClassUse | "deferred" {
  const labels = record.securityLabel === undefined ? [] : [record.securityLabel];
  const id = record.shareClassId;
  const own = record.shareClassName;
  if (own !== undefined) return { key: own, name: own, ...(id === undefined ? {} : { id }), labels };
  if (id === undefined) {
    const given = options?.settlementStockClassName;
    if (given !== undefined) return { key: given, name: given, labels };
    return { key: UNSTATED_SETTLEMENT_CLASS_KEY, name: UNSTATED_SETTLEMENT_CLASS_NAME, labels };
  }
  const name = options?.issuerProfile?.shareClasses?.[id]?.name ?? directory.nameOf(id);
  if (name !== undefined) return { key: name, id, labels };
  if (!directory.complete) return "deferred";
  return { key: id, id, labels };
}

/**
 * Whether an award's shares are in a class neither the award (`shareClassName`, `shareClassId`) nor
 * the options (`settlementStockClassName`) give: a class the mapping chooses, as for a unit's settled
 * shares (`chooseSettlementClass`).
 */
export function assumesAwardClass(record: RestrictedStockAward, options: MappingOptions | undefined): boolean {
  return record.shareClassName === undefined && record.shareClassId === undefined && options?.settlementStockClassName === undefined;
}

/**
 * The class a unit's settlements deliver: a `StockClassUse` (its labels are the certificate labels),
 * `undefined` when neither the unit nor the options say, or `"deferred"` when the unit's class id may
 * still be named by an award not yet seen.
 */
export function unitClassUse(record: RestrictedStockUnit, options: MappingOptions | undefined, directory: ShareClassDirectory): StockClassUse | undefined | "deferred" {
  const labels: string[] = [];
  for (const s of record.settlements) if (s.certificateLabel !== undefined) labels.push(s.certificateLabel);
  const id = record.shareClassId;
  if (id === undefined) {
    const name = options?.settlementStockClassName;
    if (name !== undefined) return { key: name, name, labels };
    return assumesSettlementClass(record, options) ? { key: UNSTATED_SETTLEMENT_CLASS_KEY, name: UNSTATED_SETTLEMENT_CLASS_NAME, labels } : undefined;
  }
  const name = options?.issuerProfile?.shareClasses?.[id]?.name ?? directory.nameOf(id);
  if (name !== undefined) return { key: name, name, id, labels };
  if (!directory.complete) return "deferred";
  return { key: id, id, labels };
}

/**
 * Whether the shares a unit's settlements deliver (net to the holder, or sold to cover taxes) are in
 * a class neither the unit (`shareClassId`) nor the options (`settlementStockClassName`) give.
 */
export function assumesSettlementClass(record: RestrictedStockUnit, options: MappingOptions | undefined): boolean {
  if (record.shareClassId !== undefined || options?.settlementStockClassName !== undefined) return false;
  return record.settlements.some(deliversShares);
}

/**
 * Whether a settlement issued shares: net shares to the holder, or shares sold to cover taxes. On the
 * record's text: a unit's class is decided before the unit is mapped (and its decimals parsed); the
 * mapping tests the parsed values (`issuesShares` of `settlement.ts`).
 */
function deliversShares(settlement: Settlement): boolean {
  return [settlement.netSettlementQuantity, settlement.saleQuantity].some((q) => q !== undefined && isPositiveDecimal(q));
}

/** Whether a unit's class `use` is the placeholder its mapping takes until the issuer's choice is known. */
export function isAssumedClass(record: RestrictedStockUnit, use: StockClassUse | undefined | "deferred"): boolean {
  return use !== undefined && use !== "deferred" && use.key === UNSTATED_SETTLEMENT_CLASS_KEY && record.shareClassId === undefined;
}

/**
 * The class the shares of units that name none go to: the one class the issuer's other records name
 * (`classUses`: awards' classes and units' class ids as they resolve), else the placeholder class.
 */
export function chooseSettlementClass(classUses: readonly StockClassUse[]): StockClassUse {
  const keys = new Set(classUses.map((use) => use.key));
  const [only] = keys;
  if (keys.size !== 1 || only === undefined) return { key: UNSTATED_SETTLEMENT_CLASS_KEY, name: UNSTATED_SETTLEMENT_CLASS_NAME, labels: [] };
  const name = classUses.find((use) => use.name !== undefined)?.name;
  return { key: only, ...(name === undefined ? {} : { name }), labels: [] };
}

/**
 * A mapping made with an assumed settlement class (`MappedRecord.assumedSettlementClass`), moved to
 * the class `choice`: its issuances' `stock_class_id` and its uses. Nothing else of a unit's mapping
 * depends on the class, so the result is what mapping it with that class gives. Others are returned as
 * they are.
 */
export function rebindSettlementClass(mapped: MappedRecord, choice: StockClassUse): MappedRecord {
  return mapped.assumedSettlementClass === true ? moveClass(mapped, choice) : mapped;
}

/**
 * A mapping whose class is a source class id that the issuer's records name two ways, moved to the
 * name the rule gives that id (`names`: class id → class name, see `class-names.ts`). Others are
 * returned as they are.
 */
export function renameClass(mapped: MappedRecord, names: ReadonlyMap<string, string>): MappedRecord {
  if (names.size === 0) return mapped;
  const id = mapped.uses.stockClasses[0]?.id;
  const name = id === undefined ? undefined : names.get(id);
  return name === undefined ? mapped : moveClass(mapped, { key: name, name, labels: [] });
}

/**
 * A record's mapping moved to the class `to`: its issuances' `stock_class_id` and its uses (a grant
 * uses one class at most). Nothing else of a grant's mapping depends on the class.
 */
function moveClass(mapped: MappedRecord, to: StockClassUse): MappedRecord {
  const [current] = mapped.uses.stockClasses;
  if (current === undefined || current.key === to.key) return mapped;
  const from = stockClassIdOf(current.key);
  const toId = stockClassIdOf(to.key);
  const transactions = mapped.transactions.map((tx) => ("stock_class_id" in tx && tx.stock_class_id === from ? { ...tx, stock_class_id: toId } : tx));
  return { ...mapped, transactions, uses: movedUses(mapped.uses, to) };
}

/** A record's uses moved to the class `to` (the source class id, if any, stays: the class lists it). */
export function movedUses(uses: RecordUses, to: StockClassUse): RecordUses {
  const [current] = uses.stockClasses;
  if (current === undefined || current.key === to.key) return uses;
  const use: StockClassUse = { key: to.key, ...(to.name === undefined ? {} : { name: to.name }), ...(current.id === undefined ? {} : { id: current.id }), labels: current.labels };
  const { plan } = uses;
  return { ...uses, stockClasses: [use], ...(plan === undefined ? {} : { plan: { ...plan, stockClassKey: to.key } }) };
}
