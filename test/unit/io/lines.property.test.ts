/**
 * Line files read and written a piece at a time give what reading and writing them whole gives:
 * whatever the lines (empty, longer than a piece, characters of several bytes across the pieces'
 * edges, bytes that are not UTF-8), `readTextLines` is the whole text split at `\n`, and
 * `writeTextLines` writes exactly the texts joined.
 */
import fc from "fast-check";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTextLines, writeTextLines } from "../../../src/io/lines.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

/** Lines of every size around the 64 KiB pieces, in characters of 1 to 4 bytes. */
const line = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.tuple(fc.integer({ min: 0, max: 70_000 }), fc.constantFrom("a", "é", "€", "😀")).map(([n, c]) => c.repeat(Math.ceil(n / c.length))),
).map((text) => text.replaceAll("\n", " "));

describe("line files", () => {
  const folder = temporaryFolder("ocf-sync-lines-");

  it("reads the whole text split at newlines, and writes the texts joined", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 8 }), fc.boolean(), async (lines, endsWithNewline) => {
        const path = join(folder(), "lines.txt");
        const texts = lines.map((text, i) => (i < lines.length - 1 || endsWithNewline ? `${text}\n` : text));
        await writeTextLines(path, texts);
        const whole = readFileSync(path, "utf8");
        expect(whole).toBe(texts.join(""));
        const parts = whole.split("\n");
        const last = parts.pop();
        expect(await readTextLines(path)).toEqual({ lines: parts, complete: last === "" });
      }),
      { numRuns: 60 },
    );
  });

  it("decodes bytes that are not UTF-8 as the whole text does, wherever the pieces end", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 0, max: 3 }), async (junk, pad) => {
        const path = join(folder(), "junk.txt");
        // Put the junk across the edge of the first 64 KiB piece.
        const bytes = Buffer.concat([Buffer.alloc(64 * 1024 - 32 - pad, 0x61), Buffer.from(junk), Buffer.from("\n")]);
        writeFileSync(path, bytes);
        const parts = bytes.toString("utf8").split("\n");
        const last = parts.pop();
        expect(await readTextLines(path)).toEqual({ lines: parts, complete: last === "" });
      }),
      { numRuns: 60 },
    );
  });
});
