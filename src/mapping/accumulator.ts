/**
 * Maps an issuer one record at a time, for exports that stream: each record becomes its OCF objects
 * as soon as it arrives (the caller writes them out), and only what the issuer-level objects need is
 * kept: a line per record (claimed ids, uses; in a file for exports, see `KeptLine`), the hashes of the
 * claimed ids, a tally of the uses and the records' warnings. `finish` then builds the Issuer, Stakeholders, StockClasses
 * and StockPlans and settles what can only be settled with every record known, in the same canonical
 * order `mapIssuer` uses, so a streamed package and an in-memory one are identical:
 *
 * - a record listed twice (the service changed while we paged) keeps its most recently modified copy;
 *   the outcome of each later copy says `repeated`, for the caller's `DUPLICATE_RECORD` warning;
 * - two records whose OCF ids collide: the later one in canonical order (kind, then id) is quarantined,
 *   or, with `onInvalid: "fail"`, fails the issuer.
 */
import { dayNumber, dayOfNumber, isCalendarDate, type CalendarDate } from "../dates.js";
import type { OcfIssuer, OcfStakeholder, OcfStockClass, OcfStockPlan, OcfTransaction } from "../ocf/schemas.js";
import type { RecordKind } from "../source/kinds.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../source/records.js";
import { mapAward } from "./award.js";
import type { RecordMappingContext } from "./grant.js";
import { MappingError, isMappingError, mappingWarning, type MappingWarning } from "./errors.js";
import { mapIssuerObject } from "./issuer.js";
import { compareText } from "../ocf/order.js";
import { quoted } from "./quote.js";
import { mapStakeholders } from "./stakeholders.js";
import { SELL_TO_COVER_STAKEHOLDER_ID } from "./ids.js";
import { mapStockClasses, type MappedStockClasses } from "./stock-classes.js";
import { stockClassIdOf } from "./ids.js";
import { NumberList } from "../number-list.js";
import { MemoryLines, type RecordLines } from "./record-lines.js";
import { CountedMap, UsesTally, compactUses, type IssuerUses } from "./uses-tally.js";
import { mapStockPlans, plansWithoutClass } from "./stock-plans.js";
import type { Lineage, MapIssuerOptions, MappedRecord, MappingOptions, QuarantinedMapping, RecordUses, StockClassUse, UnvestedTranche } from "./types.js";
import { unvestedIssuerWarning, unvestedRecordWarning } from "./unvested.js";
import { assumesAwardClass, assumesSettlementClass, awardClassUse, chooseSettlementClass, movedUses, rebindSettlementClass, unitClassUse, UNSTATED_SETTLEMENT_CLASS_KEY, type ShareClassDirectory } from "./share-classes.js";
import { keepDeliveredShares } from "./delivered-shares.js";
import { settleClassNames, type SettledClassNames } from "./class-names.js";
import { mapUnit } from "./unit.js";
import { assertValidOcf } from "./validate.js";

/** A record as the accumulator receives it. */
export type SourceGrant =
  | { kind: "restrictedStockAward"; record: RestrictedStockAward }
  | { kind: "restrictedStockUnit"; record: RestrictedStockUnit };

/**
 * What is kept of each mapped record until `finish`, as one JSON line (`RecordLines`, in a file for
 * exports): its `lastModifiedDatetime`, the `[space, id]` pairs its objects claim, its uses (labels by
 * prefix), the day it counts for the default `asOf` and its earliest unvested tranche
 * (`MappedRecord.unvested`). In memory there is only the record's handle, the hashes of its claims,
 * that tranche's date (as a number) and its warnings (if any); the uses go into a `UsesTally`. The line is
 * read back only to take a record out again (a newer copy, a lost id collision) or to confirm that
 * two claims whose hashes meet are the same id.
 */
type KeptLine = [lastModified: string, claims: [ClaimSpace, string][], uses: RecordUses, day: string, unvested: UnvestedTranche | null];

/** Canonical order of records: kind, then id. */
function byKindThenId(a: readonly [RecordKind, string, ...unknown[]], b: readonly [RecordKind, string, ...unknown[]]): number {
  return compareText(a[0], b[0]) || compareText(a[1], b[1]);
}

/** Records by kind and id (no key string per record). */
class RecordTable<T> {
  private readonly byKind = new Map<RecordKind, Map<string, T>>();

  get(kind: RecordKind, recordId: string): T | undefined {
    return this.byKind.get(kind)?.get(recordId);
  }

  set(kind: RecordKind, recordId: string, value: T): void {
    let records = this.byKind.get(kind);
    if (records === undefined) this.byKind.set(kind, (records = new Map()));
    records.set(recordId, value);
  }

  delete(kind: RecordKind, recordId: string): boolean {
    return this.byKind.get(kind)?.delete(recordId) ?? false;
  }

  clear(): void {
    this.byKind.clear();
  }

  *entries(): IterableIterator<[RecordKind, string, T]> {
    for (const [kind, records] of this.byKind) for (const [recordId, value] of records) yield [kind, recordId, value];
  }
}

/** A 30-bit FNV-1a hash of a text's UTF-16 code units (small enough to be a small integer in V8). */
function hash30(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}

/**
 * The ids claimed so far while `finish` settles collisions among the records whose claim hashes meet,
 * each with the index (in canonical order) of the record that claimed it. Held by a hash of space and
 * id; a match is confirmed against the owner's own claims, and an id whose hash an other id already
 * holds is held exactly.
 */
class ClaimedIds {
  private readonly byHash = new Map<number, number>();
  private readonly exact = new Map<string, number>();

