/**
 * `compiledSchema`: a schema is run by zod's interpreter for its first uses and compiled from the
 * `USES_BEFORE_COMPILING`th on, once; verdicts and issues are the same on both sides of the switch.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { USES_BEFORE_COMPILING, compiledSchema } from "../../src/zod-compiled.js";

describe("compiledSchema", () => {
  it("gives the schema itself for its first uses, then one compiled form for good", () => {
    const schema = z.strictObject({ id: z.string(), quantity: z.string().regex(/^[0-9]+$/) });
    const forms = Array.from({ length: USES_BEFORE_COMPILING + 3 }, () => compiledSchema(schema));
    expect(forms.slice(0, USES_BEFORE_COMPILING - 1).every((form) => form === schema)).toBe(true);
    const compiled = forms[USES_BEFORE_COMPILING - 1];
    expect(compiled).not.toBe(schema);
    expect(forms.slice(USES_BEFORE_COMPILING - 1).every((form) => form === compiled)).toBe(true);
  });

  it("accepts and rejects the same values, with the same issues, before and after it compiles", () => {
    const schema = z.strictObject({ id: z.string(), quantity: z.string().regex(/^[0-9]+$/) });
    const values: unknown[] = [{ id: "a", quantity: "12" }, { id: "a", quantity: "1.5" }, { id: 7 }, { id: "a", quantity: "3", extra: true }, "x", null];
    const verdicts = () => values.map((value) => compiledSchema(schema).safeParse(value)).map((r) => (r.success ? r.data : r.error.issues));
    const before = verdicts();
    for (let i = 0; i < USES_BEFORE_COMPILING; i++) verdicts();
    expect(compiledSchema(schema)).not.toBe(schema);
    expect(verdicts()).toEqual(before);
  });
});
