/**
 * Over generated issuers with consistent stories (partial and full cancellations, releases before, on
 * and after their day, acceptances after them, terminations mid-vesting, sell-to-cover, two share
 * classes, fractions of up to 6 places, absent optional fields: test/helpers/issuer-story.ts),
 * exported with the default mapping options (and the story's as-of date), nothing quarantined,
 * a reader that did not write the package (test/helpers/independent-reader.ts) computes what the
 * source says: every holder's shares and units, the sell-to-cover holder, the issuer's total, and every
 * grant's vested figure, on random dates and on every date a figure changes. The documents reading for
 * the default lineage, the same-security reading for `lineage: "same-security"`. OCF orders nothing
 * within a day, so the reader takes each day's transactions in every order it knows (the file's, by
 * type as OCF-Tools does, reversed, shuffled): the figures must be the source's under each, and no
 * transaction may act on a security another of its day ended (consumer-true-ocf.md, "Order within a day").
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mapIssuer } from "../../src/mapping/map-issuer.js";
import type { Lineage } from "../../src/mapping/types.js";
import { buildPackageFiles } from "../../src/ocf/package-files.js";
import { readOcfPackageFromFiles } from "../../src/ocf/package-reader.js";
import { validateOcfPackage } from "../../src/ocf/validate-package.js";
import { packageObjects } from "../../src/reconcile/package-objects.js";
import { reportAgrees } from "../../src/reconcile/render.js";
import { reconcileSourceWithOcf } from "../../src/reconcile/source-vs-ocf.js";
import { describeConformance } from "../helpers/conformance.js";
import { disagreements } from "../helpers/consumer-check.js";
import { expectOfficiallyValidFiles } from "../helpers/official-ocf.js";
import { parsedFiles } from "../helpers/ocf-verdicts.js";
import { DAY_ORDERS, packageFromTexts, type Reading } from "../helpers/independent-reader.js";
import { STORY_AS_OF, STORY_ISSUER, addDays, storyIssuer, type StoryIssuer } from "../helpers/issuer-story.js";

const checkDate = fc.integer({ min: 0, max: 365 * 12 }).map((n) => addDays("2017-06-01", n));

/** A generated issuer's package files, mapped with the default options (and the story's day) in `lineage`. */
function exported(issuer: StoryIssuer, lineage: Lineage): { path: string; content: string }[] {
  // The default options (documents lineage, a record that cannot be mapped fails the issuer), and the story's day.
  const mapped = mapIssuer({ issuerId: STORY_ISSUER, ...issuer }, { asOf: STORY_AS_OF, ...(lineage === "documents" ? {} : { lineage }) });
  expect(mapped.quarantined).toEqual([]);
  return buildPackageFiles(mapped, { generatedAt: `${STORY_AS_OF}T00:00:00Z` }).files;
}

async function check(lineage: Lineage, reading: Reading): Promise<void> {
  await fc.assert(
    fc.asyncProperty(storyIssuer, fc.array(checkDate, { minLength: 3, maxLength: 12 }), async (issuer, dates) => {
      const pkg = await packageFromTexts(exported(issuer, lineage));
      const checked = [...new Set([...dates, STORY_AS_OF])].sort();
      for (const order of DAY_ORDERS) expect(disagreements(issuer, pkg, reading, checked, order)).toEqual([]);
    }),
    { numRuns: 80 },
  );
}

describe("generated issuers read right to an independent reader", () => {
  it("documents lineage: reader 1 computes the source's holdings, totals and vested figures", async () => {
    await check("documents", "documents");
  });

  it("same-security lineage: reader 2 computes the same figures", async () => {
    await check("same-security", "same-security");
  });
});

describe("generated issuers pass ocf-sync's own checks", () => {
  it.each(["documents", "same-security"] as const)("%s lineage: validate finds no problem and reconcile agrees with the source", async (lineage) => {
    await fc.assert(
      fc.asyncProperty(storyIssuer, async (issuer) => {
        const loaded = await readOcfPackageFromFiles(exported(issuer, lineage));
        expect(validateOcfPackage(loaded).problems).toEqual([]);
        const report = reconcileSourceWithOcf({ issuerId: STORY_ISSUER, ...issuer }, packageObjects(loaded));
        expect(report.differences).toEqual([]);
        expect(reportAgrees(report)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describeConformance("generated issuers and the official OCF 1.2.0 schemas", () => {
  it("every file of every generated package, and each of its items, passes the official schemas", () => {
    fc.assert(
      fc.property(storyIssuer, (issuer) => {
        for (const lineage of ["documents", "same-security"] as const) {
          expectOfficiallyValidFiles(parsedFiles(exported(issuer, lineage).map((f) => [f.path, f.content] as const)));
        }
      }),
      { numRuns: 40 },
    );
  });
});
