/**
 * What the mapping reports: a `MappingError` when a record (or an option) cannot become valid OCF,
 * and `MappingWarning`s for what was mapped but deserves a look (placeholders, source counters that
 * do not add up). Warnings are data returned to the caller, never logged from here, and never a
 * reason to change the source's numbers.
 */
import { MAPPING_ERROR_CODES } from "../error-codes.js";
import { OcfSyncError, describeValue, isOcfSyncError } from "../errors.js";
import type { RecordKind } from "../source/kinds.js";


/**
 * The `code` of a {@link MappingError}.
 *
 * @category Errors
 */
export type MappingErrorCode = (typeof MAPPING_ERROR_CODES)[number];

/**
 * The record a mapping message is about. Absent for issuer-level problems (an option, the issuer).
 *
 * @category Mapping
 */
export interface RecordRef {
  kind: RecordKind;
  recordId: string;
}

/**
 * Where a problem is: the issuer, optionally a record, optionally a field path inside it.
 *
 * @category Mapping
 */
export interface MappingLocation {
  issuerId: string;
  record?: RecordRef;
  /** A source field path such as `settlements[1].settlementPrice`, or an option path such as `options.issuerProfile.countryOfFormation`. */
  path?: string;
}

/** `restrictedStockAward "2207" of issuer "7"`, or `issuer "7"`. */
export function describeLocation(location: MappingLocation): string {
  const issuer = `issuer ${describeValue(location.issuerId)}`;
  const subject = location.record === undefined ? issuer : `${location.record.kind} ${describeValue(location.record.recordId)} of ${issuer}`;
  return location.path === undefined ? subject : `${subject}, ${location.path}`;
}

/**
 * A record (or an option) that cannot become valid OCF 1.2.0. Names the issuer, the record, the
 * field and the value, so that a user can find and fix the source data.
 *
 * @category Errors
 */
export class MappingError extends OcfSyncError {
  override readonly code: MappingErrorCode;
  readonly issuerId: string;
  /** The record concerned; absent for an issuer-level problem. */
  readonly record: RecordRef | undefined;
  /** The source field or option path; absent when the problem is the record as a whole. */
  readonly path: string | undefined;
  /** The offending value, when there is one. */
  readonly value: unknown;