  constructor(private readonly claimsOf: (index: number) => readonly [ClaimSpace, string][]) {}

  ownerOf(space: ClaimSpace, id: string): number | undefined {
    const held = this.exact.get(`${space}\u0000${id}`);
    if (held !== undefined) return held;
    const first = this.byHash.get(claimHash(space, id));
    if (first === undefined) return undefined;
    return this.claimsOf(first).some(([s, i]) => s === space && i === id) ? first : undefined;
  }

  claim(space: ClaimSpace, id: string, index: number): void {
    const key = `${space}\u0000${id}`;
    const hash = claimHash(space, id);
    if (!this.byHash.has(hash)) this.byHash.set(hash, index);
    else if (!this.exact.has(key)) this.exact.set(key, index);
  }
}

/** The hash `ClaimedIds` holds a claim by. */
function claimHash(space: ClaimSpace, id: string): number {
  return hash30(`${space}\u0000${id}`);
}

/**
 * The result of adding one record. `repeated` says that a copy of the record (valid or not) was
 * added before: the record was listed twice (a `stale` copy always is).
 */
export type AddOutcome =
  /** Mapped: write its objects. `replaces` is the key of an earlier copy whose objects must be withdrawn. */
  | { status: "mapped"; key: string; mapped: MappedRecord; replaces?: string; repeated?: true }
  /** An older copy of a record already mapped: nothing to write. */
  | { status: "stale"; key: string; repeated: true }
  /**
   * A record whose class cannot be told yet (see `share-classes.ts`); until then nothing of it is kept.
   * `until: "awards"`: a unit, or an award without `shareClassName`, whose share class id no award has
   * named yet: add it again after `awardsComplete()`. `until: "records"`: a unit that names no class
   * and whose settlements deliver shares, or an award that names none: add it again after
   * `recordsComplete()`, when the class its shares go to is chosen.
   */
  | { status: "deferred"; key: string; until: "awards" | "records" }
  /**
   * Could not be mapped (quarantine mode); `replaces` and `repeated` as above. `mapped`, when there is
   * one, holds the shares its settlements delivered (`delivered-shares.ts`): write its objects under `key`.
   */
  | { status: "quarantined"; key: string; quarantined: QuarantinedMapping; mapped?: MappedRecord; replaces?: string; repeated?: true };

/**
 * The issuer-level objects and the final verdicts, from `finish`.
 *
 * @category Mapping
 */
export interface AccumulatedIssuer {
  issuer: OcfIssuer;
  asOf: CalendarDate;
  stakeholders: OcfStakeholder[];
  stockClasses: OcfStockClass[];
  stockPlans: OcfStockPlan[];
  /** The manifest's `comments`: the lineage convention and the placeholder figures. */
  manifestComments: string[];
  /** Keys of records whose objects must be withdrawn after all (they lost an id collision). */
  withdrawn: string[];
  /**
   * The class the shares of units that name none go to (the settlement class the accumulator chose), when
   * `recordsComplete()` chose one and some record took it: a mapping marked
   * `assumedSettlementClass` is rebound to it.
   */
  settlementClass?: StockClassUse;
  /** Class ids the records name two ways → the name chosen (`class-names.ts`); every record of such an id is moved to it. */
  classNames?: Record<string, string>;
  /**
   * The records already added whose class was moved that way (key → the `stock_class_id` their
   * objects have, and the one they get): the caller restamps their objects when it writes them.
   */
  restamped?: Map<string, { from: string; to: string }>;
  quarantined: QuarantinedMapping[];
  warnings: MappingWarning[];
}

/** The key of a record: its kind and id. */
export function grantKey(kind: RecordKind, recordId: string): string {
  return `${kind}\u0000${recordId}`;
}

/** One record's OCF objects: `mapAward` or `mapUnit`, by kind. */
export function mapGrant(grant: SourceGrant, context: RecordMappingContext): MappedRecord {
  return grant.kind === "restrictedStockAward" ? mapAward(grant.record, context) : mapUnit(grant.record, context);
}

/** Whether a transaction creates its security (and so claims the security id). */
export function isIssuance(tx: OcfTransaction): boolean {
  return tx.object_type === "TX_STOCK_ISSUANCE" || tx.object_type === "TX_EQUITY_COMPENSATION_ISSUANCE";
}

/** The space an OCF id is unique in: transactions, securities (by their issuance) or VestingTerms. */
export type ClaimSpace = "transaction" | "security" | "vestingTerms";

/**
 * A record whose `space` id `id` an earlier record (in canonical order) already claimed; `owner`
 * describes that record, e.g. `restrictedStockAward "1191"`.
 */
export function idCollisionError(issuerId: string, record: { kind: RecordKind; recordId: string }, space: ClaimSpace, id: string, owner: string): MappingError {
  return new MappingError("MAPPING_ID_COLLISION", { issuerId, record }, `its ${space === "vestingTerms" ? "vesting terms" : space} id ${JSON.stringify(id)} is already used by ${owner}`);
}

/** Where the accumulator keeps what it remembers of each record (see `KeptLine`). */
export interface AccumulatorStorage {
  /**
   * Makes the store of one line per record, disposed by `finish` or `dispose`: an export makes a file
   * (`recordLinesFileIn`, src/io/file-lines.ts), so that memory does not grow with the records.
   * @default in memory
   */
  lines?: () => RecordLines;
}

