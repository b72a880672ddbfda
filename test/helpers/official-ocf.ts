/**
 * The official OCF 1.2.0 JSON Schemas, loaded the way the official validator (`utils/validate.mjs`)
 * loads them: every `*.schema.json` under `ocf-schema/` of the third-party folder registered by `$id`
 * in one draft-07 Ajv 8 instance with ajv-formats (reference §11.3). Conformance suites use it as the
 * oracle that our own zod schemas and our output must agree with; it works only inside
 * `describeConformance` (see `conformance.ts`). Built once per test file, on first use.
 */
import { Ajv, type AnySchemaObject, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsImport from "ajv-formats";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { sharedPath } from "./conformance.js";
import { labelOf, type NamedOcfFile } from "./ocf-verdicts.js";

// Under NodeNext the default import is typed as the CommonJS module object.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ??
  addFormatsImport) as typeof addFormatsImport.default;

/** The folder of the official samples (only inside a conformance suite). */
export const officialSamplesDir = (): string => sharedPath("ocf-samples");

const OCF_SCHEMA_BASE = "https://schema.opencaptablecoalition.com/v/1.2.0/";

export interface OfficialVerdict {
  valid: boolean;
  /** Ajv's errors, as `instancePath message` lines, for test failure output. */
  errors: string[];
}

interface OfficialValidators {
  byObjectType: Map<string, ValidateFunction>;
  byFileType: Map<string, ValidateFunction>;
  schemaCount: number;
}

function listSchemaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? listSchemaFiles(join(dir, entry.name))
        : entry.name.endsWith(".schema.json")
          ? [join(dir, entry.name)]
          : [],
    )
    .sort();
}

function constOrEnum(property: unknown): string[] {
  if (typeof property !== "object" || property === null) return [];
  const { const: single, enum: many } = property as { const?: unknown; enum?: unknown };
  if (typeof single === "string") return [single];
  return Array.isArray(many) ? many.filter((v): v is string => typeof v === "string") : [];
}

function build(): OfficialValidators {
  const schemas = listSchemaFiles(sharedPath("ocf-schema")).map(
    (file) => JSON.parse(readFileSync(file, "utf8")) as AnySchemaObject,
  );
  // strict: false as the official validator: the schemas trip strictRequired/strictTypes (reference §11.3).
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  ajv.addSchema(schemas);

  const byObjectType = new Map<string, ValidateFunction>();
  const byFileType = new Map<string, ValidateFunction>();
  for (const schema of schemas) {
    const id = schema.$id;
    if (typeof id !== "string") continue;
    const properties = schema.properties as Record<string, unknown> | undefined;
    const compiled = (): ValidateFunction => {
      const fn = ajv.getSchema(id);
      if (fn === undefined) throw new Error(`official schema ${id} did not compile`);
      return fn;
    };
    if (id.startsWith(`${OCF_SCHEMA_BASE}objects/`)) {
      // The legacy PlanSecurity* wrappers declare their object_type too; they are allOf the
      // EquityCompensation* schema that also lists it, so either one gives the same verdict.
      for (const objectType of constOrEnum(properties?.object_type)) {
        if (!byObjectType.has(objectType)) byObjectType.set(objectType, compiled());
      }
    } else if (id.startsWith(`${OCF_SCHEMA_BASE}files/`)) {
      for (const fileType of constOrEnum(properties?.file_type)) byFileType.set(fileType, compiled());
    }
  }
  return { byObjectType, byFileType, schemaCount: schemas.length };
}

let cached: OfficialValidators | undefined;

function validators(): OfficialValidators {
  cached ??= build();
  return cached;
}

function verdict(fn: ValidateFunction, value: unknown): OfficialVerdict {
  const valid = fn(value);
  return { valid, errors: valid ? [] : (fn.errors ?? []).map(formatError) };
}

function formatError(error: ErrorObject): string {
  return `${error.instancePath || "/"} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`;
}

/** How many official schema files were loaded (168 for OCF 1.2.0). */
export function officialSchemaCount(): number {
  return validators().schemaCount;
}

/** The `object_type` values the official schemas declare (legacy spellings included). */
export function officialObjectTypes(): string[] {
  return [...validators().byObjectType.keys()].sort();
}

/** The `file_type` values the official file schemas declare. */
export function officialFileTypes(): string[] {
  return [...validators().byFileType.keys()].sort();
}

/**
 * Validates one object against the official schema declaring its `object_type`, as the official
 * validator does item by item. An unknown `object_type` is invalid.
 */
export function validateWithOfficialSchemas(item: unknown): OfficialVerdict {
  const objectType = (item as { object_type?: unknown } | null)?.object_type;
  const fn = typeof objectType === "string" ? validators().byObjectType.get(objectType) : undefined;
  if (fn === undefined) return { valid: false, errors: [`no official schema for object_type ${String(objectType)}`] };
  return verdict(fn, item);
}

/**
 * Validates a whole file against the official `files/*` schema of its `file_type`. Note the 1.2.0
 * TransactionsFile bug (OCF #543): it rejects `TX_ISSUER_AUTHORIZED_SHARES_ADJUSTMENT` items.
 */
export function validateFileWithOfficialSchemas(file: unknown): OfficialVerdict {
  const fileType = (file as { file_type?: unknown } | null)?.file_type;
  const fn = typeof fileType === "string" ? validators().byFileType.get(fileType) : undefined;
  if (fn === undefined) return { valid: false, errors: [`no official schema for file_type ${String(fileType)}`] };
  return verdict(fn, file);
}

/** Every object passes the official schema of its `object_type`. */
export function expectOfficiallyValidObjects(objects: readonly unknown[]): void {
  for (const object of objects) expect(validateWithOfficialSchemas(object).errors, labelOf(object)).toEqual([]);
}

/** Every file passes the official schema of its `file_type` whole, and each of its items on its own. */
export function expectOfficiallyValidFiles(files: readonly NamedOcfFile[]): void {
  for (const { name, json } of files) {
    expect(validateFileWithOfficialSchemas(json).errors, name).toEqual([]);
    expectOfficiallyValidObjects((json as { items?: unknown[] }).items ?? []);
  }
}
