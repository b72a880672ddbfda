/**
 * The options and results of the mapping (`mapIssuer`, `mapAward`, `mapUnit`).
 */
import type { CalendarDate, UtcDateTime } from "../dates.js";
import type { DecimalString } from "../decimal.js";
import type {
  OcfIssuer,
  OcfStakeholder,
  OcfStockClass,
  OcfStockPlan,
  OcfTransaction,
  OcfVestingTerms,
} from "../ocf/schemas.js";
import type { RecordKind } from "../source/kinds.js";
import type { MappingError, MappingWarning } from "./errors.js";
import type { Lineage } from "../ocf/security-ledger.js";

/**
 * What is known about a share class beyond what the API gives (a name on awards, an id on some
 * records). Every field replaces a placeholder of the StockClass (each named in its comments and in
 * the manifest's comments).
 *
 * @category Mapping
 */
export interface ShareClassProfile {
  /** The class's name: needed when the source gives only its id (`shareClassId`). */
  name?: string;
  /** @default "COMMON" (a placeholder) */
  classType?: "COMMON" | "PREFERRED";
  /** A decimal, `"UNLIMITED"` or `"NOT APPLICABLE"`. @default "NOT APPLICABLE" (a placeholder) */
  authorizedShares?: string;
  /** @default "1" (a placeholder) */
  votesPerShare?: string;
  /** @default "1" (a placeholder) */
  seniority?: string;
  /** Par value per share. */
  parValue?: { amount: string; currency: string };
  /** Certificate prefix, e.g. `"CS-"`. @default the prefix the class's security labels share, else "CS-" */
  idPrefix?: string;
  /** `YYYY-MM-DD`. */
  boardApprovalDate?: string;
}

/**
 * What is known about an equity incentive plan beyond its name (the API has no plan endpoint).
 *
 * @category Mapping
 */
export interface StockPlanProfile {
  /** Shares reserved by the plan, a decimal. @default the sum granted under it in the export (a lower bound, a placeholder) */
  initialSharesReserved?: string;
  /** `YYYY-MM-DD`. */
  boardApprovalDate?: string;
  /** `YYYY-MM-DD`. */
  stockholderApprovalDate?: string;
}

/**
 * What is known about the issuer beyond its id. Every field replaces a placeholder (and its warning).
 *
 * @category Mapping
 */
export interface IssuerProfile {
  /** The issuer's legal name. @default `"Issuer <issuerId>"` (a placeholder, with a warning) */
  legalName?: string;
  /** "Doing business as" name. */
  dba?: string;
  /** `YYYY-MM-DD`. @default the earliest date in the mapped records (a placeholder, with a warning) */
  formationDate?: string;
  /** ISO 3166-1 alpha-2, upper case. @default `"US"` (a placeholder, with a warning) */
  countryOfFormation?: string;
  /** ISO 3166-2 subdivision without the country prefix, e.g. `"DE"` for Delaware. */
  countrySubdivisionOfFormation?: string;
  /**
   * Share classes, keyed by the source's `shareClassId` (a UUID) or by the class name awards give
   * (`shareClassName`). A unit, and an award without `shareClassName`, names its class only by id; its
   * `name` here is how such a class gets its name (else the name an award of the issuer gives the id).
   */
  shareClasses?: Readonly<Record<string, ShareClassProfile>>;
  /** Equity incentive plans, keyed by `equityIncentivePlanName`. */
  stockPlans?: Readonly<Record<string, StockPlanProfile>>;
}

/**
 * A stakeholder as a directory knows it (the source gives only stakeholder ids).
 *
 * @category Mapping
 */
export interface StakeholderEntry {
  legalName: string;
  firstName?: string;
  lastName?: string;
  /** @default "INDIVIDUAL" */
  type?: "INDIVIDUAL" | "INSTITUTION";
  /** An OCF `StakeholderRelationshipType`, e.g. `"EMPLOYEE"`. */
  currentRelationship?: OcfStakeholder["current_relationship"];
}

/**
 * How records are mapped. Every option is optional; the defaults are documented in `mappings/README.md`.
 *
 * @category Mapping
 */
