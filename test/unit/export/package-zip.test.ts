/**
 * The package zip: several files zip and read back whole (entries inflated as read, sizes and CRC-32
 * checked), and what would need Zip64 is refused up front, leaving nothing behind.
 */
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { ZipTooLargeError, writePackageZip } from "../../../src/ocf/package-folder.js";
import { ZipReader } from "../../../src/ocf/zip-reader.js";

const dir = temporaryFolder("ocf-sync-zip-");

describe("writePackageZip", () => {
  it("zips a package of several files, which read back byte for byte", async () => {
    const files = [
      { path: "Manifest.ocf.json", content: '{"file_type":"OCF_MANIFEST_FILE"}\n' },
      { path: "Transactions.ocf.json", content: `${"x".repeat(300_000)}\n` },
      { path: "Transactions.2.ocf.json", content: `${"é".repeat(100_000)}\n` },
    ];
    for (const file of files) await writeFile(join(dir(), file.path), file.content);
    const zipPath = join(dir(), "package.ocf.zip");
    const pending = await writePackageZip(
      zipPath,
      files.map((f) => ({ path: f.path, source: join(dir(), f.path) })),
      new Date("2025-06-30T00:00:00Z"),
    );
    await pending.commit();
    const zip = await ZipReader.open(zipPath, { maxEntries: 10 });
    try {
      expect(zip.entries.map((e) => e.name)).toEqual(files.map((f) => f.path));
      for (const [i, entry] of zip.entries.entries()) {
        const chunks: Uint8Array[] = [];
        for await (const chunk of zip.chunks(entry)) chunks.push(chunk);
        expect(Buffer.concat(chunks).toString("utf8")).toBe(files[i]?.content);
      }
    } finally {
      await zip.close();
    }
  });

  it("refuses a package of more files than a zip without Zip64 can hold, before writing anything", async () => {
    const target = join(dir(), "too-many.ocf.zip");
    const files = Array.from({ length: 65_535 }, (_, i) => ({ path: `f${i}.ocf.json`, source: join(dir(), "absent") }));
    const error = await writePackageZip(target, files, new Date()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ZipTooLargeError);
    expect((error as ZipTooLargeError).code).toBe("ZIP64_UNSUPPORTED");
    expect((await readdir(dir())).filter((n) => n.includes("too-many"))).toEqual([]);
  });
});
