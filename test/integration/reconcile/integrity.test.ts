/**
 * `reconcile` checks the integrity of the packages it reads with the package validator: a file whose
 * MD5 is not the manifest's, a listed file missing, an unlisted OCF file, a file of the wrong type, in
 * a folder or a zip: refused (exit 2, PACKAGE_INTEGRITY_FAILED), never reported as agreeing.
 */
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { openOcfPackage, loadOcfPackage, type OpenedOcfPackage } from "../../../src/ocf/package-reader.js";
import { validateOpenedPackage } from "../../../src/ocf/validate-package.js";
import { PackageIntegrityError, loadPackageObjects, readPackageObjects } from "../../../src/reconcile/load.js";
import { ReconcileInputError, packageObjects, type PackageObjects } from "../../../src/reconcile/package-objects.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";

const GOLDEN = resolve(import.meta.dirname, "../../../samples/ocf/7");

let dir: string;
let server: SampleServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-integrity-"));
  server = await startSampleServer({ port: 0 });
  expect(await runCli(["pull", "--base-url", server.url, "--issuer", "7", "--out", "pulled.ndjson"], captureIo(dir))).toBe(0);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function copyOfGolden(name: string, change: (folder: string) => Promise<void>): Promise<string> {
  const folder = join(dir, name);
  await cp(GOLDEN, folder, { recursive: true });
  await change(folder);
  return folder;
}

async function editJson(path: string, edit: (json: { file_type?: string; items: Record<string, unknown>[] }) => void): Promise<void> {
  const json = JSON.parse(await readFile(path, "utf8")) as { items: Record<string, unknown>[] };
  edit(json);
  await writeFile(path, JSON.stringify(json, null, 2));
}

async function reconcile(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(dir);
  const code = await runCli(["reconcile", ...argv], io);
  return { code, out: io.stdout.text, err: io.stderr.text };
}

const TAMPERED: [string, (folder: string) => Promise<void>, string][] = [
  [
    "a quantity changed behind the manifest's back",
    (f) => editJson(join(f, "Transactions.ocf.json"), (j) => void (j.items.find((t) => t.id === "rsa-2210-issuance")!.quantity = "16001")),
    "[MD5_MISMATCH]",
  ],
  ["a listed file removed", (f) => rm(join(f, "StockPlans.ocf.json")), "[FILE_MISSING]"],
  ["an OCF file the manifest does not list", (f) => writeFile(join(f, "Extra.ocf.json"), '{"file_type":"OCF_TRANSACTIONS_FILE","items":[]}'), "[UNLISTED_FILE]"],
];

describe("reconcile refuses a package that does not match its manifest", () => {
  it.each(TAMPERED)("%s: exit 2 against the source and against another package", async (name, change, problem) => {
    const folder = await copyOfGolden(name.replace(/\W+/g, "-"), change);
    for (const args of [["--source", "pulled.ndjson", folder], [GOLDEN, "--against", folder], [folder, "--against", GOLDEN]]) {
      const result = await reconcile(...args);
      expect(result.code).toBe(2);
      expect(result.err).toContain(`${folder} does not match its manifest, so its figures cannot be trusted and it was not reconciled`);
      expect(result.err).toContain(problem);
      expect(result.err).toContain("[PACKAGE_INTEGRITY_FAILED]");
      expect(result.out).not.toMatch(/agree/i);
    }
    const json = await reconcile("--source", "pulled.ndjson", folder, "--json");
    expect(JSON.parse(json.out)).toMatchObject({ agree: false, unusable: { code: "PACKAGE_INTEGRITY_FAILED" } });
  });

  it("a file whose file_type is not its manifest list's (MD5 updated to match): refused too", async () => {
    const folder = await copyOfGolden("wrong-type", async (f) => {
      await editJson(join(f, "StockPlans.ocf.json"), (j) => void (j.file_type = "OCF_STOCK_CLASSES_FILE"));
      const manifestPath = join(f, "Manifest.ocf.json");
      const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { stock_plans_files: { md5: string }[] };
      manifest.stock_plans_files[0]!.md5 = createHash("md5").update(await readFile(join(f, "StockPlans.ocf.json"))).digest("hex");
      await writeFile(manifestPath, JSON.stringify(manifest, null, 2));
    });
    const error = await loadPackageObjects(folder).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PackageIntegrityError);
    expect((error as PackageIntegrityError).problems.map((p) => p.code)).toEqual(["WRONG_FILE_TYPE"]);
  });

  it("a tampered file inside a zip: refused; the untouched zip agrees", async () => {
    const files: Record<string, Uint8Array> = {};
    for (const name of await readdir(GOLDEN)) files[name] = new Uint8Array(await readFile(join(GOLDEN, name)));
    const good = join(dir, "good.ocf.zip");
    await writeFile(good, zipSync(files));
    expect((await reconcile("--source", "pulled.ndjson", good)).code).toBe(0);
    const text = new TextDecoder().decode(files["Transactions.ocf.json"]).replace('"quantity": "1', '"quantity": "9');
    const bad = join(dir, "bad.ocf.zip");
    await writeFile(bad, zipSync({ ...files, "Transactions.ocf.json": new TextEncoder().encode(text) }));
    const result = await reconcile("--source", "pulled.ndjson", bad);
    expect(result.code).toBe(2);
    expect(result.err).toContain("[MD5_MISMATCH]");
  });
});

