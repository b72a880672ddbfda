/**
 * The package writer's double-buffered file: whatever is written, in pieces of any size (smaller and
 * larger than its buffers, strings and bytes), the file holds exactly their concatenation and `seen`
 * was shown the same bytes in order; and a write that fails is an error of `end()`, not lost.
 */
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { BufferedFile, bufferPair } from "../../../src/io/buffered-file.js";

const root = temporaryFolder("ocf-sync-buffered-");

describe("BufferedFile", () => {
  it("writes exactly the concatenation of what it is given, and shows every byte once, in order", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.string({ unit: "grapheme", maxLength: 40 }), fc.uint8Array({ maxLength: 70 })), { maxLength: 40 }),
        fc.integer({ min: 1, max: 64 }),
        async (pieces, bufferBytes) => {
          const path = join(root(), `file-${++n}`);
          const handle = await open(path, "wx");
          const seen: Buffer[] = [];
          const file = new BufferedFile(handle, bufferPair(bufferBytes), path, (bytes) => seen.push(Buffer.from(bytes)));
          try {
            for (const piece of pieces) await file.write(piece);
            const length = await file.end();
            const expected = Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));
            expect(length).toBe(expected.length);
            expect(await readFile(path)).toEqual(expected);
            expect(Buffer.concat(seen)).toEqual(expected);
          } finally {
            await handle.close();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("fails end() when a write fails", async () => {
    const path = join(root(), "read-only");
    await (await open(path, "wx")).close();
    const handle = await open(path, "r");
    try {
      const file = new BufferedFile(handle, bufferPair(8), path);
      // Each of these fills a buffer and sends it to a descriptor open for reading only.
      let failure: unknown;
      try {
        for (let i = 0; i < 4; i++) await file.write("0123456789");
        await file.end();
      } catch (error) {
        failure = error;
      }
      // A FileSystemError naming the file, the system's code kept.
      expect(failure).toMatchObject({ code: "FILE_SYSTEM_ERROR", errno: "EBADF", path });
    } finally {
      await handle.close();
    }
  });
});
