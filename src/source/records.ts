/**
 * Zod schemas and parsed types of the two record families (restricted stock awards and units) and
 * their nested messages, as the project spec lists them, plus the newer optional fields of the Carta
 * Cap Table Data Schema (source-api.md §10). Every field is optional, as the spec says, except the
 * record `id` (see `RecordIdWire`). Field names are the service's own.
 */
import { z } from "zod";
import type { DecimalString } from "../decimal.js";
import type { CalendarDate, UtcDateTime } from "../dates.js";
import { describeValue } from "../errors.js";
import type { RecordKind } from "./kinds.js";
import {
  CalendarDateWire,
  ClassRefWire,
  DateTimeWire,
  DecimalWire,
  FlagWire,
  MONEY_FIELDS,
  MoneyWire,
  RecordIdWire,
  WIRE_NOTES,
  compact,
  listOf,
  nested,
  text,
  type Compact,
  type Money,
  type WireNote,
} from "./wire.js";

/**
 * `issuerssecuritiesv1alpha1VestingSchedule`: a name and dates only, no tranche structure (§9.9).
 *
 * @category Source
 */
export interface VestingSchedule {
  /** Free text such as `"1/24 Cliff"`; never parsed into rules. At most 500 characters. */
  name?: string;
  lastModifiedDate?: CalendarDate;
  startDate?: CalendarDate;
  endDate?: CalendarDate;
}

/**
 * A vesting event of an award or a unit (the two wire types are identical; §9.8).
 *
 * @category Source
 */
export interface VestingEvent {
  /** At most 50 characters. */
  id?: string;
  /** Absent for a milestone event until it has vested. */
  vestDate?: CalendarDate;
  /** Deprecated by the service in favour of the three quantities below. */
  quantity?: DecimalString;
  /** A performance or milestone condition exists (not that it was met). Absent on the wire is `false`. */
  performanceCondition: boolean;
  /** The event has vested. Absent on the wire is `false`. */
  vested: boolean;
  maxQuantity?: DecimalString;
  targetQuantity?: DecimalString;
  /** Set only when `vested` is true. */
  vestedQuantity?: DecimalString;
}

/**
 * `v1alpha1RestrictedStockUnitSettlement` (§9.10). Quantities are kept as sent, never derived.
 *
 * @category Source
 */
export interface Settlement {
  settlementDate?: CalendarDate;
  releaseQuantity?: DecimalString;
  saleQuantity?: DecimalString;
  withholdingQuantity?: DecimalString;
  netSettlementQuantity?: DecimalString;
  /** Price to settle one unit. */
  settlementPrice?: Money;
  /** 1 to 1000 characters. */
  certificateId?: string;
  certificateLabel?: string;
}

/**
 * One predecessor security of an award (CDS `PrecededBySecurity`).
 *
 * @category Source
 */
export interface PrecededBySecurity {
  /** 1 to 50 characters. */
  id?: string;
  /** E.g. `"restricted_stock_award"`, `"certificate"`. At most 50 characters. */
  type?: string;
  /** At most 50 characters. */
  label?: string;
}

/**
 * Where an award came from (CDS `RestrictedStockAwardPrecededBy`; source-api.md §10).
 *
 * @category Source
 */
export interface PrecededBy {
  /**
   * One of the reasons CDS declares (`RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_` and `ISSUED_FROM_SHARE_RESERVE`,
   * `SHARE_CLASS_CONVERTED`, `TRANSFERRED` or `BALANCE_REISSUED`), as sent; another value is kept and reported as a warning.
   */
  reason?: string;
  /** Empty when the reason is `…_ISSUED_FROM_SHARE_RESERVE`. */
  securities: PrecededBySecurity[];
}

/**
 * The fields both record families share (the project spec lists them for each; the two OAS types agree
 * field for field on these).
 */