export interface MappingOptions {
  /** Replaces the Issuer placeholders. */
  issuerProfile?: IssuerProfile;
  /** Names of stakeholders, keyed by the source's `stakeholderId`. Others get placeholder names. */
  stakeholders?: ReadonlyMap<string, StakeholderEntry>;
  /**
   * The share class name of the shares a unit's settlements deliver, for units that carry no
   * `shareClassId`, of the shares of awards that carry neither `shareClassName` nor `shareClassId`
   * (and the class of a plan none of whose grants names one). A unit with a `shareClassId` delivers shares of that class (named by an award
   * of the issuer with the same class id, else by `issuerProfile.shareClasses`). Without either, the
   * shares a unit's settlements deliver (and an award's shares) go to the one class the issuer's
   * records name, else to a labelled placeholder class; either way with a `SETTLEMENT_CLASS_ASSUMED` warning and a manifest
   * comment (`strict` refuses the choice).
   * @example
   * ```ts
   * "Common Stock"
   * ```
   */
  settlementStockClassName?: string;
  /**
   * Turns every choice the mapping makes where the source leaves a fact out into a `MappingError`
   * naming the issuer, record, field, value and the option that settles it; the record then fails its
   * issuer or is quarantined, as `onInvalid` says. The choices: the class of the shares delivered by
   * a unit without `shareClassId`, and of an award without `shareClassName` and `shareClassId` (settled
   * by `settlementStockClassName`); a placeholder class for a `shareClassId` no award and no issuer
   * profile names (a unit's, or that of an award without `shareClassName`), and the one name of a `shareClassId` the
   * records name two ways (both settled by `issuerProfile.shareClasses`; the second fails the issuer
   * with `MAPPING_CONFLICT`, being no one record's fault); a
   * cancellation dated with `terminationDate` for want of `canceledDate`, and no issuance for the net
   * shares of a settlement without `netSettlementQuantity` (only the source can settle those two).
   * Placeholder figures the API never gives (issuer name, stakeholder names, class terms, plan
   * reserves) are not choices about a record: they stay placeholders, listed in the manifest.
   * @default false
   * @example
   * ```ts
   * import { createApiClient, mapIssuer, pullIssuer } from "ocf-sync";
   * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
   * const records = await pullIssuer(client, "7");
   * await client.close();
   * // A record whose mapping would be a choice is quarantined; its error names the option that settles it.
   * const mapped = mapIssuer(records, { strict: true, onInvalid: "quarantine" });
   * for (const q of mapped.quarantined) console.log(q.recordId, q.error.code, q.error.message);
   * ```
   */
  strict?: boolean;
  /**
   * How a partial cancellation is written (mappings/README.md, "Lineage"):
   * - `"documents"`: OCF's documents (TraversingTransactions): a cancellation ends its security and
   *   what remains is a new issuance named by `balance_security_id`; later transactions of the
   *   grant act on that balance security.
   * - `"same-security"`: the convention of OCF #531: the remainder stays on the grant's own security
   *   (outstanding = issued − released − cancelled).
   * Releases keep the unreleased units on the unit's own security either way (OCF 1.2.0 gives
   * `TX_EQUITY_COMPENSATION_RELEASE` no `balance_security_id`). The manifest's comments say which.
   * @default "documents"
   */
  lineage?: Lineage;
  /**
   * The manifest's `as_of` (`YYYY-MM-DD`).
   * @default the latest of the mapped transactions' dates and the records' `lastModifiedDatetime` dates
   */
  asOf?: string;
}

/**
 * `MappingOptions` for `mapIssuer`, plus what to do with a record that cannot be mapped.
 *
 * @category Mapping
 */
export interface MapIssuerOptions extends MappingOptions {
  /**
   * `"fail"` throws the first `MappingError`; `"quarantine"` sets the record aside (in `quarantined`)
   * and maps the others. Issuer-level errors (a bad profile) always throw.
   * @default "fail"
   */
  onInvalid?: "fail" | "quarantine";
}

export type { Lineage };

/**
 * A share class a record uses. `key` identifies it within the issuer: the class name when one is
 * known (an award's `shareClassName`, or the name an award or the profile gives the record's
 * `shareClassId`), else the `shareClassId` itself. `id` is the source's class id, when given.
 * An award without `shareClassName` has no `name` here (it does not name its class; see
 * `share-classes.ts`).
 *
 * @category Mapping
 */
