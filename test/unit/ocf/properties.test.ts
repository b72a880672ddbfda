/**
 * Properties: for generated valid transactions of every type ocf-sync models, our zod schemas accept;
 * after one random corruption (a required key dropped, an unknown key added, a Numeric spoiled), they
 * reject. The conformance suite checks that the official JSON Schemas give the same verdicts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OBJECT_TYPES, validateOcfFile, validateOcfObject } from "../../../src/ocf/schemas.js";
import { describeConformance } from "../../helpers/conformance.js";
import { GENERATED_TRANSACTION_TYPES, corrupted, validTransaction } from "../../helpers/ocf-arbitraries.js";
import { validateFileWithOfficialSchemas, validateWithOfficialSchemas } from "../../helpers/official-ocf.js";

const RUNS = 150;

const anyValid = fc.constantFrom(...GENERATED_TRANSACTION_TYPES).chain(validTransaction);

/** A transactions file of generated items, and the same file with one corrupted item inserted at `position`. */
const filesArb = fc
  .tuple(fc.array(anyValid, { maxLength: 6 }), fc.nat(), corrupted(anyValid))
  .map(([generated, at, broken]) => {
    const items = generated.map((g) => g.value);
    const position = items.length === 0 ? 0 : at % (items.length + 1);
    return {
      file: { file_type: "OCF_TRANSACTIONS_FILE", items },
      spoiled: { file_type: "OCF_TRANSACTIONS_FILE", items: [...items.slice(0, position), broken.value, ...items.slice(position)] },
      position,
    };
  });

describe("generated transactions", () => {
  it("cover every transaction type ocf-sync models", () => {
    expect([...GENERATED_TRANSACTION_TYPES].sort()).toEqual(OBJECT_TYPES.filter((t) => t.startsWith("TX_")).sort());
  });

  it.each(GENERATED_TRANSACTION_TYPES)("%s: valid objects pass our schemas unchanged", (objectType) => {
    fc.assert(
      fc.property(validTransaction(objectType), ({ value }) => {
        expect(validateOcfObject(value)).toEqual({ ok: true, value });
      }),
      { numRuns: RUNS },
    );
  });

  it.each(GENERATED_TRANSACTION_TYPES)("%s: one corrupted field fails our schemas", (objectType) => {
    fc.assert(
      fc.property(corrupted(validTransaction(objectType)), ({ value }) => {
        expect(validateOcfObject(value).ok).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it("a transactions file of generated items passes, and one corrupted item fails it at that item", () => {
    fc.assert(
      fc.property(filesArb, ({ file, spoiled, position }) => {
        expect(validateOcfFile(file).ok).toBe(true);
        const ours = validateOcfFile(spoiled);
        expect(ours.ok).toBe(false);
        if (!ours.ok) expect(ours.issues.every((i) => i.path.startsWith(`$.items[${position}]`))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});

describeConformance("the official OCF 1.2.0 schemas agree on generated transactions", () => {
  it.each(GENERATED_TRANSACTION_TYPES)("%s: valid objects pass, one corrupted field fails", (objectType) => {
    fc.assert(
      fc.property(validTransaction(objectType), ({ value }) => {
        expect(validateWithOfficialSchemas(value).errors).toEqual([]);
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(corrupted(validTransaction(objectType)), ({ value }) => {
        expect(validateWithOfficialSchemas(value).valid).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it("a transactions file of generated items passes, and one corrupted item fails it", () => {
    fc.assert(
      fc.property(filesArb, ({ file, spoiled }) => {
        expect(validateFileWithOfficialSchemas(file).errors).toEqual([]);
        expect(validateFileWithOfficialSchemas(spoiled).valid).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
});
