/**
 * Source against OCF on the sample data: the golden packages agree with their source except for the
 * one deliberately inconsistent record, and each doctored package (one quantity changed, one
 * security removed, one release duplicated, one vesting event moved by a day) is reported exactly,
 * with nothing else.
 */
import { describe, expect, it } from "vitest";
import { ReconcileInputError } from "../../../src/reconcile/package-objects.js";
import { reconcileSourceWithOcf } from "../../../src/reconcile/source-vs-ocf.js";
import type { Difference } from "../../../src/reconcile/types.js";
import { SAMPLE_PACKAGES, samplePackage, sampleSource, txById, type TxJson } from "./helpers.js";

/** The fields of a difference a test pins (the message is checked separately where it matters). */
const essentials = (d: Difference) => ({ section: d.section, code: d.code, recordId: d.recordId, securityId: d.securityId, field: d.field, expected: d.expected, actual: d.actual });

describe("reconcileSourceWithOcf on the sample data", () => {
  it.each(Object.keys(SAMPLE_PACKAGES).filter((id) => id !== "acme-robotics"))("finds no difference for issuer %j", async (issuerId) => {
    const report = reconcileSourceWithOcf(await sampleSource(issuerId), await samplePackage(issuerId));
    expect(report.differences).toEqual([]);
    // A package cannot state forfeited and expired apart (OCF has no transaction for either): the source's only.
    const { forfeited: _f, expired: _e, ...comparable } = report.totals.expected;
    expect(comparable).toEqual(report.totals.actual);
    expect(report.asOf).toBe("2025-06-30");
    expect(report.reading).toEqual({ reading: "documents", from: "declared" });
    expect(report.holders.length > 0).toBe(issuerId !== "zeta%labs");
    expect(report.holders.every((h) => h.expected.shares === h.actual.shares && h.expected.units === h.actual.units)).toBe(true);
  });

  it("reports the deliberately inconsistent acme-robotics RSA-0003 and nothing else", async () => {
    const report = reconcileSourceWithOcf(await sampleSource("acme-robotics"), await samplePackage("acme-robotics"));
    expect(report.differences.map(essentials)).toEqual([
      { section: "source-vs-ocf", code: "FIGURE_MISMATCH", recordId: "RSA-0003", securityId: "rsa-RSA-0003", field: "vested", expected: "47500", actual: "45000" },
      { section: "source", code: "SOURCE_INCONSISTENT", recordId: "RSA-0003", securityId: undefined, field: "vestedQuantity", expected: "47500", actual: "45000" },
    ]);
    expect(report.differences[0]?.message).toContain("difference -2500");
    expect(report.totals.expected.vested).toBe("330084.5");
    expect(report.totals.actual.vested).toBe("327584.5");
  });

  it("with --as-of replays the source's vested events: RSA-0003 then differs only in its own consistency", async () => {
    const report = reconcileSourceWithOcf(await sampleSource("acme-robotics"), await samplePackage("acme-robotics"), { asOf: "2025-06-30" });
    expect(report.differences.map((d) => [d.section, d.recordId, d.field])).toEqual([["source", "RSA-0003", "vestedQuantity"]]);
  });

  it("takes vested figures at an earlier date on both sides", async () => {
    const report = reconcileSourceWithOcf(await sampleSource("7"), await samplePackage("7"), { asOf: "2022-12-31" });
    expect(report.differences).toEqual([]);
    const row = report.grants.find((g) => g.key === "8802");
    // 2 500 on 2021-01-15 and 2022-01-15; the 2023 and 2024 tranches never vest (forfeited on termination).
    expect(row?.expected.vested).toBe("5000");
    expect(row?.actual.vested).toBe("5000");
  });

  it("counts differences up to the tolerance as agreement, exactly", async () => {
    const source = await sampleSource("7");
    const pkg = await samplePackage("7", (txs) => {
      txById(txs, "rsa-2210-issuance").quantity = "16000.0001";
      return txs;
    });
    expect(reconcileSourceWithOcf(source, pkg, { tolerance: "0.0001" }).differences).toEqual([]);
    expect(reconcileSourceWithOcf(source, pkg, { tolerance: "0.00009" }).differences.map((d) => d.actual)).toEqual(["16000.0001"]);
  });

  it("rejects an invalid date or tolerance", async () => {
    const source = await sampleSource("7");
    const pkg = await samplePackage("7");
    expect(() => reconcileSourceWithOcf(source, pkg, { asOf: "2025-02-30" })).toThrow(ReconcileInputError);
    expect(() => reconcileSourceWithOcf(source, pkg, { tolerance: "-1" })).toThrow(ReconcileInputError);
  });
});

