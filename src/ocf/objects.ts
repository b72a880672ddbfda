/**
 * OCF 1.2.0 non-transaction objects that ocf-sync reads and writes: Issuer, Stakeholder, StockClass,
 * StockPlan, StockLegendTemplate, VestingTerms (with its vesting conditions) and Valuation. Each is
 * closed as OCF closes it: an unknown key is an error, never ignored.
 */
import { z } from "zod";
import {
  OCF_NUMERIC_PATTERN,
  OcfAddressSchema,
  OcfCommentsSchema,
  OcfContactInfoSchema,
  OcfContactInfoWithoutNameSchema,
  OcfCountryCodeSchema,
  OcfCountrySubdivisionCodeSchema,
  OcfDateSchema,
  OcfEmailSchema,
  OcfIntegerSchema,
  OcfMonetarySchema,
  OcfNameSchema,
  OcfNumericSchema,
  OcfPhoneSchema,
  OcfTaxIdSchema,
  uniqueStrings,
  withObjectRule,
} from "./primitives.js";

/** Keys every OCF object has: its `id` and optional `comments`. */
const objectBase = {
  id: z.string(),
  comments: OcfCommentsSchema.exactOptional(),
};

/** `"NOT APPLICABLE"` or `"UNLIMITED"` in place of a share count (`enums/AuthorizedShares`). */
export const AUTHORIZED_SHARES_WORDS = ["NOT APPLICABLE", "UNLIMITED"] as const;

/** A share count (OCF Numeric), or one of the two words OCF 1.2.0 allows instead of one. */
const authorizedSharesSchema = z.string().refine(
  (value) => (AUTHORIZED_SHARES_WORDS as readonly string[]).includes(value) || OCF_NUMERIC_PATTERN.test(value),
  { message: 'must be an OCF Numeric share count, "NOT APPLICABLE" or "UNLIMITED"' },
);

/** The company the package describes; it lives inline in the manifest, not in a file of its own. */
export const OcfIssuerSchema = z.strictObject({
  object_type: z.literal("ISSUER"),
  ...objectBase,
  legal_name: z.string(),
  dba: z.string().exactOptional(),
  formation_date: OcfDateSchema,
  country_of_formation: OcfCountryCodeSchema,
  country_subdivision_of_formation: OcfCountrySubdivisionCodeSchema.exactOptional(),
  tax_ids: z.array(OcfTaxIdSchema).exactOptional(),
  email: OcfEmailSchema.exactOptional(),
  phone: OcfPhoneSchema.exactOptional(),
  address: OcfAddressSchema.exactOptional(),
  initial_shares_authorized: authorizedSharesSchema.exactOptional(),
});
export type OcfIssuer = z.output<typeof OcfIssuerSchema>;

export const STAKEHOLDER_TYPES = ["INDIVIDUAL", "INSTITUTION"] as const;

export const STAKEHOLDER_RELATIONSHIP_TYPES = [
  "ADVISOR",
  "BOARD_MEMBER",
  "CONSULTANT",
  "EMPLOYEE",
  "EX_ADVISOR",
  "EX_CONSULTANT",
  "EX_EMPLOYEE",
  "EXECUTIVE",
  "FOUNDER",
  "INVESTOR",
  "NON_US_EMPLOYEE",
  "OFFICER",
  "OTHER",
] as const;

/** A person or institution that holds (or held) securities of the issuer. */
export const OcfStakeholderSchema = z.strictObject({
  object_type: z.literal("STAKEHOLDER"),
  ...objectBase,
  name: OcfNameSchema,
  stakeholder_type: z.enum(STAKEHOLDER_TYPES),
  issuer_assigned_id: z.string().exactOptional(),
  current_relationship: z.enum(STAKEHOLDER_RELATIONSHIP_TYPES).exactOptional(),
  primary_contact: OcfContactInfoSchema.exactOptional(),
  contact_info: OcfContactInfoWithoutNameSchema.exactOptional(),
  addresses: z.array(OcfAddressSchema).exactOptional(),
  tax_ids: z.array(OcfTaxIdSchema).exactOptional(),
});
export type OcfStakeholder = z.output<typeof OcfStakeholderSchema>;

export const STOCK_CLASS_TYPES = ["COMMON", "PREFERRED"] as const;

export const ROUNDING_TYPES = ["CEILING", "FLOOR", "NORMAL"] as const;

/** How a preferred class converts into another class: always a ratio for stock classes. */
export const OcfRatioConversionMechanismSchema = z.strictObject({
  type: z.literal("RATIO_CONVERSION"),
  conversion_price: OcfMonetarySchema,
  ratio: z.strictObject({ numerator: OcfNumericSchema, denominator: OcfNumericSchema }),
  rounding_type: z.enum(ROUNDING_TYPES),
});

