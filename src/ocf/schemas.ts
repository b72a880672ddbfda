/**
 * The project's own OCF 1.2.0 types and runtime schemas, and the two entry points that check a value
 * against them: `validateOcfObject` for one object, `validateOcfFile` for one file of a package.
 *
 * The schemas are written from the official JSON Schemas' rules, not generated from them; the tests
 * check that they accept and reject exactly what the official schemas do.
 */
import type { OcfFile, OcfObject, OcfUnschemedTransactionType } from "./types.js";
import { compiledSchema } from "../zod-compiled.js";
import { z } from "zod";
import { closest } from "../closest.js";
import { describeValue } from "../errors.js";
import { compiledTwinOf } from "./primitives.js";
import * as files from "./files.js";
import * as objects from "./objects.js";
import * as transactions from "./transactions.js";

export {
  ADDRESS_TYPES,
  EMAIL_TYPES,
  OCF_NUMERIC_PATTERN,
  OcfAddressSchema,
  OcfCommentsSchema,
  OcfContactInfoSchema,
  OcfContactInfoWithoutNameSchema,
  OcfCountryCodeSchema,
  OcfCountrySubdivisionCodeSchema,
  OcfCurrencyCodeSchema,
  OcfDateSchema,
  OcfDateTimeSchema,
  OcfEmailSchema,
  OcfFileReferenceSchema,
  OcfIntegerSchema,
  OcfMd5Schema,
  OcfMonetarySchema,
  OcfNameSchema,
  OcfNumericSchema,
  OcfPhoneSchema,
  OcfSecurityExemptionSchema,
  OcfShareNumberRangeSchema,
  OcfTaxIdSchema,
  OcfTerminationWindowSchema,
  OcfVestingSchema,
  PERIOD_TYPES,
  PHONE_TYPES,
  TERMINATION_WINDOW_TYPES,
  isRfc3339DateTime,
} from "./primitives.js";
export type {
  OcfAddress,
  OcfContactInfo,
  OcfContactInfoWithoutName,
  OcfEmail,
  OcfFileReference,
  OcfMonetary,
  OcfName,
  OcfNumeric,
  OcfPhone,
  OcfSecurityExemption,
  OcfShareNumberRange,
  OcfTaxId,
  OcfTerminationWindow,
  OcfVesting,
} from "./types.js";
export {
  ALLOCATION_TYPES,
  AUTHORIZED_SHARES_WORDS,
  OcfIssuerSchema,
  OcfRatioConversionMechanismSchema,
  OcfStakeholderSchema,
  OcfStockClassConversionRightSchema,
  OcfStockClassSchema,
  OcfStockLegendTemplateSchema,
  OcfStockPlanSchema,
  OcfValuationSchema,
  OcfVestingConditionPortionSchema,
  OcfVestingConditionSchema,
  OcfVestingPeriodInDaysSchema,
  OcfVestingPeriodInMonthsSchema,
  OcfVestingPeriodSchema,
  OcfVestingTermsSchema,
  OcfVestingTriggerSchema,
  ROUNDING_TYPES,
  STAKEHOLDER_RELATIONSHIP_TYPES,
  STAKEHOLDER_TYPES,
  STOCK_CLASS_TYPES,
  STOCK_PLAN_CANCELLATION_BEHAVIORS,
  VALUATION_TYPES,
  VESTING_DAYS_OF_MONTH,
} from "./objects.js";
export type {
  OcfIssuer,
  OcfStakeholder,
  OcfStockClass,
  OcfStockClassConversionRight,
  OcfStockLegendTemplate,
  OcfStockPlan,
  OcfValuation,
  OcfVestingCondition,
  OcfVestingConditionPortion,
  OcfVestingPeriod,
  OcfVestingTerms,
  OcfVestingTrigger,
} from "./types.js";
export {
  COMPENSATION_TYPES,
  OPTION_GRANT_TYPES,
  STOCK_ISSUANCE_TYPES,
  OcfEquityCompensationAcceptanceSchema,
  OcfEquityCompensationCancellationSchema,
  OcfEquityCompensationIssuanceSchema,
  OcfEquityCompensationReleaseSchema,
  OcfEquityCompensationRetractionSchema,
  OcfEquityCompensationTransferSchema,
  OcfStockAcceptanceSchema,
  OcfStockCancellationSchema,
  OcfStockIssuanceSchema,
  OcfStockPlanReturnToPoolSchema,
  OcfStockRepurchaseSchema,
  OcfStockRetractionSchema,
  OcfStockTransferSchema,
  OcfTransactionSchema,
  OcfVestingAccelerationSchema,
  OcfVestingEventSchema,
  OcfVestingStartSchema,
} from "./transactions.js";
export type {
  OcfCompensationType,
  OcfEquityCompensationAcceptance,
  OcfEquityCompensationCancellation,
  OcfEquityCompensationIssuance,
  OcfEquityCompensationRelease,
  OcfEquityCompensationRetraction,
  OcfEquityCompensationTransfer,
  OcfStockAcceptance,
  OcfStockCancellation,
  OcfStockIssuance,
  OcfStockPlanReturnToPool,
  OcfStockRepurchase,
  OcfStockRetraction,
  OcfStockTransfer,
  OcfTransaction,
  OcfVestingAcceleration,
  OcfVestingEvent,
  OcfVestingStart,
} from "./types.js";
export {
  FILE_TYPES,
  MANIFEST_KEY_OF,
  OCF_VERSION,
  OcfManifestSchema,
  OcfStakeholdersFileSchema,
  OcfStockClassesFileSchema,
  OcfStockLegendTemplatesFileSchema,
  OcfStockPlansFileSchema,
  OcfTransactionsFileSchema,
  OcfValuationsFileSchema,
  OcfVestingTermsFileSchema,
} from "./files.js";
export type {
  OcfFile,
  OcfFileType,
  OcfItemsFileType,
  OcfManifest,
  OcfManifestFileListKey,
  OcfStakeholdersFile,
  OcfStockClassesFile,
  OcfStockLegendTemplatesFile,
  OcfStockPlansFile,
  OcfTransactionsFile,
  OcfValuationsFile,
  OcfVestingTermsFile,
} from "./types.js";

