/**
 * Defaults that never stop a valid export (issue 24): the CLI's `export` and `sync` against the sample
 * server, with units that name no share class, strict mode, and a quarantined unit's delivered shares.
 * The records are served from memory so that a test can change them between runs.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { mapIssuer } from "../../../src/mapping/map-issuer.js";
import { buildPackageFiles } from "../../../src/ocf/package-files.js";
import { loadSampleData, type SampleData } from "../../../src/sample-server/data.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { parseAward, parseUnit } from "../../../src/source/parse.js";
import { captureIo } from "../../helpers/capture.js";
import { loadPackageFolder, readPackage } from "../../helpers/independent-reader.js";
import { sourceHoldings } from "../../helpers/source-truth.js";

const GENERATED_AT = "2025-06-30T00:00:00Z";
type Wire = Record<string, unknown>;

let dir: string;
let data: SampleData;
let server: SampleServer;
/** Issuer 7 as the sample files have it, each test's starting point. */
let original: { awards: Wire[]; units: Wire[] };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-settlement-class-"));
  data = await loadSampleData();
  const seven = data.issuers.get("7");
  if (seven === undefined) throw new Error("the samples have no issuer 7");
  original = structuredClone({ awards: seven.awards as Wire[], units: seven.units as Wire[] });
  server = await startSampleServer({ port: 0, data });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Issuer 7's records, changed by `edit` (the server reads them afresh on every request). */
function serve(edit: (records: { awards: Wire[]; units: Wire[] }) => void): void {
  const records = structuredClone(original);
  edit(records);
  const seven = data.issuers.get("7") as { awards: unknown[]; units: unknown[] };
  seven.awards.splice(0, seven.awards.length, ...records.awards);
  seven.units.splice(0, seven.units.length, ...records.units);
}

/** Units 8801 and 8802 (both settle, delivering shares) without a share class. */
const classless = (records: { units: Wire[] }): void => {
  for (const unit of records.units) if (unit.id === "8801" || unit.id === "8802") delete unit.shareClassId;
};

let run = 0;
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(dir);
  const code = await runCli(argv, io);
  return { code, out: io.stdout.text, err: io.stderr.text };
}
async function exportTo(...extra: string[]): Promise<{ code: number; out: string; err: string; outDir: string }> {
  const outDir = join(dir, `out-${++run}`);
  return { ...(await cli("export", "--base-url", server.url, "--issuer", "7", "--out", outDir, "--generated-at", GENERATED_AT, "--log", "plain", "--json", ...extra)), outDir };
}
type Report = { warnings: { code: string; message: string }[]; quarantined: { recordId: string; code: string; deliveredShares?: { kept: string[]; notKept: string[] } }[] };
const reportOf = async (outDir: string): Promise<Report> => JSON.parse(await readFile(join(outDir, "7.report.json"), "utf8")) as Report;
const manifestOf = async (folder: string): Promise<{ comments: string[] }> => JSON.parse(await readFile(join(folder, "Manifest.ocf.json"), "utf8")) as { comments: string[] };
async function filesOf(folder: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of (await readdir(folder)).sort()) files.set(name, await readFile(join(folder, name), "utf8"));
  return files;
}
/** The package mapIssuer builds in memory from the records served now, as its files. */
function inMemory(): Map<string, string> {
  const seven = data.issuers.get("7") as { awards: unknown[]; units: unknown[] };
  const awards = seven.awards.map((raw) => parseAward(raw, { issuerId: "7" }).record);
  const units = seven.units.map((raw) => parseUnit(raw, { issuerId: "7" }).record);
  const mapped = mapIssuer({ issuerId: "7", awards, units }, { asOf: GENERATED_AT.slice(0, 10) });
  return new Map(buildPackageFiles(mapped, { generatedAt: GENERATED_AT }).files.map((f) => [f.path, f.content]));
}
const settledClasses = async (folder: string): Promise<string[]> => {
  const transactions = JSON.parse(await readFile(join(folder, "Transactions.ocf.json"), "utf8")) as { items: { object_type: string; security_id: string; stock_class_id?: string }[] };
  const ids = transactions.items.filter((tx) => tx.object_type === "TX_STOCK_ISSUANCE" && /^rsu-880[12]-settlement/.test(tx.security_id)).map((tx) => tx.stock_class_id);
  return [...new Set(ids)] as string[];
};

