/**
 * The streaming package writer against the in-memory builder: for any records (added in any order,
 * some replaced by later copies, some withdrawn), any sort-run size (from one object per run to all
 * in memory) and any file bound, the files on disk are exactly `buildPackageFiles` of the live
 * objects in canonical order, split at the same bound; and no spool file is left behind.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareById, sortTransactions } from "../../../src/ocf/order.js";
import { buildPackageFiles, itemText, itemTexts, packageFileName } from "../../../src/ocf/package-files.js";
import { StreamingPackageWriter, makeDurable, type PackageHead } from "../../../src/ocf/package-writer.js";
import type { OcfTransaction, OcfVestingTerms } from "../../../src/ocf/schemas.js";
import { example } from "../../helpers/ocf-examples.js";

let root = "";
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "ocf-sync-writer-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
let cases = 0;

const GENERATED_AT = "2025-06-30T12:00:00Z";
const head: PackageHead = {
  issuer: example("ISSUER") as unknown as PackageHead["issuer"],
  asOf: "2025-06-30",
  stakeholders: [example("STAKEHOLDER"), example("STAKEHOLDER", { id: "sh-7001" })] as unknown as PackageHead["stakeholders"],
  stockClasses: [example("STOCK_CLASS")] as unknown as PackageHead["stockClasses"],
  stockPlans: [example("STOCK_PLAN")] as unknown as PackageHead["stockPlans"],
};

const KINDS = ["TX_STOCK_ISSUANCE", "TX_STOCK_ACCEPTANCE", "TX_VESTING_START", "TX_STOCK_REPURCHASE", "TX_STOCK_PLAN_RETURN_TO_POOL"] as const;

/** A record: its transactions (a few kinds, dates and sizes, some non-ASCII) and maybe vesting terms. */
const record = (n: number) =>
  fc.record({
    transactions: fc.array(
      fc.record({
        kind: fc.constantFrom(...KINDS),
        day: fc.integer({ min: 1, max: 4 }),
        comment: fc.string({ unit: "grapheme", maxLength: 200 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    terms: fc.boolean(),
  }).map(({ transactions, terms }) => ({
    transactions: transactions.map(
      ({ kind, day, comment }, i) => example(kind, { id: `r${n}-tx${i}`, security_id: `r${n}`, date: `2020-01-0${day}`, comments: [comment] }) as unknown as OcfTransaction,
    ),
    vestingTerms: terms ? [example("VESTING_TERMS", { id: `terms-r${n}` }) as unknown as OcfVestingTerms] : [],
  }));

/** What happens to each record: added once, replaced by a later copy, or withdrawn. */
const fate = fc.constantFrom("kept", "replaced", "withdrawn", "replaced-then-withdrawn");

async function written(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of (await readdir(dir)).sort()) files.set(name, await readFile(join(dir, name), "utf8"));
  return files;
}

describe("StreamingPackageWriter", () => {
  it("writes exactly buildPackageFiles of the live objects, in canonical order, split at the same bound", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(), fate), { minLength: 1, maxLength: 25 }).chain((fates) =>
          fc.record({
            records: fc.tuple(...fates.map((_, n) => record(n))),
            fates: fc.constant(fates.map(([, f]) => f)),
            order: fc.shuffledSubarray([...fates.keys()], { minLength: fates.length, maxLength: fates.length }),
            runBytes: fc.constantFrom(1, 500, 5_000, 1 << 24),
            maxFileBytes: fc.constantFrom(1, 800, 3_000, 20_000, 64 << 20),
          }),
        ),
        async ({ records, fates, order, runBytes, maxFileBytes }) => {
          const dir = join(root, `case-${++cases}`);
          await mkdir(dir);
          const writer = await StreamingPackageWriter.open(dir, { runBytes, maxFileBytes });
          const withdrawn: string[] = [];
          for (const n of order) {
            const r = records[n];
            const key = `record-${n}`;
            if (r === undefined) continue;
            const fateOf = fates[n];
            if (fateOf === "replaced" || fateOf === "replaced-then-withdrawn") {
              // A stale copy first, with other content, then the copy that counts.
              await writer.addRecord(key, r.transactions.map((tx) => ({ ...tx, comments: ["stale copy"] })), r.vestingTerms);
              writer.retract(key);
            }
            await writer.addRecord(key, r.transactions, r.vestingTerms);
            if (fateOf === "withdrawn" || fateOf === "replaced-then-withdrawn") withdrawn.push(key);
          }
          for (const key of withdrawn) writer.retract(key);
          const finished = await writer.finish(head, { generatedAt: GENERATED_AT });

          const live = records.filter((_, n) => fates[n] === "kept" || fates[n] === "replaced");
          const transactions = sortTransactions(live.flatMap((r) => r.transactions));
          const expected = buildPackageFiles(
            { ...head, transactions, vestingTerms: live.flatMap((r) => r.vestingTerms).sort(compareById) },
            { generatedAt: GENERATED_AT, maxFileBytes },
          );
          const onDisk = await written(dir);
          expect([...onDisk.keys()]).toEqual(expected.files.map((f) => f.path).sort());
          for (const file of expected.files) expect(onDisk.get(file.path), file.path).toBe(file.content);
          expect(finished.manifest).toEqual(expected.manifest);
          expect(finished.files.map((f) => [f.path, f.md5])).toEqual(expected.files.map((f) => [f.path, f.md5]));
          expect(finished.transactions).toBe(transactions.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("splits lists in order across files named Transactions.ocf.json, Transactions.2.ocf.json, …, each within the bound", () => {
    const transactions = sortTransactions(
      Array.from({ length: 40 }, (_, i) => example("TX_STOCK_ACCEPTANCE", { id: `acc-${String(i).padStart(2, "0")}`, date: `2020-02-${String((i % 28) + 1).padStart(2, "0")}` }) as unknown as OcfTransaction),
    );
    const bound = 1_000;
    const { manifest, files } = buildPackageFiles({ ...head, transactions, vestingTerms: [] }, { generatedAt: GENERATED_AT, maxFileBytes: bound });
    const parts = files.filter((f) => f.path.startsWith("Transactions"));
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.map((f) => f.path)).toEqual(parts.map((_, i) => packageFileName("transactions", i + 1)));
    expect(parts[0]?.path).toBe("Transactions.ocf.json");
    expect(parts[1]?.path).toBe("Transactions.2.ocf.json");
    expect(manifest.transactions_files).toEqual(parts.map((f) => ({ filepath: f.path, md5: f.md5 })));
    for (const part of parts) {
      expect(Buffer.byteLength(part.content)).toBeLessThanOrEqual(bound);
      expect(JSON.parse(part.content)).toMatchObject({ file_type: "OCF_TRANSACTIONS_FILE" });
    }
    const items = parts.flatMap((f) => (JSON.parse(f.content) as { items: OcfTransaction[] }).items);
    expect(items).toEqual(transactions);
  });

  it("keeps a list in one file up to the byte at the bound, and splits it one byte below: the same text either way", () => {
    const transactions = sortTransactions(
      Array.from({ length: 12 }, (_, i) => example("TX_STOCK_ACCEPTANCE", { id: `acc-${i}`, date: "2020-03-01", comments: [`naïve ${"é".repeat(i)}`] }) as unknown as OcfTransaction),
    );
    const content = { ...head, transactions, vestingTerms: [] };
    const whole = buildPackageFiles(content, { generatedAt: GENERATED_AT }).files.find((f) => f.path === "Transactions.ocf.json");
    const bytes = Buffer.byteLength(whole?.content ?? "");
    const atBound = buildPackageFiles(content, { generatedAt: GENERATED_AT, maxFileBytes: bytes }).files.filter((f) => f.path.startsWith("Transactions"));
    expect(atBound.map((f) => f.content)).toEqual([whole?.content]);
    const below = buildPackageFiles(content, { generatedAt: GENERATED_AT, maxFileBytes: bytes - 1 }).files.filter((f) => f.path.startsWith("Transactions"));
    expect(below).toHaveLength(2);
    for (const part of below) expect(Buffer.byteLength(part.content)).toBeLessThan(bytes);
    expect(below.flatMap((f) => (JSON.parse(f.content) as { items: OcfTransaction[] }).items)).toEqual(transactions);
    // The first part is the whole file's text with its last object moved on.
    const last = JSON.stringify(transactions.at(-1), null, 2).replaceAll("\n", "\n    ");
    expect(below[0]?.content).toBe((whole?.content ?? "").replace(`,\n    ${last}\n`, "\n"));
  });

  it("gives an object larger than the bound a file of its own", () => {
    const big = example("TX_STOCK_ACCEPTANCE", { id: "big", comments: ["x".repeat(5_000)] }) as unknown as OcfTransaction;
    const small = example("TX_STOCK_ACCEPTANCE", { id: "small", date: "2015-06-06" }) as unknown as OcfTransaction;
    const { files } = buildPackageFiles({ ...head, transactions: [big, small], vestingTerms: [] }, { generatedAt: GENERATED_AT, maxFileBytes: 1_000 });
    const parts = files.filter((f) => f.path.startsWith("Transactions"));
    expect(parts.map((f) => (JSON.parse(f.content) as { items: { id: string }[] }).items.map((i) => i.id))).toEqual([["big"], ["small"]]);
  });

  it("leaves no spool run behind, also when a run was written and the writer is discarded", async () => {
    const dir = join(root, `case-${++cases}`);
    await mkdir(dir);
    const writer = await StreamingPackageWriter.open(dir, { runBytes: 1 });
    await writer.addRecord("a", [example("TX_STOCK_ACCEPTANCE") as unknown as OcfTransaction], []);
    await writer.addRecord("b", [example("TX_STOCK_ACCEPTANCE", { id: "b" }) as unknown as OcfTransaction], []);
    expect((await readdir(dir)).filter((n) => n.includes(".run-")).length).toBeGreaterThan(0);
    await writer.discardSpools();
    expect(await readdir(dir)).toEqual([]);
  });

  it("with durable: false writes the same files, and makeDurable flushes them after (an error is answered, not thrown)", async () => {
    const dir = join(root, `case-${++cases}`);
    await mkdir(dir);
    const writer = await StreamingPackageWriter.open(dir);
    await writer.addRecord("a", [example("TX_STOCK_ACCEPTANCE") as unknown as OcfTransaction], []);
    const { files } = await writer.finish(head, { generatedAt: GENERATED_AT, durable: false });
    const built = buildPackageFiles({ ...head, transactions: [example("TX_STOCK_ACCEPTANCE") as unknown as OcfTransaction], vestingTerms: [] }, { generatedAt: GENERATED_AT }).files;
    for (const file of built) expect(await readFile(join(dir, file.path), "utf8")).toBe(file.content);
    expect(files.map((f) => f.path).sort()).toEqual(built.map((f) => f.path).sort());
    expect(await makeDurable(dir, files)).toBeUndefined();
    const missing = (await makeDurable(dir, [...files, { path: "Missing.ocf.json" }])) as NodeJS.ErrnoException;
    expect(missing.code).toBe("ENOENT");
  });
});

describe("itemTexts", () => {
  it("gives each object's itemText, from one JSON.stringify of them all", () => {
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("\n    },\n    {", "    }", "}", "\n"));
    const object = fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
    fc.assert(
      fc.property(fc.array(object, { maxLength: 6 }), (objects) => {
        expect(itemTexts(objects)).toEqual(objects.map(itemText));
      }),
      { numRuns: 1000 },
    );
  });

  it("splits OCF objects of the examples one by one", () => {
    const objects = [example("TX_STOCK_ISSUANCE"), example("TX_VESTING_START"), example("VESTING_TERMS")];
    expect(itemTexts(objects)).toEqual(objects.map(itemText));
  });
});
