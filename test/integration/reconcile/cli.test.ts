/**
 * `ocf-sync reconcile` end to end, in-process: the sample API on loopback, a real pull's NDJSON, the
 * golden packages on disk (and doctored copies in a temp dir); exit codes 0, 1 and 2.
 */
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";

const GOLDEN = resolve(import.meta.dirname, "../../../samples/ocf");

describe("ocf-sync reconcile", () => {
  let dir: string;
  let server: SampleServer;
  const run = async (...argv: string[]) => {
    const io = captureIo(dir);
    const code = await runCli(["reconcile", ...argv], io);
    return { code, out: io.stdout.text, err: io.stderr.text };
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-reconcile-"));
    server = await startSampleServer({ port: 0 });
    const io = captureIo(dir);
    expect(await runCli(["pull", "--base-url", server.url, "--issuer", "7", "--issuer", "acme-robotics", "--out", "pulled.ndjson"], io)).toBe(0);
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("prints help with examples", async () => {
    const { code, out } = await run("--help");
    expect(code).toBe(0);
    expect(out).toContain("Usage: ocf-sync reconcile");
    expect(out).toContain("Examples:");
  });

  it("exits 0 and says so when a pull's NDJSON agrees with the package", async () => {
    const { code, out } = await run("--source", "pulled.ndjson", join(GOLDEN, "7"));
    expect(code).toBe(0);
    expect(out).toContain("AGREE: 7 grants compared, no difference");
    expect(out).toMatch(/issued\s+1600400\s+1600400\s+0/);
  });

  it("exits 1 and reports exactly the inconsistent acme-robotics record, in table, JSON and CSV", async () => {
    const package_ = join(GOLDEN, "acme-robotics");
    const text = await run("--source", "pulled.ndjson", package_);
    expect(text.code).toBe(1);
    expect(text.out).toContain('award "RSA-0003": vested as of 2025-06-30 is 47500 in the source but 45000 in the OCF package');
    expect(text.out).toContain("DIFFERENCES: 2 (1 source-vs-ocf, 1 source)");

    const json = await run("--source", "pulled.ndjson", package_, "--json");
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.out) as { agree: boolean; reports: { issuerId: string; differences: { recordId: string; field: string; expected: string; actual: string }[] }[] };
    expect(parsed.agree).toBe(false);
    expect(parsed.reports[0]?.issuerId).toBe("acme-robotics");
    expect(parsed.reports[0]?.differences.map((d) => [d.recordId, d.field, d.expected, d.actual])).toEqual([
      ["RSA-0003", "vested", "47500", "45000"],
      ["RSA-0003", "vestedQuantity", "47500", "45000"],
    ]);

    const csv = await run("--source", "pulled.ndjson", package_, "--csv");
    expect(csv.code).toBe(1);
    const lines = csv.out.split("\r\n");
    expect(lines[0]).toBe('"issuer_id","section","code","kind","record_id","security_id","field","expected","actual","message"');
    expect(lines[1]).toMatch(/^"acme-robotics","source-vs-ocf","FIGURE_MISMATCH","restrictedStockAward","RSA-0003","rsa-RSA-0003","vested","47500","45000","award ""RSA-0003"": /);
    expect(lines).toHaveLength(4); // header, two rows, and the empty string after the last CRLF
  });

  it("pulls from the API with --base-url and --issuer", async () => {
    const { code, out } = await run("--base-url", server.url, "--issuer", "acme-robotics", join(GOLDEN, "acme-robotics"), "--json");
    expect(code).toBe(1);
    const parsed = JSON.parse(out) as { reports: { differences: { recordId: string }[] }[] };
    expect(parsed.reports[0]?.differences.map((d) => d.recordId)).toEqual(["RSA-0003", "RSA-0003"]);
  });

  it("compares two packages: the same one agrees; a doctored copy differs field by field and in totals", async () => {
    expect((await run(join(GOLDEN, "7"), "--against", join(GOLDEN, "7"))).code).toBe(0);
    const copy = join(dir, "other-7");
    await cp(join(GOLDEN, "7"), copy, { recursive: true });
    const path = join(copy, "Transactions.ocf.json");
    const file = JSON.parse(await readFile(path, "utf8")) as { items: Record<string, unknown>[] };
    const issuance = file.items.find((t) => t.id === "rsa-2210-issuance");
    if (issuance === undefined) throw new Error("no rsa-2210-issuance");
    issuance.quantity = "16001";
    await writeFile(path, JSON.stringify(file));
    // Edited behind its manifest's back, the copy no longer matches its MD5: refused, never compared.
    const tampered = await run(join(GOLDEN, "7"), "--against", copy);
    expect(tampered.code).toBe(2);
    expect(tampered.err).toContain("[PACKAGE_INTEGRITY_FAILED]");
    // Another system's package that says what it holds: its manifest carries the MD5 of its file.
    const manifestPath = join(copy, "Manifest.ocf.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { transactions_files: { filepath: string; md5: string }[] };
    manifest.transactions_files[0]!.md5 = createHash("md5").update(await readFile(path)).digest("hex");
    await writeFile(manifestPath, JSON.stringify(manifest));
    const { code, out } = await run(join(GOLDEN, "7"), "--against", copy, "--json");
    expect(code).toBe(1);
    const parsed = JSON.parse(out) as { reports: { differences: { code: string; field: string; expected: string; actual: string }[] }[] };
    expect(parsed.reports[0]?.differences.map((d) => [d.code, d.field, d.expected, d.actual])).toEqual([
      ["FIELD_MISMATCH", "quantity", "16000", "16001"],
      ["TOTAL_MISMATCH", "stock_class_id stock-class-Common issued", "1604530", "1604531"],
      ["TOTAL_MISMATCH", "stock_class_id stock-class-Common outstanding", "1562530", "1562531"],
      ["TOTAL_MISMATCH", "stock_plan_id stock-plan-2019 Equity Incentive Plan issued", "1600400", "1600401"],
      ["TOTAL_MISMATCH", "stock_plan_id stock-plan-2019 Equity Incentive Plan outstanding", "1558400", "1558401"],
      ["TOTAL_MISMATCH", "stakeholder_id stakeholder-5233 issued", "16000", "16001"],
      ["TOTAL_MISMATCH", "stakeholder_id stakeholder-5233 outstanding", "16000", "16001"],
    ]);
  });

  it("exits 1 when a holder differs though every grant agrees (a record given to another stakeholder), in text, JSON and CSV", async () => {
    const pulled = await readFile(join(dir, "pulled.ndjson"), "utf8");
    const moved = pulled.split("\n").map((line) => {
      if (line === "") return line;
      const entry = JSON.parse(line) as { id?: string; issuerId?: string; record?: { stakeholderId?: string } };
      if (entry.issuerId === "7" && entry.id === "2207" && entry.record !== undefined) entry.record.stakeholderId = "5233";
      return JSON.stringify(entry);
    });
    expect(moved.join("\n")).not.toBe(pulled);
    await writeFile(join(dir, "moved.ndjson"), moved.join("\n"));
    const text = await run("--source", "moved.ndjson", join(GOLDEN, "7"));
    expect(text.code).toBe(1);
    expect(text.out).toContain("Holders that differ (2 of");
    expect(text.out).toContain("DIFFERENCES: 2 holders (every grant agrees, but not who holds it)");
    expect(text.out).not.toContain("AGREE");
    const json = await run("--source", "moved.ndjson", join(GOLDEN, "7"), "--json");
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.out) as { agree: boolean; reports: { differences: unknown[] }[] };
    expect(parsed.agree).toBe(false);
    expect(parsed.reports[0]?.differences).toEqual([]);
    const csv = await run("--source", "moved.ndjson", join(GOLDEN, "7"), "--csv");
    expect(csv.code).toBe(1);
    expect(csv.out.split("\r\n").slice(1, -1).map((row) => row.split(",").slice(0, 9).join(","))).toEqual([
      '"7","holders","","","","","stakeholder_id stakeholder-5120 shares","1900","1501900"',
      '"7","holders","","","","","stakeholder_id stakeholder-5233 shares","1516000","16000"',
    ]);
  });

  it("exits 1 for a settlement before the units it releases vested (RELEASED_BEFORE_VESTED), in text, JSON, CSV and HTML", async () => {
    // Unit 8801 vests 1000 on 2022-07-01 and settles them on 2022-07-06; here five days before they vest.
    const pulled = await readFile(join(dir, "pulled.ndjson"), "utf8");
    const early = pulled.split("\n").map((line) => {
      if (line === "") return line;
      const entry = JSON.parse(line) as { id?: string; issuerId?: string; record?: { settlements?: { settlementDate?: unknown }[] } };
      const first = entry.issuerId === "7" && entry.id === "8801" ? entry.record?.settlements?.[0] : undefined;
      if (first !== undefined) first.settlementDate = typeof first.settlementDate === "object" ? { value: "2022-06-26" } : "2022-06-26";
      return JSON.stringify(entry);
    });
    expect(early.join("\n")).not.toBe(pulled);
    await writeFile(join(dir, "early.ndjson"), early.join("\n"));
    const message = 'unit "8801": settlements[0] on 2022-06-26 brings what is released to 1000, but only 0 had vested by then';
    const text = await run("--source", "early.ndjson", join(GOLDEN, "7"));
    expect(text.code).toBe(1);
    expect(text.out).toContain(message);
    expect(text.out).toContain("RELEASED_BEFORE_VESTED");
    expect(text.out).toContain("DIFFERENCES: 1 (1 source)");
    const json = await run("--source", "early.ndjson", join(GOLDEN, "7"), "--json");
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.out) as { agree: boolean; reports: { differences: { code: string; recordId: string; field: string; expected: string; actual: string }[] }[] };
    expect(parsed.agree).toBe(false);
    expect(parsed.reports[0]?.differences.map((d) => [d.code, d.recordId, d.field, d.expected, d.actual])).toEqual([["RELEASED_BEFORE_VESTED", "8801", "settlements[0]", "1000", "0"]]);
    const csv = await run("--source", "early.ndjson", join(GOLDEN, "7"), "--csv");
    expect(csv.code).toBe(1);
    expect(csv.out.split("\r\n")[1]).toMatch(/^"7","source","RELEASED_BEFORE_VESTED","restrictedStockUnit","8801","","settlements\[0\]","1000","0","unit ""8801"": settlements\[0\] on 2022-06-26 /);
    const html = join(dir, "early.html");
    expect((await run("--source", "early.ndjson", join(GOLDEN, "7"), "--html", html)).code).toBe(1);
    expect(await readFile(html, "utf8")).toContain("<td>RELEASED_BEFORE_VESTED</td>");
  });

  it("exits 2 on unusable input and on usage errors", async () => {
    await writeFile(join(dir, "broken.ndjson"), '{"kind":"restrictedStockAward","issuerId":"7","id":"1","record":{"id":"1"}}\nnot json\n');
    const cases: [string[], string][] = [
      [["--source", "pulled.ndjson", join(dir, "no-such-package")], "PACKAGE_UNUSABLE"],
      [["--source", "missing.ndjson", join(GOLDEN, "7")], "ENOENT"],
      [["--source", "broken.ndjson", join(GOLDEN, "7")], "line 2: is not JSON"],
      [["--source", "pulled.ndjson", "--issuer", "nobody", join(GOLDEN, "7")], 'has no records of issuer "nobody"'],
      [["--source", "pulled.ndjson", join(GOLDEN, "north-wind-eu.85249f7815")], 'the package is of none of them: it is of issuer "north wind/eu" (OCF issuer id "issuer-north wind/eu")'],
      [[join(GOLDEN, "7")], "give exactly one of --source FILE"],
      [["--source", "pulled.ndjson", join(GOLDEN, "7"), "--as-of", "2025-02-30"], "--as-of must be a real date"],
      [["--source", "pulled.ndjson", join(GOLDEN, "7"), "--tolerance=-1"], "--tolerance must be a non-negative decimal"],
      [["--source", "pulled.ndjson", join(GOLDEN, "7"), "--json", "--csv"], "not both"],
      [["--base-url", server.url, join(GOLDEN, "7")], "--base-url needs --issuer"],
    ];
    for (const [argv, message] of cases) {
      const { code, err } = await run(...argv);
      expect({ argv, code }).toEqual({ argv, code: 2 });
      expect(err).toContain(message);
    }
  });

  it("chooses the package's issuer from a file with several, and takes --as-of and --tolerance", async () => {
    const { code, out } = await run("--source", "pulled.ndjson", join(GOLDEN, "7"), "--as-of", "2021-12-31", "--tolerance", "0.5");
    expect(code).toBe(0);
    expect(out).toContain("vested as of 2021-12-31; tolerance 0.5");
  });
});
