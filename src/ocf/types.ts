/**
 * The OCF 1.2.0 objects and files ocf-sync reads and writes, as plain TypeScript: the types of its
 * public API. Generated from the runtime schemas (objects.ts, transactions.ts, primitives.ts and
 * files.ts) by scripts/write-ocf-types.ts: edit the schemas or scripts/ocf-types.ts, then run
 * `npm run ocf-types`. `types-match.ts` fails the type check when a type and its schema differ.
 *
 * Numbers are OCF `Numeric` strings (`"1500"`, `"0.25"`: at most 10 decimal places), dates are
 * `YYYY-MM-DD` strings, and every object is closed as OCF closes it.
 */
import type { CalendarDate } from "../dates.js";

/**
 * OCF `Numeric`: a fixed-point decimal string with at most 10 fractional digits (`"1500"`, `"+5"`, `"0.25"`).
 *
 * @category OCF
 */
export type OcfNumeric = string;

// ---------------------------------------------------------------------------------------------
// Primitive value types (`types/*`)

/**
 * An amount of money: `amount` (Numeric) in `currency` (ISO 4217, upper case, such as `"USD"`).
 *
 * @category OCF
 */
export interface OcfMonetary {
  amount: OcfNumeric;
  currency: string;
}

/**
 * A person's or an organisation's name; `legal_name` is the only required part.
 *
 * @category OCF
 */
export interface OcfName {
  legal_name: string;
  first_name?: string;
  last_name?: string;
}

/**
 * An e-mail address and its kind.
 *
 * @category OCF
 */
export interface OcfEmail {
  email_type: "PERSONAL" | "BUSINESS" | "OTHER";
  email_address: string;
}

/**
 * A phone number in the international form OCF requires (`+1 612 234 2345`), and its kind.
 *
 * @category OCF
 */
export interface OcfPhone {
  phone_type: "HOME" | "MOBILE" | "BUSINESS" | "OTHER";
  phone_number: string;
}

/**
 * A postal address; `country` is ISO 3166-1 alpha-2.
 *
 * @category OCF
 */
export interface OcfAddress {
  address_type: "LEGAL" | "CONTACT" | "OTHER";
  street_suite?: string;
  city?: string;
  country_subdivision?: string;
  country: string;
  postal_code?: string;
}

/**
 * A tax identifier and the country (ISO 3166-1 alpha-2) that issued it.
 *
 * @category OCF
 */
export interface OcfTaxId {
  tax_id: string;
  country: string;
}

/**
 * How to reach a stakeholder, without a name.
 *
 * @category OCF
 */
export interface OcfContactInfoWithoutName {
  phone_numbers?: OcfPhone[];
  emails?: OcfEmail[];
}

/**
 * A named contact of a stakeholder.
 *
 * @category OCF
 */
export interface OcfContactInfo {
  name: OcfName;
  phone_numbers?: OcfPhone[];
  emails?: OcfEmail[];
}

/**
 * A securities-law exemption an issuance relies on.
 *
 * @category OCF
 */
export interface OcfSecurityExemption {
  description: string;
  jurisdiction: string;
}

/**
 * Why an equity compensation's exercise window after termination applies, and how long it is.
 *
 * @category OCF
 */
export interface OcfTerminationWindow {
  reason:
    | "VOLUNTARY_OTHER"
    | "VOLUNTARY_GOOD_CAUSE"
    | "VOLUNTARY_RETIREMENT"
    | "INVOLUNTARY_OTHER"
    | "INVOLUNTARY_DEATH"
    | "INVOLUNTARY_DISABILITY"
    | "INVOLUNTARY_WITH_CAUSE";
  period: number;
  period_type: "DAYS" | "MONTHS" | "YEARS";
}

/**
 * A range of share certificate numbers, both ends included.
 *
 * @category OCF
 */
export interface OcfShareNumberRange {
  starting_share_number: OcfNumeric;
  ending_share_number: OcfNumeric;
}

/**
 * One dated vesting tranche of a security: `amount` vests on `date`.
 *
 * @category OCF
 */
export interface OcfVesting {
  date: CalendarDate;
  amount: OcfNumeric;
}

/**
 * A file of a package as the manifest lists it: its path and the MD5 of its exact bytes.
 *
 * @category OCF
 */
export interface OcfFileReference {
  filepath: string;
  md5: string;
}

// ---------------------------------------------------------------------------------------------
// Objects

/**
 * The company the package describes; it lives inline in the manifest, not in a file of its own.
 *
 * @category OCF
 */
