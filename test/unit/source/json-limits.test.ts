/** Depth and size limits on a record's JSON: found without recursion, at any depth; a too-deep record fails alone, coded and named. */
import { describe, expect, it } from "vitest";
import { describeValue } from "../../../src/errors.js";
import { CUT_MARKER, checkJsonLimits, cutJson, keepableJson } from "../../../src/source/json-limits.js";
import { isSourceRecordError } from "../../../src/source/errors.js";
import { parseRecord } from "../../../src/source/parse.js";

function nested(depth: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

describe("checkJsonLimits", () => {
  it("finds the path where a value goes too deep, even 100,000 levels down", () => {
    expect(checkJsonLimits({ x: [[1]] }, { maxDepth: 3, maxBytes: 1000 })).toBeUndefined();
    expect(checkJsonLimits({ x: [[[1]]] }, { maxDepth: 3, maxBytes: 1000 })).toEqual({ kind: "depth", path: ["x", 0, 0], limit: 3 });
    const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`) as unknown;
    expect(checkJsonLimits(deep)).toMatchObject({ kind: "depth", limit: 64 });
  });

  it("stops at the size limit", () => {
    expect(checkJsonLimits({ s: "x".repeat(100) }, { maxDepth: 5, maxBytes: 50 })).toMatchObject({ kind: "size", limit: 50 });
    expect(checkJsonLimits({ s: "x".repeat(10) }, { maxDepth: 5, maxBytes: 50 })).toBeUndefined();
  });

  it("keeps a too-deep value cut one level below the limit: serializable, and still too deep", () => {
    const deep = nested(4500);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const kept = keepableJson(deep);
    expect(() => JSON.stringify(kept)).not.toThrow();
    expect(JSON.stringify(kept)).toContain(CUT_MARKER);
    expect(checkJsonLimits(kept)).toMatchObject({ kind: "depth" });
    const shallow = { a: [1, { b: 2 }] };
    expect(keepableJson(shallow)).toBe(shallow);
    expect(cutJson({ a: { b: { c: 1 } } }, 2)).toEqual({ a: { b: CUT_MARKER } });
  });

  it("describeValue copes with any depth (String() of nested arrays would overflow too)", () => {
    const deep = JSON.parse(`${"[".repeat(50_000)}${"]".repeat(50_000)}`) as unknown;
    expect(describeValue(deep)).toBe("[an array]");
    expect(describeValue(nested(5000))).toBe("[an object]");
  });
});

describe("parseRecord on a record 4,500 levels deep", () => {
  it("throws SOURCE_RECORD_TOO_DEEP naming the issuer, the record and where", () => {
    const raw = { id: "deep-1", issuerId: "7", extra: nested(4500) };
    let error: unknown;
    try {
      parseRecord("restrictedStockAward", raw, { issuerId: "7" });
    } catch (e) {
      error = e;
    }
    expect(isSourceRecordError(error)).toBe(true);
    expect(error).toMatchObject({ code: "SOURCE_RECORD_TOO_DEEP", issuerId: "7", recordId: "deep-1", kind: "restrictedStockAward" });
    expect((error as Error).message).toBe(
      'restrictedStockAward "deep-1" of issuer "7": extra.a.a.a.a.a.a.a…: nested deeper than 64 levels of objects and arrays (the limit for one record)',
    );
    expect(() => JSON.stringify(error)).not.toThrow();
  });

  it("throws SOURCE_RECORD_TOO_LARGE past the size limit", () => {
    const raw = { id: "big-1", issuerId: "7", extra: "x".repeat(200) };
    expect(() => parseRecord("restrictedStockUnit", raw, { issuerId: "7", limits: { maxDepth: 64, maxBytes: 100 } })).toThrow(
      expect.objectContaining({ code: "SOURCE_RECORD_TOO_LARGE", recordId: "big-1" }),
    );
  });
});