export class IssuerMappingAccumulator {
  /** The handle (in `lines`) of the copy that counts of each record mapped. */
  private readonly kept = new RecordTable<number>();
  /** The `lastModifiedDatetime` of the copy that counts of each record not kept (it was invalid). */
  private readonly newestInvalid = new RecordTable<string>();
  private readonly lines: RecordLines;
  /** Per handle, where its claims' hashes start in `claimHashes` (they end where the next one's start). */
  private claimStart = new NumberList((n) => new Uint32Array(n));
  private claimHashes = new NumberList((n) => new Int32Array(n));
  private readonly warningsOf = new Map<number, readonly MappingWarning[]>();
  /** Per handle, the `dayNumber` of the record's earliest unvested tranche (`MappedRecord.unvested`), 0 for none. */
  private unvestedDays = new NumberList((n) => new Int32Array(n));
  /** Per handle, 1 when the record's settled shares are in a class the mapping chose (`assumedSettlementClass`). */
  private assumedFlags = new NumberList((n) => new Int32Array(n));
  /** The class chosen for units that name none, once `recordsComplete()` was called. */
  private settlementClass: StockClassUse | undefined;
  /** How many classes the records named when the settlement class was chosen. */
  private namedClasses = 0;
  /** Records moved to the class chosen for their class id (see `AccumulatedIssuer.restamped`). */
  private restamped = new Map<string, { from: string; to: string }>();
  private tally = new UsesTally();
  /** How many kept records count for each day (the default `asOf` is the latest). */
  private days = new CountedMap<string>();
  private readonly quarantinedByKey = new Map<string, QuarantinedMapping>();
  private readonly onInvalid: "fail" | "quarantine";
  /** The names mapped awards give share class ids (the latest copy's, per id). */
  private classNames = new Map<string, string>();
  private allAwardsSeen = false;
  private finished = false;
  private readonly directory: ShareClassDirectory = {
    nameOf: (id) => this.classNames.get(id),
    get complete() {
      return false;
    },
  };

  constructor(
    readonly issuerId: string,
    private readonly options: MapIssuerOptions = {},
    storage: AccumulatorStorage = {},
  ) {
    this.onInvalid = options.onInvalid ?? "fail";
    if (options.asOf !== undefined && !isCalendarDate(options.asOf)) {
      throw new MappingError("MAPPING_INVALID_OPTION", { issuerId, path: "options.asOf" }, `${JSON.stringify(options.asOf)} is not a real calendar date of the form YYYY-MM-DD`, { value: options.asOf });
    }
    this.lines = storage.lines?.() ?? new MemoryLines();
  }

  private lineOf(handle: number): KeptLine {
    return JSON.parse(this.lines.read(handle)) as KeptLine;
  }

  /** Where the hashes of a handle's claims are in `claimHashes`. */
  private hashRange(handle: number): [start: number, end: number] {
    return [this.claimStart.at(handle), handle + 1 < this.claimStart.length ? this.claimStart.at(handle + 1) : this.claimHashes.length];
  }

