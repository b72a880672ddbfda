/**
 * `parseJsonBody` reads a large body piece by piece: whatever the JSON, its layout and where the
 * body is cut into chunks, the value is the one `JSON.parse` gives the whole text (key order and
 * prototypes included), and a body that is not JSON throws exactly what `JSON.parse` throws.
 * Every property reads piece by piece from the first byte (`splitMinBytes` 0).
 */
import fc from "fast-check";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { SPLIT_MIN_BYTES, parseJsonBody, readPiecewise } from "../../../src/client/json-body.js";

/** The bytes of `text` cut at the given points (sorted, deduplicated, in range). */
function chunked(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  return chunks;
}

/** What `JSON.parse` of the whole text gives: the value, or the error's class and message. */
function outcome(read: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: read() };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

function expectSameAsJsonParse(bytes: Uint8Array, cuts: readonly number[]): void {
  const whole = outcome(() => JSON.parse(Buffer.from(bytes).toString("utf8")));
  const piecewise = outcome(() => parseJsonBody(chunked(bytes, cuts), bytes.length, 0));
  expect(piecewise).toEqual(whole);
  // toEqual ignores key order and prototypes: both count here.
  if ("value" in whole && "value" in piecewise) {
    expect(JSON.stringify(piecewise.value)).toBe(JSON.stringify(whole.value));
    expect(isDeepStrictEqual(piecewise.value, whole.value)).toBe(true);
  }
}

/** A list page as the service sends it: an object with an array of records, and other members. */
const page = fc.record({
  items: fc.array(fc.jsonValue({ stringUnit: "binary" }), { maxLength: 8 }),
  nextPageToken: fc.option(fc.string(), { nil: undefined }),
  other: fc.jsonValue({ stringUnit: "binary", maxDepth: 3 }),
});

const cuts = fc.array(fc.nat(), { maxLength: 12 });
const indent = fc.constantFrom(undefined, 0, 1, 2, "\t", " \r\n");

describe("parseJsonBody", () => {
  it("gives JSON.parse's value for any object, layout and chunking", () => {
    fc.assert(
      fc.property(fc.oneof(page, fc.dictionary(fc.string(), fc.jsonValue({ stringUnit: "binary" }))), indent, cuts, (value, space, at) => {
        const bytes = Buffer.from(JSON.stringify(value, null, space), "utf8");
        expectSameAsJsonParse(bytes, at);
        // Read piece by piece indeed, not left to JSON.parse of the whole (unless a key is __proto__).
        if (!JSON.stringify(value).includes('"__proto__":')) expect(JSON.stringify(readPiecewise(chunked(bytes, at)))).toBe(JSON.stringify(value));
      }),
      { numRuns: 400 },
    );
  });

  it("gives JSON.parse's value, or its very error, for any JSON value and any bytes", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ stringUnit: "binary" }).map((v) => Buffer.from(JSON.stringify(v) ?? "null")), fc.uint8Array({ maxLength: 64 })), cuts, (bytes, at) => {
        expectSameAsJsonParse(bytes, at);
      }),
      { numRuns: 400 },
    );
  });

  it("gives JSON.parse's value or error when a page is damaged: a byte changed, taken out or put in", () => {
    const damage = fc.record({ where: fc.nat(), byte: fc.constantFrom(...Buffer.from(' "\\{}[],:0-9aetnulfr\u00e9\t')), how: fc.constantFrom("change", "remove", "insert") });
    fc.assert(
      fc.property(page, fc.array(damage, { minLength: 1, maxLength: 3 }), cuts, (value, damages, at) => {
        let bytes = Buffer.from(JSON.stringify(value), "utf8");
        for (const { where, byte, how } of damages) {
          const i = where % (bytes.length + 1);
          if (how === "insert") bytes = Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(i)]);
          else if (i < bytes.length) bytes = how === "change" ? Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(i + 1)]) : Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)]);
        }
        expectSameAsJsonParse(bytes, at);
      }),
      { numRuns: 600 },
    );
  });

  it("decodes bytes that are not UTF-8 as the whole body does, wherever the chunks are cut", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 12 }), cuts, (junk, at) => {
        // Inside a string of a record and inside a key: replacement characters, as Buffer#toString gives.
        const bytes = Buffer.concat([Buffer.from('{"items":[{"label":"'), Buffer.from(junk.filter((b) => b !== 0x22 && b !== 0x5c && b >= 0x20)), Buffer.from('"}],"k'), Buffer.from(junk.filter((b) => b >= 0x80)), Buffer.from('":1}')]);
        expectSameAsJsonParse(bytes, at);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a __proto__ key as JSON.parse does: an own property, the prototype untouched", () => {
    const bytes = Buffer.from('{"items":[{"__proto__":{"x":1}}],"__proto__":{"polluted":true},"a":[1,{"__proto__":2}]}');
    const value = parseJsonBody([bytes], bytes.length, 0) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(value).toStrictEqual(JSON.parse(bytes.toString()));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps the last of duplicate keys, in the place of the first, as JSON.parse does", () => {
    expectSameAsJsonParse(Buffer.from('{"b":1,"a":[1,2],"b":[3],"c":null,"a":{"x":2}}'), [3, 9, 20]);
  });

  it("reads a large page piece by piece by default, and a small body whole", () => {
    const records = Array.from({ length: 400 }, (_, i) => ({ id: `award-${i}`, label: "é".repeat(200), vestingEvents: [{ id: `e${i}`, vested: i % 2 === 0 }] }));
    const bytes = Buffer.from(JSON.stringify({ restrictedStockAwards: records, nextPageToken: "t" }), "utf8");
    expect(bytes.length).toBeGreaterThan(SPLIT_MIN_BYTES);
    expectSameAsJsonParse(bytes, [65536, 131072, 131073]);
    expect(parseJsonBody(chunked(bytes, [65536, 100001]), bytes.length)).toStrictEqual(JSON.parse(bytes.toString("utf8")));
  });
});
