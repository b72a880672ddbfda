/**
 * Properties: for generated valid transactions of every type ocf-sync models, our zod schemas and the
 * official JSON Schemas both accept; after one random corruption (a required key dropped, an unknown
 * key added, a Numeric spoiled), both reject.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OBJECT_TYPES, validateOcfFile, validateOcfObject } from "../../../src/ocf/schemas.js";
import { validateFileWithOfficialSchemas, validateWithOfficialSchemas } from "../../helpers/official-ocf.js";
import { GENERATED_TRANSACTION_TYPES, corrupted, validTransaction } from "../../helpers/ocf-arbitraries.js";

const RUNS = 150;

describe("generated transactions", () => {
  it("cover every transaction type ocf-sync models", () => {
    expect([...GENERATED_TRANSACTION_TYPES].sort()).toEqual(OBJECT_TYPES.filter((t) => t.startsWith("TX_")).sort());
  });

  it.each(GENERATED_TRANSACTION_TYPES)("%s: valid objects pass both our schemas and the official ones", (objectType) => {
    fc.assert(
      fc.property(validTransaction(objectType), ({ value }) => {
        expect(validateWithOfficialSchemas(value).errors).toEqual([]);
        expect(validateOcfObject(value)).toEqual({ ok: true, value });
      }),
      { numRuns: RUNS },
    );
  });

  it.each(GENERATED_TRANSACTION_TYPES)("%s: one corrupted field fails both", (objectType) => {
    fc.assert(
      fc.property(corrupted(validTransaction(objectType)), ({ value }) => {
        expect(validateWithOfficialSchemas(value).valid).toBe(false);
        expect(validateOcfObject(value).ok).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it("a transactions file of generated items passes both, and one corrupted item fails both", () => {
    const anyValid = fc.constantFrom(...GENERATED_TRANSACTION_TYPES).chain(validTransaction);
    fc.assert(
      fc.property(
        fc.array(anyValid, { maxLength: 6 }),
        fc.nat(),
        corrupted(anyValid),
        (generated, at, broken) => {
          const items = generated.map((g) => g.value);
          const file = { file_type: "OCF_TRANSACTIONS_FILE", items };
          expect(validateFileWithOfficialSchemas(file).errors).toEqual([]);
          expect(validateOcfFile(file).ok).toBe(true);

          const position = items.length === 0 ? 0 : at % (items.length + 1);
          const spoiled = { ...file, items: [...items.slice(0, position), broken.value, ...items.slice(position)] };
          expect(validateFileWithOfficialSchemas(spoiled).valid).toBe(false);
          const ours = validateOcfFile(spoiled);
          expect(ours.ok).toBe(false);
          if (!ours.ok) expect(ours.issues.every((i) => i.path.startsWith(`$.items[${position}]`))).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