  /**
   * The kept records one of whose claims has a hash that another claim of a kept record (its own or
   * another's) also has, in canonical order (kind, then id): the only ones that can hold an id twice.
   * It takes a typed array of the hashes, sorted, not a map of them.
   */
  private recordsWhoseHashesMeet(): [RecordKind, string, number][] {
    const hashes = new Int32Array(this.claimHashes.length);
    let count = 0;
    for (const [, , handle] of this.kept.entries()) {
      const [start, end] = this.hashRange(handle);
      for (let i = start; i < end; i++) hashes[count++] = this.claimHashes.at(i);
    }
    const sorted = hashes.subarray(0, count).sort();
    const meet = new Set<number>();
    for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) meet.add(sorted[i] as number);
    const records: [RecordKind, string, number][] = [];
    if (meet.size === 0) return records;
    for (const [kind, recordId, handle] of this.kept.entries()) {
      const [start, end] = this.hashRange(handle);
      for (let i = start; i < end; i++) {
        if (meet.has(this.claimHashes.at(i))) {
          records.push([kind, recordId, handle]);
          break;
        }
      }
    }
    return records.sort(byKindThenId);
  }

  /**
   * Whether a copy modified at `lastModified` is not older than the copy of the same record that
   * counts so far (mapped, or set aside as invalid); the caller then makes it the one that counts.
   */
  private claimNewest(kind: RecordKind, recordId: string, lastModified: string): "first" | "newer" | "stale" {
    const handle = this.kept.get(kind, recordId);
    const prior = handle === undefined ? this.newestInvalid.get(kind, recordId) : this.lineOf(handle)[0];
    if (prior === undefined) return "first";
    return prior <= lastModified ? "newer" : "stale";
  }

  /** Takes a kept record out (a newer copy replaces it, or it lost an id collision). */
  private takeOut(handle: number): void {
    const [, , uses, day] = this.lineOf(handle);
    this.tally.remove(uses);
    this.days.change(day, () => day, -1);
    this.warningsOf.delete(handle);
  }

  /** Takes out the earlier copy of a record that a newer one replaces: what the outcome says of it. */
  private takePrior(kind: RecordKind, recordId: string, claim: "first" | "newer"): { replaces?: string; repeated?: true } {
    const replaces = this.drop(kind, recordId) ? { replaces: grantKey(kind, recordId) } : {};
    return claim === "newer" ? { ...replaces, repeated: true } : replaces;
  }

  /** Takes out the kept copy of a record, if there is one; whether there was. */
  private drop(kind: RecordKind, recordId: string): boolean {
    const handle = this.kept.get(kind, recordId);
    if (handle === undefined) return false;
    this.takeOut(handle);
    this.kept.delete(kind, recordId);
    return true;
  }

  /**
   * Says that every award of the issuer has been added: a unit (or an award without `shareClassName`)
   * whose class id no award names is now mapped with the id as its class key (a placeholder class),
   * instead of being deferred.
   */
  awardsComplete(): void {
    this.allAwardsSeen = true;
  }

  /**
   * Says that every record of the issuer has been added (the records deferred until the awards were
   * complete too): the class of the shares delivered by units that name none, and of awards that name
   * none, is chosen now, from the classes the records kept name (`chooseSettlementClass`), and such
   * records, added again, are mapped into it.
   */
  recordsComplete(): void {
    this.allAwardsSeen = true;
    if (this.settlementClass !== undefined) return;
    const classUses = this.tally.summary().stockClasses;
    this.settlementClass = chooseSettlementClass(classUses);
    this.namedClasses = new Set(classUses.map((use) => use.key)).size;
  }

  /** A mapping with an assumed class, moved to the class chosen (`recordsComplete`). */
  private rebound(mapped: MappedRecord): MappedRecord {
    return this.settlementClass === undefined ? mapped : rebindSettlementClass(mapped, this.settlementClass);
  }

  private directoryNow(): ShareClassDirectory {
    return this.allAwardsSeen ? { nameOf: this.directory.nameOf, complete: true } : this.directory;
  }

  private assertOpen(): void {
    if (this.finished) throw new Error("IssuerMappingAccumulator: finish() was called; it takes no more records");
  }

  /** Maps one record. Throws its `MappingError` when `onInvalid` is `"fail"`. */
  add(grant: SourceGrant): AddOutcome {
    this.assertOpen();
    const shareClasses = this.directoryNow();
    const key = grantKey(grant.kind, grant.record.id);
    if (grant.kind === "restrictedStockUnit") {
      if (unitClassUse(grant.record, this.options, shareClasses) === "deferred") return { status: "deferred", key, until: "awards" };
      // Under strict, mapped now: the choice is refused whatever it would be.
      if (this.settlementClass === undefined && this.options.strict !== true && assumesSettlementClass(grant.record, this.options)) return { status: "deferred", key, until: "records" };
    } else {
      // An award that names no class: as a unit, by its class id, else by the class chosen for the issuer.
      if (awardClassUse(grant.record, this.options, shareClasses) === "deferred") return { status: "deferred", key, until: "awards" };
      if (this.settlementClass === undefined && this.options.strict !== true && assumesAwardClass(grant.record, this.options)) return { status: "deferred", key, until: "records" };
    }
    const context: RecordMappingContext = { issuerId: this.issuerId, options: this.options, shareClasses };
    const salvage = grant.kind === "restrictedStockUnit" ? () => keepDeliveredShares(grant.record, context) : undefined;
    return this.keep(grant.kind, grant.record.id, grant.record.lastModifiedDatetime ?? "", () => mapGrant(grant, context), salvage);
  }

  /**
   * A record already mapped by `mapAward` or `mapUnit` with these options (a sync keeps each record's
   * mapping between runs): kept exactly as `add` keeps it, without mapping it again. A unit's mapping
   * must have been made with the names the issuer's awards give class ids (`shareClassNamesOf`).
   *
   * @param lastModified the record's `lastModifiedDatetime` (normalized), `""` when it has none
   */
  addMapped(mapped: MappedRecord, lastModified: string): AddOutcome {
    this.assertOpen();
    if (mapped.assumedSettlementClass === true && this.settlementClass === undefined) return { status: "deferred", key: grantKey(mapped.kind, mapped.recordId), until: "records" };
    return this.keep(mapped.kind, mapped.recordId, lastModified, () => mapped);
  }

  private keep(kind: RecordKind, recordId: string, lastModified: string, mapRecord: () => MappedRecord, salvage?: () => ReturnType<typeof keepDeliveredShares>): AddOutcome {
    const key = grantKey(kind, recordId);
    const claim = this.claimNewest(kind, recordId, lastModified);
    if (claim === "stale") return { status: "stale", key, repeated: true };
    const prior = this.takePrior(kind, recordId, claim);
    this.newestInvalid.delete(kind, recordId);
    this.quarantinedByKey.delete(key);
    let mapped: MappedRecord;
    try {
      mapped = this.rebound(mapRecord());
    } catch (error) {
      if (!isMappingError(error) || this.onInvalid === "fail") throw error;
      const kept = salvage?.();
      const quarantined: QuarantinedMapping = { kind, recordId, error, ...(kept === undefined ? {} : { deliveredShares: kept.delivered }) };
      this.quarantinedByKey.set(key, quarantined);
      if (kept?.mapped === undefined) {
        this.newestInvalid.set(kind, recordId, lastModified);
        return { status: "quarantined", key, quarantined, ...prior };
      }
      const delivered = this.rebound(kept.mapped);
      this.hold(kind, recordId, lastModified, delivered);
      return { status: "quarantined", key, quarantined, mapped: delivered, ...prior };
    }
    this.hold(kind, recordId, lastModified, mapped);
    return { status: "mapped", key, mapped, ...prior };
  }

  /** Keeps what `finish` needs of a mapped record (see `KeptLine`); its handle. */
  private hold(kind: RecordKind, recordId: string, lastModified: string, mapped: MappedRecord): number {
    const claims: [ClaimSpace, string][] = [];
    let day = mapped.uses.lastModifiedDatetime?.slice(0, 10) ?? "";
    for (const tx of mapped.transactions) {
      claims.push(["transaction", tx.id]);
      if (isIssuance(tx)) claims.push(["security", tx.security_id]);
      if (tx.date > day) day = tx.date;
    }
    for (const terms of mapped.vestingTerms) claims.push(["vestingTerms", terms.id]);
    if (kind === "restrictedStockAward") {
      for (const use of mapped.uses.stockClasses) if (use.id !== undefined && use.name !== undefined) this.classNames.set(use.id, use.name);
    }
    const uses = compactUses(mapped.uses);
    const line: KeptLine = [lastModified, claims, uses, day, mapped.unvested ?? null];
    const handle = this.lines.append(JSON.stringify(line));
    this.unvestedDays.push(mapped.unvested === undefined ? 0 : dayNumber(mapped.unvested.date));
    this.assumedFlags.push(mapped.assumedSettlementClass === true ? 1 : 0);
    this.claimStart.push(this.claimHashes.length);
    for (const [space, id] of claims) this.claimHashes.push(claimHash(space, id));
    this.tally.add(uses);
    this.days.change(day, () => day, 1);
    if (mapped.warnings.length > 0) this.warningsOf.set(handle, mapped.warnings);
    this.kept.set(kind, recordId, handle);
    return handle;
  }

  /**
   * A copy of a record that failed validation before mapping (the caller quarantines it). If it is the
   * newest copy seen, it replaces an earlier valid copy (whose objects the caller withdraws:
   * `replaces`); if an newer copy is already known, it is `stale` and changes nothing.
   */
  addInvalid(kind: RecordKind, recordId: string, lastModified: string): { status: "stale"; key: string; repeated: true } | { status: "invalid"; key: string; replaces?: string; repeated?: true } {
    this.assertOpen();
    const key = grantKey(kind, recordId);
    const claim = this.claimNewest(kind, recordId, lastModified);
    if (claim === "stale") return { status: "stale", key, repeated: true };
    const prior = this.takePrior(kind, recordId, claim);
    this.newestInvalid.set(kind, recordId, lastModified);
    this.quarantinedByKey.delete(key);
    return { status: "invalid", key, ...prior };
  }

  /**
   * Settles id collisions in canonical order and builds the issuer-level objects. Once it has
   * returned (or thrown), what was kept of each record is let go (the package is written after this,
   * and an issuer may have 100k+ records) and the accumulator takes no more records.
   * @throws {MappingError} for an id collision under `onInvalid: "fail"`, or an invalid option.
   */
  finish(): AccumulatedIssuer {
    this.assertOpen();
    try {
      return this.settle();
    } finally {
      this.dispose();
    }
  }

  /** Lets go of everything kept (and deletes the spill file); the accumulator takes no more records. */
  dispose(): void {
    this.finished = true;
    this.kept.clear();
    this.newestInvalid.clear();
    this.lines.dispose();
    this.warningsOf.clear();
    this.quarantinedByKey.clear();
    this.claimStart = new NumberList((n) => new Uint32Array(n));
    this.claimHashes = new NumberList((n) => new Int32Array(n));
    this.unvestedDays = new NumberList((n) => new Int32Array(n));
    this.assumedFlags = new NumberList((n) => new Int32Array(n));
    this.tally = new UsesTally();
    this.days = new CountedMap<string>();
    this.classNames.clear();
  }

  /**
   * Class ids the kept records name two ways: the name the rule gives each (`class-names.ts`), and
   * every record of such an id moved to it in the tally (`restamped` says which, for their objects).
   * Under `strict` nothing is settled: `issuerObjectsOf` refuses the conflict.
   */
  private settleClassNames(): SettledClassNames | undefined {
    if (this.options.strict === true) return undefined;
    const inOrder = (): [RecordKind, string, number][] => [...this.kept.entries()].sort(byKindThenId);
    const settled = settleClassNames(this.issuerId, this.options.issuerProfile, this.tally.summary().stockClasses, () =>
      inOrder().map(([kind, recordId, handle]) => [kind, recordId, this.lineOf(handle)[2]] as const),
    );
    if (settled === undefined) return undefined;
    for (const [kind, recordId, handle] of inOrder()) {
      const uses = this.lineOf(handle)[2];
      const [use] = uses.stockClasses;
      const name = use?.id === undefined ? undefined : settled.names.get(use.id);
      if (use === undefined || name === undefined || name === use.key) continue;
      this.tally.remove(uses);
      this.tally.add(movedUses(uses, { key: name, name, labels: [] }));
      this.restamped.set(grantKey(kind, recordId), { from: stockClassIdOf(use.key), to: stockClassIdOf(name) });
    }
    return settled;
  }

  private settle(): AccumulatedIssuer {
    const issuerId = this.issuerId;
    const withdrawn: string[] = [];
    // Only records that share a claim's hash with another claim can collide: they are settled in
    // canonical order as mapIssuer does; every other record keeps its ids without a look at them.
    const meeting = this.recordsWhoseHashesMeet();
    // Each claimed id → the index in `meeting` of the record that owns it.
    const claimsOf = (index: number): [ClaimSpace, string][] => {
      const entry = meeting[index];
      return entry === undefined ? [] : this.lineOf(entry[2])[1];
    };
    const claimed = new ClaimedIds(claimsOf);
    for (const [index, [kind, recordId, handle]] of meeting.entries()) {
      const claims = claimsOf(index);
      let clash: { space: ClaimSpace; id: string; owner: number } | undefined;
      for (const [space, id] of claims) {
        const owner = claimed.ownerOf(space, id);
        if (owner !== undefined) {
          clash = { space, id, owner };
          break;
        }
      }
      if (clash === undefined) {
        for (const [space, id] of claims) claimed.claim(space, id, index);
        continue;
      }
      const { space, id } = clash;
      // The owner is an earlier entry of `meeting`, so never this record (each is there once).
      const [otherKind, otherId] = meeting[clash.owner] ?? [];
      const error = idCollisionError(issuerId, { kind, recordId }, space, id, `${otherKind} ${quoted(otherId ?? "")}`);
      if (this.onInvalid === "fail") throw error;
      const key = grantKey(kind, recordId);
      withdrawn.push(key);
      // A quarantined unit's delivered shares that collide: the unit's own error stays, its shares are not kept.
      const salvaged = this.quarantinedByKey.get(key);
      this.quarantinedByKey.set(
        key,
        salvaged?.deliveredShares === undefined ? { kind, recordId, error } : { ...salvaged, deliveredShares: { kept: [], notKept: [...salvaged.deliveredShares.notKept, `its delivered shares cannot be kept: ${error.message}`] } },
      );
      this.takeOut(handle);
      this.kept.delete(kind, recordId);
    }
    let asOf = this.options.asOf;
    if (asOf === undefined) {
      let latest = "";
      for (const day of this.days.keys()) if (day > latest) latest = day;
      if (latest !== "") asOf = latest;
    }
    if (asOf === undefined) {
      throw new MappingError("MAPPING_MISSING_VALUE", { issuerId, path: "options.asOf" }, "is not given, and no record has a date to take it from");
    }
    // Tranches the package vests by date before its as-of date that the source has not vested.
    const asOfDay = dayNumber(asOf);
    let earliestUnvested = 0;
    const unvestedLate = new Map<number, MappingWarning>();
    for (const [kind, recordId, handle] of this.kept.entries()) {
      const day = this.unvestedDays.at(handle);
      if (day === 0) continue;
      if (earliestUnvested === 0 || day < earliestUnvested) earliestUnvested = day;
      const tranche = day <= asOfDay ? this.lineOf(handle)[4] : null;
      if (tranche !== null) unvestedLate.set(handle, unvestedRecordWarning(issuerId, { kind, recordId }, tranche, asOf));
    }
    // The records' warnings, in canonical order (only records with warnings are sorted).
    const warned: [RecordKind, string, readonly MappingWarning[]][] = [];
    for (const [kind, recordId, handle] of this.kept.entries()) {
      const warnings = this.warningsOf.get(handle);
      const late = unvestedLate.get(handle);
      if (late !== undefined) warned.push([kind, recordId, [...(warnings ?? []), late]]);
      else if (warnings !== undefined) warned.push([kind, recordId, warnings]);
    }
    warned.sort(byKindThenId);
    const recordWarnings = warned.flatMap(([, , warnings]) => warnings);
    const assumed = new AssumedRecords();
    for (const [kind, recordId, handle] of this.kept.entries()) if (this.assumedFlags.at(handle) === 1) assumed.add(kind, recordId);
    const settlement = this.settlementClass === undefined ? undefined : assumed.statement(this.settlementClass, this.namedClasses);
    const classNames = this.settleClassNames();
    const { issuer, stakeholders, stockClasses, stockPlans, manifestComments, warnings: headWarnings } = issuerObjectsOf(issuerId, this.options, this.tally.summary(), asOf, { settlement, classNames });
    const quarantined = [...this.quarantinedByKey.values()].sort(
      (a, b) => compareText(a.kind, b.kind) || compareText(a.recordId, b.recordId),
    );
    return {
      issuer,
      asOf,
      stakeholders,
      stockClasses,
      stockPlans,
      manifestComments,
      withdrawn,
      // Only when some record took it: a sync's change set compares it between packages.
      ...(this.settlementClass === undefined || assumed.count === 0 ? {} : { settlementClass: this.settlementClass }),
      ...(classNames === undefined ? {} : { classNames: Object.fromEntries(classNames.names), restamped: this.restamped }),
      quarantined,
      warnings: [...headWarnings, ...(unvestedLate.size === 0 ? [] : [unvestedIssuerWarning(issuerId, unvestedLate.size, dayOfNumber(earliestUnvested), asOf)]), ...recordWarnings],
    };
  }
}