export interface GrantFields {
  /** Always present and non-empty (the project's rule; see `RecordIdWire`). At most 50 characters. */
  id: string;
  issuerId?: string;
  stakeholderId?: string;
  equityIncentivePlanName?: string;
  issueDate?: CalendarDate;
  vestingStartDate?: CalendarDate;
  boardApprovalDate?: CalendarDate;
  stakeholderAcceptanceDate?: CalendarDate;
  canceledDate?: CalendarDate;
  /** Commonly the date the stakeholder relationship ended; may differ from `canceledDate`. */
  terminationDate?: CalendarDate;
  quantity?: DecimalString;
  vestedQuantity?: DecimalString;
  securityLabel?: string;
  vestingEvents: VestingEvent[];
  vestingSchedule?: VestingSchedule;
  canceledQuantity?: DecimalString;
  returnedToPoolQuantity?: DecimalString;
  /** Shares annulled but not returned to the pool. */
  returnedToTreasuryQuantity?: DecimalString;
  lastModifiedDatetime?: UtcDateTime;
  /** Newer (CDS): UUID of the grant, for the transactions API. */
  securityId?: string;
  /** Newer (CDS): UUID of the share class. List endpoints may leave it out. */
  shareClassId?: string;
  /** Newer (CDS): UUID of the vesting schedule template. */
  vestingScheduleTemplateId?: string;
}

/**
 * `v1alpha1RestrictedStockAward`, parsed.
 *
 * @category Source
 */
export interface RestrictedStockAward extends GrantFields {
  shareClassName?: string;
  pricePerShare?: Money;
  /** Newer (CDS): where the award came from. */
  precededBy?: PrecededBy;
}

/**
 * `v1alpha1RestrictedStockUnit`, parsed. The service gives units no share class name and no price.
 *
 * @category Source
 */
export interface RestrictedStockUnit extends GrantFields {
  /** Units settled (note the service's crossed wording; §9.10). */
  releasedQuantity?: DecimalString;
  releasePricePerShare?: Money;
  /** Units released to the stakeholder. */
  netSettledQuantity?: DecimalString;
  settlements: Settlement[];
  forfeitedQuantity?: DecimalString;
  expiredQuantity?: DecimalString;
}

/**
 * A parsed record together with its kind.
 *
 * @category Source
 */
export type ParsedRecord =
  | { kind: "restrictedStockAward"; record: RestrictedStockAward }
  | { kind: "restrictedStockUnit"; record: RestrictedStockUnit };

/** The `precededBy.reason` values CDS declares (2026-06-22). */
export const PRECEDED_BY_REASONS = [
  "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_ISSUED_FROM_SHARE_RESERVE",
  "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_SHARE_CLASS_CONVERTED",
  "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_TRANSFERRED",
  "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_BALANCE_REISSUED",
] as const;

const vestingScheduleFields = {
  name: text({ max: 500 }),
  lastModifiedDate: CalendarDateWire,
  startDate: CalendarDateWire,
  endDate: CalendarDateWire,
};

const vestingEventFields = {
  id: text({ max: 50 }),
  vestDate: CalendarDateWire,
  quantity: DecimalWire,
  performanceCondition: FlagWire,
  vested: FlagWire,
  maxQuantity: DecimalWire,
  targetQuantity: DecimalWire,
  vestedQuantity: DecimalWire,
};

const settlementFields = {
  settlementDate: CalendarDateWire,
  releaseQuantity: DecimalWire,
  saleQuantity: DecimalWire,
  withholdingQuantity: DecimalWire,
  netSettlementQuantity: DecimalWire,
  settlementPrice: MoneyWire,
  certificateId: text({ min: 1, max: 1000 }),
  certificateLabel: text(),
};

const precededBySecurityFields = {
  id: text({ min: 1, max: 50 }),
  type: text({ max: 50 }),
  label: text({ max: 50 }),
};

