/**
 * validatePackageAt with worker threads (validate-workers.ts), or with the MD5 thread alone, against the same on one thread: on
 * valid and invalid packages the reports are equal, problem for problem and in order, whether the
 * runs of elements are all read by workers, shared between workers and this thread, or the file is
 * not JSON (read again on one thread); the MD5s computed on their own thread are the same. An abort
 * stops the validation and ends its threads.
 */
import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import type { PackageValidationReport } from "../../../src/ocf/validate-package.js";
import { validatePackageAt, validatePackageAtSharing } from "../../../src/ocf/validate-package.js";
import { DEFAULT_WORKER_MIN_FILE_BYTES } from "../../../src/ocf/validate-workers.js";
import { example } from "../../helpers/ocf-examples.js";
import {
  fixtureBytes,
  itemOf,
  resealed,
  temporaryDirectory,
  validFixture,
  writePackageFolder,
  writePackageZip,
  type PackageFixture,
} from "../../helpers/ocf-package-fixture.js";

const dirs = temporaryDirectory("ocf-sync-parallel-validate-");
type Files = Map<string, Uint8Array>;
const text = (files: Files, path: string): string => new TextDecoder().decode(files.get(path));
const bytes = (value: string): Uint8Array => new TextEncoder().encode(value);

function fixtureWith(change: (fixture: PackageFixture) => void): Files {
  const fixture = validFixture();
  change(fixture);
  return fixtureBytes(fixture);
}

/** Enough stakeholders that their file is read in several chunks of 1 MiB, so in several runs, some cut across chunks. */
function manyStakeholders(fixture: PackageFixture, count: number): void {
  const stakeholders = fixture.files.find((f) => f.fileType === "OCF_STAKEHOLDERS_FILE");
  for (let i = 0; i < count; i++) {
    stakeholders?.items.push(example("STAKEHOLDER", { id: `sh-many-${i}`, name: { legal_name: `Holder ${i}` }, comments: [`padding ${"x".repeat(i % 400)}`] }));
  }
}

const CASES: [string, () => Files][] = [
  ["the valid fixture", () => fixtureBytes(validFixture())],
  ["a dangling stakeholder", () => fixtureWith((f) => (itemOf(f, "rsa-77-issuance").stakeholder_id = "sh-404"))],
  ["a release over the issued quantity", () => fixtureWith((f) => (itemOf(f, "rsu-8550-release-1").quantity = "1600"))],
  [
    "schema issues: an extra field, a wrong type, an object of another file's type",
    () =>
      fixtureWith((f) => {
        itemOf(f, "sh-6113").custom_field = "x";
        itemOf(f, "rsa-77-issuance").quantity = 20000;
        f.files[0]?.items.push(example("STOCK_CLASS", { id: "class-in-stakeholders" }));
      }),
  ],
  ["a duplicate id", () => fixtureWith((f) => f.files[0]?.items.push(example("STAKEHOLDER", { name: { legal_name: "Pat Again" } })))],
  ["a transaction before its issuance", () => fixtureWith((f) => (itemOf(f, "rsa-77-acceptance").date = "2015-05-31"))],
  ["a vesting event naming a condition of another trigger", () => fixtureWith((f) => (itemOf(f, "rsu-8550-milestone").vesting_condition_id = "start"))],
  [
    "vesting conditions repeated and naming conditions their terms lack",
    () =>
      fixtureWith((f) => {
        const conditions = itemOf(f, "milestone-terms").vesting_conditions as Record<string, unknown>[];
        conditions.push({ ...conditions[1], next_condition_ids: ["nowhere"] });
      }),
  ],
  [
    "negative quantities and vestings over the quantity",
    () =>
      fixtureWith((f) => {
        itemOf(f, "rsa-77-repurchase").quantity = "-1";
        itemOf(f, "rsa-77-issuance").vestings = [{ date: "2016-01-01", amount: "30000" }, { date: "2016-02-01", amount: "0" }];
      }),
  ],
  ["the same-security reading, declared", () => fixtureWith((f) => (f.manifest.comments = ["Lineage: same-security"]))],
  [
    "a file changed after its MD5 was written, and a listed file missing",
    () => {
      const files = fixtureBytes(validFixture());
      files.set("Stakeholders.ocf.json", bytes(text(files, "Stakeholders.ocf.json").replace("Pat Example", "Pat Exemple")));
      files.delete("StockPlans.ocf.json");
      return files;
    },
  ],
  [
    "file_type after the items (the items are checked again as that type)",
    () => {
      const files = fixtureBytes(validFixture());
      const parsed = JSON.parse(text(files, "Stakeholders.ocf.json")) as { file_type: string; items: unknown[] };
      files.set("Stakeholders.ocf.json", bytes(JSON.stringify({ items: parsed.items, file_type: "OCF_STOCK_CLASSES_FILE" }, null, 2)));
      return resealed(files);
    },
  ],
  [
    "an element of items that is not JSON (read again on one thread)",
    () => {
      const files = fixtureBytes(validFixture());
      files.set("Transactions.ocf.json", bytes(text(files, "Transactions.ocf.json").replace('"quantity": "1600"', '"quantity": 1600,,').replace(/"quantity": "20000"/, '"quantity": 20000,')));
      return resealed(files);
    },
  ],
  [
    "a byte that is not UTF-8 inside an element (read again on one thread)",
    () => {
      const files = fixtureBytes(validFixture());
      const stakeholders = files.get("Stakeholders.ocf.json") ?? new Uint8Array();
      const broken = Uint8Array.from(stakeholders);
      broken[new TextDecoder().decode(stakeholders).indexOf("Pat Example") + 1] = 0xff;
      files.set("Stakeholders.ocf.json", broken);
      return resealed(files);
    },
  ],
  [
    "many objects over several chunks, with a duplicate id and an extra field far in",
    () =>
      fixtureWith((f) => {
        manyStakeholders(f, 6000);
        f.files[0]?.items.push(example("STAKEHOLDER", { id: "sh-many-17", name: { legal_name: "Zoë Again" } }));
        const late = f.files[0]?.items[4000];
        if (late !== undefined) late.extra = true;
      }),
  ],
];

