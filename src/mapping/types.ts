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

/** What is known about the issuer beyond its id. Every field replaces a placeholder (and its warning). */
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
}

/** A stakeholder as a directory knows it (the source gives only stakeholder ids). */
export interface StakeholderEntry {
  legalName: string;
  firstName?: string;
  lastName?: string;
  /** @default "INDIVIDUAL" */
  type?: "INDIVIDUAL" | "INSTITUTION";
  /** An OCF `StakeholderRelationshipType`, e.g. `"EMPLOYEE"`. */
  currentRelationship?: OcfStakeholder["current_relationship"];
}

/** How records are mapped. Every option is optional; the defaults are documented in `mappings/README.md`. */
export interface MappingOptions {
  /** Replaces the Issuer placeholders. */
  issuerProfile?: IssuerProfile;
  /** Names of stakeholders, keyed by the source's `stakeholderId`. Others get placeholder names. */
  stakeholders?: ReadonlyMap<string, StakeholderEntry>;
  /** The share class RSU settlements deliver (the source does not say). @default "Common" */
  settlementStockClassName?: string;
  /**
   * The manifest's `as_of` (`YYYY-MM-DD`).
   * @default the latest of the mapped transactions' dates and the records' `lastModifiedDatetime` dates
   */
  asOf?: string;
}

/** `MappingOptions` for `mapIssuer`, plus what to do with a record that cannot be mapped. */
export interface MapIssuerOptions extends MappingOptions {
  /**
   * `"fail"` throws the first `MappingError`; `"quarantine"` sets the record aside (in `quarantined`)
   * and maps the others. Issuer-level errors (a bad profile) always throw.
   * @default "fail"
   */
  onInvalid?: "fail" | "quarantine";
}

/** What the issuer-level objects need to know about one mapped record. */
export interface RecordUses {
  /** The source's `stakeholderId`. */
  stakeholderId: string;
  /** The share classes the record's shares belong to, each with the labels of its securities (for `default_id_prefix`). */
  stockClasses: { name: string; labels: string[] }[];
  /** The plan the grant was made under, with the grant's quantity and the class it delivers. */
  plan?: { name: string; quantity: DecimalString; stockClassName: string };
  /** The earliest calendar date of the record (for the formation-date placeholder). */
  earliestDate?: CalendarDate;
  lastModifiedDatetime?: UtcDateTime;
}

/** The OCF objects of one record. Every object has passed ocf-sync's OCF 1.2.0 schemas. */
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
}

/** A record `mapIssuer` set aside under `onInvalid: "quarantine"`. */
export interface QuarantinedMapping {
  kind: RecordKind;
  recordId: string;
  error: MappingError;
}

/** One issuer's records as OCF 1.2.0 objects, ready for `buildPackageFiles`. */
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
  /** Sorted by date, then kind (`TRANSACTION_KIND_ORDER`), then id. */
  transactions: OcfTransaction[];
  warnings: MappingWarning[];
  quarantined: QuarantinedMapping[];
}
