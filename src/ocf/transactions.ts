/**
 * OCF 1.2.0 transactions that ocf-sync emits or reads for restricted stock awards (stock issuances)
 * and restricted stock units (equity-compensation issuances), with their vesting, release,
 * cancellation, repurchase, retraction, return-to-pool, acceptance and transfer events.
 *
 * The equity-compensation transactions also accept the legacy `TX_PLAN_SECURITY_*` spellings that
 * OCF 1.2.0 still allows, so that older packages can be read; ocf-sync itself writes only the
 * `TX_EQUITY_COMPENSATION_*` names.
 */
import { z } from "zod";
import {
  OcfCommentsSchema,
  OcfDateSchema,
  OcfMonetarySchema,
  OcfNumericSchema,
  OcfSecurityExemptionSchema,
  OcfShareNumberRangeSchema,
  OcfTerminationWindowSchema,
  OcfVestingSchema,
  uniqueStrings,
  withObjectRule,
} from "./primitives.js";

/** Keys of every transaction on one security: `id`, `date`, `security_id`, optional `comments`. */
const securityTransaction = {
  id: z.string(),
  comments: OcfCommentsSchema.exactOptional(),
  date: OcfDateSchema,
  security_id: z.string(),
};

/** Keys shared by all issuances (`primitives/objects/transactions/issuance/Issuance`). */
const issuance = {
  ...securityTransaction,
  custom_id: z.string(),
  stakeholder_id: z.string(),
  board_approval_date: OcfDateSchema.exactOptional(),
  stockholder_approval_date: OcfDateSchema.exactOptional(),
  consideration_text: z.string().exactOptional(),
  security_law_exemptions: z.array(OcfSecurityExemptionSchema),
};

/** `vestings` must hold at least one tranche; a security without tranches leaves the key out. */
const vestings = z
  .array(OcfVestingSchema)
  .min(1, { message: "must hold at least one tranche; leave the key out instead of writing []" });

export const STOCK_ISSUANCE_TYPES = ["RSA", "FOUNDERS_STOCK"] as const;

/** Shares issued to a stakeholder; with `issuance_type: "RSA"` a restricted stock award. */
export const OcfStockIssuanceSchema = z.strictObject({
  object_type: z.literal("TX_STOCK_ISSUANCE"),
  ...issuance,
  stock_class_id: z.string(),
  stock_plan_id: z.string().exactOptional(),
  share_numbers_issued: z.array(OcfShareNumberRangeSchema).exactOptional(),
  share_price: OcfMonetarySchema,
  quantity: OcfNumericSchema,
  vesting_terms_id: z.string().exactOptional(),
  vestings: vestings.exactOptional(),
  cost_basis: OcfMonetarySchema.exactOptional(),
  stock_legend_ids: z.array(z.string()),
  issuance_type: z.enum(STOCK_ISSUANCE_TYPES).exactOptional(),
});
export type OcfStockIssuance = z.output<typeof OcfStockIssuanceSchema>;

export const COMPENSATION_TYPES = ["OPTION_NSO", "OPTION_ISO", "OPTION", "RSU", "CSAR", "SSAR"] as const;
export type OcfCompensationType = (typeof COMPENSATION_TYPES)[number];

export const OPTION_GRANT_TYPES = ["NSO", "ISO", "INTL"] as const;

/** The price field each compensation type must carry; RSUs need neither. */
const REQUIRED_PRICE_OF: Readonly<Record<OcfCompensationType, "exercise_price" | "base_price" | undefined>> = {
  OPTION_NSO: "exercise_price",
  OPTION_ISO: "exercise_price",
  OPTION: "exercise_price",
  RSU: undefined,
  CSAR: "base_price",
  SSAR: "base_price",
};

/**
 * An award under an equity compensation plan; with `compensation_type: "RSU"` a restricted stock
 * unit. `expiration_date` is required but may be `null` (no expiry).
 */
