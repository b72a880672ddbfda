/** `firstInvalidUtf8` agrees with the platform's strict decoder on every byte string. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstInvalidUtf8 } from "../../../src/cli/text-file.js";

const decodes = (bytes: Uint8Array): boolean => {
  try {
    new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe("firstInvalidUtf8", () => {
  it("finds a bad byte exactly when the strict decoder refuses, and the bytes before it decode", () => {
    // Bytes biased to the interesting ones: lead bytes, continuation bytes and ASCII.
    const byte = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xa0, 0x9f, 0x8f, 0x90, 0x41));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 12 }), fc.string({ unit: "binary", maxLength: 6 }), (raw, text) => {
        const bytes = Uint8Array.from([...new TextEncoder().encode(text), ...raw]);
        const at = firstInvalidUtf8(bytes);
        expect(at === bytes.length).toBe(decodes(bytes));
        expect(decodes(bytes.subarray(0, at))).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it("names the first byte of a bad sequence", () => {
    expect(firstInvalidUtf8(Uint8Array.from([0x41, 0xc0, 0x80]))).toBe(1); // overlong
    expect(firstInvalidUtf8(Uint8Array.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0); // past U+10FFFF
    expect(firstInvalidUtf8(Uint8Array.from([0xe2, 0x82, 0xac, 0xe2, 0x82]))).toBe(3); // cut off
  });
});
