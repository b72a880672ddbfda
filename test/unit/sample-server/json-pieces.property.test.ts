/**
 * The sample server writes a reply in pieces: joined, they are exactly the bytes of `JSON.stringify`
 * of the reply, whatever it holds (members `JSON.stringify` leaves out, array elements it writes as
 * `null`, objects with a `toJSON`), and no piece of a large page is large.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonPieces } from "../../../src/sample-server/json-pieces.js";

function expectJsonStringifyBytes(value: unknown): void {
  const text = JSON.stringify(value) as string | undefined;
  expect(Buffer.concat(jsonPieces(value)).toString("utf8")).toBe(text ?? "");
  expect(Buffer.concat(jsonPieces(value)).equals(Buffer.from(text ?? "", "utf8"))).toBe(true);
}

/** Values JSON.stringify treats specially, beside plain JSON. */
const odd = fc.constantFrom<unknown>(undefined, () => 1, Symbol("s"), new Date(Date.UTC(2025, 5, 30)), { toJSON: (key: string) => `key ${key}` }, Number.NaN, -0);

describe("jsonPieces", () => {
  it("joins to the bytes of JSON.stringify, for any value", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ stringUnit: "binary" }), odd), (value) => expectJsonStringifyBytes(value)),
      { numRuns: 300 },
    );
  });

  it("joins to the bytes of JSON.stringify for a page whose members and elements are anything", () => {
    const member = fc.oneof(fc.jsonValue({ stringUnit: "binary", maxDepth: 3 }), odd, fc.array(fc.oneof(fc.jsonValue({ maxDepth: 2 }), odd), { maxLength: 6 }));
    fc.assert(
      fc.property(fc.dictionary(fc.string(), member, { maxKeys: 6 }), (page) => expectJsonStringifyBytes(page)),
      { numRuns: 400 },
    );
  });

  it("cuts a large page into small pieces", () => {
    const page = { restrictedStockAwards: Array.from({ length: 200 }, (_, i) => ({ id: `award-${i}`, label: "é".repeat(2000) })), nextPageToken: "t" };
    const pieces = jsonPieces(page);
    expectJsonStringifyBytes(page);
    expect(pieces.length).toBeGreaterThan(10);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(128 * 1024);
  });
});
