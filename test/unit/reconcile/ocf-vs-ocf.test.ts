/**
 * OCF against OCF: a package agrees with itself; another system's copy with other security ids is
 * matched by custom_id, or by stakeholder, date and quantity; missing, extra and changed securities
 * are reported field by field.
 */
import { describe, expect, it } from "vitest";
import { reconcileOcfWithOcf } from "../../../src/reconcile/ocf-vs-ocf.js";
import type { Difference } from "../../../src/reconcile/types.js";
import { samplePackage, txById, type TxJson } from "./helpers.js";

const brief = (d: Difference) => [d.code, d.securityId, d.field, d.expected, d.actual];

/** Renames a security everywhere it is named, as another system with its own ids would. */
function renameSecurity(txs: TxJson[], from: string, to: string): TxJson[] {
  return txs.map((t) => (t.security_id === from ? { ...t, security_id: to, id: `${String(t.id)}-other` } : t));
}

describe("reconcileOcfWithOcf", () => {
  it("finds no difference between a package and itself", async () => {
    const report = reconcileOcfWithOcf(await samplePackage("acme-robotics"), await samplePackage("acme-robotics"));
    expect(report.differences).toEqual([]);
    expect(report.mode).toBe("ocf-vs-ocf");
    expect(report.issuerId).toBe("issuer-acme-robotics");
  });

  it("matches a renamed security by custom_id, and by stakeholder, date and quantity without one", async () => {
    const other = await samplePackage("7", (txs) => {
      let out = renameSecurity(txs, "rsa-2210", "theirs-1");
      out = renameSecurity(out, "rsa-2207", "theirs-2");
      // No custom_id to match on: stakeholder, date and quantity remain.
      const issuance = txById(out, "rsa-2207-issuance-other");
      issuance.custom_id = "THEIRS-2";
      return out;
    });
    const report = reconcileOcfWithOcf(await samplePackage("7"), other);
    expect(report.differences.map(brief)).toEqual([["FIELD_MISMATCH", "rsa-2207", "custom_id", "RSA-1", "THEIRS-2"]]);
    expect(report.differences[0]?.message).toContain('matched by stakeholder, date and quantity with "theirs-2"');
  });

  it("reports a security missing from the other package, and one only the other has", async () => {
    const other = await samplePackage("7", (txs) => {
      const kept = txs.filter((t) => t.security_id !== "rsa-2210");
      const extra = { ...txById(txs, "rsa-2210-issuance"), id: "x-issuance", security_id: "x", custom_id: "X-1", stakeholder_id: "stakeholder-someone", quantity: "16000" };
      return [...kept, extra];
    });
    const report = reconcileOcfWithOcf(await samplePackage("7"), other);
    expect(report.differences.map(brief)).toEqual([
      ["MISSING_IN_OTHER", "rsa-2210", "security", "rsa-2210", null],
      ["EXTRA_IN_OTHER", "x", "security", null, "x"],
      ["TOTAL_MISMATCH", undefined, "stakeholder_id stakeholder-5233 issued", "16000", "0"],
      ["TOTAL_MISMATCH", undefined, "stakeholder_id stakeholder-5233 outstanding", "16000", "0"],
      ["TOTAL_MISMATCH", undefined, "stakeholder_id stakeholder-someone issued", "0", "16000"],
      ["TOTAL_MISMATCH", undefined, "stakeholder_id stakeholder-someone outstanding", "0", "16000"],
    ]);
  });

  it("reports a duplicated release, a moved vesting event and a changed price field by field", async () => {
    const other = await samplePackage("7", (txs) => {
      txById(txs, "rsa-2209-vesting-event-40301").date = "2024-11-13";
      (txById(txs, "rsa-2208-issuance").share_price as Record<string, string>).amount = "0.2500000001";
      return [...txs, { ...txById(txs, "rsu-8801-release-1"), id: "dup" }];
    });
    const report = reconcileOcfWithOcf(await samplePackage("7"), other);
    expect(report.differences.map(brief)).toEqual([
      ["FIELD_MISMATCH", "rsu-8801", "released", "3000", "4000"],
      ["FIELD_MISMATCH", "rsa-2208", "share_price", "0.25 USD", "0.2500000001 USD"],
      ["VESTING_DATES", "rsa-2209", "vesting", "2024-11-12 10000", "2024-11-13 10000"],
      ["TOTAL_MISMATCH", undefined, "stock_class_id stock-class-Common outstanding", "1562530", "1561530"],
      ["TOTAL_MISMATCH", undefined, "stock_plan_id stock-plan-2019 Equity Incentive Plan outstanding", "1558400", "1557400"],
      ["TOTAL_MISMATCH", undefined, "stakeholder_id stakeholder-5187 outstanding", "21880", "20880"],
    ]);
  });

  it("reads both packages the same way, and reports what the reading cannot accept in either", async () => {
    const ours = await samplePackage("7");
    const withoutBalance = await samplePackage("7", (txs) => txs.filter((t) => t.security_id !== "rsa-2208-balance"));
    const report = reconcileOcfWithOcf(ours, withoutBalance);
    expect(report.reading).toEqual({ reading: "documents", from: "declared" });
    expect(report.differences.map(brief)).toContainEqual(["OCF_LINEAGE", undefined, "lineage", null, 'rsa-2208-cancellation: its balance_security_id "rsa-2208-balance" is no issuance of the package']);
    expect(report.differences.map(brief)).toContainEqual(["FIELD_MISMATCH", "rsa-2208", "outstanding", "19000", "0"]);
    const holder = report.holders.find((h) => h.stakeholderId === "stakeholder-5187");
    expect(holder).toMatchObject({ expected: { shares: "20880" }, actual: { shares: "1880" } });
  });

  it("reads each package as it declares: one cap table in the two conventions agrees", async () => {
    const ours = await samplePackage("7");
    // The same-security form of rsa-2208's partial cancellation: the remainder stays on the grant.
    const sameSecurity = await samplePackage("7", (txs) =>
      txs.filter((t) => t.security_id !== "rsa-2208-balance").map((t) => (t.id === "rsa-2208-cancellation" ? { ...t, balance_security_id: undefined } : t)),
    );
    const theirs = { ...sameSecurity, manifestComments: ["Lineage: same-security"] };
    const report = reconcileOcfWithOcf(ours, theirs);
    expect(report.reading).toEqual({ reading: "documents", from: "declared" });
    expect(report.otherReading).toEqual({ reading: "same-security", from: "declared" });
    expect(report.differences).toEqual([]);
    expect(report.holders.find((h) => h.stakeholderId === "stakeholder-5187")).toMatchObject({ expected: { shares: "20880" }, actual: { shares: "20880" } });
    // --reader still reads both one way, and then the other package's remainder is on no security.
    const forced = reconcileOcfWithOcf(ours, theirs, { reader: "documents" });
    expect(forced.otherReading).toBeUndefined();
    expect(forced.differences.map(brief)).toContainEqual(["FIELD_MISMATCH", "rsa-2208", "outstanding", "19000", "0"]);
  });
});
