/**
 * Writes src/ocf/types.ts, the public OCF types, from the runtime schemas (`npm run ocf-types`), so
 * that the shapes have one source: the schemas. The public declarations are plain TypeScript rather
 * than `z.infer<...>` because the published types must never mention zod.
 *
 * The schemas give every field, its type and whether it is optional. What they cannot say is kept
 * here: each type's doc comment, a few fields' doc comments, the one-of rules a refinement enforces
 * (a stock plan's classes, a vesting condition's amount), and the few types no schema checks (the
 * kinds ocf-sync reads unchecked). `test/unit/ocf/ocf-types.test.ts` fails when types.ts is not this
 * output; src/ocf/types-match.ts proves each type equal to what its schema infers.
 */
import type { z } from "zod";
import * as files from "../src/ocf/files.js";
import * as objects from "../src/ocf/objects.js";
import * as primitives from "../src/ocf/primitives.js";
import { UNSCHEMED_TRANSACTIONS } from "../src/ocf/schemas.js";
import * as transactions from "../src/ocf/transactions.js";

/** The file this writes, from the project root. */
export const OCF_TYPES_FILE = "src/ocf/types.ts";

interface Documented {
  name: string;
  /** The doc comment's lines, without `@category`. */
  doc: readonly string[];
}

/** One part of types.ts, in order. */
type Part =
  | { section: string }
  /** A type printed from its schema; `oneOf` names two optional keys of which exactly one is present. */
  | (Documented & { schema: z.ZodType; fieldDocs?: Readonly<Record<string, string>>; oneOf?: readonly [string, string] })
  /** A union of the strings of a runtime list. */
  | (Documented & { values: readonly string[] })
  /** A union of types declared here. */
  | (Documented & { union: readonly string[] })
  /** Written out here: no schema checks it. The declaration after `export `. */
  | (Documented & { written: string });

const AUTHORIZED_SHARES = 'A share count, `"NOT APPLICABLE"` or `"UNLIMITED"`.';

const UNKNOWN_OBJECT = `interface UnknownOcfObject<T extends OcfUnmodelledObjectType = OcfUnmodelledObjectType> {
  object_type: T;
  id: string;
  readonly [field: string]: unknown;
}`;

/** The manifest keys that list a type of file ocf-sync models: the required `*_files` keys, in the schema's order. */
function manifestFileListKeys(): string[] {
  return Object.entries(files.OcfManifestSchema.shape)
    .filter(([key, field]) => key.endsWith("_files") && kindOf(field) !== "optional")
    .map(([key]) => key);
}

