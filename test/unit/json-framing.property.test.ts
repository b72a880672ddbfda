/**
 * The one JSON framing (`json-framing.ts`) as its two readers use it, against `JSON.parse`:
 *
 * - `parseJsonBody` reads a large body piece by piece: whatever the JSON, its layout and where the
 *   body is cut into chunks, the value is the one `JSON.parse` gives the whole text (key order and
 *   prototypes included), and a body that is not JSON throws exactly what `JSON.parse` throws.
 *   Every property reads piece by piece from the first byte (`splitMinBytes` 0).
 * - the reader of `{ file_type, items }` package files: for any JSON text cut into chunks anywhere
 *   (inside strings, escapes, multi-byte characters), it hands over the same members and items, and
 *   it refuses exactly what JSON.parse refuses, saying where.
 */
import fc from "fast-check";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { SPLIT_MIN_BYTES, parseJsonBody, readPiecewise } from "../../src/client/json-body.js";
import { jsonItemsScanner } from "../../src/ocf/json-items.js";

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

interface Scanned {
  members: [string, unknown][];
  items: unknown[] | undefined;
  notAnObject?: unknown;
  error: { kind: string; message: string } | undefined;
}

function scan(bytes: Uint8Array, cuts: readonly number[], maxValueBytes?: number): Scanned {
  const result: Scanned = { members: [], items: undefined, error: undefined };
  const scanner = jsonItemsScanner(
    {
      member: (key, value) => result.members.push([key, value]),
      itemsStart: () => (result.items = []),
      item: (index, value) => {
        expect(index).toBe(result.items?.length);
        result.items?.push(value);
      },
      notAnObject: (value) => (result.notAnObject = value),
    },
    maxValueBytes === undefined ? {} : { maxValueBytes },
  );
  for (const piece of chunked(bytes, cuts)) {
    // A reused buffer, as the folder reader hands them out.
    const chunk = new Uint8Array(piece);
    scanner.push(chunk);
    chunk.fill(0x20);
  }
  scanner.end();
  result.error = scanner.error;
  return result;
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
const cutsOf = (length: number) => fc.array(fc.integer({ min: 0, max: length }), { maxLength: 12 });

describe("jsonItemsScanner", () => {
  it("gives the members and items JSON.parse gives, however the file is cut", () => {
    const file = fc.record({
      fileType: fc.string({ unit: "grapheme" }),
      items: fc.array(fc.jsonValue(), { maxLength: 12 }),
      extra: fc.option(fc.dictionary(fc.string().filter((k) => k !== "items" && k !== "file_type"), fc.jsonValue(), { maxKeys: 3 }), { nil: undefined }),
      pretty: fc.boolean(),
    });
    fc.assert(
      fc.property(
        file.chain((f) => {
          const text = JSON.stringify({ file_type: f.fileType, ...f.extra, items: f.items }, null, f.pretty ? 2 : undefined);
          return fc.record({ text: fc.constant(text), cuts: cutsOf(encode(text).length) });
        }),
        ({ text, cuts }) => {
          const scanned = scan(encode(text), cuts);
          const parsed = JSON.parse(text) as Record<string, unknown>;
          expect(scanned.error).toBeUndefined();
          expect(scanned.items).toEqual(parsed.items);
          expect(Object.fromEntries(scanned.members)).toEqual(Object.fromEntries(Object.entries(parsed).filter(([k]) => k !== "items")));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses exactly what JSON.parse refuses (one byte changed, dropped or added anywhere)", () => {
    const base = JSON.stringify({ file_type: "OCF_STAKEHOLDERS_FILE", items: [{ id: "a\"b\\u00e9", n: [1, 2.5e3, null, true] }, "x", 0] }, null, 1);
    const bytes = encode(base);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: bytes.length - 1 }),
        fc.constantFrom("change", "drop", "add"),
        fc.constantFrom(...'{}[]",:\\ 0a-eE.+\n'.split("").map((c) => c.charCodeAt(0)), 0xc3, 0xff),
        fc.array(fc.integer({ min: 0, max: bytes.length }), { maxLength: 6 }),
        (at, how, byte, cuts) => {
          const changed = how === "change" ? bytes.map((b, i) => (i === at ? byte : b)) : how === "drop" ? new Uint8Array([...bytes.subarray(0, at), ...bytes.subarray(at + 1)]) : new Uint8Array([...bytes.subarray(0, at), byte, ...bytes.subarray(at)]);
          let parsed: unknown;
          let parses = true;
          try {
            parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(changed));
          } catch {
            parses = false;
          }
          const itemsTwice = parses && /"items"[\s\S]*"items"\s*:/.test(new TextDecoder().decode(changed));
          const scanned = scan(changed, cuts.filter((c) => c <= changed.length));
          if (!parses) expect(scanned.error?.kind, new TextDecoder().decode(changed)).toBe("not-json");
          else if (!itemsTwice) {
            expect(scanned.error).toBeUndefined();
            const expected = parsed as Record<string, unknown>;
            if (typeof expected === "object" && expected !== null && !Array.isArray(expected)) expect(scanned.items ?? expected.items).toEqual(expected.items);
            else expect(scanned.notAnObject).toEqual(expected);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("says what is wrong and where", () => {
    const message = (text: string | Uint8Array, max?: number) => scan(typeof text === "string" ? encode(text) : text, [], max).error;
    expect(message("\uFEFF{}")).toEqual({ kind: "not-json", message: "starts with a byte order mark, which JSON does not allow" });
    expect(message(new Uint8Array([...encode('{"items": ["ok", "caf'), 0xc3, 0x28, ...encode('"]}')]))).toEqual({
      kind: "not-json",
      message: "is not UTF-8 text (an invalid byte sequence at byte 21)",
    });
    expect(message('{"items": [1, 2,]}')?.message).toBe('is not JSON (expected a value after the comma (JSON allows no trailing comma), at byte 16)');
    expect(message('{"items": [{"a": 1}')?.message).toBe("is not JSON (the file ends early, at byte 19)");
    expect(message('{"items": [{"a": ')?.message).toBe("is not JSON (the file ends early inside $.items[0], at byte 17)");
    expect(message("")?.message).toBe("is not JSON (the file is empty)");
    expect(message('{"items": [], "items": []}')?.message).toMatch(/the key "items" appears twice/);
    expect(message('{"items": [{"a": 1}, {"big": "' + "x".repeat(100) + '"}]}', 64)).toEqual({
      kind: "too-large",
      message: "holds a value over the limit of 64 bytes ($.items[1]); it is not read further",
    });
    expect(message('{"items": [{"a": 1} {"b": 2}]}')?.message).toBe('is not JSON (expected "," or "]" after $.items[0], at byte 20)');
  });

  it("hands over a file that is not an object as it is", () => {
    expect(scan(encode(" [1, 2] "), [3]).notAnObject).toEqual([1, 2]);
    expect(scan(encode("42"), [1]).notAnObject).toBe(42);
    expect(scan(encode('"text"'), [2]).notAnObject).toBe("text");
  });
});
