/**
 * The public OCF types (types.ts, plain TypeScript, so that the published declarations never mention
 * zod) are exactly the types the runtime schemas infer. `npm run typecheck` compiles this file: when
 * a type and its schema differ, the `Same<...>` of that type fails to compile and names it. types.ts
 * is written from the schemas by scripts/write-ocf-types.ts: this proves the generator right too.
 *
 * One entry per export of types.ts (`test/unit/ocf/types-match.test.ts` checks none is missing). Types
 * that no single schema infers are compared with what the schemas say of them: a field's type, a
 * union of schemas, the runtime list that names them.
 *
 * Compiled by the type check only: tsconfig.build.json leaves it out of `dist/` and nothing imports it.
 */
import type { z } from "zod";
import type * as files from "./files.js";
import type * as objects from "./objects.js";
import type * as primitives from "./primitives.js";
import type { UNSCHEMED_TRANSACTIONS } from "./schemas.js";
import type * as transactions from "./transactions.js";
import type * as T from "./types.js";

/** `true` only when `A` and `B` are the same type (not merely assignable one way). */
type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends (<X>() => X extends B ? 1 : 2) ? true : false;

/** Compiles only when `Check` is `true`. */
type Same<Check extends true> = Check;

/** The type of a field of `O`, without the `undefined` an optional field adds when indexed. */
type FieldOf<O, K extends keyof O> = Exclude<O[K], undefined>;

/** The keys of `O` that are required. */
type RequiredKeys<O> = { [K in keyof O]-?: object extends Pick<O, K> ? never : K }[keyof O];

type Manifest = z.infer<typeof files.OcfManifestSchema>;
type Issuer = z.infer<typeof objects.OcfIssuerSchema>;
type Transaction = z.infer<typeof transactions.OcfTransactionSchema>;

/** Every object a schema checks: the issuer, the six other non-transactions, every transaction. */
type SchemaObject =
  | Issuer
  | z.infer<typeof objects.OcfStakeholderSchema>
  | z.infer<typeof objects.OcfStockClassSchema>
  | z.infer<typeof objects.OcfStockLegendTemplateSchema>
  | z.infer<typeof objects.OcfStockPlanSchema>
  | z.infer<typeof objects.OcfValuationSchema>
  | z.infer<typeof objects.OcfVestingTermsSchema>
  | Transaction;

/** Every file a schema checks. */
type SchemaFile =
  | Manifest
  | z.infer<typeof files.OcfStakeholdersFileSchema>
  | z.infer<typeof files.OcfStockClassesFileSchema>
  | z.infer<typeof files.OcfStockPlansFileSchema>
  | z.infer<typeof files.OcfStockLegendTemplatesFileSchema>
  | z.infer<typeof files.OcfVestingTermsFileSchema>
  | z.infer<typeof files.OcfValuationsFileSchema>
  | z.infer<typeof files.OcfTransactionsFileSchema>;

/** One entry per export of types.ts, named as it. */
export interface OcfTypesMatchSchemas {
  // Primitive value types
  OcfNumeric: Same<Equals<T.OcfNumeric, z.infer<typeof primitives.OcfNumericSchema>>>;
  OcfMonetary: Same<Equals<T.OcfMonetary, z.infer<typeof primitives.OcfMonetarySchema>>>;
  OcfName: Same<Equals<T.OcfName, z.infer<typeof primitives.OcfNameSchema>>>;
  OcfEmail: Same<Equals<T.OcfEmail, z.infer<typeof primitives.OcfEmailSchema>>>;
  OcfPhone: Same<Equals<T.OcfPhone, z.infer<typeof primitives.OcfPhoneSchema>>>;
  OcfAddress: Same<Equals<T.OcfAddress, z.infer<typeof primitives.OcfAddressSchema>>>;
  OcfTaxId: Same<Equals<T.OcfTaxId, z.infer<typeof primitives.OcfTaxIdSchema>>>;
  OcfContactInfoWithoutName: Same<Equals<T.OcfContactInfoWithoutName, z.infer<typeof primitives.OcfContactInfoWithoutNameSchema>>>;
  OcfContactInfo: Same<Equals<T.OcfContactInfo, z.infer<typeof primitives.OcfContactInfoSchema>>>;
  OcfSecurityExemption: Same<Equals<T.OcfSecurityExemption, z.infer<typeof primitives.OcfSecurityExemptionSchema>>>;
  OcfTerminationWindow: Same<Equals<T.OcfTerminationWindow, z.infer<typeof primitives.OcfTerminationWindowSchema>>>;
  OcfShareNumberRange: Same<Equals<T.OcfShareNumberRange, z.infer<typeof primitives.OcfShareNumberRangeSchema>>>;
  OcfVesting: Same<Equals<T.OcfVesting, z.infer<typeof primitives.OcfVestingSchema>>>;
  OcfFileReference: Same<Equals<T.OcfFileReference, z.infer<typeof primitives.OcfFileReferenceSchema>>>;