export type { OcfObject } from "./types.js";

/** The object schema for each `object_type` ocf-sync writes. */
const SCHEMA_OF_OBJECT_TYPE = {
  ISSUER: objects.OcfIssuerSchema,
  STAKEHOLDER: objects.OcfStakeholderSchema,
  STOCK_CLASS: objects.OcfStockClassSchema,
  STOCK_PLAN: objects.OcfStockPlanSchema,
  STOCK_LEGEND_TEMPLATE: objects.OcfStockLegendTemplateSchema,
  VESTING_TERMS: objects.OcfVestingTermsSchema,
  VALUATION: objects.OcfValuationSchema,
  TX_STOCK_ISSUANCE: transactions.OcfStockIssuanceSchema,
  TX_EQUITY_COMPENSATION_ISSUANCE: transactions.OcfEquityCompensationIssuanceSchema,
  TX_VESTING_START: transactions.OcfVestingStartSchema,
  TX_VESTING_EVENT: transactions.OcfVestingEventSchema,
  TX_VESTING_ACCELERATION: transactions.OcfVestingAccelerationSchema,
  TX_EQUITY_COMPENSATION_RELEASE: transactions.OcfEquityCompensationReleaseSchema,
  TX_STOCK_CANCELLATION: transactions.OcfStockCancellationSchema,
  TX_EQUITY_COMPENSATION_CANCELLATION: transactions.OcfEquityCompensationCancellationSchema,
  TX_STOCK_REPURCHASE: transactions.OcfStockRepurchaseSchema,
  TX_STOCK_RETRACTION: transactions.OcfStockRetractionSchema,
  TX_EQUITY_COMPENSATION_RETRACTION: transactions.OcfEquityCompensationRetractionSchema,
  TX_STOCK_PLAN_RETURN_TO_POOL: transactions.OcfStockPlanReturnToPoolSchema,
  TX_STOCK_ACCEPTANCE: transactions.OcfStockAcceptanceSchema,
  TX_EQUITY_COMPENSATION_ACCEPTANCE: transactions.OcfEquityCompensationAcceptanceSchema,
  TX_STOCK_TRANSFER: transactions.OcfStockTransferSchema,
  TX_EQUITY_COMPENSATION_TRANSFER: transactions.OcfEquityCompensationTransferSchema,
} as const satisfies Record<string, z.ZodType<OcfObject, unknown>>;