/** The issuer-level objects of a package, and what its manifest says about it. */
export interface IssuerObjects {
  issuer: OcfIssuer;
  stakeholders: OcfStakeholder[];
  stockClasses: OcfStockClass[];
  stockPlans: OcfStockPlan[];
  manifestComments: string[];
  warnings: MappingWarning[];
}

/**
 * The Issuer, Stakeholders, StockClasses and StockPlans of an issuer from what its mapped records use,
 * each checked against the OCF schemas (an invalid one comes from the caller's options: a country
 * "usa", …), and the manifest's comments: the lineage convention and every placeholder figure.
 * Shared by `mapIssuer` and the accumulator so that both build them the same way.
 */
export function issuerObjectsOf(
  issuerId: string,
  options: MappingOptions,
  uses: IssuerUses,
  asOf: CalendarDate,
  chosen: { settlement?: SettlementClassStatement | undefined; classNames?: SettledClassNames | undefined } = {},
): IssuerObjects {
  const { settlement, classNames } = chosen;
  checkClassKeys(issuerId, uses.stockClasses);
  const { issuer, warnings: issuerWarnings } = mapIssuerObject(issuerId, options.issuerProfile, uses.earliestDate === undefined ? [] : [uses.earliestDate], asOf);
  const { soldToCover } = uses;
  const { stakeholders, warnings: stakeholderWarnings } = mapStakeholders(issuerId, uses.stakeholderIds, options.stakeholders, { soldToCover });
  // A plan whose grants name no class (units without shareClassId that deliver nothing): the class
  // chosen as for settled shares, stated; strict refuses it (mapStockPlans throws).
  const planClass = options.strict === true || plansWithoutClass(uses.plans).length === 0 ? undefined : chooseSettlementClass(uses.stockClasses);
  const classUses = planClass === undefined || uses.stockClasses.some((use) => use.key === planClass.key) ? uses.stockClasses : [...uses.stockClasses, planClass];
  const classes = mapStockClasses(issuerId, classUses, options.issuerProfile, { holdsAwards: settlement?.awards !== undefined && settlement.choice.key === UNSTATED_SETTLEMENT_CLASS_KEY });
  const plans = mapStockPlans(issuerId, uses.plans, options.issuerProfile, planClass?.key);
  const planWords = planClass === undefined ? undefined : planClassWords(issuerId, plans.classChosenFor, planClass);
  assertValidOcf({ issuerId, path: "options.issuerProfile" }, [issuer]);
  assertValidOcf({ issuerId, path: "options.stakeholders" }, stakeholders);
  assertValidOcf({ issuerId, path: "options.issuerProfile" }, [...classes.stockClasses, ...plans.stockPlans]);
  const statement = settlement === undefined ? undefined : settlementClassWords(issuerId, settlement);
  const warnings = [
    ...issuerWarnings,
    ...stakeholderWarnings,
    ...classes.warnings,
    ...(statement === undefined ? [] : [statement.warning]),
    ...(planWords === undefined ? [] : [planWords.warning]),
    ...(classNames?.warnings ?? []),
  ];
  const manifestComments = [
    LINEAGE_COMMENT[options.lineage ?? "documents"],
    ...(soldToCover ? [SELL_TO_COVER_COMMENT] : []),
    ...(statement === undefined ? [] : [statement.comment]),
    ...(planWords === undefined ? [] : [planWords.comment]),
    ...(classNames?.manifestComments ?? []),
    ...placeholderComment(warnings, classes.placeholders, plans.placeholderReserves),
  ];
  return { issuer, stakeholders, stockClasses: classes.stockClasses, stockPlans: plans.stockPlans, manifestComments, warnings };
}