export interface OcfIssuer {
  object_type: "ISSUER";
  id: string;
  comments?: string[];
  legal_name: string;
  dba?: string;
  formation_date: CalendarDate;
  country_of_formation: string;
  country_subdivision_of_formation?: string;
  tax_ids?: OcfTaxId[];
  email?: OcfEmail;
  phone?: OcfPhone;
  address?: OcfAddress;
  /** A share count, `"NOT APPLICABLE"` or `"UNLIMITED"`. */
  initial_shares_authorized?: string;
}

/**
 * A stakeholder's relationship to the issuer.
 *
 * @category OCF
 */
export type OcfStakeholderRelationship =
  | "ADVISOR"
  | "BOARD_MEMBER"
  | "CONSULTANT"
  | "EMPLOYEE"
  | "EX_ADVISOR"
  | "EX_CONSULTANT"
  | "EX_EMPLOYEE"
  | "EXECUTIVE"
  | "FOUNDER"
  | "INVESTOR"
  | "NON_US_EMPLOYEE"
  | "OFFICER"
  | "OTHER";

/**
 * A person or an institution that holds securities of the issuer.
 *
 * @category OCF
 */
export interface OcfStakeholder {
  object_type: "STAKEHOLDER";
  id: string;
  comments?: string[];
  name: OcfName;
  stakeholder_type: "INDIVIDUAL" | "INSTITUTION";
  issuer_assigned_id?: string;
  current_relationship?: OcfStakeholderRelationship;
  primary_contact?: OcfContactInfo;
  contact_info?: OcfContactInfoWithoutName;
  addresses?: OcfAddress[];
  tax_ids?: OcfTaxId[];
}

/**
 * How a preferred stock class converts into another class.
 *
 * @category OCF
 */
export interface OcfStockClassConversionRight {
  type?: "STOCK_CLASS_CONVERSION_RIGHT";
  conversion_mechanism: {
    type: "RATIO_CONVERSION";
    conversion_price: OcfMonetary;
    ratio: { numerator: OcfNumeric; denominator: OcfNumeric };
    rounding_type: "CEILING" | "FLOOR" | "NORMAL";
  };
  converts_to_future_round?: boolean;
  converts_to_stock_class_id?: string;
}

/**
 * A class of shares (common or preferred).
 *
 * @category OCF
 */
export interface OcfStockClass {
  object_type: "STOCK_CLASS";
  id: string;
  comments?: string[];
  name: string;
  class_type: "COMMON" | "PREFERRED";
  default_id_prefix: string;
  /** A share count, `"NOT APPLICABLE"` or `"UNLIMITED"`. */
  initial_shares_authorized: string;
  board_approval_date?: CalendarDate;
  stockholder_approval_date?: CalendarDate;
  votes_per_share: OcfNumeric;
  par_value?: OcfMonetary;
  price_per_share?: OcfMonetary;
  seniority: OcfNumeric;
  conversion_rights?: OcfStockClassConversionRight[];
  liquidation_preference_multiple?: OcfNumeric;
  participation_cap_multiple?: OcfNumeric;
}

/**
 * An equity incentive plan and its reserved pool. It names its stock classes through exactly one of
 * `stock_class_ids` (preferred since 1.2.0) or the deprecated single `stock_class_id`.
 *
 * @category OCF
 */
export type OcfStockPlan = {
  object_type: "STOCK_PLAN";
  id: string;
  comments?: string[];
  plan_name: string;
  board_approval_date?: CalendarDate;
  stockholder_approval_date?: CalendarDate;
  initial_shares_reserved: OcfNumeric;
  default_cancellation_behavior?:
    | "RETIRE"
    | "RETURN_TO_POOL"
    | "HOLD_AS_CAPITAL_STOCK"
    | "DEFINED_PER_PLAN_SECURITY";
} & ({ stock_class_ids: string[]; stock_class_id?: never } | { stock_class_id: string; stock_class_ids?: never });

/**
 * The text of a legend printed on share certificates, referenced by `stock_legend_ids`.
 *
 * @category OCF
 */
export interface OcfStockLegendTemplate {
  object_type: "STOCK_LEGEND_TEMPLATE";
  id: string;
  comments?: string[];
  name: string;
  text: string;
}

/**
 * The day of the month a monthly vesting period falls on.
 *
 * @category OCF
 */
