import { mkdir, mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOLDEN_DIR, GOLDEN_GENERATED_AT, GOLDEN_OPTIONS } from "../../../samples/generate-golden.js";
import { runCli } from "../../../src/cli/main.js";
import { createApiClient } from "../../../src/client/create-client.js";
import { exportIssuer } from "../../../src/export/export-issuer.js";
import { isMappingError } from "../../../src/mapping/errors.js";
import { exportIssuers, type IssuerExportResult } from "../../../src/export/export-issuers.js";
import { packageNameFor } from "../../../src/ocf/package-folder.js";
import { loadOcfPackage } from "../../../src/ocf/package-reader.js";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";

describe("exporting the sample issuers", () => {
  let server: SampleServer;
  let out: string;
  const results = new Map<string, IssuerExportResult>();
  beforeAll(async () => {
    server = await startSampleServer({ port: 0 });
    out = await mkdtemp(join(tmpdir(), "ocf-sync-export-"));
    const client = createApiClient({ baseUrl: server.url, rateLimit: false });
    for await (const result of exportIssuers(client, server.issuers, {
      outDir: out,
      zip: true,
      generatedAt: GOLDEN_GENERATED_AT,
      ...(GOLDEN_OPTIONS.asOf === undefined ? {} : { asOf: GOLDEN_OPTIONS.asOf }),
      concurrency: 3,
    })) {
      results.set(result.issuerId, result);
    }
    await client.close();
  });
  afterAll(async () => server.close());

  it("writes every issuer, streamed, byte for byte as the golden packages built in memory", async () => {
    expect([...results.keys()].sort()).toEqual([...server.issuers].sort());
    for (const issuerId of server.issuers) {
      const result = results.get(issuerId);
      expect(result?.ok, issuerId).toBe(true);
      const name = packageNameFor(issuerId);
      const golden = (await readdir(join(GOLDEN_DIR, name))).sort();
      expect((await readdir(join(out, name))).sort(), issuerId).toEqual(golden);
      for (const file of golden) {
        expect(await readFile(join(out, name, file), "utf8"), `${issuerId}/${file}`).toBe(await readFile(join(GOLDEN_DIR, name, file), "utf8"));
      }
    }
  });

  it("writes a flat zip holding exactly the package's files, which validates", async () => {
    for (const issuerId of server.issuers) {
      const name = packageNameFor(issuerId);
      const fromZip = await loadOcfPackage(join(out, `${name}.ocf.zip`));
      const fromFolder = await loadOcfPackage(join(out, name));
      expect([...fromZip.files.keys()].sort()).toEqual([...fromFolder.files.keys()].sort());
      const report = await validatePackageAt(join(out, `${name}.ocf.zip`));
      expect(report.problems).toEqual([]);
    }
  });

  it("writes a report per issuer with counts, warnings and quarantined records", async () => {
    const report = JSON.parse(await readFile(join(out, "acme-robotics.report.json"), "utf8")) as {
      issuerId: string;
      counts: { awards: number; units: number; transactions: number };
      warnings: { code: string; message: string }[];
    };
    expect(report.issuerId).toBe("acme-robotics");
    expect(report.counts.awards).toBe(4);
    expect(report.counts.units).toBe(4);
    // the deliberately inconsistent record of the samples is reported, not fixed
    expect(report.warnings.some((w) => w.message.includes("RSA-0003"))).toBe(true);
  });

  it("warns when the package's as-of date is past tranches the source has not vested (the samples are a snapshot of 2025-06-30)", async () => {
    for (const [issuerId, result] of results) {
      expect(result.ok && result.export.warnings.filter((w) => w.code === "UNVESTED_BEFORE_AS_OF"), issuerId).toEqual([]);
    }
    const client = createApiClient({ baseUrl: server.url, rateLimit: false });
    const dir = await mkdtemp(join(tmpdir(), "ocf-sync-export-later-"));
    const later = await exportIssuer(client, "7", { outDir: dir, generatedAt: GOLDEN_GENERATED_AT, asOf: "2026-11-26" });
    await client.close();
    const unvested = later.warnings.filter((w) => w.code === "UNVESTED_BEFORE_AS_OF");
    expect(unvested.map((w) => ("record" in w ? w.record?.recordId : undefined))).toEqual([undefined, "8801", "8803"]);
    expect(unvested[0]?.message).toContain("is 2026-11-26, but 2 records have tranches dated on or before it");
    expect(unvested[0]?.message).toContain("export as of 2025-06-30 or earlier");
    expect(unvested[1]?.message).toContain('event "41112" of 2025-07-01 (250) has not vested in the source');
    const report = JSON.parse(await readFile(later.report, "utf8")) as { warnings: { code: string }[] };
    expect(report.warnings.filter((w) => w.code === "UNVESTED_BEFORE_AS_OF")).toHaveLength(3);
  });

  it("re-reads and validates packages up to validateMaxBytes by default, and objects are checked either way", async () => {
    const client = createApiClient({ baseUrl: server.url, rateLimit: false });
    const dir = await mkdtemp(join(tmpdir(), "ocf-sync-export-auto-"));
    const small = await exportIssuer(client, "7", { outDir: dir, generatedAt: GOLDEN_GENERATED_AT });
    expect(small.validated).toBe(true);
    const large = await exportIssuer(client, "7", { outDir: dir, generatedAt: GOLDEN_GENERATED_AT, validateMaxBytes: small.bytes - 1 });
    expect(large.validated).toBe(false);
    const forced = await exportIssuer(client, "7", { outDir: dir, generatedAt: GOLDEN_GENERATED_AT, validate: true, validateMaxBytes: 1 });
    expect(forced.validated).toBe(true);
    await client.close();
  });

  it("leaves no temporary files behind", async () => {
    expect((await readdir(out)).filter((f) => f.startsWith("."))).toEqual([]);
  });

  it("gives the same bytes when run again (deterministic), replacing the previous package", async () => {
    const client = createApiClient({ baseUrl: server.url, rateLimit: false });
    const again = await exportIssuer(client, "7", { outDir: out, generatedAt: GOLDEN_GENERATED_AT, asOf: "2025-06-30", zip: true });
    await client.close();
    const name = packageNameFor("7");
    for (const file of await readdir(join(GOLDEN_DIR, name))) {
      expect(await readFile(join(out, name, file), "utf8")).toBe(await readFile(join(GOLDEN_DIR, name, file), "utf8"));
    }
    expect(again.files.map((f) => f.path)).toContain("Transactions.ocf.json");
  });
});