/** How many records of a kind took the chosen class, and the first few ids in canonical order. */
export interface AssumedIds {
  count: number;
  /** The first ids in canonical order. */
  examples: string[];
}

/** How many units (and awards) took the chosen settlement class, a few of their ids, and the class. */
export interface SettlementClassStatement {
  choice: StockClassUse;
  /** How many classes the other records name (1: the choice is that class; else the placeholder). */
  classes: number;
  /** The units whose settled shares are in the class. */
  count: number;
  /** The first ids in canonical order. */
  examples: string[];
  /** The awards (no `shareClassName`, no `shareClassId`) whose shares are in the class, when any are. */
  awards?: AssumedIds;
}

/** Ids in canonical order: how many, and the first few. */
class FirstIds {
  count = 0;
  readonly first: string[] = [];

  constructor(private readonly shown: number) {}

  add(recordId: string): void {
    this.count += 1;
    const at = this.first.findIndex((id) => compareText(recordId, id) < 0);
    if (at === -1) {
      if (this.first.length < this.shown) this.first.push(recordId);
      return;
    }
    this.first.splice(at, 0, recordId);
    if (this.first.length > this.shown) this.first.pop();
  }
}

/** The ids of the records whose shares are in a chosen class, per kind: how many, and the first few in canonical order. */
export class AssumedRecords {
  private readonly units: FirstIds;
  private readonly awards: FirstIds;

