/**
 * A grant paid above its target (a performance event's `vestedQuantity` above its `targetQuantity`),
 * end to end: records → `mapIssuer` → package files on disk → `reconcile`. The payout above target is a
 * security of its own (`<security>-payout-<event key>`, mappings/README.md): reconcile counts it in its
 * grant's figures on the OCF side, and the source states it (quantity + what the events paid above
 * target), so a correct package agrees with 0 differences, and one without the payout, or with a wrong
 * one, does not.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { mapIssuer } from "../../../src/mapping/map-issuer.js";
import type { MappedIssuer } from "../../../src/mapping/types.js";
import { buildPackageFiles } from "../../../src/ocf/package-files.js";
import type { OcfTransaction } from "../../../src/ocf/schemas.js";
import { loadPackageObjects } from "../../../src/reconcile/load.js";
import { reconcileOcfWithOcf } from "../../../src/reconcile/ocf-vs-ocf.js";
import type { PackageObjects } from "../../../src/reconcile/package-objects.js";
import { reportAgrees } from "../../../src/reconcile/render.js";
import { reconcileSourceWithOcf } from "../../../src/reconcile/source-vs-ocf.js";
import type { Difference, ReconcileOptions, ReconciliationReport, SourceIssuer } from "../../../src/reconcile/types.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../../../src/source/records.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { ISSUER_ID, performanceAward, performanceEvents, performanceUnit } from "../../unit/mapping/fixtures.js";

const folder = temporaryFolder("ocf-sync-payout-reconcile-");
const brief = (d: Difference) => [d.code, d.recordId ?? d.securityId, d.field, d.expected, d.actual];

/**
 * An award (250 above target, 250 still to vest after the package's date), an award whose every event
 * vested (vested 1250 of a quantity of 1000), a unit settled from its payout and its grant, and one
 * cancelled in part after it.
 */
function records(): SourceIssuer {
  const later = <T extends RestrictedStockAward | RestrictedStockUnit>(record: T): T => ({
    ...record,
    vestingEvents: record.vestingEvents.map((e) => (e.id === "t2" ? { ...e, vestDate: "2023-06-01" } : e)),
  });
  const allVested: RestrictedStockAward = {
    ...performanceAward(),
    id: "2301",
    securityLabel: "RSA-2301",
    vestedQuantity: "1250",
    vestingEvents: performanceEvents().map((e) => (e.id === "t2" ? { ...e, vested: true, vestedQuantity: "250" } : e)),
  };
  const cancelled: RestrictedStockUnit = {
    ...performanceUnit(),
    id: "9101",
    securityLabel: "ES-9101",
    terminationDate: "2021-12-15",
    canceledDate: "2022-01-05",
    canceledQuantity: "250",
    forfeitedQuantity: "250",
    returnedToTreasuryQuantity: "250",
  };
  return { issuerId: ISSUER_ID, awards: [later(performanceAward()), allVested], units: [later(performanceUnit()), later(cancelled)] };
}

/** The package of `mapped`, its transactions passed through `doctor`, written to a folder and read back as `reconcile` reads it. */
async function packageOf(mapped: MappedIssuer, name: string, doctor: (txs: OcfTransaction[]) => OcfTransaction[] = (t) => t): Promise<PackageObjects> {
  const { files } = buildPackageFiles({ ...mapped, transactions: doctor(mapped.transactions) }, { generatedAt: "2023-01-01T00:00:00Z" });
  const dir = join(folder(), name);
  for (const file of files) {
    await mkdir(dirname(join(dir, file.path)), { recursive: true });
    await writeFile(join(dir, file.path), file.content, "utf8");
  }
  return loadPackageObjects(dir);
}

const mapped = (lineage: "documents" | "same-security") => mapIssuer(records(), { asOf: "2023-01-01", lineage, settlementStockClassName: "Common" });
const withoutSecurity = (security: string) => (txs: OcfTransaction[]) => txs.filter((t) => t.security_id !== security);