export type OcfVestingDayOfMonth =
  | "01"
  | "02"
  | "03"
  | "04"
  | "05"
  | "06"
  | "07"
  | "08"
  | "09"
  | "10"
  | "11"
  | "12"
  | "13"
  | "14"
  | "15"
  | "16"
  | "17"
  | "18"
  | "19"
  | "20"
  | "21"
  | "22"
  | "23"
  | "24"
  | "25"
  | "26"
  | "27"
  | "28"
  | "29_OR_LAST_DAY_OF_MONTH"
  | "30_OR_LAST_DAY_OF_MONTH"
  | "31_OR_LAST_DAY_OF_MONTH"
  | "VESTING_START_DAY_OR_LAST_DAY_OF_MONTH";

/**
 * A repeating vesting period: `occurrences` times every `length` days or months.
 *
 * @category OCF
 */
export type OcfVestingPeriod =
  | { type: "DAYS"; length: number; occurrences: number }
  | { type: "MONTHS"; length: number; occurrences: number; day_of_month: OcfVestingDayOfMonth };

/**
 * What makes a vesting condition happen.
 *
 * @category OCF
 */
export type OcfVestingTrigger =
  | { type: "VESTING_START_DATE" }
  | { type: "VESTING_SCHEDULE_ABSOLUTE"; date: CalendarDate }
  | { type: "VESTING_SCHEDULE_RELATIVE"; period: OcfVestingPeriod; relative_to_condition_id: string }
  | { type: "VESTING_EVENT" };

/**
 * A fraction of the grant. With `remainder: true` it applies to what has not vested yet instead of
 * the whole issued quantity.
 *
 * @category OCF
 */
export interface OcfVestingConditionPortion {
  numerator: OcfNumeric;
  denominator: OcfNumeric;
  remainder?: boolean;
}

/**
 * One node of a vesting graph; it vests exactly one of a `portion` of the grant or a fixed `quantity`.
 *
 * @category OCF
 */
export type OcfVestingCondition = {
  id: string;
  description?: string;
  trigger: OcfVestingTrigger;
  next_condition_ids: string[];
} & ({ portion: OcfVestingConditionPortion; quantity?: never } | { quantity: OcfNumeric; portion?: never });

/**
 * A reusable vesting schedule: a graph of conditions, referenced by `vesting_terms_id`.
 *
 * @category OCF
 */
export interface OcfVestingTerms {
  object_type: "VESTING_TERMS";
  id: string;
  comments?: string[];
  name: string;
  description: string;
  allocation_type:
    | "CUMULATIVE_ROUNDING"
    | "CUMULATIVE_ROUND_DOWN"
    | "FRONT_LOADED"
    | "BACK_LOADED"
    | "FRONT_LOADED_TO_SINGLE_TRANCHE"
    | "BACK_LOADED_TO_SINGLE_TRANCHE"
    | "FRACTIONAL";
  vesting_conditions: OcfVestingCondition[];
}

/**
 * A valuation of a stock class (a 409A).
 *
 * @category OCF
 */
export interface OcfValuation {
  object_type: "VALUATION";
  id: string;
  comments?: string[];
  provider?: string;
  board_approval_date?: CalendarDate;
  stockholder_approval_date?: CalendarDate;
  price_per_share: OcfMonetary;
  effective_date: CalendarDate;
  stock_class_id: string;
  valuation_type: "409A";
}

// ---------------------------------------------------------------------------------------------
// Transactions

/**
 * Shares issued to a stakeholder; with `issuance_type: "RSA"` a restricted stock award.
 *
 * @category OCF
 */
export interface OcfStockIssuance {
  object_type: "TX_STOCK_ISSUANCE";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  custom_id: string;
  stakeholder_id: string;
  board_approval_date?: CalendarDate;
  stockholder_approval_date?: CalendarDate;
  consideration_text?: string;
  security_law_exemptions: OcfSecurityExemption[];
  stock_class_id: string;
  stock_plan_id?: string;
  share_numbers_issued?: OcfShareNumberRange[];
  share_price: OcfMonetary;
  quantity: OcfNumeric;
  vesting_terms_id?: string;
  vestings?: OcfVesting[];
  cost_basis?: OcfMonetary;
  stock_legend_ids: string[];
  issuance_type?: "RSA" | "FOUNDERS_STOCK";
}

/**
 * The kind of an equity compensation: options, RSUs, stock appreciation rights.
 *
 * @category OCF
 */
export type OcfCompensationType = "OPTION_NSO" | "OPTION_ISO" | "OPTION" | "RSU" | "CSAR" | "SSAR";

