import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MANIFEST_KEY_OF, validateOcfFile, type OcfItemsFileType } from "../../../src/ocf/schemas.js";
import { OcfPackageError, buildPackageFiles } from "../../../src/ocf/package-files.js";
import { describeConformance } from "../../helpers/conformance.js";
import { expectOcfSyncValidFiles, parsedFiles } from "../../helpers/ocf-verdicts.js";
import { expectOfficiallyValidFiles } from "../../helpers/official-ocf.js";
import { baseAward, baseUnit, mapRecords, termsAward } from "./fixtures.js";

const GENERATED_AT = "2025-06-30T12:00:00Z";
const mapped = mapRecords({ awards: [baseAward(), termsAward()], units: [baseUnit()] });

describe("buildPackageFiles", () => {
  const { manifest, files } = buildPackageFiles(mapped, { generatedAt: GENERATED_AT });

  it("writes the manifest first, then one file per non-empty object list", () => {
    expect(files.map((f) => f.path)).toEqual([
      "Manifest.ocf.json",
      "StockPlans.ocf.json",
      "StockClasses.ocf.json",
      "VestingTerms.ocf.json",
      "Transactions.ocf.json",
      "Stakeholders.ocf.json",
    ]);
    expect(manifest).toMatchObject({
      file_type: "OCF_MANIFEST_FILE",
      ocf_version: "1.2.0",
      issuer: mapped.issuer,
      as_of: mapped.asOf,
      generated_at: GENERATED_AT,
      stock_legend_templates_files: [],
      valuations_files: [],
    });
  });

  it("lists every file with the MD5 of its exact UTF-8 bytes", () => {
    const [manifestFile, ...itemFiles] = files;
    expect(JSON.parse(manifestFile?.content ?? "")).toEqual(manifest);
    for (const file of files) {
      expect(file.md5).toBe(createHash("md5").update(Buffer.from(file.content, "utf8")).digest("hex"));
      expect(file.content.endsWith("}\n")).toBe(true);
    }
    for (const file of itemFiles) {
      const parsed = JSON.parse(file.content) as { file_type: OcfItemsFileType };
      expect(manifest[MANIFEST_KEY_OF[parsed.file_type]]).toEqual([{ filepath: file.path, md5: file.md5 }]);
    }
  });

  it("writes files that ocf-sync's schemas accept, whole and item by item", () => {
    expectOcfSyncValidFiles(parsedFiles(files.map((f) => [f.path, f.content])));
  });

  it("gives the same bytes for the same objects", () => {
    const again = buildPackageFiles(mapRecords({ units: [baseUnit()], awards: [termsAward(), baseAward()] }), { generatedAt: GENERATED_AT });
    expect(again.files).toEqual(files);
  });

  it("writes only the manifest for an issuer without records", () => {
    const empty = buildPackageFiles(mapRecords({}, { asOf: "2025-06-30" }), { generatedAt: GENERATED_AT, comments: ["No grants."] });
    expect(empty.files.map((f) => f.path)).toEqual(["Manifest.ocf.json"]);
    expect(empty.manifest.comments?.at(-1)).toBe("No grants.");
    expect(empty.manifest.comments?.[0]).toMatch(/^Lineage: documents\. /);
    expect(empty.manifest.transactions_files).toEqual([]);
    expect(validateOcfFile(empty.manifest)).toEqual({ ok: true, value: empty.manifest });
  });

  it.each(["2025-06-30", "2025-06-30T12:00:00", "yesterday"])("rejects generatedAt %j (RFC 3339 with a zone is required)", (generatedAt) => {
    expect(() => buildPackageFiles(mapped, { generatedAt })).toThrow(OcfPackageError);
  });
});

describeConformance("the official OCF 1.2.0 schemas", () => {
  it("accept every file buildPackageFiles writes, whole and item by item, and an empty manifest", () => {
    expectOfficiallyValidFiles(parsedFiles(buildPackageFiles(mapped, { generatedAt: GENERATED_AT }).files.map((f) => [f.path, f.content])));
    const empty = buildPackageFiles(mapRecords({}, { asOf: "2025-06-30" }), { generatedAt: GENERATED_AT });
    expectOfficiallyValidFiles([{ name: "empty manifest", json: empty.manifest }]);
  });
});
