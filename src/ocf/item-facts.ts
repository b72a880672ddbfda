/**
 * What the package validator needs of one element of a file's `items`, read from that element
 * alone: its schema issues, id and kind, the references it makes, its ledger entry and the problems
 * it has by itself. Everything that needs the rest of the package (ids seen so far, securities,
 * chains) is left to `validate-package.ts`, which consumes these facts in file order.
 */
import { UNSCHEMED_TRANSACTION_TYPES, validateOcfFileItem, type OcfIssue, type OcfItemsFileType } from "./schemas.js";
import { ISSUANCE_TYPES, canonicalObjectType, ledgerEntryOf, objectFindings, vestingSchedule, type LedgerEntry, type LedgerFinding } from "./security-ledger.js";
import { describeValue } from "../errors.js";

/** The order of the checks, as the problems of one object are listed. */
export const PHASE = { file: 0, securityIds: 1, ids: 2, references: 3, securities: 4 } as const;

/** The spaces of ids that references resolve in. */
export type Space = "stakeholder" | "stockClass" | "stockPlan" | "legend" | "vestingTerms" | "security";

/** One reference an object makes: what it names, where, and (for the message) as what. */
export interface Reference {
  space: Space;
  id: string;
  path: string;
  /** "stakeholder", "as the balance security", …; `undefined` for the security a transaction acts on. */
  what: string | undefined;
}

/** A problem an object has by itself, relative to it (`path` is `".vesting_conditions[2].id"`, …). */
export interface LocalProblem {
  code: "DUPLICATE_ID" | "DANGLING_REFERENCE";
  path: string;
  message: string;
  phase: number;
  sub: number;
}

/** What one element of `items` says, for the checks that need the rest of the package. */
export interface ItemFacts {
  /** Whether the element is a JSON object; nothing but `schemaIssues` is read of anything else. */
  record: boolean;
  id?: string;
  /** `object_type`, legacy spellings mapped to the current ones. */
  type?: string;
  /** The issues against the item schema of its file, when it was checked and has any. */
  schemaIssues?: OcfIssue[];
  /** A transaction of an OCF 1.2.0 kind ocf-sync has no schema for (`UNSCHEMED_TRANSACTION_TYPES`): its fields were not checked. */
  unschemed?: true;
  /** Every reference it makes, in the order they are reported. */
  references: Reference[];
  /** Of a VestingTerms: its own problems, and the trigger type of each condition id (the first of each). */
  terms?: { problems: LocalProblem[]; triggers: [string, unknown][] };
  /** Of a transaction: what the ledger reads of it, and what is wrong with it alone. */
  entry?: LedgerEntry;
  findings?: LedgerFinding[];
  /** Of an equity compensation issuance: its `vestings`, packed (`vestingSchedule`). */
  vestings?: string;
  /** `vesting_terms_id`, when a string (issuances). */
  vestingTermsId?: string;
  /** `vesting_condition_id`, when a string (vesting starts and events). */
  vestingConditionId?: string;
}

/** The facts of one element of `items`, checked against `schemaType`'s item schema when one is given. */
export function itemFacts(value: unknown, schemaType: OcfItemsFileType | undefined): ItemFacts {
  const record = isRecord(value) ? value : undefined;
  const facts: ItemFacts = { record: record !== undefined, references: [] };
  if (schemaType === "OCF_TRANSACTIONS_FILE" && typeof record?.object_type === "string" && UNSCHEMED_TRANSACTION_TYPES.has(record.object_type)) {
    facts.unschemed = true;
  } else if (schemaType !== undefined) {
    const verdict = validateOcfFileItem(schemaType, value);
    if (!verdict.ok) facts.schemaIssues = verdict.issues;
  }
  if (record === undefined) return facts;
  if (typeof record.id === "string") facts.id = record.id;
  const rawType = record.object_type;
  const type = typeof rawType === "string" ? canonicalObjectType(rawType) : undefined;
  if (type !== undefined) facts.type = type;
  if (type === "VESTING_TERMS") facts.terms = termsFacts(record);
  addReferences(type, record, facts.references);
  if (type?.startsWith("TX_") === true) {
    const entry = ledgerEntryOf(record);
    facts.entry = entry;
    facts.findings = objectFindings(record, entry);
    const vestings = vestingSchedule(record, entry);
    if (vestings !== undefined) facts.vestings = vestings;
    const terms = record.vesting_terms_id;
    if (typeof terms === "string") facts.vestingTermsId = terms;
    const condition = record.vesting_condition_id;
    if (typeof condition === "string") facts.vestingConditionId = condition;
  }
  return facts;
}