const PARTS: readonly Part[] = [
  { name: "OcfNumeric", doc: ["OCF `Numeric`: a fixed-point decimal string with at most 10 fractional digits (`\"1500\"`, `\"+5\"`, `\"0.25\"`)."], schema: primitives.OcfNumericSchema },
  { section: "Primitive value types (`types/*`)" },
  { name: "OcfMonetary", doc: ["An amount of money: `amount` (Numeric) in `currency` (ISO 4217, upper case, such as `\"USD\"`)."], schema: primitives.OcfMonetarySchema },
  { name: "OcfName", doc: ["A person's or an organisation's name; `legal_name` is the only required part."], schema: primitives.OcfNameSchema },
  { name: "OcfEmail", doc: ["An e-mail address and its kind."], schema: primitives.OcfEmailSchema },
  { name: "OcfPhone", doc: ["A phone number in the international form OCF requires (`+1 612 234 2345`), and its kind."], schema: primitives.OcfPhoneSchema },
  { name: "OcfAddress", doc: ["A postal address; `country` is ISO 3166-1 alpha-2."], schema: primitives.OcfAddressSchema },
  { name: "OcfTaxId", doc: ["A tax identifier and the country (ISO 3166-1 alpha-2) that issued it."], schema: primitives.OcfTaxIdSchema },
  { name: "OcfContactInfoWithoutName", doc: ["How to reach a stakeholder, without a name."], schema: primitives.OcfContactInfoWithoutNameSchema },
  { name: "OcfContactInfo", doc: ["A named contact of a stakeholder."], schema: primitives.OcfContactInfoSchema },
  { name: "OcfSecurityExemption", doc: ["A securities-law exemption an issuance relies on."], schema: primitives.OcfSecurityExemptionSchema },
  { name: "OcfTerminationWindow", doc: ["Why an equity compensation's exercise window after termination applies, and how long it is."], schema: primitives.OcfTerminationWindowSchema },
  { name: "OcfShareNumberRange", doc: ["A range of share certificate numbers, both ends included."], schema: primitives.OcfShareNumberRangeSchema },
  { name: "OcfVesting", doc: ["One dated vesting tranche of a security: `amount` vests on `date`."], schema: primitives.OcfVestingSchema },
  { name: "OcfFileReference", doc: ["A file of a package as the manifest lists it: its path and the MD5 of its exact bytes."], schema: primitives.OcfFileReferenceSchema },
  { section: "Objects" },
  { name: "OcfIssuer", doc: ["The company the package describes; it lives inline in the manifest, not in a file of its own."], schema: objects.OcfIssuerSchema, fieldDocs: { initial_shares_authorized: AUTHORIZED_SHARES } },
  { name: "OcfStakeholderRelationship", doc: ["A stakeholder's relationship to the issuer."], values: objects.STAKEHOLDER_RELATIONSHIP_TYPES },
  { name: "OcfStakeholder", doc: ["A person or an institution that holds securities of the issuer."], schema: objects.OcfStakeholderSchema },
  { name: "OcfStockClassConversionRight", doc: ["How a preferred stock class converts into another class."], schema: objects.OcfStockClassConversionRightSchema },
  { name: "OcfStockClass", doc: ["A class of shares (common or preferred)."], schema: objects.OcfStockClassSchema, fieldDocs: { initial_shares_authorized: AUTHORIZED_SHARES } },
  { name: "OcfStockPlan", doc: ["An equity incentive plan and its reserved pool. It names its stock classes through exactly one of", "`stock_class_ids` (preferred since 1.2.0) or the deprecated single `stock_class_id`."], schema: objects.OcfStockPlanSchema, oneOf: ["stock_class_ids", "stock_class_id"] },
  { name: "OcfStockLegendTemplate", doc: ["The text of a legend printed on share certificates, referenced by `stock_legend_ids`."], schema: objects.OcfStockLegendTemplateSchema },
  { name: "OcfVestingDayOfMonth", doc: ["The day of the month a monthly vesting period falls on."], values: objects.VESTING_DAYS_OF_MONTH },
  { name: "OcfVestingPeriod", doc: ["A repeating vesting period: `occurrences` times every `length` days or months."], schema: objects.OcfVestingPeriodSchema },
  { name: "OcfVestingTrigger", doc: ["What makes a vesting condition happen."], schema: objects.OcfVestingTriggerSchema },
  { name: "OcfVestingConditionPortion", doc: ["A fraction of the grant. With `remainder: true` it applies to what has not vested yet instead of", "the whole issued quantity."], schema: objects.OcfVestingConditionPortionSchema },
  { name: "OcfVestingCondition", doc: ["One node of a vesting graph; it vests exactly one of a `portion` of the grant or a fixed `quantity`."], schema: objects.OcfVestingConditionSchema, oneOf: ["portion", "quantity"] },
  { name: "OcfVestingTerms", doc: ["A reusable vesting schedule: a graph of conditions, referenced by `vesting_terms_id`."], schema: objects.OcfVestingTermsSchema },
  { name: "OcfValuation", doc: ["A valuation of a stock class (a 409A)."], schema: objects.OcfValuationSchema },
  { section: "Transactions" },
  { name: "OcfStockIssuance", doc: ["Shares issued to a stakeholder; with `issuance_type: \"RSA\"` a restricted stock award."], schema: transactions.OcfStockIssuanceSchema },
  { name: "OcfCompensationType", doc: ["The kind of an equity compensation: options, RSUs, stock appreciation rights."], values: transactions.COMPENSATION_TYPES },
  { name: "OcfEquityCompensationIssuance", doc: ["An equity compensation granted to a stakeholder; with `compensation_type: \"RSU\"` a restricted stock unit."], schema: transactions.OcfEquityCompensationIssuanceSchema, fieldDocs: { object_type: "The legacy `TX_PLAN_SECURITY_*` spelling is read, never written." } },
  { name: "OcfVestingStart", doc: ["Vesting of a security starts, at its vesting condition `vesting_condition_id`."], schema: transactions.OcfVestingStartSchema },
  { name: "OcfVestingEvent", doc: ["A vesting condition of a security was met (a milestone)."], schema: transactions.OcfVestingEventSchema },
  { name: "OcfVestingAcceleration", doc: ["Vesting of `quantity` was accelerated."], schema: transactions.OcfVestingAccelerationSchema },
  { name: "OcfEquityCompensationRelease", doc: ["Vested units of an equity compensation released (settled) into the securities `resulting_security_ids`."], schema: transactions.OcfEquityCompensationReleaseSchema },
  { name: "OcfStockCancellation", doc: ["Shares cancelled; what is left of the security, if anything, is `balance_security_id`."], schema: transactions.OcfStockCancellationSchema },
  { name: "OcfEquityCompensationCancellation", doc: ["Units of an equity compensation cancelled (forfeited, expired)."], schema: transactions.OcfEquityCompensationCancellationSchema },
  { name: "OcfStockRepurchase", doc: ["Shares bought back by the issuer."], schema: transactions.OcfStockRepurchaseSchema },
  { name: "OcfStockRetraction", doc: ["A stock issuance withdrawn as if it never happened."], schema: transactions.OcfStockRetractionSchema },
  { name: "OcfEquityCompensationRetraction", doc: ["An equity compensation withdrawn as if it never happened."], schema: transactions.OcfEquityCompensationRetractionSchema },
  { name: "OcfStockPlanReturnToPool", doc: ["Shares of a cancelled or repurchased security returned to the plan's pool."], schema: transactions.OcfStockPlanReturnToPoolSchema },
  { name: "OcfStockAcceptance", doc: ["The stakeholder accepted a stock issuance."], schema: transactions.OcfStockAcceptanceSchema },
  { name: "OcfEquityCompensationAcceptance", doc: ["The stakeholder accepted an equity compensation."], schema: transactions.OcfEquityCompensationAcceptanceSchema },
  { name: "OcfStockTransfer", doc: ["Shares transferred into the securities `resulting_security_ids`."], schema: transactions.OcfStockTransferSchema },
  { name: "OcfEquityCompensationTransfer", doc: ["Units of an equity compensation transferred into the securities `resulting_security_ids`."], schema: transactions.OcfEquityCompensationTransferSchema },
  { name: "OcfTransaction", doc: ["Every transaction ocf-sync models, told apart by `object_type`."], schema: transactions.OcfTransactionSchema },
  { name: "OcfObject", doc: ["Every object ocf-sync models, told apart by `object_type`."], union: ["OcfIssuer", "OcfStakeholder", "OcfStockClass", "OcfStockLegendTemplate", "OcfStockPlan", "OcfValuation", "OcfVestingTerms", "OcfTransaction"] },
  { name: "OcfUnschemedTransactionType", doc: ["The transaction kinds of OCF 1.2.0 (`enums/ObjectType`) that ocf-sync has no schema for: valid OCF", "that other systems write (exercises, conversions, splits, pool adjustments, warrants, convertibles)."], values: UNSCHEMED_TRANSACTIONS },
  { name: "OcfUnmodelledObjectType", doc: ["Every `object_type` of OCF 1.2.0 that ocf-sync does not model: the unschemed transactions, and the", "financings and documents that live in files ocf-sync never writes."], written: 'type OcfUnmodelledObjectType = OcfUnschemedTransactionType | "FINANCING" | "DOCUMENT";' },
  { name: "UnknownOcfObject", doc: ["An object of an OCF 1.2.0 kind ocf-sync does not model, as `readOcfPackage` yields it: valid OCF", "that ocf-sync cannot check beyond its `object_type` (one of `OcfUnmodelledObjectType`, allowed in", "its file) and its string `id`. Every other field is `unknown`: test it before use."], written: UNKNOWN_OBJECT },
  { name: "OcfPackageObject", doc: ["Every object a package file holds, as `readOcfPackage` yields it: an object ocf-sync models (checked", "against its schema) or an `UnknownOcfObject`, told apart by `object_type`. The issuer is not among", "them: it lives in the manifest."], written: "type OcfPackageObject = Exclude<OcfObject, OcfIssuer> | UnknownOcfObject;" },
  { section: "Files" },
  { name: "OcfFileType", doc: ["The `file_type` of every OCF file."], values: files.FILE_TYPES },
  { name: "OcfItemsFileType", doc: ["The `file_type` of every OCF file that holds `items` (all but the manifest)."], written: 'type OcfItemsFileType = Exclude<OcfFileType, "OCF_MANIFEST_FILE">;' },
  { name: "OcfManifest", doc: ["A package's `Manifest.ocf.json`: the issuer, the dates, and the list of every other file with the", "MD5 of its bytes."], schema: files.OcfManifestSchema, fieldDocs: { generated_at: "An RFC 3339 date-time with a zone." } },
  { name: "OcfManifestFileListKey", doc: ["The manifest key listing the files of each items-file type."], values: manifestFileListKeys() },
  { name: "OcfStakeholdersFile", doc: ["A stakeholders file."], schema: files.OcfStakeholdersFileSchema },
  { name: "OcfStockClassesFile", doc: ["A stock classes file."], schema: files.OcfStockClassesFileSchema },
  { name: "OcfStockPlansFile", doc: ["A stock plans file."], schema: files.OcfStockPlansFileSchema },
  { name: "OcfStockLegendTemplatesFile", doc: ["A stock legend templates file."], schema: files.OcfStockLegendTemplatesFileSchema },
  { name: "OcfVestingTermsFile", doc: ["A vesting terms file."], schema: files.OcfVestingTermsFileSchema },
  { name: "OcfValuationsFile", doc: ["A valuations file."], schema: files.OcfValuationsFileSchema },
  { name: "OcfTransactionsFile", doc: ["A transactions file."], schema: files.OcfTransactionsFileSchema },
  { name: "OcfFile", doc: ["Every OCF file ocf-sync models, told apart by `file_type`."], union: ["OcfManifest", "OcfStakeholdersFile", "OcfStockClassesFile", "OcfStockPlansFile", "OcfStockLegendTemplatesFile", "OcfVestingTermsFile", "OcfValuationsFile", "OcfTransactionsFile"] },
];