/**
 * An equity compensation granted to a stakeholder; with `compensation_type: "RSU"` a restricted stock unit.
 *
 * @category OCF
 */
export interface OcfEquityCompensationIssuance {
  /** The legacy `TX_PLAN_SECURITY_*` spelling is read, never written. */
  object_type: "TX_EQUITY_COMPENSATION_ISSUANCE" | "TX_PLAN_SECURITY_ISSUANCE";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  custom_id: string;
  stakeholder_id: string;
  board_approval_date?: CalendarDate;
  stockholder_approval_date?: CalendarDate;
  consideration_text?: string;
  security_law_exemptions: OcfSecurityExemption[];
  stock_plan_id?: string;
  stock_class_id?: string;
  compensation_type: OcfCompensationType;
  option_grant_type?: "NSO" | "ISO" | "INTL";
  quantity: OcfNumeric;
  exercise_price?: OcfMonetary;
  base_price?: OcfMonetary;
  early_exercisable?: boolean;
  vesting_terms_id?: string;
  vestings?: OcfVesting[];
  expiration_date: CalendarDate | null;
  termination_exercise_windows: OcfTerminationWindow[];
}

/**
 * Vesting of a security starts, at its vesting condition `vesting_condition_id`.
 *
 * @category OCF
 */
export interface OcfVestingStart {
  object_type: "TX_VESTING_START";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  vesting_condition_id: string;
}

/**
 * A vesting condition of a security was met (a milestone).
 *
 * @category OCF
 */
export interface OcfVestingEvent {
  object_type: "TX_VESTING_EVENT";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  vesting_condition_id: string;
}

/**
 * Vesting of `quantity` was accelerated.
 *
 * @category OCF
 */
export interface OcfVestingAcceleration {
  object_type: "TX_VESTING_ACCELERATION";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  quantity: OcfNumeric;
  reason_text: string;
}

/**
 * Vested units of an equity compensation released (settled) into the securities `resulting_security_ids`.
 *
 * @category OCF
 */
export interface OcfEquityCompensationRelease {
  object_type: "TX_EQUITY_COMPENSATION_RELEASE" | "TX_PLAN_SECURITY_RELEASE";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  settlement_date: CalendarDate;
  release_price: OcfMonetary;
  quantity: OcfNumeric;
  consideration_text?: string;
  resulting_security_ids: string[];
}

/**
 * Shares cancelled; what is left of the security, if anything, is `balance_security_id`.
 *
 * @category OCF
 */
export interface OcfStockCancellation {
  object_type: "TX_STOCK_CANCELLATION";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  quantity: OcfNumeric;
  reason_text: string;
  balance_security_id?: string;
}

/**
 * Units of an equity compensation cancelled (forfeited, expired).
 *
 * @category OCF
 */
export interface OcfEquityCompensationCancellation {
  object_type: "TX_EQUITY_COMPENSATION_CANCELLATION" | "TX_PLAN_SECURITY_CANCELLATION";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  quantity: OcfNumeric;
  reason_text: string;
  balance_security_id?: string;
}

/**
 * Shares bought back by the issuer.
 *
 * @category OCF
 */
export interface OcfStockRepurchase {
  object_type: "TX_STOCK_REPURCHASE";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  price: OcfMonetary;
  quantity: OcfNumeric;
  consideration_text?: string;
  balance_security_id?: string;
}

/**
 * A stock issuance withdrawn as if it never happened.
 *
 * @category OCF
 */
export interface OcfStockRetraction {
  object_type: "TX_STOCK_RETRACTION";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  reason_text: string;
}

/**
 * An equity compensation withdrawn as if it never happened.
 *
 * @category OCF
 */
export interface OcfEquityCompensationRetraction {
  object_type: "TX_EQUITY_COMPENSATION_RETRACTION" | "TX_PLAN_SECURITY_RETRACTION";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  reason_text: string;
}

/**
 * Shares of a cancelled or repurchased security returned to the plan's pool.
 *
 * @category OCF
 */
export interface OcfStockPlanReturnToPool {
  object_type: "TX_STOCK_PLAN_RETURN_TO_POOL";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  stock_plan_id: string;
  quantity: OcfNumeric;
  reason_text: string;
}

/**
 * The stakeholder accepted a stock issuance.
 *
 * @category OCF
 */
export interface OcfStockAcceptance {
  object_type: "TX_STOCK_ACCEPTANCE";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
}

/**
 * The stakeholder accepted an equity compensation.
 *
 * @category OCF
 */