/** The `object_type` values ocf-sync writes (and reads). */
export const OBJECT_TYPES = Object.keys(SCHEMA_OF_OBJECT_TYPE) as (keyof typeof SCHEMA_OF_OBJECT_TYPE)[];
export type OcfObjectType = keyof typeof SCHEMA_OF_OBJECT_TYPE;

/**
 * Pre-1.1 spellings of the equity-compensation transactions, still valid in OCF 1.2.0 (to be dropped
 * in 2.0). ocf-sync reads them and never writes them; each maps to the name it writes instead.
 */
export const LEGACY_OBJECT_TYPES = {
  TX_PLAN_SECURITY_ISSUANCE: "TX_EQUITY_COMPENSATION_ISSUANCE",
  TX_PLAN_SECURITY_RELEASE: "TX_EQUITY_COMPENSATION_RELEASE",
  TX_PLAN_SECURITY_CANCELLATION: "TX_EQUITY_COMPENSATION_CANCELLATION",
  TX_PLAN_SECURITY_RETRACTION: "TX_EQUITY_COMPENSATION_RETRACTION",
  TX_PLAN_SECURITY_ACCEPTANCE: "TX_EQUITY_COMPENSATION_ACCEPTANCE",
  TX_PLAN_SECURITY_TRANSFER: "TX_EQUITY_COMPENSATION_TRANSFER",
} as const satisfies Record<string, OcfObjectType>;
export type OcfLegacyObjectType = keyof typeof LEGACY_OBJECT_TYPES;

/**
 * The transaction kinds of OCF 1.2.0 (`enums/ObjectType`) that ocf-sync has no schema for: valid OCF
 * that other systems write (exercises, conversions, splits, pool adjustments, warrants, convertibles).
 * `validate` does not check their fields (it would call valid OCF invalid), and says how many it met;
 * their references and lineage are checked as any transaction's.
 */
export const UNSCHEMED_TRANSACTIONS = [
  "TX_ISSUER_AUTHORIZED_SHARES_ADJUSTMENT",
  "TX_STOCK_CLASS_CONVERSION_RATIO_ADJUSTMENT",
  "TX_STOCK_CLASS_AUTHORIZED_SHARES_ADJUSTMENT",
  "TX_STOCK_CLASS_SPLIT",
  "TX_STOCK_PLAN_POOL_ADJUSTMENT",
  "TX_STOCK_CONVERSION",
  "TX_STOCK_REISSUANCE",
  "TX_EQUITY_COMPENSATION_EXERCISE",
  "TX_PLAN_SECURITY_EXERCISE",
  "TX_CONVERTIBLE_ACCEPTANCE",
  "TX_CONVERTIBLE_CANCELLATION",
  "TX_CONVERTIBLE_CONVERSION",
  "TX_CONVERTIBLE_ISSUANCE",
  "TX_CONVERTIBLE_RETRACTION",
  "TX_CONVERTIBLE_TRANSFER",
  "TX_WARRANT_ACCEPTANCE",
  "TX_WARRANT_CANCELLATION",
  "TX_WARRANT_EXERCISE",
  "TX_WARRANT_ISSUANCE",
  "TX_WARRANT_RETRACTION",
  "TX_WARRANT_TRANSFER",
] as const satisfies readonly OcfUnschemedTransactionType[];
export const UNSCHEMED_TRANSACTION_TYPES: ReadonlySet<string> = new Set<string>(UNSCHEMED_TRANSACTIONS);

/**
 * Every `object_type` of OCF 1.2.0 (`enums/ObjectType`): those ocf-sync models, their legacy
 * spellings, the transactions it reads unchecked, and the two objects it neither reads nor writes.
 */