function expectAgreement(report: ReconciliationReport): void {
  expect(report.differences).toEqual([]);
  const { forfeited: _f, expired: _e, ...comparable } = report.totals.expected;
  expect(comparable).toEqual(report.totals.actual);
  expect(report.holders.filter((h) => h.expected.shares !== h.actual.shares || h.expected.units !== h.actual.units)).toEqual([]);
  // What the exit status is: no difference, and no holder whose shares or units differ.
  expect(reportAgrees(report)).toBe(true);
}

describe("reconcile, source against OCF, of grants paid above target", () => {
  const options: readonly ReconcileOptions[] = [{}, { asOf: "2021-05-31" }, { asOf: "2021-06-01" }, { asOf: "2021-07-01" }, { asOf: "2030-01-01" }, { reader: "same-security" }, { reader: "documents" }];
  it.each(["documents", "same-security"] as const)("a package mapped with the %s lineage agrees with its records: 0 differences, at every date and reading", async (lineage) => {
    const pkg = await packageOf(mapped(lineage), `agrees-${lineage}`);
    const source = records();
    for (const option of options) expectAgreement(reconcileSourceWithOcf(source, pkg, option));
    const report = reconcileSourceWithOcf(source, pkg);
    // The payout is part of its grant, not a grant of its own.
    expect(report.grants.map((g) => g.securityId)).toEqual(["rsa-2300", "rsa-2301", "rsu-9100", "rsu-9101"]);
    expect(report.grants.find((g) => g.key === "2300")).toMatchObject({ expected: { issued: "1250", vested: "1000", outstanding: "1250" }, actual: { issued: "1250", vested: "1000", outstanding: "1250" } });
    expect(report.grants.find((g) => g.key === "9100")).toMatchObject({ expected: { issued: "1250", released: "1000", netSettled: "800", outstanding: "250" }, actual: { issued: "1250", released: "1000", netSettled: "800", outstanding: "250" } });
    // The holder holds the payouts from their vest date on, on both sides (expectAgreement): the
    // awards' 2 × 1000 and 2 × 200 shares delivered, the units' 2 × 750 left, then 4 × 250 more.
    const holder = (asOf: string) => reconcileSourceWithOcf(source, pkg, { asOf }).holders.find((h) => h.stakeholderId === "stakeholder-6113")?.actual;
    expect(holder("2021-05-31")).toEqual({ shares: "2400", units: "1500" });
    expect(holder("2021-06-01")).toEqual({ shares: "2900", units: "2000" });
  });

  it("a package without a payout's issuance: the grant's issued, vested and outstanding figures differ", async () => {
    const pkg = await packageOf(mapped("documents"), "no-award-payout", withoutSecurity("rsa-2300-payout-p1"));
    expect(reconcileSourceWithOcf(records(), pkg, { asOf: "2022-06-30" }).differences.map(brief)).toEqual([
      ["FIGURE_MISMATCH", "2300", "issued", "1250", "1000"],
      ["FIGURE_MISMATCH", "2300", "vested", "1000", "750"],
      ["VESTING_DATES", "2300", "vesting", "2021-06-01 750", "2021-06-01 500"],
    ]);
  });

  it("a unit's payout removed with its issuance and releases: the grant's figures differ", async () => {
    const pkg = await packageOf(mapped("documents"), "no-unit-payout", withoutSecurity("rsu-9100-payout-p1"));
    expect(reconcileSourceWithOcf(records(), pkg).differences.map(brief)).toEqual([
      ["FIGURE_MISMATCH", "9100", "issued", "1250", "1000"],
      ["FIGURE_MISMATCH", "9100", "vested", "1000", "750"],
      ["FIGURE_MISMATCH", "9100", "released", "1000", "750"],
      ["FIGURE_MISMATCH", "9100", "netSettled", "800", "200"],
      ["VESTING_DATES", "9100", "vesting", "2021-06-01 750", "2021-06-01 500"],
      ["EXTRA_IN_OCF", "rsu-9100-settlement-2", "security", null, "rsu-9100-settlement-2"],
    ]);
  });

  it("a wrong payout (another quantity, or another holder) differs", async () => {
    const quantity = await packageOf(mapped("documents"), "wrong-quantity", (txs) => txs.map((t) => (t.id === "rsa-2300-payout-p1-issuance" ? { ...t, quantity: "200" } : t)));
    expect(reconcileSourceWithOcf(records(), quantity).differences.map(brief)).toEqual([
      ["FIGURE_MISMATCH", "2300", "issued", "1250", "1200"],
      ["FIGURE_MISMATCH", "2300", "vested", "1000", "950"],
      ["VESTING_DATES", "2300", "vesting", "2021-06-01 750", "2021-06-01 700"],
    ]);
    // Issued to someone else, it is no payout of the grant: a security no record accounts for.
    const holder = await packageOf(mapped("documents"), "wrong-holder", (txs) => txs.map((t) => (t.id === "rsa-2300-payout-p1-issuance" ? { ...t, stakeholder_id: "stakeholder-other" } : t)));
    expect(reconcileSourceWithOcf(records(), holder).differences.map(brief)).toEqual([
      ["FIGURE_MISMATCH", "2300", "issued", "1250", "1000"],
      ["FIGURE_MISMATCH", "2300", "vested", "1000", "750"],
      ["VESTING_DATES", "2300", "vesting", "2021-06-01 750", "2021-06-01 500"],
      ["EXTRA_IN_OCF", "rsa-2300-payout-p1", "security", null, "rsa-2300-payout-p1"],
    ]);
  });
});