  constructor(shown = 5) {
    this.units = new FirstIds(shown);
    this.awards = new FirstIds(shown);
  }

  get count(): number {
    return this.units.count + this.awards.count;
  }

  add(kind: RecordKind, recordId: string): void {
    (kind === "restrictedStockAward" ? this.awards : this.units).add(recordId);
  }

  /** The statement for the issuer, `undefined` when no record took a chosen class. */
  statement(choice: StockClassUse, classes: number): SettlementClassStatement | undefined {
    if (this.count === 0) return undefined;
    const { units, awards } = this;
    return { choice, classes, count: units.count, examples: [...units.first], ...(awards.count === 0 ? {} : { awards: { count: awards.count, examples: [...awards.first] } }) };
  }
}

/** `2 units (restrictedStockUnit "1", "2")`: how many records of a kind, and the first ids. */
function recordsWords(word: string, kind: RecordKind, { count, examples }: AssumedIds): string {
  return `${count} ${word}${count === 1 ? "" : "s"} (${kind} ${examples.map(quoted).join(", ")}${count > examples.length ? ` and ${count - examples.length} more` : ""})`;
}

/** The issuer's `SETTLEMENT_CLASS_ASSUMED` warning and the manifest line that says the same. */
function settlementClassWords(issuerId: string, { choice, classes, count, examples, awards }: SettlementClassStatement): { warning: MappingWarning; comment: string } {
  const units = recordsWords("unit", "restrictedStockUnit", { count, examples });
  const id = stockClassIdOf(choice.key);
  const where =
    choice.key === UNSTATED_SETTLEMENT_CLASS_KEY
      ? `the placeholder class ${quoted(id)} (the issuer's records name ${classes} classes: none to choose)`
      : `${quoted(id)}, the one class the issuer's records name`;
  const settle = "--settlement-class NAME (library option settlementStockClassName) settles it; --strict refuses the choice";
  if (awards !== undefined) {
    // Awards that name no class (shareClassName, shareClassId) take the same choice as such units.
    const named = recordsWords("award", "restrictedStockAward", awards);
    const verb = (n: number): string => (n === 1 ? "names" : "name");
    const alsoUnits = count === 0 ? "" : `, and ${units} ${verb(count)} none (shareClassId) and ${count === 1 ? "its" : "their"} settlements deliver shares`;
    const alsoUnitsShares = count === 0 ? "" : ` and the shares delivered by the settlements of ${units}, which ${verb(count)} none,`;
    return {
      warning: mappingWarning(
        "SETTLEMENT_CLASS_ASSUMED",
        { issuerId, path: "shareClassName" },
        `${named} ${verb(awards.count)} no share class (shareClassName, shareClassId)${alsoUnits}; the source does not give the class of those shares, so they are put in ${where}. ${settle}.`,
      ),
      comment: `Share class chosen, not a fact: the shares of ${named}, which ${verb(awards.count)} no share class,${alsoUnitsShares} are in ${where}. ${settle}.`,
    };
  }
  return {
    warning: mappingWarning(
      "SETTLEMENT_CLASS_ASSUMED",
      { issuerId, path: "shareClassId" },
      `${units} ${count === 1 ? "names no share class (shareClassId) and its" : "name no share class (shareClassId) and their"} settlements deliver shares; the source does not give the class of those shares, so they are put in ${where}. ${settle}.`,
    ),
    comment: `Settlement class chosen, not a fact: the shares delivered by the settlements of ${units}, which name no share class, are in ${where}. ${settle}.`,
  };
}

