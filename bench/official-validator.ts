/**
 * The official OCF validator's approach (`utils/validate.mjs` of the OCF repository, reference
 * ocf-1.2.0.md §11.2–11.3), as the baseline of the validate benchmark: every `*.schema.json` of the
 * OCF 1.2.0 schemas registered by `$id` in one draft-07 Ajv 8 instance with ajv-formats
 * (`strict: false`, `allErrors: true`), the manifest validated against `OCFManifestFile`, and every
 * other listed file read, parsed and validated item by item against the schema of its `object_type`.
 * Unlike `validate.mjs` it does not stop at the first invalid item (the benchmark's packages are valid).
 *
 *   node --import tsx bench/official-validator.ts SCHEMA_DIR PACKAGE_DIR
 *
 * prints one JSON line: { seconds, cpuSeconds, items, invalid, maxRssMb }.
 */
import { Ajv, type AnySchemaObject, type ValidateFunction } from "ajv";
import addFormatsImport from "ajv-formats";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readManifest } from "./validate-floor-child.js";

const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as typeof addFormatsImport.default;
const OCF_BASE = "https://schema.opencaptablecoalition.com/v/1.2.0/";

function listSchemaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listSchemaFiles(join(dir, e.name)) : e.name.endsWith(".schema.json") ? [join(dir, e.name)] : [],
  );
}

function officialValidator(schemaDir: string): { manifest: ValidateFunction; byObjectType: Map<string, ValidateFunction> } {
  const schemas = listSchemaFiles(schemaDir).map((f) => JSON.parse(readFileSync(f, "utf8")) as AnySchemaObject);
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  ajv.addSchema(schemas);
  const byObjectType = new Map<string, ValidateFunction>();
  for (const s of schemas) {
    const ot = (s.properties as Record<string, { const?: string; enum?: string[] }> | undefined)?.object_type;
    if (typeof s.$id !== "string" || !s.$id.includes("/objects/") || ot === undefined) continue;
    for (const t of ot.const !== undefined ? [ot.const] : (ot.enum ?? [])) {
      const fn = ajv.getSchema(s.$id);
      if (fn !== undefined && !byObjectType.has(t)) byObjectType.set(t, fn);
    }
  }
  const manifest = ajv.getSchema(`${OCF_BASE}files/OCFManifestFile.schema.json`);
  if (manifest === undefined) throw new Error("no OCFManifestFile schema");
  return { manifest, byObjectType };
}

/** Validates the package in `packageDir` the official way; returns the number of items and of invalid ones. */
export function officialValidate(schemaDir: string, packageDir: string): { items: number; invalid: number } {
  const { manifest: validateManifest, byObjectType } = officialValidator(schemaDir);
  const { manifest, listed } = readManifest(packageDir);
  let invalid = validateManifest(manifest) ? 0 : 1;
  let items = 0;
  for (const path of listed) {
    const file = JSON.parse(readFileSync(path, "utf8")) as { items: { object_type: string }[] };
    for (const item of file.items) {
      items += 1;
      const fn = byObjectType.get(item.object_type);
      if (fn === undefined || !fn(item)) invalid += 1;
    }
  }
  return { items, invalid };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [schemaDir = "", packageDir = ""] = process.argv.slice(2);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const { items, invalid } = officialValidate(schemaDir, packageDir);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  process.stdout.write(`${JSON.stringify({ seconds, cpuSeconds, items, invalid, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
}