/** A conversion right of a stock class (`types/conversion_rights/StockClassConversionRight`). */
export const OcfStockClassConversionRightSchema = z.strictObject({
  // OCF declares the discriminator but does not require it on stock-class rights.
  type: z.literal("STOCK_CLASS_CONVERSION_RIGHT").exactOptional(),
  conversion_mechanism: OcfRatioConversionMechanismSchema,
  converts_to_future_round: z.boolean().exactOptional(),
  converts_to_stock_class_id: z.string().exactOptional(),
});
export type OcfStockClassConversionRight = z.output<typeof OcfStockClassConversionRightSchema>;

/** A class of shares (e.g. Common) that issuances point to through `stock_class_id`. */
export const OcfStockClassSchema = z.strictObject({
  object_type: z.literal("STOCK_CLASS"),
  ...objectBase,
  name: z.string(),
  class_type: z.enum(STOCK_CLASS_TYPES),
  default_id_prefix: z.string(),
  initial_shares_authorized: authorizedSharesSchema,
  board_approval_date: OcfDateSchema.exactOptional(),
  stockholder_approval_date: OcfDateSchema.exactOptional(),
  votes_per_share: OcfNumericSchema,
  par_value: OcfMonetarySchema.exactOptional(),
  price_per_share: OcfMonetarySchema.exactOptional(),
  seniority: OcfNumericSchema,
  conversion_rights: z.array(OcfStockClassConversionRightSchema).exactOptional(),
  liquidation_preference_multiple: OcfNumericSchema.exactOptional(),
  participation_cap_multiple: OcfNumericSchema.exactOptional(),
});
export type OcfStockClass = z.output<typeof OcfStockClassSchema>;

export const STOCK_PLAN_CANCELLATION_BEHAVIORS = [
  "RETIRE",
  "RETURN_TO_POOL",
  "HOLD_AS_CAPITAL_STOCK",
  "DEFINED_PER_PLAN_SECURITY",
] as const;

const stockPlanFields = {
  object_type: z.literal("STOCK_PLAN"),
  ...objectBase,
  plan_name: z.string(),
  board_approval_date: OcfDateSchema.exactOptional(),
  stockholder_approval_date: OcfDateSchema.exactOptional(),
  initial_shares_reserved: OcfNumericSchema,
  default_cancellation_behavior: z.enum(STOCK_PLAN_CANCELLATION_BEHAVIORS).exactOptional(),
  stock_class_ids: z.array(z.string()).min(1, { message: "must name at least one stock class" }).exactOptional(),
  stock_class_id: z.string().exactOptional(),
};

type StockPlanFields = z.output<z.ZodObject<typeof stockPlanFields>>;

/**
 * An equity incentive plan and its reserved pool. It names its stock classes through exactly one of
 * `stock_class_ids` (preferred since 1.2.0) or the deprecated single `stock_class_id`.
 */
export type OcfStockPlan = Omit<StockPlanFields, "stock_class_ids" | "stock_class_id"> &
  ({ stock_class_ids: string[]; stock_class_id?: never } | { stock_class_id: string; stock_class_ids?: never });

// zod cannot infer a one-of from a refinement; the cast states the union the refinement enforces.
export const OcfStockPlanSchema = withObjectRule(z.strictObject(stockPlanFields), (plan, ctx) => {
  if ((plan.stock_class_ids === undefined) === (plan.stock_class_id === undefined)) {
    ctx.addIssue({
      code: "custom",
      message: "needs exactly one of stock_class_ids or stock_class_id (the deprecated single form)",
      path: [],
    });
  }
}) as unknown as z.ZodType<OcfStockPlan, unknown>;

/** The text of a legend printed on share certificates, referenced by `stock_legend_ids`. */
export const OcfStockLegendTemplateSchema = z.strictObject({
  object_type: z.literal("STOCK_LEGEND_TEMPLATE"),
  ...objectBase,
  name: z.string(),
  text: z.string(),
});
export type OcfStockLegendTemplate = z.output<typeof OcfStockLegendTemplateSchema>;

export const VESTING_DAYS_OF_MONTH = [
  "01",
  "02",
  "03",
  "04",
  "05",
  "06",
  "07",
  "08",
  "09",
  "10",
  "11",
  "12",
  "13",
  "14",
  "15",
  "16",
  "17",
  "18",
  "19",
  "20",
  "21",
  "22",
  "23",
  "24",
  "25",
  "26",
  "27",
  "28",
  "29_OR_LAST_DAY_OF_MONTH",
  "30_OR_LAST_DAY_OF_MONTH",
  "31_OR_LAST_DAY_OF_MONTH",
  "VESTING_START_DAY_OR_LAST_DAY_OF_MONTH",
] as const;

const periodCounts = {
  length: OcfIntegerSchema.refine((n) => n >= 0, { message: "must not be negative" }),
  occurrences: OcfIntegerSchema.refine((n) => n >= 1, { message: "must be at least 1" }),
};