export const OCF_OBJECT_TYPES: ReadonlySet<string> = new Set([
  ...OBJECT_TYPES,
  ...Object.keys(LEGACY_OBJECT_TYPES),
  ...UNSCHEMED_TRANSACTION_TYPES,
  "FINANCING",
  "DOCUMENT",
]);

const SCHEMA_OF_FILE_TYPE = {
  OCF_MANIFEST_FILE: files.OcfManifestSchema,
  OCF_STAKEHOLDERS_FILE: files.OcfStakeholdersFileSchema,
  OCF_STOCK_CLASSES_FILE: files.OcfStockClassesFileSchema,
  OCF_STOCK_PLANS_FILE: files.OcfStockPlansFileSchema,
  OCF_STOCK_LEGEND_TEMPLATES_FILE: files.OcfStockLegendTemplatesFileSchema,
  OCF_VESTING_TERMS_FILE: files.OcfVestingTermsFileSchema,
  OCF_VALUATIONS_FILE: files.OcfValuationsFileSchema,
  OCF_TRANSACTIONS_FILE: files.OcfTransactionsFileSchema,
} as const satisfies Record<files.OcfFileType, z.ZodType<files.OcfFile, unknown>>;

/** Every `file_type` of OCF 1.2.0 (`enums/FileType`): those ocf-sync models and the two it does not. */
export const OCF_FILE_TYPES: ReadonlySet<string> = new Set([...Object.keys(SCHEMA_OF_FILE_TYPE), "OCF_FINANCINGS_FILE", "OCF_DOCUMENTS_FILE"]);

/**
 * One reason a value is not valid OCF: where (`$.items[3].quantity`) and what is wrong.
 *
 * @category OCF
 */
export interface OcfIssue {
  /** JSONPath-style location inside the checked value; `$` is the value itself. */
  path: string;
  message: string;
}

/**
 * The verdict of `validateOcfObject` / `validateOcfFile`: the typed value, or every issue found.
 *
 * @category OCF
 */
export type OcfValidationResult<T> = { ok: true; value: T } | { ok: false; issues: OcfIssue[] };

/**
 * Checks one OCF object (issuer, stakeholder, stock class, stock plan, legend template, vesting
 * terms, valuation or transaction) against ocf-sync's OCF 1.2.0 schemas, chosen by its
 * `object_type`. Legacy `TX_PLAN_SECURITY_*` spellings are accepted. An `object_type` ocf-sync does
 * not model is an issue, not a pass.
 *
 * @example
 * ```ts
 * import { validateOcfObject } from "ocf-sync";
 * const text = '{ "object_type": "STAKEHOLDER", "id": "sh-1", "name": { "legal_name": "Ada Lovelace" } }';
 * const verdict = validateOcfObject(JSON.parse(text));
 * if (verdict.ok) console.log(verdict.value.object_type);
 * else for (const i of verdict.issues) console.error(`${i.path}: ${i.message}`); // the missing stakeholder_type
 * ```
 *
 * @category OCF
 */
export function validateOcfObject(item: unknown): OcfValidationResult<OcfObject> {
  const objectType = discriminatorOf(item, "object_type");
  if (!objectType.ok) return objectType;
  const schema = objectSchemaOf(objectType.value);
  if (schema === undefined) return failure("$.object_type", unknownType("object", objectType.value, OBJECT_TYPES));
  return run(schema, item);
}

/**
 * True exactly when `validateOcfObject(item).ok` is: the same schemas, without the copy of the value
 * or the issues. For checking many objects that are expected to pass (every object the mapping
 * emits); call `validateOcfObject` for the issues of one that does not.
 */
export function isValidOcfObject(item: unknown): item is OcfObject {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return false;
  const objectType = (item as Record<string, unknown>)["object_type"];
  const schema = typeof objectType === "string" ? objectSchemaOf(objectType) : undefined;
  if (schema === undefined) return false;
  return (compiledTwinOf(schema) ?? compiledSchema(schema)).validate(item);
}

function objectSchemaOf(objectType: string): z.ZodType<OcfObject, unknown> | undefined {
  const canonical = (LEGACY_OBJECT_TYPES as Record<string, OcfObjectType | undefined>)[objectType];
  return lookup(SCHEMA_OF_OBJECT_TYPE, canonical ?? objectType);
}

