/**
 * StringIndex against a Map: the same membership and numbering for any strings (non-ASCII, empty,
 * long, colliding prefixes), across many rehashes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StringIndex } from "../../../src/ocf/string-index.js";

describe("StringIndex", () => {
  it("numbers strings in the order they are first added, exactly as a Map would", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.constantFrom("", "a", "é", "\u{1F600}", "x".repeat(500), "\uD800", "\uDC00", "a\uD800b", "a\uDBFFb", "\uFFFD")), { maxLength: 300 }), fc.array(fc.string(), { maxLength: 50 }), (added, probes) => {
        const index = new StringIndex();
        const model = new Map<string, number>();
        for (const key of added) {
          const expected = model.get(key) ?? model.size;
          if (!model.has(key)) model.set(key, expected);
          expect(index.add(key)).toBe(expected);
        }
        expect(index.size).toBe(model.size);
        for (const [key, i] of model) {
          expect(index.indexOf(key)).toBe(i);
          expect(index.keyAt(i)).toBe(key);
        }
        for (const probe of probes) expect(index.has(probe)).toBe(model.has(probe));
      }),
      { numRuns: 200 },
    );
  });

  it("holds a hundred thousand ids", () => {
    const index = new StringIndex();
    for (let i = 0; i < 100_000; i++) index.add(`rsa-award-${i}`);
    for (let i = 0; i < 100_000; i += 997) expect(index.indexOf(`rsa-award-${i}`)).toBe(i);
    expect(index.has("rsa-award-100000")).toBe(false);
    expect(index.size).toBe(100_000);
  });
});