beforeEach(() => serve(() => {}));

describe("units that name no share class", () => {
  it("export with default options: the one class, said in the report and the manifest; --settlement-class settles it; --strict fails it", async () => {
    serve(classless);
    const plain = await exportTo();
    expect(plain.code, plain.err).toBe(0);
    const folder = join(plain.outDir, "7");
    expect(await settledClasses(folder)).toEqual(["stock-class-Common"]);
    const warning = (await reportOf(plain.outDir)).warnings.find((w) => w.code === "SETTLEMENT_CLASS_ASSUMED");
    expect(warning?.message).toContain('2 units (restrictedStockUnit "8801", "8802")');
    expect(warning?.message).toContain("--settlement-class NAME");
    // Said on standard error too, not only in the report.
    expect(plain.err).toContain(warning?.message);
    expect((await manifestOf(folder)).comments.filter((c) => c.startsWith("Settlement class chosen, not a fact") && c.includes("--settlement-class NAME"))).toHaveLength(1);
    // mapIssuer in memory writes the very same package.
    expect(await filesOf(folder)).toEqual(inMemory());

    const settled = await exportTo("--settlement-class", "Common");
    expect(settled.code, settled.err).toBe(0);
    expect(await settledClasses(join(settled.outDir, "7"))).toEqual(["stock-class-Common"]);
    expect((await reportOf(settled.outDir)).warnings.map((w) => w.code)).not.toContain("SETTLEMENT_CLASS_ASSUMED");
    expect((await manifestOf(join(settled.outDir, "7"))).comments.some((c) => c.startsWith("Settlement class chosen"))).toBe(false);

    const strict = await exportTo("--strict");
    expect(strict.code).toBe(1);
    const failed = JSON.parse(strict.out) as { issuers: { status: string; error: { code: string; message: string } }[] };
    expect(failed.issuers[0]?.status).toBe("failed");
    expect(failed.issuers[0]?.error.code).toBe("MAPPING_MISSING_VALUE");
    // The first of the two units the pull brings fails the issuer.
    expect(failed.issuers[0]?.error.message).toMatch(/^restrictedStockUnit "880[12]" of issuer "7", shareClassId: /);
    expect(failed.issuers[0]?.error.message).toContain("--settlement-class NAME");

    const quarantined = await exportTo("--strict", "--on-invalid", "quarantine");
    expect(quarantined.code, quarantined.err).toBe(0);
    expect((await reportOf(quarantined.outDir)).quarantined.map((q) => [q.recordId, q.code])).toEqual([
      ["8801", "MAPPING_MISSING_VALUE"],
      ["8802", "MAPPING_MISSING_VALUE"],
    ]);
  });

  it("sync writes what export writes, and a change in the issuer's classes moves the units' shares on the next pass", async () => {
    serve(classless);
    const state = join(dir, `state-${++run}.json`);
    const syncOut = join(dir, `sync-${run}`);
    const sync = () => cli("sync", "--base-url", server.url, "--issuer", "7", "--out", syncOut, "--state", state, "--generated-at", GENERATED_AT, "--log", "plain", "--json");
    const first = await sync();
    expect(first.code, first.err).toBe(0);
    const exported = await exportTo();
    expect(await filesOf(join(syncOut, "7"))).toEqual(await filesOf(join(exported.outDir, "7")));

    // An award of a second class arrives: the units now deliver into the placeholder class.
    serve((records) => {
      classless(records);
      const award = structuredClone(records.awards[0] as Wire);
      records.awards.push({ ...award, id: "2999", shareClassName: "Series A Preferred", shareClassId: "9b0f2c55-0000-4000-8000-00000000000a", lastModifiedDatetime: { value: "2025-06-01T00:00:00.000000Z" } });
    });
    const second = await sync();
    expect(second.code, second.err).toBe(0);
    expect(await settledClasses(join(syncOut, "7"))).toEqual(["stock-class-unstated-settlement-class"]);
    const again = await exportTo();
    expect(await filesOf(join(syncOut, "7"))).toEqual(await filesOf(join(again.outDir, "7")));
    expect(await filesOf(join(syncOut, "7"))).toEqual(inMemory());
    // The change set sees the move: the delivered shares' issuances changed their stock_class_id.
    const changes = JSON.parse(second.out) as { issuers: { sync: { objects: { changed: { id: string; fields: string[] }[] } } }[] };
    const moved = changes.issuers[0]?.sync.objects.changed.find((c) => c.id === "rsu-8801-settlement-1-issuance");
    expect(moved?.fields).toEqual(["stock_class_id"]);
  });
});