/**
 * Checks one file of an OCF package (the manifest or a `{ file_type, items }` file) against
 * ocf-sync's OCF 1.2.0 schemas, chosen by its `file_type`. Every item is checked by its own
 * `object_type`, so an item of a type the file cannot hold is an issue.
 *
 * @category OCF
 */
export function validateOcfFile(file: unknown): OcfValidationResult<OcfFile> {
  const fileType = discriminatorOf(file, "file_type");
  if (!fileType.ok) return fileType;
  const schema: z.ZodType<files.OcfFile, unknown> | undefined = lookup(SCHEMA_OF_FILE_TYPE, fileType.value);
  if (schema === undefined) return failure("$.file_type", unknownType("file", fileType.value, Object.keys(SCHEMA_OF_FILE_TYPE)));
  return run(schema, file);
}

/** The schema every item of each `{ file_type, items }` file must meet (what `validateOcfFile` checks each item against). */
const ITEM_SCHEMA_OF_FILE_TYPE = {
  OCF_STAKEHOLDERS_FILE: objects.OcfStakeholderSchema,
  OCF_STOCK_CLASSES_FILE: objects.OcfStockClassSchema,
  OCF_STOCK_PLANS_FILE: objects.OcfStockPlanSchema,
  OCF_STOCK_LEGEND_TEMPLATES_FILE: objects.OcfStockLegendTemplateSchema,
  OCF_VESTING_TERMS_FILE: objects.OcfVestingTermsSchema,
  OCF_VALUATIONS_FILE: objects.OcfValuationSchema,
  OCF_TRANSACTIONS_FILE: transactions.OcfTransactionSchema,
} as const satisfies Record<files.OcfItemsFileType, z.ZodType<OcfObject, unknown>>;

/** The one `object_type` each items file holds; `undefined` for the transactions file, which holds every `TX_*`. */
const OBJECT_TYPE_OF_FILE_TYPE: Readonly<Record<files.OcfItemsFileType, string | undefined>> = {
  OCF_STAKEHOLDERS_FILE: "STAKEHOLDER",
  OCF_STOCK_CLASSES_FILE: "STOCK_CLASS",
  OCF_STOCK_PLANS_FILE: "STOCK_PLAN",
  OCF_STOCK_LEGEND_TEMPLATES_FILE: "STOCK_LEGEND_TEMPLATE",
  OCF_VESTING_TERMS_FILE: "VESTING_TERMS",
  OCF_VALUATIONS_FILE: "VALUATION",
  OCF_TRANSACTIONS_FILE: undefined,
};

/**
 * Checks one item of a `{ file_type, items }` file of type `fileType`: the verdict and the issues
 * `validateOcfFile` gives that item inside its file, with paths relative to the item (`$.quantity`
 * for the file's `$.items[3].quantity`). For reading a file item by item. A valid item takes the
 * compiled fast path of `isValidOcfObject`.
 */
export function validateOcfFileItem(fileType: files.OcfItemsFileType, item: unknown): { ok: true } | { ok: false; issues: OcfIssue[] } {
  if (isValidOcfObject(item)) {
    const objectType = (item as { object_type: string }).object_type;
    const canonical = (LEGACY_OBJECT_TYPES as Record<string, string | undefined>)[objectType] ?? objectType;
    const holds = OBJECT_TYPE_OF_FILE_TYPE[fileType];
    if (holds === undefined ? canonical.startsWith("TX_") : canonical === holds) return { ok: true };
  }
  const schema: z.ZodType<OcfObject, unknown> = ITEM_SCHEMA_OF_FILE_TYPE[fileType];
  const verdict = run(schema, item);
  return verdict.ok ? { ok: true } : verdict;
}

/** Whether `fileType` is a `{ file_type, items }` file type ocf-sync models. */
export function isItemsFileType(fileType: unknown): fileType is files.OcfItemsFileType {
  return typeof fileType === "string" && Object.hasOwn(ITEM_SCHEMA_OF_FILE_TYPE, fileType);
}

function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