/** The names a schema is printed as where it appears inside another: declared types and the calendar date. */
function namesOfSchemas(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>([[primitives.OcfDateSchema, "CalendarDate"]]);
  for (const part of PARTS) if ("schema" in part) names.set(part.schema, part.name);
  return names;
}

/**
 * The same strings in any order. A zod enum keeps its values as object keys, so integer-like ones
 * (the days "10" to "28") come back first: the order of a runtime list is kept only where the list
 * itself is printed.
 */
function valuesKey(values: readonly string[]): string {
  return [...values].sort().join("|");
}

/** The names a union of strings is printed as, by its strings. */
function namesOfValues(): Map<string, string> {
  const names = new Map<string, string>();
  for (const part of PARTS) if ("values" in part) names.set(valuesKey(part.values), part.name);
  return names;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: readonly z.ZodType[];
  shape?: Readonly<Record<string, z.ZodType>>;
  values?: readonly unknown[];
  entries?: Readonly<Record<string, string>>;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function kindOf(schema: z.ZodType): string {
  return defOf(schema).type;
}

class Printer {
  private readonly schemaNames = namesOfSchemas();
  private readonly valueNames = namesOfValues();

  /** The type of `schema`; a declared schema by its name unless `declaring` it. */
  type(schema: z.ZodType, indent: string, declaring = false): string {
    const name = this.schemaNames.get(schema);
    if (name !== undefined && !declaring) return name;
    const def = defOf(schema);
    switch (def.type) {
      case "string":
      case "number":
      case "boolean":
      case "null":
        return def.type;
      case "literal":
        return (def.values ?? []).map((value) => JSON.stringify(value)).join(" | ");
      case "enum":
        return this.strings(Object.values(def.entries ?? {}));
      case "nullable":
        return `${this.type(this.inner(def.innerType), indent)} | null`;
      case "array": {
        const element = this.type(this.inner(def.element), indent);
        return element.includes(" | ") ? `(${element})[]` : `${element}[]`;
      }
      case "union":
        return (def.options ?? []).map((option) => this.type(option, indent)).join(" | ");
      case "object":
        return this.object(def.shape ?? {}, indent);
      default:
        throw new Error(`write-ocf-types cannot print a zod ${def.type}`);
    }
  }

  /** `{ key: type; ... }`: one field a line when declared, on one line when nested and short. */
  object(shape: Readonly<Record<string, z.ZodType>>, indent: string, declared = false, fieldDocs: Readonly<Record<string, string>> = {}): string {
    const fields = this.fields(shape, `${indent}  `);
    const oneLine = `{ ${fields.map((f) => f.text).join("; ")} }`;
    if (!declared && `${indent}${oneLine}`.length <= 100 && !oneLine.includes("{", 1)) return oneLine;
    const lines = fields.map((f) => {
      const doc = fieldDocs[f.key];
      return `${doc === undefined ? "" : `${indent}  /** ${doc} */\n`}${indent}  ${f.text};`;
    });
    return `{\n${lines.join("\n")}\n${indent}}`;
  }

  private fields(shape: Readonly<Record<string, z.ZodType>>, indent: string): { key: string; text: string }[] {
    return Object.entries(shape).map(([key, field]) => {
      const optional = kindOf(field) === "optional";
      const type = this.type(optional ? this.inner(defOf(field).innerType) : field, indent);
      const text = `${key}${optional ? "?" : ""}: ${type}`;
      // A long union of literals goes one member a line, as a formatter would put it.
      const members = type.split(" | ");
      if (`${indent}${text}`.length <= 110 || members.some((m) => !m.startsWith('"'))) return { key, text };
      return { key, text: `${key}${optional ? "?" : ""}:\n${members.map((m) => `${indent}  | ${m}`).join("\n")}` };
    });
  }

  /** A union of string literals: by its declared name when it has one. */
  private strings(values: readonly string[]): string {
    const name = this.valueNames.get(valuesKey(values));
    if (name !== undefined) return name;
    return values.map((value) => JSON.stringify(value)).join(" | ");
  }

  inner(schema: z.ZodType | undefined): z.ZodType {
    if (schema === undefined) throw new Error("a zod wrapper without its inner schema");
    return schema;
  }
}

/** A union spelled one member a line when it does not fit on one. */
function union(members: readonly string[]): string {
  const oneLine = members.join(" | ");
  return oneLine.length <= 90 ? oneLine : `\n${members.map((member) => `  | ${member}`).join("\n")}`;
}

function declaration(part: Exclude<Part, { section: string }>, printer: Printer): string {
  if ("written" in part) return part.written;
  if ("values" in part) return `type ${part.name} =${prefixed(union(part.values.map((value) => JSON.stringify(value))))};`;
  if ("union" in part) return `type ${part.name} =${prefixed(union(part.union))};`;
  const def = defOf(part.schema);
  if (def.type === "object" && part.oneOf !== undefined) {
    const [a, b] = part.oneOf;
    const shape = { ...def.shape };
    const typeOf = (key: string): string => {
      const field = shape[key];
      if (field === undefined || kindOf(field) !== "optional") throw new Error(`${part.name}: ${key} must be an optional field of the schema`);
      return printer.type(printer.inner(defOf(field).innerType), "  ");
    };
    const [typeA, typeB] = [typeOf(a), typeOf(b)];
    delete shape[a];
    delete shape[b];
    return `type ${part.name} = ${printer.object(shape, "", true, part.fieldDocs)} & ({ ${a}: ${typeA}; ${b}?: never } | { ${b}: ${typeB}; ${a}?: never });`;
  }
  if (def.type === "object") return `interface ${part.name} ${printer.object(def.shape ?? {}, "", true, part.fieldDocs)}`;
  if (def.type === "union") {
    return `type ${part.name} =${prefixed(union((def.options ?? []).map((option) => printer.type(option, "  "))))};`;
  }
  return `type ${part.name} = ${printer.type(part.schema, "", true)};`;
}

/** ` x` for a one-line union, the multi-line form as it is. */
function prefixed(text: string): string {
  return text.startsWith("\n") ? text : ` ${text}`;
}

function docComment(doc: readonly string[]): string {
  return ["/**", ...doc.map((line) => ` * ${line}`), " *", " * @category OCF", " */"].join("\n");
}

const HEADER = `/**
 * The OCF 1.2.0 objects and files ocf-sync reads and writes, as plain TypeScript: the types of its
 * public API. Generated from the runtime schemas (objects.ts, transactions.ts, primitives.ts and
 * files.ts) by scripts/write-ocf-types.ts: edit the schemas or scripts/ocf-types.ts, then run
 * \`npm run ocf-types\`. \`types-match.ts\` fails the type check when a type and its schema differ.
 *
 * Numbers are OCF \`Numeric\` strings (\`"1500"\`, \`"0.25"\`: at most 10 decimal places), dates are
 * \`YYYY-MM-DD\` strings, and every object is closed as OCF closes it.
 */
import type { CalendarDate } from "../dates.js";
`;

/** The text of src/ocf/types.ts. */
export function ocfTypesSource(): string {
  const printer = new Printer();
  const blocks = PARTS.map((part) =>
    "section" in part
      ? `// ---------------------------------------------------------------------------------------------\n// ${part.section}`
      : `${docComment(part.doc)}\nexport ${declaration(part, printer)}`,
  );
  return `${HEADER}\n${blocks.join("\n\n")}\n`;
}