describe("awards that name no share class", () => {
  /** Award 2207 gives only its class id; 2208 neither name nor id. */
  const nameless = (records: { awards: Wire[] }): void => {
    for (const award of records.awards) {
      if (award.id === "2207" || award.id === "2208") delete award.shareClassName;
      if (award.id === "2208") delete award.shareClassId;
    }
  };
  const classOf = async (folder: string, security: string): Promise<string | undefined> => {
    const transactions = JSON.parse(await readFile(join(folder, "Transactions.ocf.json"), "utf8")) as { items: { id: string; stock_class_id?: string }[] };
    return transactions.items.find((tx) => tx.id === `${security}-issuance`)?.stock_class_id;
  };

  it("export with default options: the class the id names, else the one class, said; mapIssuer and sync write the same package; --strict fails it", async () => {
    serve(nameless);
    const plain = await exportTo();
    expect(plain.code, plain.err).toBe(0);
    const folder = join(plain.outDir, "7");
    expect([await classOf(folder, "rsa-2207"), await classOf(folder, "rsa-2208")]).toEqual(["stock-class-Common", "stock-class-Common"]);
    const warning = (await reportOf(plain.outDir)).warnings.find((w) => w.code === "SETTLEMENT_CLASS_ASSUMED");
    expect(warning?.message).toContain('1 award (restrictedStockAward "2208") names no share class (shareClassName, shareClassId)');
    expect(warning?.message).toContain("--settlement-class NAME");
    expect((await manifestOf(folder)).comments.filter((c) => c.startsWith("Share class chosen, not a fact"))).toHaveLength(1);
    expect(await filesOf(folder)).toEqual(inMemory());

    const state = join(dir, `state-${++run}.json`);
    const syncOut = join(dir, `sync-${run}`);
    const synced = await cli("sync", "--base-url", server.url, "--issuer", "7", "--out", syncOut, "--state", state, "--generated-at", GENERATED_AT, "--log", "plain");
    expect(synced.code, synced.err).toBe(0);
    expect(await filesOf(join(syncOut, "7"))).toEqual(await filesOf(folder));

    // An award of a second class arrives: 2208 now goes to the placeholder class, on the next pass too.
    serve((records) => {
      nameless(records);
      const award = structuredClone(records.awards[0] as Wire);
      records.awards.push({ ...award, id: "2999", shareClassName: "Series A Preferred", shareClassId: "9b0f2c55-0000-4000-8000-00000000000a", lastModifiedDatetime: { value: "2025-06-01T00:00:00.000000Z" } });
    });
    const second = await cli("sync", "--base-url", server.url, "--issuer", "7", "--out", syncOut, "--state", state, "--generated-at", GENERATED_AT, "--log", "plain", "--json");
    expect(second.code, second.err).toBe(0);
    expect([await classOf(join(syncOut, "7"), "rsa-2207"), await classOf(join(syncOut, "7"), "rsa-2208")]).toEqual(["stock-class-Common", "stock-class-unstated-settlement-class"]);
    expect(await filesOf(join(syncOut, "7"))).toEqual(inMemory());
    expect(await filesOf(join(syncOut, "7"))).toEqual(await filesOf(join((await exportTo()).outDir, "7")));
    const changes = JSON.parse(second.out) as { issuers: { sync: { objects: { changed: { id: string; fields: string[] }[] } } }[] };
    expect(changes.issuers[0]?.sync.objects.changed.find((c) => c.id === "rsa-2208-issuance")?.fields).toEqual(["stock_class_id"]);
    serve(nameless);

    const strict = await exportTo("--strict");
    expect(strict.code).toBe(1);
    const failed = JSON.parse(strict.out) as { issuers: { error: { code: string; message: string } }[] };
    expect(failed.issuers[0]?.error.code).toBe("MAPPING_MISSING_VALUE");
    expect(failed.issuers[0]?.error.message).toMatch(/^restrictedStockAward "2208" of issuer "7", shareClassName: /);
    expect(failed.issuers[0]?.error.message).toContain("--settlement-class NAME");
  });
});