/**
 * `precededBy.reason` is an open string: an enum value the project does not know yet is kept (and
 * reported), so that a new reason on the service does not fail every award that carries it.
 */
const PrecededByReasonWire = text();

const precededByFields = {
  reason: PrecededByReasonWire,
  securities: listOf(z.object(precededBySecurityFields).transform((fields): PrecededBySecurity => compact(fields))),
};

/** A `vestingSchedule` field; an empty object stays an empty schedule, `null` is absent. */
export const VestingScheduleWire = nested(z.object(vestingScheduleFields), (fields): VestingSchedule => fields);

/** One element of `vestingEvents` (RSA and RSU alike). */
export const VestingEventWire = z.object(vestingEventFields).transform((fields): VestingEvent => compact(fields));

/** One element of `settlements`. */
export const SettlementWire = z.object(settlementFields).transform((fields): Settlement => compact(fields));

/** The award's `precededBy` field. */
export const PrecededByWire = nested(z.object(precededByFields), (fields): PrecededBy => fields);

/** The fields the newer data schema (CDS 2026-06-22) adds to both records; all optional and nullable. */
const newerGrantFields = {
  securityId: text({ max: 50 }),
  shareClassId: ClassRefWire,
  vestingScheduleTemplateId: text({ max: 50 }),
};

const grantFields = {
  id: RecordIdWire,
  issuerId: text({ min: 1, max: 50 }),
  stakeholderId: text({ max: 50 }),
  equityIncentivePlanName: text({ max: 100 }),
  issueDate: CalendarDateWire,
  vestingStartDate: CalendarDateWire,
  boardApprovalDate: CalendarDateWire,
  stakeholderAcceptanceDate: CalendarDateWire,
  canceledDate: CalendarDateWire,
  terminationDate: CalendarDateWire,
  quantity: DecimalWire,
  vestedQuantity: DecimalWire,
  securityLabel: text({ max: 50 }),
  vestingEvents: listOf(VestingEventWire),
  vestingSchedule: VestingScheduleWire,
  canceledQuantity: DecimalWire,
  returnedToPoolQuantity: DecimalWire,
  returnedToTreasuryQuantity: DecimalWire,
  lastModifiedDatetime: DateTimeWire,
  ...newerGrantFields,
};

const awardFields = {
  ...grantFields,
  shareClassName: ClassRefWire,
  pricePerShare: MoneyWire,
  precededBy: PrecededByWire,
};

const unitFields = {
  ...grantFields,
  releasedQuantity: DecimalWire,
  releasePricePerShare: MoneyWire,
  netSettledQuantity: DecimalWire,
  settlements: listOf(SettlementWire),
  forfeitedQuantity: DecimalWire,
  expiredQuantity: DecimalWire,
};

/** The zod schema of a restricted stock award; the output is a `RestrictedStockAward`. */
export const RestrictedStockAwardWire = z
  .object(awardFields)
  .transform((fields): RestrictedStockAward => compact(fields));

/** The zod schema of a restricted stock unit; the output is a `RestrictedStockUnit`. */
export const RestrictedStockUnitWire = z
  .object(unitFields)
  .transform((fields): RestrictedStockUnit => compact(fields));

/** The record schema of each kind. */
export const RECORD_SCHEMAS = {
  restrictedStockAward: RestrictedStockAwardWire,
  restrictedStockUnit: RestrictedStockUnitWire,
} as const satisfies Record<RecordKind, z.ZodType>;

/** `WIRE_NOTES` plus the checks of record-specific fields; consulted by the parser's warning walk. */
export const FIELD_NOTES: ReadonlyMap<z.ZodType, (raw: unknown) => WireNote | undefined> = new Map([
  ...WIRE_NOTES,
  [
    PrecededByReasonWire,
    (raw: unknown): WireNote | undefined =>
      typeof raw !== "string" || raw === "" || (PRECEDED_BY_REASONS as readonly string[]).includes(raw)
        ? undefined
        : {
            code: "UNKNOWN_ENUM_VALUE",
            path: [],
            value: raw,
            message: `${describeValue(raw)} is not a reason this version knows`,
          },
  ],
]);

