/**
 * ocf-sync's own packages pass its validator: every golden package in samples/ocf/, read from disk
 * (folder) as `ocf-sync validate` reads it, has no problem. And every sample issuer mapped with either
 * lineage declares it, and has no lineage problem read as it declares; read the other way, a package
 * of same-security with partial cancellations read by the documents does have some (so the check is not
 * vacuous).
 */
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { GOLDEN_GENERATED_AT, GOLDEN_OPTIONS, buildGoldenIssuers, type GoldenIssuer } from "../../../samples/generate-golden.js";
import { mapIssuer } from "../../../src/mapping/map-issuer.js";
import type { Lineage } from "../../../src/mapping/types.js";
import { buildPackageFiles } from "../../../src/ocf/package-files.js";
import { readOcfPackageFromFiles } from "../../../src/ocf/package-reader.js";
import { validateOcfPackage, validatePackageAt, type PackageValidationReport } from "../../../src/ocf/validate-package.js";

const GOLDEN = resolve(import.meta.dirname, "../../../samples/ocf");

let issuers: GoldenIssuer[] = [];
beforeAll(async () => {
  issuers = await buildGoldenIssuers();
});

async function validateMapped(issuer: GoldenIssuer, lineage: Lineage, reader?: Lineage): Promise<PackageValidationReport> {
  const mapped = mapIssuer({ issuerId: issuer.issuerId, awards: issuer.awards, units: issuer.units }, { ...GOLDEN_OPTIONS, lineage });
  const { files } = buildPackageFiles(mapped, { generatedAt: GOLDEN_GENERATED_AT });
  const pkg = await readOcfPackageFromFiles(files.map((f) => ({ path: f.path, content: f.content })));
  return validateOcfPackage(pkg, reader === undefined ? {} : { reader });
}

describe("the golden packages", () => {
  it("have no problem, each read by the lineage it declares", async () => {
    const folders = (await readdir(GOLDEN, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.length).toBeGreaterThanOrEqual(5);
    for (const folder of folders) {
      const report = await validatePackageAt(join(GOLDEN, folder));
      expect(report.lineage, folder).toEqual({ reading: "documents", from: "declared" });
      expect(report.problems, folder).toEqual([]);
      expect(report.counts.objects, folder).toBeGreaterThanOrEqual(0);
    }
  });

  it.each<Lineage>(["documents", "same-security"])("mapped with lineage %s, every sample issuer declares it and has no problem", async (lineage) => {
    for (const issuer of issuers) {
      const report = await validateMapped(issuer, lineage);
      expect(report.lineage, issuer.issuerId).toEqual({ reading: lineage, from: "declared" });
      expect(report.problems, issuer.issuerId).toEqual([]);
    }
  });

  it("a same-security package read by the documents has lineage problems (issuer 7's partial cancellations); a documents package reads right both ways", async () => {
    const issuer = issuers.find((i) => i.issuerId === "7") as GoldenIssuer;
    const sameAsDocuments = await validateMapped(issuer, "same-security", "documents");
    expect(sameAsDocuments.lineage).toEqual({ reading: "documents", from: "option" });
    expect(sameAsDocuments.problems.map((p) => p.code)).toContain("BALANCE_MISSING");
    // Under same-security a security also ends where a balance security is named.
    const documentsAsSame = await validateMapped(issuer, "documents", "same-security");
    expect(documentsAsSame.lineage).toEqual({ reading: "same-security", from: "option" });
    expect(documentsAsSame.problems).toEqual([]);
  });
});