export interface OcfEquityCompensationAcceptance {
  object_type: "TX_EQUITY_COMPENSATION_ACCEPTANCE" | "TX_PLAN_SECURITY_ACCEPTANCE";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
}

/**
 * Shares transferred into the securities `resulting_security_ids`.
 *
 * @category OCF
 */
export interface OcfStockTransfer {
  object_type: "TX_STOCK_TRANSFER";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  quantity: OcfNumeric;
  consideration_text?: string;
  balance_security_id?: string;
  resulting_security_ids: string[];
}

/**
 * Units of an equity compensation transferred into the securities `resulting_security_ids`.
 *
 * @category OCF
 */
export interface OcfEquityCompensationTransfer {
  object_type: "TX_EQUITY_COMPENSATION_TRANSFER" | "TX_PLAN_SECURITY_TRANSFER";
  id: string;
  comments?: string[];
  date: CalendarDate;
  security_id: string;
  quantity: OcfNumeric;
  consideration_text?: string;
  balance_security_id?: string;
  resulting_security_ids: string[];
}

/**
 * Every transaction ocf-sync models, told apart by `object_type`.
 *
 * @category OCF
 */
export type OcfTransaction =
  | OcfStockIssuance
  | OcfEquityCompensationIssuance
  | OcfVestingStart
  | OcfVestingEvent
  | OcfVestingAcceleration
  | OcfEquityCompensationRelease
  | OcfStockCancellation
  | OcfEquityCompensationCancellation
  | OcfStockRepurchase
  | OcfStockRetraction
  | OcfEquityCompensationRetraction
  | OcfStockPlanReturnToPool
  | OcfStockAcceptance
  | OcfEquityCompensationAcceptance
  | OcfStockTransfer
  | OcfEquityCompensationTransfer;

/**
 * Every object ocf-sync models, told apart by `object_type`.
 *
 * @category OCF
 */
export type OcfObject =
  | OcfIssuer
  | OcfStakeholder
  | OcfStockClass
  | OcfStockLegendTemplate
  | OcfStockPlan
  | OcfValuation
  | OcfVestingTerms
  | OcfTransaction;

/**
 * The transaction kinds of OCF 1.2.0 (`enums/ObjectType`) that ocf-sync has no schema for: valid OCF
 * that other systems write (exercises, conversions, splits, pool adjustments, warrants, convertibles).
 *
 * @category OCF
 */
export type OcfUnschemedTransactionType =
  | "TX_ISSUER_AUTHORIZED_SHARES_ADJUSTMENT"
  | "TX_STOCK_CLASS_CONVERSION_RATIO_ADJUSTMENT"
  | "TX_STOCK_CLASS_AUTHORIZED_SHARES_ADJUSTMENT"
  | "TX_STOCK_CLASS_SPLIT"
  | "TX_STOCK_PLAN_POOL_ADJUSTMENT"
  | "TX_STOCK_CONVERSION"
  | "TX_STOCK_REISSUANCE"
  | "TX_EQUITY_COMPENSATION_EXERCISE"
  | "TX_PLAN_SECURITY_EXERCISE"
  | "TX_CONVERTIBLE_ACCEPTANCE"
  | "TX_CONVERTIBLE_CANCELLATION"
  | "TX_CONVERTIBLE_CONVERSION"
  | "TX_CONVERTIBLE_ISSUANCE"
  | "TX_CONVERTIBLE_RETRACTION"
  | "TX_CONVERTIBLE_TRANSFER"
  | "TX_WARRANT_ACCEPTANCE"
  | "TX_WARRANT_CANCELLATION"
  | "TX_WARRANT_EXERCISE"
  | "TX_WARRANT_ISSUANCE"
  | "TX_WARRANT_RETRACTION"
  | "TX_WARRANT_TRANSFER";

/**
 * Every `object_type` of OCF 1.2.0 that ocf-sync does not model: the unschemed transactions, and the
 * financings and documents that live in files ocf-sync never writes.
 *
 * @category OCF
 */
export type OcfUnmodelledObjectType = OcfUnschemedTransactionType | "FINANCING" | "DOCUMENT";

/**
 * An object of an OCF 1.2.0 kind ocf-sync does not model, as `readOcfPackage` yields it: valid OCF
 * that ocf-sync cannot check beyond its `object_type` (one of `OcfUnmodelledObjectType`, allowed in
 * its file) and its string `id`. Every other field is `unknown`: test it before use.
 *
 * @category OCF
 */
