/**
 * A cancellation that leaves shares or units outstanding: which tranches it ended, and what stays
 * vested, must read right to a reader that did not write the mapping (test/helpers/independent-reader.ts).
 * The expected figures are worked out by hand from each record: the source's `vestedQuantity` and its
 * events, never from the mapping.
 */
import { describe, expect, it } from "vitest";
import type { Lineage } from "../../../src/mapping/types.js";
import { buildPackageFiles } from "../../../src/ocf/package-files.js";
import { readOcfPackageFromFiles } from "../../../src/ocf/package-reader.js";
import { validateOcfPackage } from "../../../src/ocf/validate-package.js";
import { packageObjects } from "../../../src/reconcile/package-objects.js";
import { reconcileSourceWithOcf } from "../../../src/reconcile/source-vs-ocf.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../../../src/source/records.js";
import { packageFromTexts, readPackage, type Reading } from "../../helpers/independent-reader.js";
import { baseAward, forfeitingUnit, mapRecords, mappingErrorOf, timeEvent, txById } from "./fixtures.js";

/** An award of 10,000 shares in four tranches, the first two vested; not terminated. */
function award(change: Partial<RestrictedStockAward>): RestrictedStockAward {
  const { terminationDate: _t, ...base } = baseAward();
  return {
    ...base,
    quantity: "10000",
    vestedQuantity: "4000",
    vestingEvents: [
      timeEvent("e1", "2020-01-01", "2000", true),
      timeEvent("e2", "2021-01-01", "2000", true),
      timeEvent("e3", "2023-01-01", "3000", false),
      timeEvent("e4", "2024-01-01", "3000", false),
    ],
    issueDate: "2019-06-01",
    vestingStartDate: "2019-01-01",
    stakeholderAcceptanceDate: "2019-06-02",
    canceledDate: "2022-07-01",
    returnedToPoolQuantity: "0",
    returnedToTreasuryQuantity: "0",
    ...change,
  };
}

const unit = forfeitingUnit;

/** The grant's vested figure and its holder's shares and units, as the independent reader computes them. */
async function read(records: { awards?: RestrictedStockAward[]; units?: RestrictedStockUnit[] }, lineage: Lineage, dates: string[]) {
  const mapped = mapRecords(records, { lineage, settlementStockClassName: "Common" });
  const files = buildPackageFiles(mapped, { generatedAt: "2025-06-30T00:00:00Z" }).files;
  // Valid OCF as ocf-sync's validate reads it (schemas, references, each security's chain and vesting).
  expect(validateOcfPackage(await readOcfPackageFromFiles(files, { label: "partial" })).problems).toEqual([]);
  const pkg = await packageFromTexts(files);
  const root = records.awards?.[0] === undefined ? `rsu-${records.units?.[0]?.id}` : `rsa-${records.awards[0].id}`;
  const reading: Reading = lineage;
  const figures = dates.map((date) => {
    const reader = readPackage(pkg, reading, date);
    const holder = reader.holdings.get("stakeholder-6113");
    return { date, vested: reader.grantVested(root, date).toString(), shares: holder?.shares.toString() ?? "0", units: holder?.units.toString() ?? "0", problems: reader.problems };
  });
  return { mapped, figures };
}

const LINEAGES: Lineage[] = ["documents", "same-security"];

