/**
 * Every sample issuer, exported as of the day its data describes, reads right to a reader that did not
 * write it (test/helpers/independent-reader.ts, written from reference/consumer-true-ocf.md): every
 * holder's shares and units, the sell-to-cover holder, the issuer's total and every grant's vested
 * figure agree with the source on every date that matters (each issue, vesting, settlement and
 * cancellation date, the day before each, and the as-of date). The committed golden packages are read
 * by the documents reading (reader 1), and the same records mapped with `lineage: "same-security"`
 * by the same-security reading (reader 2). OCF orders nothing within a day, so each package is read
 * under every order within a day the reader knows (the file's, by type as OCF-Tools sorts, reversed,
 * shuffled): the same figures, and no transaction acting on a security its day ended.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { GOLDEN_DIR, GOLDEN_GENERATED_AT, GOLDEN_OPTIONS, buildGoldenIssuers, type GoldenIssuer } from "../../samples/generate-golden.js";
import { mapIssuer } from "../../src/mapping/map-issuer.js";
import { buildPackageFiles } from "../../src/ocf/package-files.js";
import { disagreements, grantDates } from "../helpers/consumer-check.js";
import { DAY_ORDERS, dayOrderName, declaredReading, loadPackageFolder, packageFromTexts } from "../helpers/independent-reader.js";
import type { SourceRecords } from "../helpers/source-truth.js";

let issuers: GoldenIssuer[] = [];
beforeAll(async () => {
  issuers = await buildGoldenIssuers();
});

/** Every date on which a figure of the source can change, the day before each, and the as-of date. */
function datesOf(source: SourceRecords): string[] {
  const dates = new Set<string>([GOLDEN_OPTIONS.asOf as string]);
  for (const r of [...source.awards, ...source.units]) for (const date of grantDates(r)) dates.add(date);
  return [...dates].sort();
}

describe("sample packages read right to an independent reader", () => {
  it("the golden packages declare the documents reading, and reader 1 computes the source's figures from them in every order within a day", async () => {
    for (const issuer of issuers) {
      const pkg = await loadPackageFolder(path.join(GOLDEN_DIR, issuer.folder));
      if (issuer.awards.length + issuer.units.length > 0) expect(declaredReading(pkg), issuer.issuerId).toBe("documents");
      for (const order of DAY_ORDERS) expect(disagreements(issuer, pkg, "documents", datesOf(issuer), order), `${issuer.issuerId}, ${dayOrderName(order)} order`).toEqual([]);
    }
  });

  it("with lineage same-security, reader 2 computes the source's figures in every order within a day, and the manifest says so", async () => {
    for (const issuer of issuers) {
      const mapped = mapIssuer({ issuerId: issuer.issuerId, awards: issuer.awards, units: issuer.units }, { ...GOLDEN_OPTIONS, lineage: "same-security" });
      const pkg = await packageFromTexts(buildPackageFiles(mapped, { generatedAt: GOLDEN_GENERATED_AT }).files);
      expect(declaredReading(pkg), issuer.issuerId).toBe("same-security");
      for (const order of DAY_ORDERS) expect(disagreements(issuer, pkg, "same-security", datesOf(issuer), order), `${issuer.issuerId}, ${dayOrderName(order)} order`).toEqual([]);
    }
  });

  it("reader 1 finds what a same-security package leaves on no security, so the readings really differ", async () => {
    const issuer = issuers.find((i) => i.issuerId === "7") as GoldenIssuer;
    const mapped = mapIssuer({ issuerId: issuer.issuerId, awards: issuer.awards, units: issuer.units }, { ...GOLDEN_OPTIONS, lineage: "same-security" });
    const pkg = await packageFromTexts(buildPackageFiles(mapped, { generatedAt: GOLDEN_GENERATED_AT }).files);
    const found = disagreements(issuer, pkg, "documents", [GOLDEN_OPTIONS.asOf as string]);
    expect(found.some((d) => d.includes("rsa-2208-cancellation: leaves 19000 of rsa-2208 on no security"))).toBe(true);
    expect(found.some((d) => d.includes("stakeholder-5187 shares: source"))).toBe(true);
  });
});
