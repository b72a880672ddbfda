/**
 * A record nested 4,500 levels deep (more than JSON.stringify and any recursive walk survive) among
 * good records: `pull`, `export` and `sync` quarantine it on its own with a coded error naming the
 * issuer and the record, or fail its issuer cleanly; a package is never put in place without its report.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";
import { loadSampleData } from "../../../src/sample-server/data.js";
import { CUT_MARKER } from "../../../src/source/json-limits.js";
import { captureIo } from "../../helpers/capture.js";
import { type LoopbackServer, startLoopbackServer } from "../../helpers/loopback-server.js";

const DEEP = 4500;
const deepText = `{"id":"deep-1","issuerId":"7","lastModifiedDatetime":{"value":"2025-01-01T00:00:00Z"},"extra":${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}}`;

let dir: string;
let server: LoopbackServer;
let goodRecords: number;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-deep-"));
  const issuer = (await loadSampleData()).issuers.get("7");
  if (issuer === undefined) throw new Error("no sample issuer 7");
  goodRecords = issuer.awards.length + issuer.units.length;
  // The JSON text is built by hand: serializing the deep record would overflow here too.
  const awards = `{"restrictedStockAwards":[${[...issuer.awards.map((r) => JSON.stringify(r)), deepText].join(",")}]}`;
  const units = JSON.stringify({ restrictedStockUnits: issuer.units });
  server = await startLoopbackServer((request, res) => {
    const body = request.url.includes("restrictedStockAwards") ? awards : units;
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<{ code: number; err: string }> {
  const io = captureIo(dir);
  const code = await runCli(argv, io);
  return { code, err: io.stderr.text };
}

const NAMED = 'restrictedStockAward "deep-1" of issuer "7": extra.a.a.a.a.a.a.a…: nested deeper than 64 levels';

describe("a record 4,500 levels deep", () => {
  it("pull --on-invalid quarantine keeps it as a quarantined line (cut), every good record beside it; exit 0", async () => {
    const out = join(dir, "q.ndjson");
    const result = await run("pull", "--base-url", server.url, "--issuer", "7", "--on-invalid", "quarantine", "--out", out, "--log", "plain");
    expect(result.code).toBe(0);
    expect(result.err).toContain(`quarantined ${NAMED}`);
    const lines = (await readFile(out, "utf8")).trim().split("\n").map((l) => JSON.parse(l) as { id: string; quarantined?: true; issues?: { message: string }[]; record: unknown });
    expect(lines).toHaveLength(goodRecords + 1);
    const deep = lines.find((l) => l.id === "deep-1");
    expect(deep?.quarantined).toBe(true);
    expect(deep?.issues?.[0]?.message).toContain("nested deeper than 64 levels");
    expect(JSON.stringify(deep?.record)).toContain(CUT_MARKER);
  });

  it("pull fails its issuer with SOURCE_RECORD_TOO_DEEP naming it (exit 1), no stack trace", async () => {
    const result = await run("pull", "--base-url", server.url, "--issuer", "7", "--out", join(dir, "f.ndjson"), "--log", "plain");
    expect(result.code).toBe(1);
    expect(result.err).toContain(NAMED);
    expect(result.err).toContain("FAILED SOURCE_RECORD_TOO_DEEP");
    expect(result.err).not.toMatch(/\n\s+at /);
  });

  it("export --on-invalid quarantine writes the package and its report, the record listed in the report", async () => {
    const out = join(dir, "export-q");
    const result = await run("export", "--base-url", server.url, "--issuer", "7", "--out", out, "--on-invalid", "quarantine", "--log", "plain");
    expect(result.code, result.err).toBe(0);
    expect((await readdir(out)).sort()).toEqual(["7", "7.report.json"]);
    expect((await validatePackageAt(join(out, "7"))).problems).toEqual([]);
    const report = JSON.parse(await readFile(join(out, "7.report.json"), "utf8")) as { quarantined: { recordId: string; code: string; message: string; raw: unknown }[] };
    const entry = report.quarantined.find((q) => q.recordId === "deep-1");
    expect(entry).toMatchObject({ code: "SOURCE_RECORD_TOO_DEEP" });
    expect(entry?.message).toContain(NAMED);
    expect(JSON.stringify(entry?.raw)).toContain(CUT_MARKER);
  });

  it("export (fail) fails the issuer: no package, no report, nothing temporary", async () => {
    const out = join(dir, "export-f");
    const result = await run("export", "--base-url", server.url, "--issuer", "7", "--out", out, "--log", "plain");
    expect(result.code).toBe(1);
    expect(result.err).toContain(NAMED);
    // Only the file that lets --resume continue the job (its issuer failed).
    expect(await readdir(out)).toEqual([".ocf-sync-export.json"]);
  });

  it("sync --on-invalid quarantine, twice: the record stays quarantined for the same reason when re-read from the snapshot", async () => {
    const work = join(dir, "sync");
    const args = ["sync", "--base-url", server.url, "--issuer", "7", "--out", join(work, "out"), "--state", join(work, "state.json"), "--on-invalid", "quarantine", "--log", "plain"];
    for (let pass = 1; pass <= 2; pass += 1) {
      const result = await run(...args);
      expect(result.code, result.err).toBe(0);
      const report = JSON.parse(await readFile(join(work, "out", "7.report.json"), "utf8")) as { quarantined: { recordId: string; code: string }[] };
      expect(report.quarantined.filter((q) => q.recordId === "deep-1").map((q) => q.code)).toEqual(["SOURCE_RECORD_TOO_DEEP"]);
    }
  });
});