/** The source types whose fields are listed in `SPEC_FIELDS`. */
export type SourceTypeName =
  | RecordKind
  | "vestingEvent"
  | "settlement"
  | "vestingSchedule"
  | "money"
  | "precededBy"
  | "precededBySecurity";

/**
 * Every field the parser reads, per source type, taken from the schemas themselves (so the list cannot
 * drift from what is parsed). The field-level mapping document and its tests compare against this.
 * The wrappers (`{ value }`) are not listed: they are a wire detail, not a field.
 */
export const SPEC_FIELDS: Readonly<Record<SourceTypeName, readonly string[]>> = {
  restrictedStockAward: Object.keys(awardFields),
  restrictedStockUnit: Object.keys(unitFields),
  vestingEvent: Object.keys(vestingEventFields),
  settlement: Object.keys(settlementFields),
  vestingSchedule: Object.keys(vestingScheduleFields),
  money: MONEY_FIELDS,
  precededBy: Object.keys(precededByFields),
  precededBySecurity: Object.keys(precededBySecurityFields),
};

/**
 * The fields of `SPEC_FIELDS` that come from the newer Carta Cap Table Data Schema (2026-06-22) and not
 * from the project spec (source-api.md §10). Code must never depend on them being present.
 */
export const NEWER_FIELDS: Readonly<Partial<Record<SourceTypeName, readonly string[]>>> = {
  restrictedStockAward: [...Object.keys(newerGrantFields), "precededBy"],
  restrictedStockUnit: Object.keys(newerGrantFields),
  precededBy: Object.keys(precededByFields),
  precededBySecurity: Object.keys(precededBySecurityFields),
};

/** The service's own type name of each source type (OAS, or CDS for the newer ones). */
export const WIRE_TYPE_NAMES: Readonly<Record<SourceTypeName, string>> = {
  restrictedStockAward: "v1alpha1RestrictedStockAward",
  restrictedStockUnit: "v1alpha1RestrictedStockUnit",
  vestingEvent: "v1alpha1RestrictedStockAwardVestingEvent",
  settlement: "v1alpha1RestrictedStockUnitSettlement",
  vestingSchedule: "issuerssecuritiesv1alpha1VestingSchedule",
  money: "v1alpha1Money",
  precededBy: "RestrictedStockAwardPrecededBy",
  precededBySecurity: "PrecededBySecurity",
};

// Compile-time proof that each hand-written interface has exactly the keys and types its schema
// produces: adding a field to one side only fails the typecheck.
type SameShape<A, B> = [keyof A] extends [keyof B]
  ? [keyof B] extends [keyof A]
    ? [A] extends [B]
      ? [B] extends [A]
        ? true
        : false
      : false
    : false
  : false;
type Expect<T extends true> = T;
type FieldsOutput<S extends z.ZodRawShape> = Compact<z.output<z.ZodObject<S>>>;
type ShapeChecks = [
  Expect<SameShape<FieldsOutput<typeof awardFields>, RestrictedStockAward>>,
  Expect<SameShape<FieldsOutput<typeof unitFields>, RestrictedStockUnit>>,
  Expect<SameShape<FieldsOutput<typeof grantFields>, GrantFields>>,
  Expect<SameShape<FieldsOutput<typeof vestingEventFields>, VestingEvent>>,
  Expect<SameShape<FieldsOutput<typeof settlementFields>, Settlement>>,
  Expect<SameShape<FieldsOutput<typeof vestingScheduleFields>, VestingSchedule>>,
  Expect<SameShape<FieldsOutput<typeof precededByFields>, PrecededBy>>,
  Expect<SameShape<FieldsOutput<typeof precededBySecurityFields>, PrecededBySecurity>>,
];