/** A VestingTerms' conditions: ids unique, `relative_to_condition_id` and `next_condition_ids` naming conditions of the same terms. */
function termsFacts(record: Readonly<Record<string, unknown>>): { problems: LocalProblem[]; triggers: [string, unknown][] } {
  const problems: LocalProblem[] = [];
  const conditions = conditionsOf(record);
  const seen = new Set<string>();
  for (const { condition, index } of conditions) {
    const conditionId = stringAt(condition, "id");
    if (conditionId === undefined) continue;
    if (seen.has(conditionId)) {
      problems.push({ code: "DUPLICATE_ID", path: `.vesting_conditions[${index}].id`, message: `${describeValue(conditionId)} is the id of another condition of these VestingTerms`, phase: PHASE.ids, sub: 1 });
    }
    seen.add(conditionId);
  }
  let sub = 0;
  const check = (target: unknown, path: string): void => {
    if (typeof target === "string" && !seen.has(target)) {
      problems.push({ code: "DANGLING_REFERENCE", path, message: `names condition ${describeValue(target)}, which these VestingTerms do not have`, phase: PHASE.references, sub });
    }
    sub += 1;
  };
  for (const { condition, index } of conditions) {
    const at = `.vesting_conditions[${index}]`;
    const trigger = condition.trigger;
    if (isRecord(trigger)) check(trigger.relative_to_condition_id, `${at}.trigger.relative_to_condition_id`);
    const next = condition.next_condition_ids;
    if (Array.isArray(next)) next.forEach((target: unknown, j) => check(target, `${at}.next_condition_ids[${j}]`));
  }
  const triggers = new Map<string, unknown>();
  for (const { condition } of conditions) {
    const conditionId = stringAt(condition, "id");
    if (conditionId !== undefined && !triggers.has(conditionId)) triggers.set(conditionId, isRecord(condition.trigger) ? condition.trigger.type : undefined);
  }
  return { problems, triggers: [...triggers] };
}

/** A field that names objects of `space`: its key, its path (made once) and what it names, for messages. */
interface ReferenceField {
  key: string;
  path: string;
  space: Space;
  what: string;
}

const field = (key: string, space: Space, what: string): ReferenceField => ({ key, path: `.${key}`, space, what });

/** The fields each kind of object names other objects by, in the order they are reported. */
const REFERENCE_FIELDS: Readonly<Record<string, readonly ReferenceField[]>> = {
  STOCK_PLAN: [field("stock_class_ids", "stockClass", "stock class"), field("stock_class_id", "stockClass", "stock class")],
  VALUATION: [field("stock_class_id", "stockClass", "stock class")],
  TX_STOCK_ISSUANCE: issuanceFields(),
  TX_EQUITY_COMPENSATION_ISSUANCE: issuanceFields(),
  TX_STOCK_PLAN_RETURN_TO_POOL: [field("stock_plan_id", "stockPlan", "stock plan")],
};

function issuanceFields(): ReferenceField[] {
  return [
    field("stakeholder_id", "stakeholder", "stakeholder"),
    field("stock_class_id", "stockClass", "stock class"),
    field("stock_plan_id", "stockPlan", "stock plan"),
    field("vesting_terms_id", "vestingTerms", "vesting terms"),
    field("stock_legend_ids", "legend", "stock legend template"),
  ];
}

/** What every transaction names besides: the securities that result from it and its balance. */
const TRANSACTION_FIELDS: readonly ReferenceField[] = [
  field("resulting_security_ids", "security", "as a resulting security"),
  field("balance_security_id", "security", "as the balance security"),
];

/** Adds the references `record[field.key]` makes (a string, or the strings of an array) to `out`. */
function referencesAt(record: Readonly<Record<string, unknown>>, f: ReferenceField, out: Reference[]): void {
  const value = record[f.key];
  if (typeof value === "string") out.push({ space: f.space, id: value, path: f.path, what: f.what });
  else if (Array.isArray(value)) {
    for (let j = 0; j < value.length; j++) {
      const v: unknown = value[j];
      if (typeof v === "string") out.push({ space: f.space, id: v, path: `${f.path}[${j}]`, what: f.what });
    }
  }
}

/** Adds each reference an object makes to `out`, in the order they are reported. */
function addReferences(type: string | undefined, record: Readonly<Record<string, unknown>>, out: Reference[]): void {
  if (type === undefined) return;
  const fields = Object.hasOwn(REFERENCE_FIELDS, type) ? REFERENCE_FIELDS[type] : undefined;
  if (fields !== undefined) for (const f of fields) referencesAt(record, f, out);
  if (!type.startsWith("TX_")) return;
  if (!ISSUANCE_TYPES.has(type)) {
    const security = record.security_id;
    if (typeof security === "string") out.push({ space: "security", id: security, path: ".security_id", what: undefined });
  }
  for (const f of TRANSACTION_FIELDS) referencesAt(record, f, out);
}

export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringAt(value: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const found = value[key];
  return typeof found === "string" ? found : undefined;
}

function conditionsOf(terms: Readonly<Record<string, unknown>>): { condition: Readonly<Record<string, unknown>>; index: number }[] {
  const conditions = terms.vesting_conditions;
  if (!Array.isArray(conditions)) return [];
  return conditions.flatMap((condition: unknown, index) => (isRecord(condition) ? [{ condition, index }] : []));
}
