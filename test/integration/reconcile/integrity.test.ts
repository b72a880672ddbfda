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
import { openOcfPackage, type OpenedOcfPackage } from "../../../src/ocf/package-reader.js";
import { PackageIntegrityError, loadPackageObjects, readPackageObjects } from "../../../src/reconcile/load.js";
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

describe("a package file that changes after the integrity check", () => {
  it("is refused when its objects are read, not reconciled unchecked", async () => {
    const folder = await copyOfGolden("changed-while-read", async () => {});
    const pkg = await openOcfPackage(folder);
    try {
      // The package as the validator read it, then a Transactions file rewritten before its objects are read.
      const changed = await readFile(join(folder, "Transactions.ocf.json"), "utf8").then((text) => Buffer.from(text.replace('"quantity": "16000"', '"quantity": "32000"')));
      expect(changed.toString()).toContain('"quantity": "32000"');
      const rewritten: OpenedOcfPackage = {
        ...pkg,
        open: async (path) => (path === "Transactions.ocf.json" ? { state: "stream", size: changed.length, chunks: [changed] } : pkg.open(path)),
      };
      const error = await readPackageObjects(rewritten).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PackageIntegrityError);
      expect(error).toMatchObject({ code: "PACKAGE_INTEGRITY_FAILED", problems: [{ code: "MD5_MISMATCH", file: "Manifest.ocf.json" }] });
      expect(String((error as Error).message)).toContain("the file changed while it was read");
      // Unchanged, the same files are read.
      expect((await readPackageObjects(pkg)).transactions.length).toBeGreaterThan(0);
    } finally {
      await pkg.close();
    }
  });
});