describe("reconcile, OCF against OCF, of grants paid above target", () => {
  it("a documents package and a same-security one of the same records agree", async () => {
    const report = reconcileOcfWithOcf(await packageOf(mapped("documents"), "ours-documents"), await packageOf(mapped("same-security"), "ours-same-security"));
    expect(report.differences).toEqual([]);
    expect(report.grants.filter((g) => g.securityId?.includes("-payout-"))).toEqual([]);
  });

  it("agrees with a package that holds the payout on the grant's own security (its quantity and vesting raised)", async () => {
    const ours = mapped("documents");
    const theirs = await packageOf(ours, "theirs", (txs) =>
      withoutSecurity("rsa-2300-payout-p1")(txs).map((t) => {
        if (t.id !== "rsa-2300-issuance" || t.object_type !== "TX_STOCK_ISSUANCE") return t;
        const { vesting_terms_id: _terms, ...issuance } = t;
        return { ...issuance, quantity: "1250", vestings: [{ date: "2021-01-01", amount: "250" }, { date: "2021-06-01", amount: "750" }, { date: "2023-06-01", amount: "250" }] };
      }),
    );
    const report = reconcileOcfWithOcf(await packageOf(ours, "ours"), theirs);
    expect(report.differences).toEqual([]);
    expect(report.grants.find((g) => g.key === "rsa-2300")).toMatchObject({ expected: { issued: "1250", outstanding: "1250" }, actual: { issued: "1250", outstanding: "1250" } });
  });

  it("a package without a payout differs on the grant, not as a security of its own", async () => {
    const ours = mapped("documents");
    const report = reconcileOcfWithOcf(await packageOf(ours, "ours-2"), await packageOf(ours, "without", withoutSecurity("rsa-2300-payout-p1")), { asOf: "2022-06-30" });
    expect(report.differences.map(brief)).toEqual([
      ["FIELD_MISMATCH", "rsa-2300", "quantity", "1250", "1000"],
      ["FIELD_MISMATCH", "rsa-2300", "vested as of 2022-06-30", "1000", "750"],
      ["VESTING_DATES", "rsa-2300", "vesting", "2021-06-01 750", "2021-06-01 500"],
      // Totals per class, plan and holder: issued and outstanding.
      ["TOTAL_MISMATCH", undefined, "stock_class_id stock-class-Common issued", "6600", "6350"],
      ["TOTAL_MISMATCH", undefined, "stock_class_id stock-class-Common outstanding", "4350", "4100"],
      ["TOTAL_MISMATCH", undefined, "stock_plan_id stock-plan-2016 Equity Incentive Plan issued", "2500", "2250"],
      ["TOTAL_MISMATCH", undefined, "stock_plan_id stock-plan-2016 Equity Incentive Plan outstanding", "2500", "2250"],
      ["TOTAL_MISMATCH", undefined, "stakeholder_id stakeholder-6113 issued", "6600", "6350"],
      ["TOTAL_MISMATCH", undefined, "stakeholder_id stakeholder-6113 outstanding", "4350", "4100"],
    ]);
  });
});