  constructor(
    code: MappingErrorCode,
    location: MappingLocation,
    problem: string,
    options: { value?: unknown; cause?: unknown } = {},
  ) {
    super(code, `${describeLocation(location)}: ${problem}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MappingError";
    this.code = code;
    this.issuerId = location.issuerId;
    this.record = location.record;
    this.path = location.path;
    this.value = options.value;
  }
}

/**
 * True for a `MappingError`, also across two loaded copies of the package (checks the code).
 *
 * @category Errors
 */
export function isMappingError(error: unknown): error is MappingError {
  return isOcfSyncError(error) && (MAPPING_ERROR_CODES as readonly string[]).includes(error.code);
}

/**
 * What a mapping warning is about.
 *
 * @category Mapping
 */
export const MAPPING_WARNING_CODES = [
  /** An issuer field OCF requires was filled with a placeholder (no issuer profile value). */
  "PLACEHOLDER_ISSUER",
  /** Stakeholders got placeholder names (not in the stakeholder directory). */
  "PLACEHOLDER_STAKEHOLDERS",
  /** A grant without vesting events whose `vestedQuantity` differs from its `quantity` (OCF reads it as fully vested). */
  "NO_VESTING_EVENTS_NOT_FULLY_VESTED",
  /** The vesting events do not add up to the grant's `quantity`. */
  "VESTING_SUM_MISMATCH",
  /** The vested events' `vestedQuantity` do not add up to the grant's `vestedQuantity`. */
  "VESTED_SUM_MISMATCH",
  /** A vesting event marked vested without a `vestedQuantity`, or with one that differs from its `targetQuantity` on a time-based event. */
  "VESTING_EVENT_QUANTITY",
  /** The settlements' `releaseQuantity` do not add up to the unit's `releasedQuantity`. */
  "RELEASED_SUM_MISMATCH",
  /** The settlements' `netSettlementQuantity` do not add up to the unit's `netSettledQuantity`. */
  "NET_SETTLED_SUM_MISMATCH",
  /** A settlement whose `releaseQuantity` is not net + withheld + sold. */
  "SETTLEMENT_PARTS_MISMATCH",
  /** A settlement priced in another currency than the unit's `releasePricePerShare` (mapped as the settlement says, nothing converted). */
  "SETTLEMENT_CURRENCY_MISMATCH",
  /** A settlement without `netSettlementQuantity`: no resulting share issuance can be emitted. */
  "SETTLEMENT_NET_MISSING",
  /** More units released than vested. */
  "RELEASED_EXCEEDS_VESTED",
  /** A settlement that brings the units released by its date above what the vesting events had vested by then. */
  "RELEASED_BEFORE_VESTED",
  /** A settlement sent twice (same certificate id and every field alike): released and issued once. */
  "DUPLICATE_SETTLEMENT",
  /** Two settlements that share a certificate id but differ: both are kept. */
  "SETTLEMENT_CERTIFICATE_REUSED",
  /**
   * A performance event paid above its target and the grant's quantity does not hold it: the payout
   * above target is a new issuance to the holder on the event's vest date (`payout.ts`).
   */
  "PERFORMANCE_ABOVE_TARGET",
  /** A grant of quantity 0 (its issuance is kept, of 0), or a settlement that releases and delivers nothing (nothing written). */
  "ZERO_QUANTITY",
  /** Canceled plus released exceeds the grant's quantity. */
  "CANCELED_AND_RELEASED_EXCEED_QUANTITY",
  /** The cancellation counters disagree (canceled ≠ pool + treasury, or ≠ forfeited + expired). */
  "CANCELLATION_BREAKDOWN_MISMATCH",
  /** Shares returned to the pool of a grant that names no plan: carried in comments only. */
  "RETURN_TO_POOL_WITHOUT_PLAN",
  /**
   * What a partial cancellation leaves is not what the vested events less the releases say is held plus
   * the tranches to come: shares that neither vested nor will (written as not vested), or vested shares
   * cancelled (the rest stays vested).
   */
  "BALANCE_VESTING_MISMATCH",
  /**
   * A `stakeholderAcceptanceDate` on or after the day the grant ended in full (cancelled with nothing
   * left on any security): no transaction may act on an ended security, so the acceptance is left out
   * of the package (it carries no quantity: no figure changes).
   */
  "ACCEPTANCE_AFTER_END",
  /** A share class is known only by its `shareClassId`: no award or profile names it (a placeholder name is used). */
  "PLACEHOLDER_STOCK_CLASS",
  /**
   * Units without `shareClassId` deliver shares by their settlements, and no `settlementStockClassName`
   * was given: the shares go to the issuer's one class, else to a placeholder class (once per issuer).
   */
  "SETTLEMENT_CLASS_ASSUMED",
  /**
   * One `shareClassId` is named two ways by the issuer's records (or by an award and the issuer
   * profile): its shares are put in one class, named by the profile, else by the first award in
   * canonical order (once per class id).
   */
  "STOCK_CLASS_NAME_CHOSEN",
  /** One share class name stands for two different `shareClassId`s (they become one OCF stock class). */
  "STOCK_CLASS_IDS_MERGED",
  /**
   * A tranche dated on or before the package's as-of date that the source says has not vested: a
   * reader of the package counts it as vested (per record; and once for the issuer, with the latest
   * as-of date no record contradicts).
   */
  "UNVESTED_BEFORE_AS_OF",
] as const;
/**
 * The `code` of a {@link MappingWarning}.
 *
 * @category Mapping
 */
export type MappingWarningCode = (typeof MAPPING_WARNING_CODES)[number];

/**
 * Something the mapping wants a person to look at. The data was mapped as the source gave it.
 *
 * @category Mapping
 */
export interface MappingWarning {
  code: MappingWarningCode;
  issuerId: string;
  /** The record concerned; absent for issuer-level warnings. */
  record?: RecordRef;
  /** The source field path, when one field is concerned. */
  path?: string;
  /** A complete sentence naming the issuer, the record and the values. */
  message: string;
}

/** Builds a warning whose message starts with the location. */
export function mappingWarning(code: MappingWarningCode, location: MappingLocation, problem: string): MappingWarning {
  return {
    code,
    issuerId: location.issuerId,
    ...(location.record === undefined ? {} : { record: location.record }),
    ...(location.path === undefined ? {} : { path: location.path }),
    message: `${describeLocation(location)}: ${problem}`,
  };
}