export interface UnknownOcfObject<T extends OcfUnmodelledObjectType = OcfUnmodelledObjectType> {
  object_type: T;
  id: string;
  readonly [field: string]: unknown;
}

/**
 * Every object a package file holds, as `readOcfPackage` yields it: an object ocf-sync models (checked
 * against its schema) or an `UnknownOcfObject`, told apart by `object_type`. The issuer is not among
 * them: it lives in the manifest.
 *
 * @category OCF
 */
export type OcfPackageObject = Exclude<OcfObject, OcfIssuer> | UnknownOcfObject;

// ---------------------------------------------------------------------------------------------
// Files

/**
 * The `file_type` of every OCF file.
 *
 * @category OCF
 */
export type OcfFileType =
  | "OCF_MANIFEST_FILE"
  | "OCF_STAKEHOLDERS_FILE"
  | "OCF_STOCK_CLASSES_FILE"
  | "OCF_STOCK_PLANS_FILE"
  | "OCF_STOCK_LEGEND_TEMPLATES_FILE"
  | "OCF_VESTING_TERMS_FILE"
  | "OCF_VALUATIONS_FILE"
  | "OCF_TRANSACTIONS_FILE";

/**
 * The `file_type` of every OCF file that holds `items` (all but the manifest).
 *
 * @category OCF
 */
export type OcfItemsFileType = Exclude<OcfFileType, "OCF_MANIFEST_FILE">;

/**
 * A package's `Manifest.ocf.json`: the issuer, the dates, and the list of every other file with the
 * MD5 of its bytes.
 *
 * @category OCF
 */
export interface OcfManifest {
  file_type: "OCF_MANIFEST_FILE";
  ocf_version: "1.2.0";
  issuer: OcfIssuer;
  as_of: CalendarDate;
  /** An RFC 3339 date-time with a zone. */
  generated_at: string;
  comments?: string[];
  stock_plans_files: OcfFileReference[];
  stock_legend_templates_files: OcfFileReference[];
  stock_classes_files: OcfFileReference[];
  vesting_terms_files: OcfFileReference[];
  valuations_files: OcfFileReference[];
  transactions_files: OcfFileReference[];
  stakeholders_files: OcfFileReference[];
  financings_files?: OcfFileReference[];
  documents_files?: OcfFileReference[];
}

/**
 * The manifest key listing the files of each items-file type.
 *
 * @category OCF
 */
export type OcfManifestFileListKey =
  | "stock_plans_files"
  | "stock_legend_templates_files"
  | "stock_classes_files"
  | "vesting_terms_files"
  | "valuations_files"
  | "transactions_files"
  | "stakeholders_files";

/**
 * A stakeholders file.
 *
 * @category OCF
 */
export interface OcfStakeholdersFile {
  file_type: "OCF_STAKEHOLDERS_FILE";
  items: OcfStakeholder[];
}

/**
 * A stock classes file.
 *
 * @category OCF
 */
export interface OcfStockClassesFile {
  file_type: "OCF_STOCK_CLASSES_FILE";
  items: OcfStockClass[];
}

/**
 * A stock plans file.
 *
 * @category OCF
 */
export interface OcfStockPlansFile {
  file_type: "OCF_STOCK_PLANS_FILE";
  items: OcfStockPlan[];
}

/**
 * A stock legend templates file.
 *
 * @category OCF
 */
export interface OcfStockLegendTemplatesFile {
  file_type: "OCF_STOCK_LEGEND_TEMPLATES_FILE";
  items: OcfStockLegendTemplate[];
}

/**
 * A vesting terms file.
 *
 * @category OCF
 */
export interface OcfVestingTermsFile {
  file_type: "OCF_VESTING_TERMS_FILE";
  items: OcfVestingTerms[];
}

/**
 * A valuations file.
 *
 * @category OCF
 */
export interface OcfValuationsFile {
  file_type: "OCF_VALUATIONS_FILE";
  items: OcfValuation[];
}

/**
 * A transactions file.
 *
 * @category OCF
 */
export interface OcfTransactionsFile {
  file_type: "OCF_TRANSACTIONS_FILE";
  items: OcfTransaction[];
}

/**
 * Every OCF file ocf-sync models, told apart by `file_type`.
 *
 * @category OCF
 */
export type OcfFile =
  | OcfManifest
  | OcfStakeholdersFile
  | OcfStockClassesFile
  | OcfStockPlansFile
  | OcfStockLegendTemplatesFile
  | OcfVestingTermsFile
  | OcfValuationsFile
  | OcfTransactionsFile;