  // Objects
  OcfIssuer: Same<Equals<T.OcfIssuer, Issuer>>;
  OcfStakeholderRelationship: Same<Equals<T.OcfStakeholderRelationship, FieldOf<z.infer<typeof objects.OcfStakeholderSchema>, "current_relationship">>>;
  OcfStakeholder: Same<Equals<T.OcfStakeholder, z.infer<typeof objects.OcfStakeholderSchema>>>;
  OcfStockClassConversionRight: Same<Equals<T.OcfStockClassConversionRight, z.infer<typeof objects.OcfStockClassConversionRightSchema>>>;
  OcfStockClass: Same<Equals<T.OcfStockClass, z.infer<typeof objects.OcfStockClassSchema>>>;
  OcfStockPlan: Same<Equals<T.OcfStockPlan, z.infer<typeof objects.OcfStockPlanSchema>>>;
  OcfStockLegendTemplate: Same<Equals<T.OcfStockLegendTemplate, z.infer<typeof objects.OcfStockLegendTemplateSchema>>>;
  OcfVestingDayOfMonth: Same<Equals<T.OcfVestingDayOfMonth, z.infer<typeof objects.OcfVestingPeriodInMonthsSchema>["day_of_month"]>>;
  OcfVestingPeriod: Same<Equals<T.OcfVestingPeriod, z.infer<typeof objects.OcfVestingPeriodSchema>>>;
  OcfVestingTrigger: Same<Equals<T.OcfVestingTrigger, z.infer<typeof objects.OcfVestingTriggerSchema>>>;
  OcfVestingConditionPortion: Same<Equals<T.OcfVestingConditionPortion, z.infer<typeof objects.OcfVestingConditionPortionSchema>>>;
  OcfVestingCondition: Same<Equals<T.OcfVestingCondition, z.infer<typeof objects.OcfVestingConditionSchema>>>;
  OcfVestingTerms: Same<Equals<T.OcfVestingTerms, z.infer<typeof objects.OcfVestingTermsSchema>>>;
  OcfValuation: Same<Equals<T.OcfValuation, z.infer<typeof objects.OcfValuationSchema>>>;