/** The `SETTLEMENT_CLASS_ASSUMED` warning of plans whose grants name no class, and its manifest line. */
function planClassWords(issuerId: string, planIds: readonly string[], choice: StockClassUse): { warning: MappingWarning; comment: string } {
  const id = stockClassIdOf(choice.key);
  const where = choice.key === UNSTATED_SETTLEMENT_CLASS_KEY ? `the placeholder class ${quoted(id)} (the issuer's records name no one class)` : `${quoted(id)}, the one class the issuer's records name`;
  const problem = `stock plan${planIds.length === 1 ? "" : "s"} ${planIds.map(quoted).join(", ")}: no grant under ${planIds.length === 1 ? "it" : "them"} names a share class (units without shareClassId), and OCF needs a plan's stock_class_ids; ${where} is given. --settlement-class NAME (library option settlementStockClassName) settles it; --strict refuses the choice.`;
  return { warning: mappingWarning("SETTLEMENT_CLASS_ASSUMED", { issuerId, path: "options.settlementStockClassName" }, problem), comment: `Plan class chosen, not a fact: ${problem}` };
}

/**
 * The manifest line that declares how the package carries partial cancellations. Readers and
 * `ocf-sync validate` look for the `Lineage: <convention>` at its start.
 */
export const LINEAGE_COMMENT: Readonly<Record<Lineage, string>> = {
  documents:
    "Lineage: documents. A cancellation ends the security it acts on; what remains is a new issuance named by its balance_security_id (OCF TraversingTransactions), and every later transaction of the grant acts on that security. Releases are the one exception, forced by OCF 1.2.0: TX_EQUITY_COMPENSATION_RELEASE has no balance_security_id, so the units not yet released stay on the RSU's own security (outstanding = issued - released).",
  "same-security":
    "Lineage: same-security (OCF #531). Partial cancellations and releases keep what remains on the grant's own security: outstanding = issued - released - cancelled; no balance securities are issued.",
};

const SELL_TO_COVER_COMMENT = `Net settlement: a release counts the gross units; the net shares delivered are issued to the holder (share_price 0, cost_basis their value at settlement) and the shares sold to cover taxes to the stakeholder ${SELL_TO_COVER_STAKEHOLDER_ID}, who stands for their buyers; withheld shares are never issued.`;

/** One manifest line listing every figure that is a placeholder, not a fact (none: no line). */
function placeholderComment(warnings: readonly MappingWarning[], classes: MappedStockClasses["placeholders"], planReserves: readonly string[]): string[] {
  const parts: string[] = [];
  const issuerFields = warnings.filter((w) => w.code === "PLACEHOLDER_ISSUER").map((w) => w.path?.replace("options.issuerProfile.", "") ?? "");
  if (issuerFields.length > 0) parts.push(`the issuer's ${issuerFields.join(", ")}`);
  const unnamed = warnings.find((w) => w.code === "PLACEHOLDER_STAKEHOLDERS");
  if (unnamed !== undefined) parts.push("the names and types of the stakeholders not in the stakeholder directory (see each one's comments)");
  for (const { id, fields } of classes) parts.push(`${id}: ${fields.join(", ")}`);
  for (const id of planReserves) parts.push(`${id}: initial_shares_reserved (a lower bound: the sum granted under it)`);
  if (parts.length === 0) return [];
  return [`Placeholders, not facts (the API does not give them; an issuer profile and a stakeholder directory can): ${parts.join("; ")}.`];
}

/** A share class id may stand for one class only: two names for one id is a contradiction no package can carry. */
function checkClassKeys(issuerId: string, classUses: readonly StockClassUse[]): void {
  const keyOf = new Map<string, string>();
  for (const { id, key } of classUses) {
    if (id === undefined) continue;
    const known = keyOf.get(id);
    if (known === undefined) keyOf.set(id, key);
    else if (known !== key) {
      throw new MappingError(
        "MAPPING_CONFLICT",
        { issuerId },
        `share class id ${JSON.stringify(id)} is named both ${JSON.stringify(known)} and ${JSON.stringify(key)} (by the issuer's awards or the issuer profile); a class id can name one class only`,
        { value: id },
      );
    }
  }
}