/** `pkg` with its opens counted per path and `Transactions.ocf.json` given as `transactions(n)` on its n-th open (from 1). */
function watched(pkg: OpenedOcfPackage, transactions: (open: number) => Buffer | undefined): { pkg: OpenedOcfPackage; opens: Map<string, number> } {
  const opens = new Map<string, number>();
  return {
    opens,
    pkg: {
      ...pkg,
      open: async (path) => {
        const open = (opens.get(path) ?? 0) + 1;
        opens.set(path, open);
        const bytes = path === "Transactions.ocf.json" ? transactions(open) : undefined;
        return bytes === undefined ? pkg.open(path) : { state: "stream", size: bytes.length, chunks: [bytes] };
      },
    },
  };
}

async function rehash(folder: string, key: string, file: string): Promise<void> {
  const manifestPath = join(folder, "Manifest.ocf.json");
  const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as Record<string, { md5: string }[]>;
  manifest[key]![0]!.md5 = createHash("md5").update(await readFile(join(folder, file))).digest("hex");
  await writeFile(manifestPath, JSON.stringify(manifest, null, 2));
}

describe("each package file is read once: what is reconciled is what was hashed", () => {
  it("a file rewritten after it was read and hashed: the objects are those of the bytes hashed, each file opened once", async () => {
    const folder = await copyOfGolden("changed-after-read", async () => {});
    const original = await readFile(join(folder, "Transactions.ocf.json"));
    const changed = Buffer.from(original.toString("utf8").replace('"quantity": "16000"', '"quantity": "32000"'));
    expect(changed.toString()).toContain('"quantity": "32000"');
    const issuance = (objects: PackageObjects): unknown => objects.transactions.find((t) => t.id === "rsa-2210-issuance")?.quantity;
    const pkg = await openOcfPackage(folder);
    try {
      // Read as hashed first, rewritten for any later read.
      const later = watched(pkg, (open) => (open === 1 ? original : changed));
      const objects = await readPackageObjects(later.pkg);
      expect(issuance(objects)).toBe("16000");
      expect(Object.fromEntries(later.opens)).toEqual({ "StockPlans.ocf.json": 1, "StockClasses.ocf.json": 1, "VestingTerms.ocf.json": 1, "Transactions.ocf.json": 1, "Stakeholders.ocf.json": 1 });
      // Rewritten before it was read: the bytes hashed are the changed ones, and refused.
      const error = await readPackageObjects(watched(pkg, () => changed).pkg).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PackageIntegrityError);
      expect(error).toMatchObject({ code: "PACKAGE_INTEGRITY_FAILED", problems: [{ code: "MD5_MISMATCH", file: "Manifest.ocf.json", jsonPath: "$.transactions_files[0].md5" }] });
    } finally {
      await pkg.close();
    }
  });

  it("the objects are those of the package read whole, in its order, a zip's too, and a package out of order read once too", async () => {
    const zipFiles: Record<string, Uint8Array> = {};
    for (const name of await readdir(GOLDEN)) zipFiles[name] = new Uint8Array(await readFile(join(GOLDEN, name)));
    const zip = join(dir, "same-objects.ocf.zip");
    await writeFile(zip, zipSync(zipFiles));
    // Transactions in reverse: named before their issuances, which a full validation reads a second time for.
    const reversed = await copyOfGolden("reversed", async (f) => {
      await editJson(join(f, "Transactions.ocf.json"), (j) => void j.items.reverse());
      await rehash(f, "transactions_files", "Transactions.ocf.json");
    });
    for (const path of [GOLDEN, zip, reversed]) {
      const whole = packageObjects(await loadOcfPackage(path));
      expect(whole.transactions.length).toBeGreaterThan(10);
      expect(await loadPackageObjects(path)).toEqual(whole);
    }
    const pkg = await openOcfPackage(reversed);
    try {
      const once = watched(pkg, () => undefined);
      await readPackageObjects(once.pkg);
      // Only the files' integrity is checked: nothing of the objects to settle in a second pass.
      expect(once.opens.get("Transactions.ocf.json")).toBe(1);
      const validated = watched(pkg, () => undefined);
      await validateOpenedPackage(validated.pkg, {}, { item: () => {}, fileRead: () => {} });
      expect(validated.opens.get("Transactions.ocf.json")).toBe(2);
    } finally {
      await pkg.close();
    }
  });

  it("what is wrong inside the objects does not stop the reading (the reconciliation reports on it); what is wrong with the files does", async () => {
    // Schema, reference, id and quantity problems, the MD5 kept true: a full validation finds them all.
    const broken = await copyOfGolden("broken-objects", async (f) => {
      await editJson(join(f, "Transactions.ocf.json"), (j) => {
        const issuance = j.items.find((t) => t.id === "rsa-2210-issuance")!;
        issuance.quantity = "many";
        issuance.stakeholder_id = "nobody";
        j.items.push({ ...j.items[0]!, extra_field: true });
      });
      await rehash(f, "transactions_files", "Transactions.ocf.json");
    });
    const pkg = await openOcfPackage(broken);
    try {
      const full = await validateOpenedPackage(pkg, {}, { item: () => {}, fileRead: () => {} });
      expect(new Set(full.problems.map((p) => p.code))).toEqual(new Set(["SCHEMA", "DANGLING_REFERENCE", "DUPLICATE_ID", "DUPLICATE_SECURITY_ID"]));
      let items = 0;
      const integrity = await validateOpenedPackage(pkg, {}, { integrityOnly: true, item: () => void (items += 1), fileRead: () => {} });
      expect(integrity.problems).toEqual([]);
      expect(items).toBe(full.counts.objects);
      expect(integrity.counts.objects).toBe(items);
    } finally {
      await pkg.close();
    }
    const objects = await loadPackageObjects(broken);
    expect(objects.transactions.find((t) => t.id === "rsa-2210-issuance")?.quantity).toBe("many");
    // The same objects with a file that is not what the manifest says: refused.
    const tampered = await copyOfGolden("broken-and-tampered", async (f) => {
      await cp(join(broken, "Transactions.ocf.json"), join(f, "Transactions.ocf.json"));
    });
    const error = await loadPackageObjects(tampered).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PackageIntegrityError);
    expect((error as PackageIntegrityError).problems.map((p) => p.code)).toEqual(["MD5_MISMATCH"]);
  });

  it("a listed file without an items list (its MD5 matching) is unusable, as before", async () => {
    const folder = await copyOfGolden("no-items", async (f) => {
      await writeFile(join(f, "StockPlans.ocf.json"), '{"file_type": "OCF_STOCK_PLANS_FILE"}');
      await rehash(f, "stock_plans_files", "StockPlans.ocf.json");
    });
    const error = await loadPackageObjects(folder).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReconcileInputError);
    expect((error as Error).message).toBe(`${folder}: StockPlans.ocf.json has no items list`);
  });
});
