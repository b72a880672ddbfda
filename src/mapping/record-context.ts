/**
 * The mapping of one record: which record it is (for every error and warning), the warnings collected
 * so far, and the conversions to OCF values that name the record and field when they fail. Every OCF
 * `Numeric` the mapping writes goes through `numeric` here, and so through `toOcfNumeric`.
 */
import { isOcfSyncError } from "../errors.js";
import { formatDecimal, parseSourceDecimal, toOcfNumeric, type Dec, type DecimalString } from "../decimal.js";
import type { OcfMonetary } from "../ocf/schemas.js";
import type { Money } from "../source/wire.js";
import type { RecordKind } from "../source/kinds.js";
import type { UnvestedTranche } from "./types.js";
import {
  MappingError,
  mappingWarning,
  type MappingErrorCode,
  type MappingLocation,
  type MappingWarning,
  type MappingWarningCode,
  type RecordRef,
} from "./errors.js";

/**
 * A decimal exactly as `toOcfNumeric` writes it: no `+`, no leading zeros, no trailing fractional
 * zeros, at most 10 decimal places.
 */
export const OCF_CANONICAL_NUMERIC = /^-?(0|[1-9][0-9]*)(\.[0-9]{0,9}[1-9])?$/;

/**
 * `value` itself when it is already what `toOcfNumeric` would write (the common case), else
 * `undefined`. Lets a caller that converts thousands of values build a field path only for the
 * others, through `RecordContext.numeric`.
 */
export function asCanonicalNumeric(value: DecimalString): string | undefined {
  return OCF_CANONICAL_NUMERIC.test(value) && value !== "-0" ? value : undefined;
}

/**
 * One record being mapped: every error and warning it raises names the issuer and the record, and
 * every value converted through it names the field it came from.
 */
export class RecordContext {
  readonly issuerId: string;
  readonly record: RecordRef;
  readonly warnings: MappingWarning[] = [];
  /** The earliest tranche the mapping vests on its date that the source says has not vested (see `noteUnvested`). */
  unvested: UnvestedTranche | undefined;

  /** Every choice the mapping would make where the source leaves a fact out is an error (`choose`). */
  readonly strict: boolean;

  constructor(issuerId: string, kind: RecordKind, recordId: string, options: { strict?: boolean | undefined } = {}) {
    this.issuerId = issuerId;
    this.record = { kind, recordId };
    this.strict = options.strict === true;
  }

  /** The record's decimals parsed so far, by text (see `exact`). */
  private parsed: Map<string, Dec> | undefined;

  /**
   * A decimal of this record as an exact value (`parseSourceDecimal`), each distinct text parsed once:
   * a grant's tranches repeat a few amounts, and a `Dec` is immutable, so one value serves every use.
   * Equal texts give the very same value, which lets a comparison try `===` first. An absent
   * quantity stays absent.
   */
  exact(text: DecimalString): Dec;
  exact(text: DecimalString | undefined): Dec | undefined;
  exact(text: DecimalString | undefined): Dec | undefined {
    if (text === undefined) return undefined;
    this.parsed ??= new Map();
    let value = this.parsed.get(text);
    if (value === undefined) {
      value = parseSourceDecimal(text);
      this.parsed.set(text, value);
    }
    return value;
  }

  /** The location of a field of this record (or of the record itself). */
  at(path?: string): MappingLocation {
    return path === undefined
      ? { issuerId: this.issuerId, record: this.record }
      : { issuerId: this.issuerId, record: this.record, path };
  }

  /** Throws a `MappingError` about this record. */
  fail(code: MappingErrorCode, path: string | undefined, problem: string, options: { value?: unknown; cause?: unknown } = {}): never {
    throw new MappingError(code, this.at(path), problem, options);
  }

  /**
   * A choice the mapping makes where the source leaves a fact out (the caller states it where it is
   * made: a warning, a comment). Under `strict` it is a `MAPPING_MISSING_VALUE` error instead, saying
   * what would settle it (an option, or the source giving the fact).
   */
  choose(path: string, problem: string, settledBy: string, options: { value?: unknown } = {}): void {
    if (this.strict) this.fail("MAPPING_MISSING_VALUE", path, `${problem}; --strict refuses this choice: ${settledBy}`, options);
  }

  warn(code: MappingWarningCode, path: string | undefined, problem: string): void {
    this.warnings.push(mappingWarning(code, this.at(path), problem));
  }

  /**
   * Notes a tranche that the package vests on `date` (a reader counts it as vested from that day)
   * while the source says it has not vested; the earliest one counts (see `MappedRecord.unvested`).
   */
  noteUnvested(tranche: UnvestedTranche): void {
    if (this.unvested === undefined || tranche.date < this.unvested.date) this.unvested = tranche;
  }

  /** `value`, or a `MAPPING_MISSING_VALUE` error saying what OCF needs it for. */
  required<T>(value: T | undefined, path: string, neededFor: string): T {
    if (value === undefined) this.fail("MAPPING_MISSING_VALUE", path, `is absent, but OCF requires it for ${neededFor}`);
    return value;
  }

  /**
   * An exact decimal (a record's text, or a value parsed from it) as OCF `Numeric`. More than 10
   * decimal places is a `MAPPING_DECIMAL_PRECISION` error naming this record and field: OCF cannot
   * hold the value and it is never rounded.
   */
  numeric(value: DecimalString | Dec, path: string): string {
    // The text toOcfNumeric returns for a value already in that form: skipping the decimal.js round
    // trip matters at tens of thousands of values per issuer (tests check both agree).
    const canonical = typeof value === "string" ? asCanonicalNumeric(value) : undefined;
    if (canonical !== undefined) return canonical;
    try {
      return toOcfNumeric(value);
    } catch (error) {
      if (isOcfSyncError(error) && error.code === "DECIMAL_PRECISION") {
        this.fail("MAPPING_DECIMAL_PRECISION", path, error.message, { value: typeof value === "string" ? value : formatDecimal(value), cause: error });
      }
      throw error;
    }
  }

  /**
   * Source Money as OCF `Monetary` (the currency code is already upper-case ISO 4217 from the parser).
   * Every Money mapped is a price (`share_price`, `release_price`, `cost_basis`): a negative one is a
   * `MAPPING_CONFLICT` naming the field, as a negative share count is.
   */
  monetary(money: Money, path: string): OcfMonetary {
    const amount = this.numeric(money.amount, `${path}.amount`);
    // OCF Numeric as `numeric` writes it has no "-0": a minus is a negative amount.
    if (amount.startsWith("-")) this.fail("MAPPING_CONFLICT", `${path}.amount`, `is ${money.amount}: a price cannot be negative`, { value: money.amount });
    return { amount, currency: money.currency };
  }
}
