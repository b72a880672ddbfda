/**
 * The push parser of `{ file_type, items }` files against JSON.parse: for any JSON text cut into
 * chunks anywhere (inside strings, escapes, multi-byte characters), it hands over the same members
 * and items, and it refuses exactly what JSON.parse refuses, saying where.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonItemsScanner } from "../../../src/ocf/json-items.js";

interface Scanned {
  members: [string, unknown][];
  items: unknown[] | undefined;
  notAnObject?: unknown;
  error: { kind: string; message: string } | undefined;
}

function scan(bytes: Uint8Array, cuts: readonly number[], maxValueBytes?: number): Scanned {
  const result: Scanned = { members: [], items: undefined, error: undefined };
  const scanner = new JsonItemsScanner(
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
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    // A reused buffer, as the folder reader hands them out.
    const chunk = new Uint8Array(bytes.subarray(from, cut));
    scanner.push(chunk);
    chunk.fill(0x20);
    from = cut;
  }
  scanner.push(bytes.subarray(from));
  scanner.end();
  result.error = scanner.error;
  return result;
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
const cutsOf = (length: number) => fc.array(fc.integer({ min: 0, max: length }), { maxLength: 12 });

describe("JsonItemsScanner", () => {
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
