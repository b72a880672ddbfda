/**
 * ocf-sync's own packages pass its validator: every golden package in samples/ocf/, read from disk
 * (folder) as `ocf-sync validate` reads it, has no problem.
 */
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";

const GOLDEN = resolve(import.meta.dirname, "../../../samples/ocf");

describe("the golden packages", () => {
  it("have no problem", async () => {
    const folders = (await readdir(GOLDEN, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.length).toBeGreaterThanOrEqual(5);
    for (const folder of folders) {
      // TODO(lead, issue 9): the golden packages keep partial cancellations on the same security and do
      // not declare it yet; once the mapping writes "Lineage: …" in Manifest.comments, drop the reader
      // option so that each package is read by what it declares (the documents by default).
      const report = await validatePackageAt(join(GOLDEN, folder), { reader: "same-security" });
      expect(report.problems, folder).toEqual([]);
      expect(report.counts.objects, folder).toBeGreaterThanOrEqual(0);
    }
  });
});