describe("a partial cancellation", () => {
  it.each(LINEAGES)("that takes every tranche not vested, with no terminationDate, ends those tranches (%s)", async (lineage) => {
    // 6,000 cancelled on 2022-07-01: e3 and e4, the 6,000 not vested. 4,000 remain, all vested, for good.
    const { mapped, figures } = await read({ awards: [award({ canceledQuantity: "6000" })] }, lineage, ["2022-06-30", "2022-07-01", "2023-06-01", "2030-01-01"]);
    expect(figures).toEqual([
      { date: "2022-06-30", vested: "4000", shares: "10000", units: "0", problems: [] },
      { date: "2022-07-01", vested: "4000", shares: "4000", units: "0", problems: [] },
      { date: "2023-06-01", vested: "4000", shares: "4000", units: "0", problems: [] },
      { date: "2030-01-01", vested: "4000", shares: "4000", units: "0", problems: [] },
    ]);
    expect(mapped.warnings.filter((w) => w.code === "BALANCE_VESTING_MISMATCH")).toEqual([]);
    const issuance = txById(mapped, "rsa-1191-issuance");
    expect(issuance.comments?.join(" ")).toContain('Not vested when 6000 shares were cancelled on 2022-07-01, which leaves only what had vested, so never earned and left out of the vesting: "e3" 2023-01-01 3000, "e4" 2024-01-01 3000.');
  });

  it.each(LINEAGES)("of units forfeited with no terminationDate (chain c): the units left are vested and settle later (%s)", async (lineage) => {
    const settled = unit({
      releasedQuantity: "5000",
      netSettledQuantity: "4000",
      settlements: [{ settlementDate: "2022-09-01", releaseQuantity: "5000", saleQuantity: "0", withholdingQuantity: "1000", netSettlementQuantity: "4000", settlementPrice: { currency: "USD", amount: "2" } }],
    });
    const { figures } = await read({ units: [settled] }, lineage, ["2022-06-01", "2022-08-01", "2023-06-01", "2030-01-01"]);
    expect(figures).toEqual([
      { date: "2022-06-01", vested: "5000", shares: "0", units: "5000", problems: [] },
      { date: "2022-08-01", vested: "5000", shares: "0", units: "5000", problems: [] },
      { date: "2023-06-01", vested: "5000", shares: "4000", units: "0", problems: [] },
      { date: "2030-01-01", vested: "5000", shares: "4000", units: "0", problems: [] },
    ]);
  });

  it.each(LINEAGES)("that leaves shares neither vested nor to vest writes them as not vested, with a warning (%s)", async (lineage) => {
    // Terminated on 2022-06-15: e3 and e4 are never earned, yet only 3,000 of their 6,000 are cancelled.
    const { mapped, figures } = await read({ awards: [award({ terminationDate: "2022-06-15", canceledQuantity: "3000" })] }, lineage, ["2022-07-01", "2030-01-01"]);
    expect(figures).toEqual([
      { date: "2022-07-01", vested: "4000", shares: "7000", units: "0", problems: [] },
      { date: "2030-01-01", vested: "4000", shares: "7000", units: "0", problems: [] },
    ]);
    if (lineage === "documents") {
      expect(mapped.warnings.filter((w) => w.code === "BALANCE_VESTING_MISMATCH").map((w) => w.message)).toEqual([
        'restrictedStockAward "1191" of issuer "7", vestingEvents: after the cancellation of 3000 on 2022-07-01, 7000 remain, but the events vested by then less the units released make 4000 and 0 are still to vest: the other 3000 never vest, and are written as not vested',
      ]);
      expect(txById(mapped, "rsa-1191-balance-issuance").comments).toContain("4000 carried over as vested on 2022-07-01. The other 3000 shares neither vested nor are to vest, as the source says.");
    }
  });

  it("that leaves only shares that never vest gives the balance a vesting of nothing, not full vesting", async () => {
    // Terminated on 2019-12-01, before any tranche: all four are never earned, yet 3,000 of 10,000 are cancelled.
    const { mapped, figures } = await read({ awards: [award({ terminationDate: "2019-12-01", canceledDate: "2019-12-15", vestedQuantity: "0", vestingEvents: award({}).vestingEvents.map(({ vestedQuantity: _v, ...e }) => ({ ...e, vested: false })), canceledQuantity: "3000" })] }, "documents", ["2019-12-15", "2030-01-01"]);
    expect(figures).toEqual([
      { date: "2019-12-15", vested: "0", shares: "7000", units: "0", problems: [] },
      { date: "2030-01-01", vested: "0", shares: "7000", units: "0", problems: [] },
    ]);
    expect(txById(mapped, "rsa-1191-balance-issuance").comments).toContain("0 carried over as vested on 2019-12-15. The other 7000 shares neither vested nor are to vest, as the source says.");
  });

  it("that takes vested shares leaves the rest vested, with a warning", async () => {
    const allVested = award({
      vestedQuantity: "10000",
      vestingEvents: [timeEvent("e1", "2020-01-01", "5000", true), timeEvent("e2", "2021-01-01", "5000", true)],
      canceledQuantity: "3000",
    });
    const { mapped, figures } = await read({ awards: [allVested] }, "documents", ["2022-07-01"]);
    // The grant vested all its 10,000 (the source's vestedQuantity); 7,000 of them are still held.
    expect(figures).toEqual([{ date: "2022-07-01", vested: "10000", shares: "7000", units: "0", problems: [] }]);
    expect(txById(mapped, "rsa-1191-balance-issuance")).not.toHaveProperty("vestings");
    expect(mapped.warnings.filter((w) => w.code === "BALANCE_VESTING_MISMATCH").map((w) => w.path)).toEqual(["canceledQuantity"]);
  });

  it.each(LINEAGES)("that takes some of the tranches to come, or vested shares while tranches are to come, cannot be told apart: a MappingError (%s)", (lineage) => {
    // 8,000 vested by the cancellation, 2,000 to come; 5,000 cancelled: 2,000 to come and 3,000 vested, or 5,000 vested?
    const mixed = award({
      vestedQuantity: "8000",
      vestingEvents: [timeEvent("e1", "2020-01-01", "4000", true), timeEvent("e2", "2021-01-01", "4000", true), timeEvent("e3", "2023-01-01", "2000", false)],
      canceledQuantity: "5000",
    });
    const error = mappingErrorOf(() => mapRecords({ awards: [mixed] }, { lineage }));
    expect(error.code).toBe("MAPPING_CONFLICT");
    expect(error.path).toBe("canceledQuantity");
    expect(error.message).toContain("after the cancellation of 5000 on 2022-07-01, 5000 remain and 2000 of them are still to vest, but the events vested by then less the units released make 8000: which tranches the cancellation took cannot be told");
    // Half of the tranches to come cancelled: which half is not said either.
    const half = mappingErrorOf(() => mapRecords({ awards: [award({ canceledQuantity: "3000" })] }, { lineage }));
    expect(half.message).toContain("which tranches the cancellation took cannot be told");
  });

  it("after more was released than vested, carries over what is not still to vest, with a warning", () => {
    // 5,500 released by the cancellation though only 5,000 vested (the source's own contradiction), of
    // 12,000 whose events cover 10,000.
    const overReleased = unit({
      quantity: "12000",
      releasedQuantity: "5500",
      netSettledQuantity: "5500",
      settlements: [{ settlementDate: "2022-03-01", releaseQuantity: "5500", saleQuantity: "0", withholdingQuantity: "0", netSettlementQuantity: "5500", settlementPrice: { currency: "USD", amount: "2" } }],
      canceledQuantity: "1000",
      forfeitedQuantity: "1000",
    });
    const mapped = mapRecords({ units: [overReleased] }, { settlementStockClassName: "Common" });
    expect(mapped.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(["RELEASED_EXCEEDS_VESTED", "BALANCE_VESTING_MISMATCH"]));
    expect(mapped.warnings.find((w) => w.code === "BALANCE_VESTING_MISMATCH")?.message).toContain(
      "the events vested by then less the units released make -500: more was released than vested, so the 500 of the 5500 remaining that are not still to vest are carried over as vested",
    );
    expect(txById(mapped, "rsu-8550-balance-issuance").comments).toContain("500 carried over as vested on 2022-06-01; the tranches of the grant still to vest follow.");
  });

  it.each(LINEAGES)("forfeited with no terminationDate reconciles with its source at any date: the forfeited tranches vest on neither side (%s)", async (lineage) => {
    const records = { awards: [award({ canceledQuantity: "6000", returnedToPoolQuantity: "6000" })], units: [unit({ returnedToPoolQuantity: "5000" })] };
    const mapped = mapRecords(records, { lineage, settlementStockClassName: "Common" });
    const files = buildPackageFiles(mapped, { generatedAt: "2025-06-30T00:00:00Z" }).files;
    const pkg = packageObjects(await readOcfPackageFromFiles(files, { label: "partial" }));
    const source = { issuerId: "7", ...records };
    for (const asOf of ["2022-12-31", "2023-06-01", "2030-01-01"]) {
      const report = reconcileSourceWithOcf(source, pkg, { asOf });
      expect(report.differences, asOf).toEqual([]);
      expect(report.grants.map((g) => [g.key, g.expected.vested]), asOf).toEqual([["1191", "4000"], ["8550", "5000"]]);
    }
  });
});