/** A vesting period counted in days. OCF has no year period: use 365 days or 12 months. */
export const OcfVestingPeriodInDaysSchema = z.strictObject({ type: z.literal("DAYS"), ...periodCounts });

/** A vesting period counted in calendar months; `day_of_month` settles the day each tranche lands on. */
export const OcfVestingPeriodInMonthsSchema = z.strictObject({
  type: z.literal("MONTHS"),
  ...periodCounts,
  day_of_month: z.enum(VESTING_DAYS_OF_MONTH),
});

export const OcfVestingPeriodSchema = z.discriminatedUnion("type", [
  OcfVestingPeriodInDaysSchema,
  OcfVestingPeriodInMonthsSchema,
]);
export type OcfVestingPeriod = z.output<typeof OcfVestingPeriodSchema>;

/** What makes a vesting condition fire. */
export const OcfVestingTriggerSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("VESTING_START_DATE") }),
  z.strictObject({ type: z.literal("VESTING_SCHEDULE_ABSOLUTE"), date: OcfDateSchema }),
  z.strictObject({
    type: z.literal("VESTING_SCHEDULE_RELATIVE"),
    period: OcfVestingPeriodSchema,
    relative_to_condition_id: z.string(),
  }),
  z.strictObject({ type: z.literal("VESTING_EVENT") }),
]);
export type OcfVestingTrigger = z.output<typeof OcfVestingTriggerSchema>;

/**
 * A fraction of the grant. With `remainder: true` it applies to what has not vested yet instead of
 * the whole issued quantity.
 */
export const OcfVestingConditionPortionSchema = z.strictObject({
  numerator: OcfNumericSchema,
  denominator: OcfNumericSchema,
  remainder: z.boolean().exactOptional(),
});
export type OcfVestingConditionPortion = z.output<typeof OcfVestingConditionPortionSchema>;

const vestingConditionFields = {
  id: z.string().min(1, { message: "must not be empty" }),
  description: z.string().exactOptional(),
  portion: OcfVestingConditionPortionSchema.exactOptional(),
  quantity: OcfNumericSchema.exactOptional(),
  trigger: OcfVestingTriggerSchema,
  next_condition_ids: uniqueStrings(),
};

type VestingConditionFields = z.output<z.ZodObject<typeof vestingConditionFields>>;

/** One node of a vesting graph; it vests exactly one of a `portion` of the grant or a fixed `quantity`. */
export type OcfVestingCondition = Omit<VestingConditionFields, "portion" | "quantity"> &
  ({ portion: OcfVestingConditionPortion; quantity?: never } | { quantity: string; portion?: never });

// zod cannot infer a one-of from a refinement; the cast states the union the refinement enforces.
export const OcfVestingConditionSchema = withObjectRule(z.strictObject(vestingConditionFields), (condition, ctx) => {
  if ((condition.portion === undefined) === (condition.quantity === undefined)) {
    ctx.addIssue({ code: "custom", message: "needs exactly one of portion or quantity", path: [] });
  }
}) as unknown as z.ZodType<OcfVestingCondition, unknown>;

export const ALLOCATION_TYPES = [
  "CUMULATIVE_ROUNDING",
  "CUMULATIVE_ROUND_DOWN",
  "FRONT_LOADED",
  "BACK_LOADED",
  "FRONT_LOADED_TO_SINGLE_TRANCHE",
  "BACK_LOADED_TO_SINGLE_TRANCHE",
  "FRACTIONAL",
] as const;

/** A reusable vesting schedule: a graph of conditions, referenced by `vesting_terms_id`. */
export const OcfVestingTermsSchema = z.strictObject({
  object_type: z.literal("VESTING_TERMS"),
  ...objectBase,
  name: z.string(),
  description: z.string(),
  allocation_type: z.enum(ALLOCATION_TYPES),
  vesting_conditions: z.array(OcfVestingConditionSchema).min(1, { message: "must hold at least one condition" }),
});
export type OcfVestingTerms = z.output<typeof OcfVestingTermsSchema>;

export const VALUATION_TYPES = ["409A"] as const;

/** A valuation of a stock class (in OCF 1.2.0 only 409A). */
export const OcfValuationSchema = z.strictObject({
  object_type: z.literal("VALUATION"),
  ...objectBase,
  provider: z.string().exactOptional(),
  board_approval_date: OcfDateSchema.exactOptional(),
  stockholder_approval_date: OcfDateSchema.exactOptional(),
  price_per_share: OcfMonetarySchema,
  effective_date: OcfDateSchema,
  stock_class_id: z.string(),
  valuation_type: z.enum(VALUATION_TYPES),
});
export type OcfValuation = z.output<typeof OcfValuationSchema>;
