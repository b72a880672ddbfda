/**
 * The golden OCF packages in `samples/ocf/`: a fresh mapping of every sample issuer must give the
 * committed files byte for byte, under any time zone, and every file must be a valid OCF 1.2.0 file
 * (whole, and item by item, against ocf-sync's schemas; the conformance suite checks the official
 * ones) whose manifest MD5s match its bytes and whose references all resolve inside the package.
 *
 * After an intended change of the mapping: `npx tsx samples/generate-golden.ts`, then review the diff.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { validatePackageAt } from "../../src/ocf/validate-package.js";
import type { OcfManifest, OcfTransaction } from "../../src/ocf/schemas.js";
import { GOLDEN_DIR, buildGoldenIssuers, diffGolden, type GoldenIssuer } from "../../samples/generate-golden.js";
import { describeConformance } from "../helpers/conformance.js";
import { expectOcfSyncValidFiles, type NamedOcfFile } from "../helpers/ocf-verdicts.js";
import { expectOfficiallyValidFiles } from "../helpers/official-ocf.js";

const PROJECT_ROOT = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

let issuers: GoldenIssuer[] = [];
beforeAll(async () => {
  issuers = await buildGoldenIssuers();
});

async function onDisk(issuer: GoldenIssuer, file: string): Promise<Buffer> {
  return readFile(path.join(GOLDEN_DIR, issuer.folder, file));
}

/** Every file of every golden package, parsed from the bytes on disk. */
async function goldenFiles(): Promise<NamedOcfFile[]> {
  const files: NamedOcfFile[] = [];
  for (const issuer of issuers) {
    for (const { path: file } of issuer.pkg.files) {
      files.push({ name: `${issuer.folder}/${file}`, json: JSON.parse((await onDisk(issuer, file)).toString("utf8")) as unknown });
    }
  }
  return files;
}

describe("golden OCF packages", () => {
  it("exist for every sample issuer and match a fresh mapping byte for byte", async () => {
    expect(issuers.map((i) => i.issuerId)).toEqual(["144361", "7", "acme-robotics", "north wind/eu", "zeta%labs"]);
    for (const issuer of issuers) {
      for (const file of issuer.pkg.files) {
        expect((await onDisk(issuer, file.path)).equals(Buffer.from(file.content, "utf8")), `${issuer.folder}/${file.path}`).toBe(true);
      }
    }
    expect(await diffGolden(issuers)).toEqual([]);
  });

  it("keep each issuer's id out of the file system unescaped", () => {
    expect(issuers.map((i) => i.folder)).toEqual(["144361", "7", "acme-robotics", "north-wind-eu.85249f7815", "zeta-labs.7b813727ae"]);
  });

  it("list every file with the MD5 of its bytes on disk", async () => {
    for (const issuer of issuers) {
      const manifest = JSON.parse((await onDisk(issuer, "Manifest.ocf.json")).toString("utf8")) as OcfManifest;
      const listed = Object.entries(manifest).flatMap(([key, value]) => (key.endsWith("_files") ? (value as { filepath: string; md5: string }[]) : []));
      expect(listed.map((f) => f.filepath).sort()).toEqual(issuer.pkg.files.slice(1).map((f) => f.path).sort());
      for (const { filepath, md5 } of listed) {
        expect(createHash("md5").update(await onDisk(issuer, filepath)).digest("hex"), `${issuer.folder}/${filepath}`).toBe(md5);
      }
    }
  });

  it("are valid OCF 1.2.0: each file whole and each item, per ocf-sync's schemas", async () => {
    expectOcfSyncValidFiles(await goldenFiles());
  });

  it("pass every package check of 'ocf-sync validate' (schemas, md5s, references, dates, quantities)", async () => {
    for (const issuer of issuers) {
      const report = await validatePackageAt(path.join(GOLDEN_DIR, issuer.folder));
      expect(report.problems, issuer.folder).toEqual([]);
      expect(report.valid).toBe(true);
    }
  });

  it("resolve every reference inside the package, and use each id once", () => {
    for (const { mapped, folder } of issuers) {
      const ids = (list: readonly { id: string }[]) => new Set(list.map((o) => o.id));
      const stakeholders = ids(mapped.stakeholders);
      const classes = ids(mapped.stockClasses);
      const plans = ids(mapped.stockPlans);
      const terms = ids(mapped.vestingTerms);
      const issued = new Set<string>();
      const txIds = new Set<string>();
      for (const tx of mapped.transactions) {
        expect(txIds.has(tx.id), `${folder}: ${tx.id} twice`).toBe(false);
        txIds.add(tx.id);
        const t = tx as OcfTransaction & Partial<Record<"stakeholder_id" | "stock_class_id" | "stock_plan_id" | "vesting_terms_id", string>>;
        if (t.stakeholder_id !== undefined) expect(stakeholders, `${folder}: ${tx.id}`).toContain(t.stakeholder_id);
        if (t.stock_class_id !== undefined) expect(classes, `${folder}: ${tx.id}`).toContain(t.stock_class_id);
        if (t.stock_plan_id !== undefined) expect(plans, `${folder}: ${tx.id}`).toContain(t.stock_plan_id);
        if (t.vesting_terms_id !== undefined) expect(terms, `${folder}: ${tx.id}`).toContain(t.vesting_terms_id);
        if (tx.object_type === "TX_STOCK_ISSUANCE" || tx.object_type === "TX_EQUITY_COMPENSATION_ISSUANCE") {
          expect(issued.has(tx.security_id), `${folder}: security ${tx.security_id} issued twice`).toBe(false);
          issued.add(tx.security_id);
        } else if (tx.object_type !== "TX_VESTING_START") {
          // Sorted by date then kind, so a security is issued before any transaction on it, except
          // its vesting start: the vesting commencement date often precedes the grant.
          expect(issued, `${folder}: ${tx.id} before its issuance`).toContain(tx.security_id);
        }
        if (tx.object_type === "TX_EQUITY_COMPENSATION_RELEASE") {
          for (const id of tx.resulting_security_ids) expect(issued, `${folder}: ${tx.id}`).toContain(id);
        }
      }
      for (const tx of mapped.transactions) expect(issued, `${folder}: ${tx.id}`).toContain(tx.security_id);
      for (const plan of mapped.stockPlans) for (const id of plan.stock_class_ids ?? []) expect(classes).toContain(id);
    }
  });

  it("report the one deliberately inconsistent sample record, and nothing else about the data", () => {
    const dataWarnings = issuers.flatMap((i) => i.mapped.warnings.filter((w) => !w.code.startsWith("PLACEHOLDER_")));
    expect(dataWarnings.map((w) => [w.issuerId, w.record?.recordId, w.code])).toEqual([["acme-robotics", "RSA-0003", "VESTED_SUM_MISMATCH"]]);
    expect(issuers.flatMap((i) => i.mapped.quarantined)).toEqual([]);
  });

  it.each(["UTC", "Pacific/Kiritimati", "America/Adak"])(
    "come out the same under TZ=%s (a child process regenerates and compares them)",
    async (tz) => {
      const script = path.join(PROJECT_ROOT, "samples/generate-golden.ts");
      const { stdout } = await run(process.execPath, ["--import", "tsx", script, "--check"], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, TZ: tz },
      });
      expect(stdout).toContain(`golden packages match (TZ=${tz})`);
    },
  );
});

describeConformance("the official OCF 1.2.0 schemas", () => {
  it("accept every golden file whole and each of its items", async () => {
    expectOfficiallyValidFiles(await goldenFiles());
  });
});