function failure(path: string, message: string): { ok: false; issues: OcfIssue[] } {
  return { ok: false, issues: [{ path, message }] };
}

/**
 * Why `value` is not an `object_type` (or `file_type`) that can be checked where `allowed` can: not an
 * OCF 1.2.0 one at all (with the one it may be a typo of), one ocf-sync has no schema for, or one
 * that does not belong here (a stakeholder in the transactions file).
 */
function unknownType(kind: "object" | "file", value: string, allowed: readonly string[]): string {
  const official = kind === "object" ? OCF_OBJECT_TYPES : OCF_FILE_TYPES;
  const shown = describeValue(value);
  if (!official.has(value)) {
    const guess = closest(value, [...official]);
    return `${shown} is not an OCF 1.2.0 ${kind} type${guess === undefined ? "" : ` (did you mean ${describeValue(guess)}?)`}`;
  }
  const modelled = kind === "object" ? objectSchemaOf(value) !== undefined : lookup(SCHEMA_OF_FILE_TYPE, value) !== undefined;
  if (!modelled) return `${shown} is an OCF 1.2.0 ${kind} type ocf-sync has no schema for`;
  const here = allowed.every((type) => type.startsWith("TX_")) ? "transactions only" : allowed.join(", ");
  return `${shown} is an OCF 1.2.0 ${kind} type, but not one allowed here (${here})`;
}

function discriminatorOf(
  value: unknown,
  key: "object_type" | "file_type",
): { ok: true; value: string } | { ok: false; issues: OcfIssue[] } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return failure("$", `must be a JSON object with ${key === "object_type" ? "an" : "a"} ${key}, got ${describeValue(value)}`);
  }
  const found = (value as Record<string, unknown>)[key];
  if (typeof found !== "string") {
    return failure(`$.${key}`, found === undefined ? "is required" : `must be a string, got ${describeValue(found)}`);
  }
  return { ok: true, value: found };
}

function run<T>(schema: z.ZodType<T, unknown>, value: unknown): OcfValidationResult<T> {
  const parsed = compiledSchema(schema).safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, issues: parsed.error.issues.flatMap((issue) => toOcfIssues(issue, value)) };
}


function toOcfIssues(issue: z.core.$ZodIssue, root: unknown): OcfIssue[] {
  const at = valueAt(root, issue.path);
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      path: formatPath([...issue.path, key]),
      message: "is not an OCF field here (OCF objects are closed; extra data belongs in comments)",
    }));
  }
  const path = formatPath(issue.path);
  // Objects and arrays are not repeated in the message: the path already points at them.
  const got = typeof at.value === "object" && at.value !== null ? "" : `, got ${describeValue(at.value)}`;
  switch (issue.code) {
    case "invalid_type":
      if (!at.present) return [{ path, message: "is required" }];
      return [{ path, message: `must be ${article(issue.expected)}${got}` }];
    case "invalid_value":
      return [{ path, message: `must be ${issue.values.map((v) => describeValue(v)).join(" or ")}${got}` }];
    case "invalid_union":
      if (issue.discriminator !== undefined && "options" in issue && issue.options !== undefined) {
        if (issue.discriminator === "object_type") {
          return [{ path, message: typeof at.value === "string" ? unknownType("object", at.value, issue.options.map(String)) : `must be a string${got}` }];
        }
        const options = issue.options.map((v) => describeValue(v));
        const allowed = options.length <= 8 ? `must be one of ${options.join(", ")}` : `is not one of the ${options.length} ${issue.discriminator} values allowed here`;
        return [{ path, message: `${allowed}${got}` }];
      }
      return [{ path, message: `${issue.message}${got}` }];
    default:
      return [{ path, message: at.present ? `${issue.message}${got}` : issue.message }];
  }
}

function article(expected: string): string {
  return expected === "object" || expected === "array" ? `an ${expected}` : `a ${expected}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let current: unknown = root;
  for (const key of path) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) {
      return { present: false, value: undefined };
    }
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { present: true, value: current };
}

function formatPath(path: readonly PropertyKey[]): string {
  let text = "$";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) text += `.${key}`;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}