describe("a share class id named two ways", () => {
  it("export settles it by the stated rule, says so, and writes what mapIssuer and sync write; --strict fails it", async () => {
    // The last award in canonical order names issuer 7's one class id otherwise: "Common" (the first award's) is kept.
    const renamed = (records: { awards: Wire[] }): void => {
      const last = [...records.awards].sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1)).at(-1) as Wire;
      last.shareClassName = "Common Stock";
    };
    serve(renamed);
    const plain = await exportTo();
    expect(plain.code, plain.err).toBe(0);
    const folder = join(plain.outDir, "7");
    const warning = (await reportOf(plain.outDir)).warnings.find((w) => w.code === "STOCK_CLASS_NAME_CHOSEN");
    expect(warning?.message).toContain('"Common Stock" by restrictedStockAward');
    expect(warning?.message).toContain('all its shares are put in "Common"');
    expect((await manifestOf(folder)).comments.some((c) => c.startsWith("Class name chosen, not a fact"))).toBe(true);
    const classes = JSON.parse(await readFile(join(folder, "StockClasses.ocf.json"), "utf8")) as { items: { id: string }[] };
    expect(classes.items.map((c) => c.id)).toEqual(["stock-class-Common"]);
    expect(await filesOf(folder)).toEqual(inMemory());
    const syncOut = join(dir, `sync-${++run}`);
    const synced = await cli("sync", "--base-url", server.url, "--issuer", "7", "--out", syncOut, "--state", join(dir, `state-${run}.json`), "--generated-at", GENERATED_AT, "--log", "plain");
    expect(synced.code, synced.err).toBe(0);
    expect(await filesOf(join(syncOut, "7"))).toEqual(await filesOf(folder));

    const strict = await exportTo("--strict");
    expect(strict.code).toBe(1);
    expect((JSON.parse(strict.out) as { issuers: { error: { code: string } }[] }).issuers[0]?.error.code).toBe("MAPPING_CONFLICT");
  });
});

describe("a quarantined unit", () => {
  it("keeps the shares its settlements delivered: the issuer's total is the source's, and the report says so", async () => {
    // 3000 units released of a grant of 2500: the unit's chain cannot be written.
    serve((records) => {
      const unit = records.units.find((u) => u.id === "8801") as Wire;
      unit.quantity = { value: "2500" };
    });
    const result = await exportTo("--on-invalid", "quarantine");
    expect(result.code, result.err).toBe(0);
    const [entry] = (await reportOf(result.outDir)).quarantined;
    expect(entry?.recordId).toBe("8801");
    expect(entry?.deliveredShares).toEqual({ kept: ["rsu-8801-settlement-1", "rsu-8801-settlement-2", "rsu-8801-settlement-2-sold", "rsu-8801-settlement-3"], notKept: [] });
    const seven = data.issuers.get("7") as { awards: unknown[]; units: unknown[] };
    const source = sourceHoldings({
      awards: seven.awards.map((raw) => parseAward(raw, { issuerId: "7" }).record),
      units: seven.units.map((raw) => parseUnit(raw, { issuerId: "7" }).record),
    });
    const reader = readPackage(await loadPackageFolder(join(result.outDir, "7")), "documents");
    expect(reader.totalShares.toString()).toBe(source.totalShares.toString());
    // A sync keeps them too (it stores them with the unmappable unit): the same package.
    const syncOut = join(dir, `sync-${++run}`);
    const synced = await cli("sync", "--base-url", server.url, "--issuer", "7", "--out", syncOut, "--state", join(dir, `state-${run}.json`), "--generated-at", GENERATED_AT, "--on-invalid", "quarantine", "--log", "plain");
    expect(synced.code, synced.err).toBe(0);
    expect(await filesOf(join(syncOut, "7"))).toEqual(await filesOf(join(result.outDir, "7")));
  });
});