export const OcfEquityCompensationIssuanceSchema = withObjectRule(
  z.strictObject({
    object_type: z.enum(["TX_EQUITY_COMPENSATION_ISSUANCE", "TX_PLAN_SECURITY_ISSUANCE"]),
    ...issuance,
    stock_plan_id: z.string().exactOptional(),
    stock_class_id: z.string().exactOptional(),
    compensation_type: z.enum(COMPENSATION_TYPES),
    option_grant_type: z.enum(OPTION_GRANT_TYPES).exactOptional(),
    quantity: OcfNumericSchema,
    exercise_price: OcfMonetarySchema.exactOptional(),
    base_price: OcfMonetarySchema.exactOptional(),
    early_exercisable: z.boolean().exactOptional(),
    vesting_terms_id: z.string().exactOptional(),
    vestings: vestings.exactOptional(),
    expiration_date: OcfDateSchema.nullable(),
    termination_exercise_windows: z.array(OcfTerminationWindowSchema),
  }),
  (award, ctx) => {
    // Under EVEN_IF_FIELDS_FAIL compensation_type may be anything here, even "constructor".
    const type: unknown = award.compensation_type;
    const required = typeof type === "string" && Object.hasOwn(REQUIRED_PRICE_OF, type)
      ? REQUIRED_PRICE_OF[type as OcfCompensationType]
      : undefined;
    if (required !== undefined && award[required] === undefined) {
      ctx.addIssue({
        code: "custom",
        message: `is required when compensation_type is ${award.compensation_type}`,
        path: [required],
      });
    }
  },
);
export type OcfEquityCompensationIssuance = z.output<typeof OcfEquityCompensationIssuanceSchema>;

/** The vesting commencement of a security whose issuance names VestingTerms. */
export const OcfVestingStartSchema = z.strictObject({
  object_type: z.literal("TX_VESTING_START"),
  ...securityTransaction,
  vesting_condition_id: z.string(),
});
export type OcfVestingStart = z.output<typeof OcfVestingStartSchema>;

/** A `VESTING_EVENT` condition of the security's VestingTerms that has happened (e.g. a milestone). */
export const OcfVestingEventSchema = z.strictObject({
  object_type: z.literal("TX_VESTING_EVENT"),
  ...securityTransaction,
  vesting_condition_id: z.string(),
});
export type OcfVestingEvent = z.output<typeof OcfVestingEventSchema>;

/** Shares that vest ahead of schedule. */
export const OcfVestingAccelerationSchema = z.strictObject({
  object_type: z.literal("TX_VESTING_ACCELERATION"),
  ...securityTransaction,
  quantity: OcfNumericSchema,
  reason_text: z.string(),
});
export type OcfVestingAcceleration = z.output<typeof OcfVestingAccelerationSchema>;

/**
 * Settlement of units (e.g. RSUs) into shares. Terminal, with no balance security; the shares issued
 * by the release are listed in `resulting_security_ids` (which may be empty).
 */
export const OcfEquityCompensationReleaseSchema = z.strictObject({
  object_type: z.enum(["TX_EQUITY_COMPENSATION_RELEASE", "TX_PLAN_SECURITY_RELEASE"]),
  ...securityTransaction,
  settlement_date: OcfDateSchema,
  release_price: OcfMonetarySchema,
  quantity: OcfNumericSchema,
  consideration_text: z.string().exactOptional(),
  resulting_security_ids: z.array(z.string()),
});
export type OcfEquityCompensationRelease = z.output<typeof OcfEquityCompensationReleaseSchema>;

const cancellation = {
  ...securityTransaction,
  quantity: OcfNumericSchema,
  reason_text: z.string(),
  balance_security_id: z.string().exactOptional(),
};

/** Shares cancelled (e.g. unvested RSA shares forfeited for no consideration). */
export const OcfStockCancellationSchema = z.strictObject({
  object_type: z.literal("TX_STOCK_CANCELLATION"),
  ...cancellation,
});
export type OcfStockCancellation = z.output<typeof OcfStockCancellationSchema>;

/** Units or options cancelled (OCF's only way to say forfeited or expired). */
export const OcfEquityCompensationCancellationSchema = z.strictObject({
  object_type: z.enum(["TX_EQUITY_COMPENSATION_CANCELLATION", "TX_PLAN_SECURITY_CANCELLATION"]),
  ...cancellation,
});
export type OcfEquityCompensationCancellation = z.output<typeof OcfEquityCompensationCancellationSchema>;