async function folderOf(files: Files): Promise<string> {
  return writePackageFolder(dirs.fresh(), files);
}

/** The report with the runs of elements read by workers alone, and how many runs they read. */
async function byWorkers(path: string, options: { maxValueBytes?: number; workers?: number } = {}): Promise<{ report: PackageValidationReport; workerRuns: number }> {
  let workerRuns = 0;
  const report = await validatePackageAtSharing(path, { workers: 1, ...options, workerMinFileBytes: 0 }, { place: () => "worker", onRun: (where) => (workerRuns += where === "worker" ? 1 : 0) });
  return { report, workerRuns };
}

describe("validatePackageAt with worker threads", () => {
  it.each(CASES)("gives the report of one thread: %s", async (name, files) => {
    const path = await folderOf(files());
    const alone = await validatePackageAt(path, { workers: 0 });
    const { report, workerRuns } = await byWorkers(path, { workers: name.startsWith("many") ? 2 : 1 });
    expect(workerRuns).toBeGreaterThan(0);
    expect(report).toEqual(alone);
  });

  it("gives the report of one thread for a zip, whose entries are inflated in chunks of their own sizes", async () => {
    const fixture = validFixture();
    manyStakeholders(fixture, 6000);
    itemOf(fixture, "sh-many-5000").name = { legal_name: "Zoë" };
    itemOf(fixture, "sh-many-5001").extra = true;
    const path = await writePackageZip(`${dirs.fresh()}.ocf.zip`, fixtureBytes(fixture));
    const alone = await validatePackageAt(path, { workers: 0 });
    const { report, workerRuns } = await byWorkers(path);
    expect(workerRuns).toBeGreaterThan(0);
    expect(alone.problems.map((p) => p.code)).toEqual(["SCHEMA"]);
    expect(report).toEqual(alone);
  });

  it("finds problems in the invalid cases at all (the comparison is not between two empty reports)", async () => {
    const valid = new Set(["the valid fixture", "the same-security reading, declared"]);
    for (const [name, files] of CASES) {
      const report = await validatePackageAt(await folderOf(files()), { workers: 0 });
      expect([name, report.valid]).toEqual([name, valid.has(name)]);
    }
  });

  it("gives the report of one thread when a value is over the size limit (read again on one thread)", async () => {
    const path = await folderOf(fixtureWith((f) => (itemOf(f, "sh-7001").comments = ["x".repeat(20_000)])));
    const alone = await validatePackageAt(path, { workers: 0, maxValueBytes: 10_000 });
    const { report } = await byWorkers(path, { maxValueBytes: 10_000 });
    expect(alone.problems.map((p) => p.code)).toContain("VALUE_TOO_LARGE");
    expect(report).toEqual(alone);
  });

  it("shares runs between workers and this thread, with the same report", async () => {
    const path = await folderOf(
      fixtureWith((f) => {
        manyStakeholders(f, 12_000);
        itemOf(f, "sh-many-9000").extra = 1;
      }),
    );
    const alone = await validatePackageAt(path, { workers: 0 });
    const where: string[] = [];
    const place = (run: number): "worker" | "here" => (run % 3 === 1 ? "here" : "worker");
    const report = await validatePackageAtSharing(path, { workers: 1, workerMinFileBytes: 0 }, { place, onRun: (w) => where.push(w) });
    expect(where.slice(0, 3)).toEqual(["worker", "here", "worker"]);
    expect(report).toEqual(alone);
  });

  it("without workers, hashes large files on the MD5 thread (from its own reads of a folder's file, from copies of a zip's chunks), with the report of one thread", async () => {
    for (const [name, files] of CASES.filter(([n]) => n.startsWith("a file changed") || n.startsWith("many") || n.startsWith("an element"))) {
      for (const path of [await folderOf(files()), await writePackageZip(dirs.fresh(".ocf.zip"), files())]) {
        const alone = await validatePackageAt(path, { workers: 0, workerMinFileBytes: Number.POSITIVE_INFINITY });
        const threads: Worker[] = [];
        const report = await validatePackageAtSharing(path, { workers: 0, workerMinFileBytes: 0 }, { onWorker: (w) => threads.push(w) });
        expect([name, threads.length, threads.map((w) => w.threadId)]).toEqual([name, 1, [-1]]);
        expect(report).toEqual(alone);
      }
    }
  });

  it("without workers, hashes every file on this thread by default, however large (DEFAULT_WORKER_MIN_FILE_BYTES applies with workers)", async () => {
    const fixture = validFixture();
    manyStakeholders(fixture, 22000);
    const files = fixtureBytes(fixture);
    expect(files.get("Stakeholders.ocf.json")?.length).toBeGreaterThan(DEFAULT_WORKER_MIN_FILE_BYTES);
    const path = await folderOf(files);
    const threads: Worker[] = [];
    const report = await validatePackageAtSharing(path, {}, { onWorker: (w) => threads.push(w) });
    expect(threads).toHaveLength(0);
    const hashedApart = await validatePackageAtSharing(path, { workerMinFileBytes: DEFAULT_WORKER_MIN_FILE_BYTES }, { onWorker: (w) => threads.push(w) });
    expect(threads).toHaveLength(1);
    expect(hashedApart).toEqual(report);
  });

  it("reads small files on this thread alone, below workerMinFileBytes", async () => {
    const path = await folderOf(fixtureBytes(validFixture()));
    let runs = 0;
    const report = await validatePackageAtSharing(path, { workers: 2 }, { place: () => "worker", onRun: () => (runs += 1), onWorker: () => (runs += 1) });
    expect(runs).toBe(0);
    expect(report.valid).toBe(true);
  });

  /** A package large enough to be read in several chunks, a controller to abort it, the reason given, and the threads started. */
  async function toAbort(): Promise<{ path: string; controller: AbortController; reason: Error; workers: Worker[] }> {
    const fixture = validFixture();
    manyStakeholders(fixture, 6000);
    return { path: await folderOf(fixtureBytes(fixture)), controller: new AbortController(), reason: new Error("stop here"), workers: [] };
  }

  it("stops at an abort, with every thread ended", async () => {
    const { path, controller, reason, workers } = await toAbort();
    const run = validatePackageAtSharing(
      path,
      { workers: 2, workerMinFileBytes: 0, signal: controller.signal },
      { place: () => "worker", onWorker: (w) => workers.push(w), onRun: (where) => where === "worker" && controller.abort(reason) },
    );
    await expect(run).rejects.toBe(reason);
    // Two workers and the MD5 thread.
    expect(workers).toHaveLength(3);
    expect(workers.map((w) => w.threadId)).toEqual([-1, -1, -1]);
  });

  it("stops at an abort while the MD5 thread reads a file of its own, with the thread ended", async () => {
    const { path, controller, reason, workers } = await toAbort();
    const run = validatePackageAtSharing(path, { workers: 0, workerMinFileBytes: 0, signal: controller.signal }, { onWorker: (w) => (workers.push(w), controller.abort(reason)) });
    await expect(run).rejects.toBe(reason);
    expect(workers.map((w) => w.threadId)).toEqual([-1]);
  });
});