/** One doctoring of the golden package of issuer 7, and the one difference it must produce. */
const DOCTORED: readonly [string, (txs: TxJson[]) => TxJson[], ReturnType<typeof essentials>][] = [
  [
    "one quantity changed",
    (txs) => {
      txById(txs, "rsa-2210-issuance").quantity = "16500";
      return txs;
    },
    { section: "source-vs-ocf", code: "FIGURE_MISMATCH", recordId: "2210", securityId: "rsa-2210", field: "issued", expected: "16000", actual: "16500" },
  ],
  [
    "one security removed",
    (txs) => txs.filter((t) => t.security_id !== "rsa-2210"),
    { section: "source-vs-ocf", code: "MISSING_IN_OCF", recordId: "2210", securityId: "rsa-2210", field: "security", expected: "rsa-2210", actual: null },
  ],
  [
    "one release duplicated",
    (txs) => [...txs, { ...txById(txs, "rsu-8801-release-2"), id: "rsu-8801-release-2-again" }],
    { section: "source-vs-ocf", code: "FIGURE_MISMATCH", recordId: "8801", securityId: "rsu-8801", field: "released", expected: "3000", actual: "4000" },
  ],
  [
    "one vesting event moved by a day",
    (txs) => {
      txById(txs, "rsa-2209-vesting-event-40301").date = "2024-11-13";
      return txs;
    },
    { section: "source-vs-ocf", code: "VESTING_DATES", recordId: "2209", securityId: "rsa-2209", field: "vesting", expected: "2024-11-12 10000", actual: "2024-11-13 10000" },
  ],
  [
    "one tranche of a vestings list moved by a day",
    (txs) => {
      const vestings = txById(txs, "rsa-2210-issuance").vestings as { date: string; amount: string }[];
      const tranche = vestings.find((v) => v.date === "2022-06-01");
      if (tranche === undefined) throw new Error("no tranche");
      tranche.date = "2022-06-02";
      return txs;
    },
    { section: "source-vs-ocf", code: "VESTING_DATES", recordId: "2210", securityId: "rsa-2210", field: "vesting", expected: "2022-06-01 2000", actual: "2022-06-02 2000" },
  ],
  [
    "a security no source record accounts for",
    (txs) => [...txs, { ...txById(txs, "rsa-2210-issuance"), id: "rsa-9999-issuance", security_id: "rsa-9999" }],
    { section: "source-vs-ocf", code: "EXTRA_IN_OCF", recordId: undefined, securityId: "rsa-9999", field: "security", expected: null, actual: "rsa-9999" },
  ],
];

describe("reconcileSourceWithOcf on doctored packages", () => {
  it.each(DOCTORED)("%s: reported exactly, and nothing else", async (_name, doctor, expected) => {
    const report = reconcileSourceWithOcf(await sampleSource("7"), await samplePackage("7", doctor));
    expect(report.differences.map(essentials)).toEqual([expected]);
  });

  it("never reads reason_text: rewording a cancellation changes nothing", async () => {
    const pkg = await samplePackage("7", (txs) => {
      txById(txs, "rsu-8802-cancellation").reason_text = "Expired (doctored)";
      return txs;
    });
    expect(reconcileSourceWithOcf(await sampleSource("7"), pkg).differences).toEqual([]);
  });

  it("a balance removed: the reading reports the remainder left on no security, the grant's outstanding and the holder", async () => {
    const pkg = await samplePackage("7", (txs) => txs.filter((t) => t.security_id !== "rsa-2208-balance"));
    const report = reconcileSourceWithOcf(await sampleSource("7"), pkg);
    expect(report.differences.map(essentials)).toEqual([
      { section: "source-vs-ocf", code: "FIGURE_MISMATCH", recordId: "2208", securityId: "rsa-2208", field: "outstanding", expected: "19000", actual: "0" },
      { section: "source-vs-ocf", code: "OCF_LINEAGE", recordId: undefined, securityId: undefined, field: "lineage", expected: null, actual: 'rsa-2208-cancellation: its balance_security_id "rsa-2208-balance" is no issuance of the package' },
    ]);
    expect(report.holders.find((h) => h.stakeholderId === "stakeholder-5187")).toMatchObject({ expected: { shares: "20880" }, actual: { shares: "1880" } });
  });

  it("a tranche after the termination added back: the vesting dates differ, and so does the vested figure once it falls", async () => {
    const doctor = (txs: TxJson[]) => {
      (txById(txs, "rsa-2208-issuance").vestings as { date: string; amount: string }[]).push({ date: "2024-05-15", amount: "1000" });
      return txs;
    };
    const source = await sampleSource("7");
    const report = reconcileSourceWithOcf(source, await samplePackage("7", doctor), { asOf: "2025-06-30" });
    expect(report.differences.map(essentials)).toEqual([
      { section: "source-vs-ocf", code: "FIGURE_MISMATCH", recordId: "2208", securityId: "rsa-2208", field: "vested", expected: "19000", actual: "20000" },
      { section: "source-vs-ocf", code: "VESTING_DATES", recordId: "2208", securityId: "rsa-2208", field: "vesting", expected: "none", actual: "2024-05-15 1000" },
    ]);
  });

  it("reads a package with the reading asked for: under same-security a named balance security takes what is left, as validate reads it", async () => {
    const report = reconcileSourceWithOcf(await sampleSource("7"), await samplePackage("7"), { reader: "same-security" });
    expect(report.reading).toEqual({ reading: "same-security", from: "option" });
    // rsa-2208's balance is part of its grant, not a grant of its own whose shares count twice.
    expect(report.differences).toEqual([]);
    expect(report.holders.filter((h) => h.expected.shares !== h.actual.shares || h.expected.units !== h.actual.units)).toEqual([]);
  });
});
