/**
 * A settlement sent twice (same certificate id, every field alike) was settled once: the mapping
 * releases and issues it once (`DUPLICATE_SETTLEMENT`), and reconcile's source side counts it once too,
 * so the package it came from reconciles with no difference and the source is not called inconsistent.
 * Two settlements that share a certificate id but differ are both counted, on both sides.
 */
import { describe, expect, it } from "vitest";
import { mapIssuer } from "../../../src/mapping/map-issuer.js";
import { buildPackageFiles } from "../../../src/ocf/package-files.js";
import { readOcfPackageFromFiles } from "../../../src/ocf/package-reader.js";
import { checkRecord } from "../../../src/reconcile/consistency.js";
import { packageObjects } from "../../../src/reconcile/package-objects.js";
import { reportAgrees } from "../../../src/reconcile/render.js";
import { reconcileSourceWithOcf } from "../../../src/reconcile/source-vs-ocf.js";
import type { RestrictedStockUnit, Settlement } from "../../../src/source/records.js";

const settlement: Settlement = {
  settlementDate: "2022-02-01",
  releaseQuantity: "200",
  netSettlementQuantity: "140",
  withholdingQuantity: "60",
  saleQuantity: "0",
  settlementPrice: { currency: "USD", amount: "12.50" },
  certificateId: "c4",
};

function unitWith(settlements: Settlement[], released: string, net: string): RestrictedStockUnit {
  return {
    id: "u1",
    issuerId: "i",
    stakeholderId: "h1",
    shareClassId: "cls",
    issueDate: "2021-01-15",
    quantity: "400",
    vestedQuantity: "400",
    releasedQuantity: released,
    netSettledQuantity: net,
    releasePricePerShare: { currency: "USD", amount: "10" },
    vestingEvents: [
      { id: "e1", vestDate: "2022-01-15", vested: true, performanceCondition: false, targetQuantity: "200", vestedQuantity: "200" },
      { id: "e2", vestDate: "2023-01-15", vested: true, performanceCondition: false, targetQuantity: "200", vestedQuantity: "200" },
    ],
    settlements,
  };
}

async function reconciled(unit: RestrictedStockUnit) {
  const mapped = mapIssuer({ issuerId: "i", awards: [], units: [unit] }, { asOf: "2025-06-30" });
  const loaded = await readOcfPackageFromFiles(buildPackageFiles(mapped, { generatedAt: "2025-06-30T00:00:00Z" }).files);
  return { mapped, report: reconcileSourceWithOcf({ issuerId: "i", awards: [], units: [unit] }, packageObjects(loaded)) };
}

describe("a settlement sent twice, in reconcile", () => {
  it("is counted once: the source is consistent and its package agrees, holders included", async () => {
    const unit = unitWith([settlement, { ...settlement }], "200", "140");
    expect(checkRecord("i", { kind: "restrictedStockUnit", record: unit })).toEqual([]);
    const { mapped, report } = await reconciled(unit);
    expect(mapped.warnings.map((w) => w.code)).toContain("DUPLICATE_SETTLEMENT");
    expect(report.differences).toEqual([]);
    expect(reportAgrees(report)).toBe(true);
  });

  it("counts two settlements that share a certificate id but differ, on both sides", async () => {
    const later = { ...settlement, settlementDate: "2023-02-01" };
    const unit = unitWith([settlement, later], "400", "280");
    expect(checkRecord("i", { kind: "restrictedStockUnit", record: unit })).toEqual([]);
    const { mapped, report } = await reconciled(unit);
    expect(mapped.warnings.map((w) => w.code)).toContain("SETTLEMENT_CERTIFICATE_REUSED");
    expect(reportAgrees(report)).toBe(true);
  });
});