export interface StockClassUse {
  key: string;
  /** The class name, when the record (or what resolved its id) knows it. */
  name?: string;
  id?: string;
  /** The labels of the record's securities in this class (for `default_id_prefix`). */
  labels: string[];
}

/**
 * What the issuer-level objects need to know about one mapped record.
 *
 * @category Mapping
 */
export interface RecordUses {
  /** The source's `stakeholderId`. */
  stakeholderId: string;
  /** The share classes the record's shares belong to. */
  stockClasses: StockClassUse[];
  /** The plan the grant was made under, with the grant's quantity and the class key it delivers (if known). */
  plan?: { name: string; quantity: DecimalString; stockClassKey?: string };
  /** The record's settlements sold shares to cover taxes (issued to the sell-to-cover stakeholder). */
  soldToCover?: boolean;
  /** The earliest calendar date of the record (for the formation-date placeholder). */
  earliestDate?: CalendarDate;
  lastModifiedDatetime?: UtcDateTime;
}

/**
 * The OCF objects of one record. Every object has passed ocf-sync's OCF 1.2.0 schemas.
 *
 * @category Mapping
 */
export interface MappedRecord {
  kind: RecordKind;
  recordId: string;
  /** The grant's security id (`rsa-<id>` / `rsu-<id>`). */
  securityId: string;
  /** The record's transactions, in canonical order (date, kind, id). */
  transactions: OcfTransaction[];
  /** The grant's own VestingTerms (at most one). */
  vestingTerms: OcfVestingTerms[];
  warnings: MappingWarning[];
  uses: RecordUses;
  /**
   * The earliest tranche the package vests on its date (a time-based event, dated, not zero) that the
   * source says has not vested, if any. Read as of that day or later, the package counts it as vested
   * while the source does not: the issuer's mapping warns (`UNVESTED_BEFORE_AS_OF`) when its `asOf`
   * is that late. Absent when the package vests nothing the source denies.
   */
  unvested?: UnvestedTranche;
  /**
   * The unit (or award) names no share class and no `settlementStockClassName` was given: the shares
   * its settlements deliver (the award's shares) are in a class the mapping chose. `mapUnit` and
   * `mapAward` alone write the placeholder class; `mapIssuer` and the accumulator rebind it to the issuer's choice once every record is known.
   */
  assumedSettlementClass?: true;
}

/**
 * A tranche that the package vests on its date while the source says it has not vested.
 *
 * @category Mapping
 */
export interface UnvestedTranche {
  date: CalendarDate;
  /** The vesting event: its id, quoted, or its place in canonical order when it has none (`index-3`). */
  event: string;
  amount: DecimalString;
}

/**
 * A record `mapIssuer` set aside under `onInvalid: "quarantine"`.
 *
 * @category Mapping
 */
export interface QuarantinedMapping {
  kind: RecordKind;
  recordId: string;
  error: MappingError;
  /** A unit: what became of the shares its settlements delivered (`delivered-shares.ts`). */
  deliveredShares?: DeliveredShares;
}

/**
 * The shares a quarantined unit's settlements delivered: real outstanding stock, kept in the package
 * as the `TX_STOCK_ISSUANCE`s the unit's mapping would have written.
 *
 * @category Mapping
 */
export interface DeliveredShares {
  /** The security ids kept. */
  kept: string[];
  /** Each settlement (or the whole unit) whose shares could not be kept, and why. */
  notKept: string[];
}

/**
 * One issuer's records as OCF 1.2.0 objects, ready for `buildPackageFiles`.
 *
 * @category Mapping
 */
export interface MappedIssuer {
  issuer: OcfIssuer;
  /** The manifest's `as_of`. */
  asOf: CalendarDate;
  /** Sorted by id. */
  stakeholders: OcfStakeholder[];
  /** Sorted by id. */
  stockClasses: OcfStockClass[];
  /** Sorted by id. */
  stockPlans: OcfStockPlan[];
  /** Sorted by id. */
  vestingTerms: OcfVestingTerms[];
  /**
   * Sorted by date, then kind (issuance, acceptance, vesting start, vesting event, release, cancellation,
   * return to pool), then id.
   */
  transactions: OcfTransaction[];
  /** The manifest's `comments`: the lineage convention and the placeholder figures. */
  manifestComments: string[];
  warnings: MappingWarning[];
  quarantined: QuarantinedMapping[];
}