/** Shares bought back by the issuer; `price` is per share. */
export const OcfStockRepurchaseSchema = z.strictObject({
  object_type: z.literal("TX_STOCK_REPURCHASE"),
  ...securityTransaction,
  price: OcfMonetarySchema,
  quantity: OcfNumericSchema,
  consideration_text: z.string().exactOptional(),
  balance_security_id: z.string().exactOptional(),
});
export type OcfStockRepurchase = z.output<typeof OcfStockRepurchaseSchema>;

/** A stock issuance voided outright. */
export const OcfStockRetractionSchema = z.strictObject({
  object_type: z.literal("TX_STOCK_RETRACTION"),
  ...securityTransaction,
  reason_text: z.string(),
});
export type OcfStockRetraction = z.output<typeof OcfStockRetractionSchema>;

/** An equity-compensation issuance voided outright. */
export const OcfEquityCompensationRetractionSchema = z.strictObject({
  object_type: z.enum(["TX_EQUITY_COMPENSATION_RETRACTION", "TX_PLAN_SECURITY_RETRACTION"]),
  ...securityTransaction,
  reason_text: z.string(),
});
export type OcfEquityCompensationRetraction = z.output<typeof OcfEquityCompensationRetractionSchema>;

/** Reserved shares going back to a plan's pool, usually after a cancellation. */
export const OcfStockPlanReturnToPoolSchema = z.strictObject({
  object_type: z.literal("TX_STOCK_PLAN_RETURN_TO_POOL"),
  ...securityTransaction,
  stock_plan_id: z.string(),
  quantity: OcfNumericSchema,
  reason_text: z.string(),
});
export type OcfStockPlanReturnToPool = z.output<typeof OcfStockPlanReturnToPoolSchema>;

/** The holder accepted a stock issuance. */
export const OcfStockAcceptanceSchema = z.strictObject({
  object_type: z.literal("TX_STOCK_ACCEPTANCE"),
  ...securityTransaction,
});
export type OcfStockAcceptance = z.output<typeof OcfStockAcceptanceSchema>;

/** The holder accepted an equity-compensation award. */
export const OcfEquityCompensationAcceptanceSchema = z.strictObject({
  object_type: z.enum(["TX_EQUITY_COMPENSATION_ACCEPTANCE", "TX_PLAN_SECURITY_ACCEPTANCE"]),
  ...securityTransaction,
});
export type OcfEquityCompensationAcceptance = z.output<typeof OcfEquityCompensationAcceptanceSchema>;

const transfer = {
  ...securityTransaction,
  quantity: OcfNumericSchema,
  consideration_text: z.string().exactOptional(),
  balance_security_id: z.string().exactOptional(),
  resulting_security_ids: uniqueStrings().min(1, { message: "must name at least one resulting security" }),
};

/** Shares moved to another holder; the new holdings are listed in `resulting_security_ids`. */
export const OcfStockTransferSchema = z.strictObject({
  object_type: z.literal("TX_STOCK_TRANSFER"),
  ...transfer,
});
export type OcfStockTransfer = z.output<typeof OcfStockTransferSchema>;

/** An equity-compensation award moved to another holder. */
export const OcfEquityCompensationTransferSchema = z.strictObject({
  object_type: z.enum(["TX_EQUITY_COMPENSATION_TRANSFER", "TX_PLAN_SECURITY_TRANSFER"]),
  ...transfer,
});
export type OcfEquityCompensationTransfer = z.output<typeof OcfEquityCompensationTransferSchema>;

/** Every transaction ocf-sync models, told apart by `object_type`. */
export const OcfTransactionSchema = z.discriminatedUnion("object_type", [
  OcfStockIssuanceSchema,
  OcfEquityCompensationIssuanceSchema,
  OcfVestingStartSchema,
  OcfVestingEventSchema,
  OcfVestingAccelerationSchema,
  OcfEquityCompensationReleaseSchema,
  OcfStockCancellationSchema,
  OcfEquityCompensationCancellationSchema,
  OcfStockRepurchaseSchema,
  OcfStockRetractionSchema,
  OcfEquityCompensationRetractionSchema,
  OcfStockPlanReturnToPoolSchema,
  OcfStockAcceptanceSchema,
  OcfEquityCompensationAcceptanceSchema,
  OcfStockTransferSchema,
  OcfEquityCompensationTransferSchema,
]);
export type OcfTransaction = z.output<typeof OcfTransactionSchema>;