describe("export failures", () => {
  it("quarantines an invalid record with its raw JSON in the report, or fails the issuer, keeping the previous package", async () => {
    const good = {
      id: "a1",
      issuerId: "q",
      stakeholderId: "s1",
      shareClassName: "Common",
      issueDate: { value: "2024-01-02" },
      quantity: { value: "100" },
      pricePerShare: { currencyCode: { value: "USD" }, amount: { value: "0.01" } },
    };
    const bad = { ...good, id: "a2", quantity: { value: "1,5" } };
    const unmappable = { ...good, id: "a3", pricePerShare: null }; // valid on the wire, but OCF needs a price
    const server = await startSampleServer({ port: 0, data: { issuers: new Map([["q", { awards: [good, bad, unmappable], units: [] }]]) } });
    const out = await mkdtemp(join(tmpdir(), "ocf-sync-export-q-"));
    const client = createApiClient({ baseUrl: server.url, rateLimit: false });
    try {
      const result = await exportIssuer(client, "q", { outDir: out, onInvalid: "quarantine", generatedAt: "2025-01-01T00:00:00Z" });
      expect(result.awards).toBe(1);
      expect(result.quarantined.map((q) => [q.recordId, q.code]).sort()).toEqual([
        ["a2", "SOURCE_RECORD_INVALID"],
        ["a3", "MAPPING_MISSING_VALUE"],
      ]);
      const report = JSON.parse(await readFile(result.report, "utf8")) as { quarantined: { recordId: string; raw?: unknown }[] };
      expect(report.quarantined.find((q) => q.recordId === "a2")?.raw).toEqual(bad);
      const before = await readFile(join(out, "q", "Transactions.ocf.json"), "utf8");

      const failed = await exportIssuer(client, "q", { outDir: out, generatedAt: "2025-02-01T00:00:00Z" }).catch((e: unknown) => e);
      // the first bad record the service lists fails the issuer (the service's order is its own)
      expect(["SOURCE_RECORD_INVALID", "MAPPING_MISSING_VALUE"]).toContain((failed as { code?: string }).code);
      expect(await readFile(join(out, "q", "Transactions.ocf.json"), "utf8")).toBe(before);
      expect((await readdir(out)).filter((f) => f.startsWith("."))).toEqual([]);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("never writes a package OCF could not hold: a record that would make it invalid fails its issuer, or is quarantined and the rest exported", async () => {
    // Maps field by field, but returns more to the pool than it cancels: no valid package could hold it.
    const bad = {
      id: "r1",
      issuerId: "v",
      stakeholderId: "s1",
      shareClassName: "Common",
      equityIncentivePlanName: "Plan",
      issueDate: { value: "2024-01-02" },
      quantity: { value: "100" },
      canceledQuantity: { value: "10" },
      canceledDate: { value: "2024-06-01" },
      returnedToPoolQuantity: { value: "90" },
      pricePerShare: { currencyCode: "USD", amount: { value: "1" } },
    };
    // Released (and cancelled) before it was issued.
    const early = { ...bad, id: "r2", canceledDate: { value: "2023-01-01" }, returnedToPoolQuantity: { value: "10" } };
    const good = { ...bad, id: "r3", returnedToPoolQuantity: { value: "10" } };
    const server = await startSampleServer({ port: 0, data: { issuers: new Map([["v", { awards: [bad, early, good], units: [] }]]) } });
    const out = await mkdtemp(join(tmpdir(), "ocf-sync-export-v-"));
    const client = createApiClient({ baseUrl: server.url, rateLimit: false });
    try {
      const error = await exportIssuer(client, "v", { outDir: out, generatedAt: "2025-01-01T00:00:00Z" }).catch((e: unknown) => e);
      expect(isMappingError(error) && error.code).toBe("MAPPING_CONFLICT");
      expect(await readdir(out)).toEqual([]);
      const result = await exportIssuer(client, "v", { outDir: out, generatedAt: "2025-01-01T00:00:00Z", onInvalid: "quarantine", validate: true });
      expect(result.awards).toBe(1);
      expect(result.quarantined.map((q) => [q.recordId, q.code])).toEqual([
        ["r1", "MAPPING_CONFLICT"],
        ["r2", "MAPPING_CONFLICT"],
      ]);
      expect(result.quarantined[0]?.message).toContain("returnedToPoolQuantity: is 90, more than the 10 cancelled");
      expect(result.quarantined[1]?.message).toContain("canceledDate: is 2023-01-01, before the grant's issueDate 2024-01-02");
      expect(result.quarantined.every((q) => q.raw !== undefined)).toBe(true);
      expect((await validatePackageAt(result.folder)).valid).toBe(true);
      const report = JSON.parse(await readFile(result.report, "utf8")) as { quarantined: { recordId: string; raw: unknown }[] };
      expect(report.quarantined.map((q) => q.recordId)).toEqual(["r1", "r2"]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("ocf-sync export, in-process", () => {
  it("applies issuer profiles and a stakeholder directory, and exports only its shard", async () => {
    const server = await startSampleServer({ port: 0 });
    const dir = await mkdtemp(join(tmpdir(), "ocf-sync-export-cli-"));
    try {
      await writeFile(join(dir, "profiles.json"), JSON.stringify({ "7": { legalName: "Seven Robotics, Inc.", formationDate: "2014-03-01", countryOfFormation: "US" } }));
      const ids = server.issuers;
      await writeFile(join(dir, "issuers.txt"), `# sample issuers\n${ids.join("\n")}\n`);
      const seen = new Set<string>();
      for (const shard of ["1/2", "2/2"]) {
        const io = captureIo(dir);
        const code = await runCli(
          ["export", "--base-url", server.url, "--issuers-file", "issuers.txt", "--out", "out", "--shard", shard, "--issuer-profile", "profiles.json", "--log", "plain"],
          io,
        );
        expect(code, io.stderr.text).toBe(0);
        for (const id of ids) if (io.stderr.text.includes(`issuer ${JSON.stringify(id)}:`)) {
          expect(seen.has(id), `${id} in two shards`).toBe(false);
          seen.add(id);
        }
      }
      expect([...seen].sort()).toEqual([...ids].sort());
      const manifest = JSON.parse(await readFile(join(dir, "out", "7", "Manifest.ocf.json"), "utf8")) as { issuer: { legal_name: string; formation_date: string } };
      expect(manifest.issuer.legal_name).toBe("Seven Robotics, Inc.");
      expect(manifest.issuer.formation_date).toBe("2014-03-01");
    } finally {
      await server.close();
    }
  });

  it("rejects a bad profile file with the JSON path of the mistake", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ocf-sync-export-cli-"));
    await mkdir(join(dir, "x"), { recursive: true });
    await writeFile(join(dir, "profiles.json"), JSON.stringify({ "7": { legalName: "X", countryOfFormaton: "US" } }));
    const io = captureIo(dir);
    const code = await runCli(["export", "--base-url", "http://127.0.0.1:9", "--issuer", "7", "--out", "out", "--issuer-profile", "profiles.json"], io);
    expect(code).toBe(2);
    expect(io.stderr.text).toContain("countryOfFormaton");
  });
});
