/**
 * Conformance: every official OCF 1.2.0 sample (including the tutorials and the vesting examples) must
 * get the same verdict from our zod schemas as from the official JSON Schemas. Both are third-party
 * artifacts, read from the reference folder (see test/helpers/conformance.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { LEGACY_OBJECT_TYPES, OBJECT_TYPES, OCF_FILE_TYPES, OCF_OBJECT_TYPES, UNSCHEMED_TRANSACTION_TYPES, validateOcfFile, validateOcfObject } from "../../../src/ocf/schemas.js";
import { describeConformance } from "../../helpers/conformance.js";
import {
  officialFileTypes,
  officialObjectTypes,
  officialSamplesDir,
  officialSchemaCount,
  validateFileWithOfficialSchemas,
  validateWithOfficialSchemas,
} from "../../helpers/official-ocf.js";

interface SampleFile {
  name: string;
  json: { file_type: string; items?: { object_type: string; id: string }[]; issuer?: unknown };
}

function listSamples(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listSamples(join(dir, e.name)) : e.name.endsWith(".ocf.json") ? [join(dir, e.name)] : []))
    .sort();
}

const modelled = new Set<string>([...OBJECT_TYPES, ...Object.keys(LEGACY_OBJECT_TYPES)]);

describeConformance("official OCF samples", () => {
  const samples: SampleFile[] = listSamples(officialSamplesDir()).map((file) => ({
    name: relative(officialSamplesDir(), file),
    json: JSON.parse(readFileSync(file, "utf8")) as SampleFile["json"],
  }));

  const modelledItems = samples.flatMap(({ name, json }) => {
    const items = json.file_type === "OCF_MANIFEST_FILE" ? [json.issuer] : (json.items ?? []);
    return items
      .filter((item) => modelled.has((item as { object_type: string }).object_type))
      .map((item, index) => ({ label: `${name} #${index} ${(item as { id: string }).id}`, item }));
  });

  it("loads all 168 official schemas and knows every official object type we model", () => {
    expect(officialSchemaCount()).toBe(168);
    const official = new Set(officialObjectTypes());
    for (const objectType of modelled) expect(official, objectType).toContain(objectType);
  });

  it("every official transaction kind is either modelled or one validate accepts unchecked, and those are official", () => {
    const official = officialObjectTypes();
    for (const type of UNSCHEMED_TRANSACTION_TYPES) expect(official, type).toContain(type);
    const covered = new Set([...modelled, ...UNSCHEMED_TRANSACTION_TYPES]);
    expect(official.filter((type) => type.startsWith("TX_") && !covered.has(type))).toEqual([]);
  });

  it("OCF_OBJECT_TYPES, which messages call the OCF 1.2.0 object types, are exactly the official enum's", () => {
    expect([...OCF_OBJECT_TYPES].sort()).toEqual(officialObjectTypes());
    expect([...OCF_FILE_TYPES].sort()).toEqual(officialFileTypes());
  });

  it("finds the samples, including the tutorials and the vesting examples", () => {
    const names = samples.map((s) => s.name);
    expect(names).toContain("VestingTerms.example1.ocf.json");
    expect(names).toContain("VestingTransactions.examples.ocf.json");
    expect(names).toContain(join("tutorial-options", "Transactions.ocf.json"));
    expect(names).toContain(join("tutorial-quickstart", "Manifest.ocf.json"));
    // Every modelled object type but the transfers and a few of the rarer transactions has a sample.
    const seen = new Set(modelledItems.map(({ item }) => (item as { object_type: string }).object_type));
    expect(seen.size).toBeGreaterThanOrEqual(20);
  });

  it.each(modelledItems)("$label: our verdict equals the official one (valid)", ({ item }) => {
    const official = validateWithOfficialSchemas(item);
    const ours = validateOcfObject(item);
    expect(official.errors).toEqual([]);
    expect(ours).toEqual({ ok: true, value: item });
  });

  const wholeFiles = samples.filter(({ json }) =>
    json.file_type === "OCF_MANIFEST_FILE" ? true : (json.items ?? []).every((item) => modelled.has(item.object_type)),
  );

  it.each(wholeFiles)("$name as a whole file: our verdict equals the official one", ({ name, json }) => {
    const official = validateFileWithOfficialSchemas(json);
    const ours = validateOcfFile(json);
    expect(ours.ok, JSON.stringify({ official: official.errors, ours })).toBe(official.valid);
    // Only the tutorial manifests, whose ocf_version is a placeholder, are invalid.
    expect(official.valid).toBe(!name.startsWith("tutorial-") || !name.endsWith("Manifest.ocf.json"));
    if (!ours.ok) expect(ours.issues).toEqual([{ path: "$.ocf_version", message: 'must be "1.2.0", got "~~~ SAMPLE ~~~"' }]);
  });

  it("rejects a file holding an object type ocf-sync does not model, naming the item", () => {
    const transactions = samples.find((s) => s.name === "Transactions.ocf.json");
    const verdict = validateOcfFile(transactions?.json);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.issues[0]).toEqual({
      path: "$.items[0].object_type",
      message: '"TX_ISSUER_AUTHORIZED_SHARES_ADJUSTMENT" is an OCF 1.2.0 object type ocf-sync has no schema for',
    });
    // The official file schema rejects it too, for its own reason (OCF #543).
    expect(validateFileWithOfficialSchemas(transactions?.json).valid).toBe(false);
  });
});