  // Transactions
  OcfStockIssuance: Same<Equals<T.OcfStockIssuance, z.infer<typeof transactions.OcfStockIssuanceSchema>>>;
  OcfCompensationType: Same<Equals<T.OcfCompensationType, z.infer<typeof transactions.OcfEquityCompensationIssuanceSchema>["compensation_type"]>>;
  OcfEquityCompensationIssuance: Same<Equals<T.OcfEquityCompensationIssuance, z.infer<typeof transactions.OcfEquityCompensationIssuanceSchema>>>;
  OcfVestingStart: Same<Equals<T.OcfVestingStart, z.infer<typeof transactions.OcfVestingStartSchema>>>;
  OcfVestingEvent: Same<Equals<T.OcfVestingEvent, z.infer<typeof transactions.OcfVestingEventSchema>>>;
  OcfVestingAcceleration: Same<Equals<T.OcfVestingAcceleration, z.infer<typeof transactions.OcfVestingAccelerationSchema>>>;
  OcfEquityCompensationRelease: Same<Equals<T.OcfEquityCompensationRelease, z.infer<typeof transactions.OcfEquityCompensationReleaseSchema>>>;
  OcfStockCancellation: Same<Equals<T.OcfStockCancellation, z.infer<typeof transactions.OcfStockCancellationSchema>>>;
  OcfEquityCompensationCancellation: Same<Equals<T.OcfEquityCompensationCancellation, z.infer<typeof transactions.OcfEquityCompensationCancellationSchema>>>;
  OcfStockRepurchase: Same<Equals<T.OcfStockRepurchase, z.infer<typeof transactions.OcfStockRepurchaseSchema>>>;
  OcfStockRetraction: Same<Equals<T.OcfStockRetraction, z.infer<typeof transactions.OcfStockRetractionSchema>>>;
  OcfEquityCompensationRetraction: Same<Equals<T.OcfEquityCompensationRetraction, z.infer<typeof transactions.OcfEquityCompensationRetractionSchema>>>;
  OcfStockPlanReturnToPool: Same<Equals<T.OcfStockPlanReturnToPool, z.infer<typeof transactions.OcfStockPlanReturnToPoolSchema>>>;
  OcfStockAcceptance: Same<Equals<T.OcfStockAcceptance, z.infer<typeof transactions.OcfStockAcceptanceSchema>>>;
  OcfEquityCompensationAcceptance: Same<Equals<T.OcfEquityCompensationAcceptance, z.infer<typeof transactions.OcfEquityCompensationAcceptanceSchema>>>;
  OcfStockTransfer: Same<Equals<T.OcfStockTransfer, z.infer<typeof transactions.OcfStockTransferSchema>>>;
  OcfEquityCompensationTransfer: Same<Equals<T.OcfEquityCompensationTransfer, z.infer<typeof transactions.OcfEquityCompensationTransferSchema>>>;
  OcfTransaction: Same<Equals<T.OcfTransaction, Transaction>>;
  OcfObject: Same<Equals<T.OcfObject, SchemaObject>>;

  // The kinds ocf-sync reads without a schema: named by the runtime list, and none of them a kind a schema checks.
  OcfUnschemedTransactionType: Same<Equals<T.OcfUnschemedTransactionType, (typeof UNSCHEMED_TRANSACTIONS)[number]>>;
  OcfUnmodelledObjectType: Same<Equals<Extract<T.OcfUnmodelledObjectType, SchemaObject["object_type"]>, never>>;
  UnknownOcfObject: Same<Equals<[T.UnknownOcfObject["object_type"], T.UnknownOcfObject["id"]], [T.OcfUnmodelledObjectType, Issuer["id"]]>>;
  OcfPackageObject: Same<Equals<T.OcfPackageObject, Exclude<SchemaObject, Issuer> | T.UnknownOcfObject>>;

  // Files
  OcfFileType: Same<Equals<T.OcfFileType, SchemaFile["file_type"]>>;
  OcfItemsFileType: Same<Equals<T.OcfItemsFileType, Exclude<SchemaFile, Manifest>["file_type"]>>;
  OcfManifest: Same<Equals<T.OcfManifest, Manifest>>;
  OcfManifestFileListKey: Same<Equals<T.OcfManifestFileListKey, Extract<RequiredKeys<Manifest>, `${string}_files`>>>;
  OcfStakeholdersFile: Same<Equals<T.OcfStakeholdersFile, z.infer<typeof files.OcfStakeholdersFileSchema>>>;
  OcfStockClassesFile: Same<Equals<T.OcfStockClassesFile, z.infer<typeof files.OcfStockClassesFileSchema>>>;
  OcfStockPlansFile: Same<Equals<T.OcfStockPlansFile, z.infer<typeof files.OcfStockPlansFileSchema>>>;
  OcfStockLegendTemplatesFile: Same<Equals<T.OcfStockLegendTemplatesFile, z.infer<typeof files.OcfStockLegendTemplatesFileSchema>>>;
  OcfVestingTermsFile: Same<Equals<T.OcfVestingTermsFile, z.infer<typeof files.OcfVestingTermsFileSchema>>>;
  OcfValuationsFile: Same<Equals<T.OcfValuationsFile, z.infer<typeof files.OcfValuationsFileSchema>>>;
  OcfTransactionsFile: Same<Equals<T.OcfTransactionsFile, z.infer<typeof files.OcfTransactionsFileSchema>>>;
  OcfFile: Same<Equals<T.OcfFile, SchemaFile>>;
}
