/**
 * readOcfPackage, the typed streaming reader: its types narrow on object_type; every sample package
 * (folder and zip) reads back as exactly the objects of its files, in order; a package far larger
 * than the reader's memory reads with flat memory; and what is not what its type says stops the read
 * with an OcfReadError naming the file, the index and the field.
 */
import { createHash } from "node:crypto";
import { open, readFile, readdir, writeFile } from "node:fs/promises";
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type {
  OcfEquityCompensationIssuance,
  OcfPackageObject,
  OcfStakeholder,
  OcfStockIssuance,
  OcfTransaction,
  OcfUnschemedTransactionType,
  UnknownOcfObject,
} from "../../../src/ocf/types.js";
import { MANIFEST_FILE_LIST_KEYS, PackageUnusableError } from "../../../src/ocf/package-reader.js";
import { OcfReadError, isOcfReadError, readOcfPackage, type OcfPackageFileEntry, type OcfPackageReader } from "../../../src/ocf/typed-reader.js";
import { LEGACY_OBJECT_TYPES, OBJECT_TYPES, UNSCHEMED_TRANSACTION_TYPES } from "../../../src/ocf/schemas.js";
import { describeConformance } from "../../helpers/conformance.js";
import { officialSamplesDir } from "../../helpers/official-ocf.js";
import { example, exampleManifest } from "../../helpers/ocf-examples.js";
import {
  fixtureBytes,
  md5,
  resealed,
  temporaryDirectory,
  validFixture,
  withManifest,
  writePackageFolder,
  writePackageZip,
  type PackageFixture,
} from "../../helpers/ocf-package-fixture.js";

const SAMPLES = resolve(import.meta.dirname, "../../../samples/ocf");
const { fresh } = temporaryDirectory("ocf-sync-typed-");


async function collect<T>(objects: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const object of objects) all.push(object);
  return all;
}

/** The objects read before the read failed, and the error. */
async function readUntilFailure(objects: AsyncIterable<OcfPackageObject>): Promise<{ read: OcfPackageObject[]; error: OcfReadError }> {
  const read: OcfPackageObject[] = [];
  try {
    for await (const object of objects) read.push(object);
  } catch (error) {
    expect(isOcfReadError(error)).toBe(true);
    return { read, error: error as OcfReadError };
  }
  throw new Error("the read did not fail");
}

/** The package's files as the test reads them itself: the items of each listed file, once each, in list order. */
async function itemsOnDisk(dir: string): Promise<{ path: string; items: unknown[] }[]> {
  const manifest = JSON.parse(await readFile(join(dir, "Manifest.ocf.json"), "utf8")) as Record<string, { filepath: string }[] | undefined>;
  const files: { path: string; items: unknown[] }[] = [];
  // In the manifest schema's list order (pinned in validate-package.test.ts): the order a package is read in.
  for (const list of MANIFEST_FILE_LIST_KEYS) {
    for (const { filepath } of manifest[list] ?? []) {
      if (files.some((f) => f.path === filepath)) continue;
      const file = JSON.parse(await readFile(join(dir, filepath), "utf8")) as { items: unknown[] };
      files.push({ path: filepath, items: file.items });
    }
  }
  return files;
}

async function packageBytes(dir: string): Promise<Map<string, Uint8Array>> {
  const names = await readdir(dir);
  return new Map(await Promise.all(names.map(async (name) => [name, new Uint8Array(await readFile(join(dir, name)))] as const)));
}

describe("the types", () => {
  it("narrow on object_type, to one interface for each, legacy spellings included; unmodelled kinds are their own variant", () => {
    // Checked by the type checker (`tsc` covers the tests): each branch holds exactly one interface.
    const narrow = (object: OcfPackageObject): string => {
      switch (object.object_type) {
        case "TX_STOCK_ISSUANCE":
          expectTypeOf(object).toEqualTypeOf<OcfStockIssuance>();
          return object.quantity;
        case "TX_EQUITY_COMPENSATION_ISSUANCE":
        case "TX_PLAN_SECURITY_ISSUANCE":
          expectTypeOf(object).toEqualTypeOf<OcfEquityCompensationIssuance>();
          return object.compensation_type;
        case "STAKEHOLDER":
          expectTypeOf(object).toEqualTypeOf<OcfStakeholder>();
          return object.name.legal_name;
        case "TX_WARRANT_ISSUANCE":
        case "FINANCING":
          expectTypeOf(object).toEqualTypeOf<UnknownOcfObject>();
          expectTypeOf(object.object_type).toEqualTypeOf<"TX_WARRANT_ISSUANCE" | "FINANCING">();
          expectTypeOf(object.quantity).toEqualTypeOf<unknown>();
          return object.id;
        default:
          return object.id;
      }
    };
    expectTypeOf<Extract<OcfPackageObject, { object_type: "ISSUER" }>>().toEqualTypeOf<never>();
    expectTypeOf<Extract<OcfPackageObject, { object_type: "TX_VESTING_START" }>>().toHaveProperty("vesting_condition_id");
    const entry = { path: "Stakeholders.ocf.json", fileType: "OCF_STAKEHOLDERS_FILE", manifestKey: "stakeholders_files", md5: "" } as const;
    expectTypeOf(entry).toExtend<OcfPackageFileEntry>();
    expectTypeOf<OcfPackageReader["objectsOf"]>().toBeFunction();
    expectTypeOf<ReturnType<typeof readObjectsOfStakeholders>>().toEqualTypeOf<AsyncIterable<OcfStakeholder>>();
    expectTypeOf<ReturnType<typeof readObjectsOfTransactions>>().toEqualTypeOf<AsyncIterable<OcfTransaction | UnknownOcfObject<OcfUnschemedTransactionType>>>();
    const issuance = example("TX_STOCK_ISSUANCE") as unknown as OcfStockIssuance;
    expect(narrow(issuance)).toBe(issuance.quantity);
    expect(narrow({ object_type: "FINANCING", id: "fin-1" })).toBe("fin-1");
  });
});

/** Type-level helpers: the objects of one file, typed by its entry's file type. */
function readObjectsOfStakeholders(pkg: OcfPackageReader, entry: Extract<OcfPackageFileEntry, { fileType: "OCF_STAKEHOLDERS_FILE" }>) {
  return pkg.objectsOf(entry);
}
function readObjectsOfTransactions(pkg: OcfPackageReader, entry: Extract<OcfPackageFileEntry, { fileType: "OCF_TRANSACTIONS_FILE" }>) {
  return pkg.objectsOf(entry);
}

describe("every sample package", () => {
  const samples = readdirSync(SAMPLES).sort();

  it.each(samples)("%s: the folder and its zip yield exactly the objects of its files, in order, file by file too", async (name) => {
    const dir = join(SAMPLES, name);
    const files = await itemsOnDisk(dir);
    const expected = files.flatMap((f) => f.items);
    const zip = await writePackageZip(fresh(".ocf.zip"), await packageBytes(dir));
    for (const path of [dir, zip]) {
      const pkg = await readOcfPackage(path);
      expect(pkg.container).toBe(path === zip ? "zip" : "folder");
      expect(pkg.manifest).toEqual(JSON.parse(await readFile(join(dir, "Manifest.ocf.json"), "utf8")));
      expect(pkg.files.map((f) => f.path)).toEqual(files.map((f) => f.path));
      expect(await collect(pkg.objects())).toEqual(expected);
      for (const [i, entry] of pkg.files.entries()) expect(await collect(pkg.objectsOf(entry))).toEqual(files[i]?.items);
    }
  });
});

describe("objects ocf-sync does not model", () => {
  it("are yielded as written, in their place: unschemed transactions, legacy spellings, financings", async () => {
    const fixture = validFixture();
    const transactions = fixture.files[4] as PackageFixture["files"][number];
    const warrant = { object_type: "TX_WARRANT_ISSUANCE", id: "w-1", security_id: "w-1", date: "2016-01-01", quantity: "100", anything: { nested: true } };
    const legacy = { ...example("TX_EQUITY_COMPENSATION_ISSUANCE", { id: "legacy-1", security_id: "legacy-1" }), object_type: "TX_PLAN_SECURITY_ISSUANCE" };
    transactions.items.splice(2, 0, warrant, legacy);
    const financing = { object_type: "FINANCING", id: "fin-1", name: "Series A" };
    fixture.files.push({ path: "Financings.ocf.json", key: "financings_files", fileType: "OCF_FINANCINGS_FILE", items: [financing] });
    const dir = await writePackageFolder(fresh(), fixtureBytes(fixture));
    const read = await collect((await readOcfPackage(dir)).objects());
    const expected = (await itemsOnDisk(dir)).flatMap((f) => f.items);
    expect(read).toEqual(expected);
    expect(read).toContainEqual(warrant);
    expect(read).toContainEqual(legacy);
    expect(read.at(-1)).toEqual(financing);
  });
});

describeConformance("the official sample package", () => {
  it("reads as exactly its files' objects: the kinds ocf-sync models checked, the others (adjustments, exercises, warrants, financings) as UnknownOcfObject", async () => {
    // Its manifest's MD5s are not those of its files (the samples were edited after): resealed in a copy,
    // the files keyed as the manifest names them ("./StockPlans.ocf.json") for `resealed` to find.
    const source = officialSamplesDir();
    const manifest = JSON.parse(await readFile(join(source, "Manifest.ocf.json"), "utf8")) as Record<string, unknown>;
    const listed = Object.entries(manifest).flatMap(([key, list]) => (key.endsWith("_files") && Array.isArray(list) ? (list as { filepath: string }[]).map((f) => f.filepath) : []));
    const files = new Map<string, Uint8Array>([["Manifest.ocf.json", new Uint8Array(await readFile(join(source, "Manifest.ocf.json")))]]);
    for (const path of listed) files.set(path, new Uint8Array(await readFile(join(source, path))));
    const dir = await writePackageFolder(fresh(), resealed(files));
    const read = await collect((await readOcfPackage(dir)).objects());
    expect(read).toEqual((await itemsOnDisk(dir)).flatMap((f) => f.items));
    const unmodelled = new Set(read.filter((o) => !OBJECT_TYPES.includes(o.object_type as never) && !Object.hasOwn(LEGACY_OBJECT_TYPES, o.object_type)).map((o) => o.object_type));
    expect(unmodelled).toContain("FINANCING");
    expect([...unmodelled].filter((t) => t !== "FINANCING").every((t) => UNSCHEMED_TRANSACTION_TYPES.has(t))).toBe(true);
    expect(unmodelled.size).toBeGreaterThan(3);
  });
});

describe("a package far larger than the reader's memory", () => {
  it("is read with flat memory: what is held while reading stays a small part of the file", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const fixture = validFixture();
    fixture.files = fixture.files.filter((f) => f.fileType !== "OCF_TRANSACTIONS_FILE");
    const dir = await writePackageFolder(fresh(), fixtureBytes(fixture));
    // 60,000 issuances of a few hundred bytes each, written in slices: about 60 MB.
    const count = 60_000;
    const base = example("TX_STOCK_ISSUANCE");
    const hash = createHash("md5");
    const handle = await open(join(dir, "Transactions.ocf.json"), "w");
    const write = async (text: string): Promise<void> => {
      const bytes = Buffer.from(text);
      hash.update(bytes);
      await handle.write(bytes);
    };
    await write('{\n  "file_type": "OCF_TRANSACTIONS_FILE",\n  "items": [\n');
    for (let start = 0; start < count; start += 1000) {
      const slice = Array.from({ length: 1000 }, (_, k) => {
        const i = start + k;
        const item = { ...base, id: `tx-${i}`, security_id: `s-${i}`, quantity: String(i + 1), comments: [`issuance ${i} of ${count}, padded to weigh what a real one does: ${"x".repeat(600)}`] };
        return JSON.stringify(item, null, 2).replace(/^/gm, "    ");
      });
      await write(`${slice.join(",\n")}${start + 1000 < count ? "," : ""}\n`);
    }
    await write("  ]\n}\n");
    await handle.close();
    await writeFile(
      join(dir, "Manifest.ocf.json"),
      JSON.stringify({ ...JSON.parse(await readFile(join(dir, "Manifest.ocf.json"), "utf8")), transactions_files: [{ filepath: "Transactions.ocf.json", md5: hash.digest("hex") }] }),
    );
    const fileBytes = (await readFile(join(dir, "Transactions.ocf.json"))).length;
    expect(fileBytes).toBeGreaterThan(50_000_000);

    const pkg = await readOcfPackage(dir);
    gc();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    let issuances = 0;
    let total = 0n;
    for await (const object of pkg.objects()) {
      if (object.object_type !== "TX_STOCK_ISSUANCE") continue;
      issuances += 1;
      total += BigInt(object.quantity);
      if (issuances % 5000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      }
    }
    expect(issuances).toBe(count);
    expect(total).toBe(BigInt((count * (count + 1)) / 2));
    // One chunk's objects at a time: a few megabytes, where holding the file's objects takes several times the file.
    expect(peak).toBeLessThan(fileBytes / 6);
  }, 300_000);
});

describe("what is not what its type says", () => {
  const fixtureFolder = async (change: (fixture: PackageFixture) => void): Promise<string> => {
    const fixture = validFixture();
    change(fixture);
    return writePackageFolder(fresh(), fixtureBytes(fixture));
  };
  const transactionsOf = (fixture: PackageFixture) => (fixture.files[4] as PackageFixture["files"][number]).items;
  /** The number of objects the fixture's files hold before its transactions file's `index`th item. */
  const before = (fixture: PackageFixture, index: number): number =>
    fixture.files.filter((f) => ["OCF_STOCK_PLANS_FILE", "OCF_STOCK_CLASSES_FILE", "OCF_VESTING_TERMS_FILE"].includes(f.fileType)).reduce((n, f) => n + f.items.length, 0) + index;

  it("an object that does not conform: its file, index, id and field, after the objects before it", async () => {
    const fixture = validFixture();
    const items = transactionsOf(fixture);
    items[3] = { ...items[3], quantity: "ten" };
    const dir = await writePackageFolder(fresh(), fixtureBytes(fixture));
    const { read, error } = await readUntilFailure((await readOcfPackage(dir)).objects());
    expect(read.length).toBe(before(fixture, 3));
    expect(error).toBeInstanceOf(OcfReadError);
    expect(error).toMatchObject({ code: "OCF_OBJECT_INVALID", file: "Transactions.ocf.json", index: 3, itemId: "rsa-77-repurchase", jsonPath: "$.items[3].quantity" });
    expect(error.issues.map((i) => i.path)).toEqual(["$.items[3].quantity"]);
    expect(error.message).toBe(`${dir}: Transactions.ocf.json $.items[3].quantity (object "rsa-77-repurchase") ${error.issues[0]?.message}`);
  });

  it("an object of another file, of a kind OCF does not have, or unmodelled without an id", async () => {
    const cases: [unknown, string, RegExp][] = [
      [example("STAKEHOLDER"), "$.items[0].object_type", /not one allowed here \(transactions only\)/],
      [{ ...example("TX_STOCK_ACCEPTANCE"), object_type: "TX_STOCK_ACCEPTANCES" }, "$.items[0].object_type", /not an OCF 1\.2\.0 object type \(did you mean "TX_STOCK_ACCEPTANCE"\?\)/],
      [{ object_type: "TX_WARRANT_ISSUANCE", security_id: "w" }, "$.items[0].id", /is required/],
      [[1, 2], "$.items[0]", /must be an object/],
    ];
    for (const [item, jsonPath, message] of cases) {
      const dir = await fixtureFolder((f) => transactionsOf(f).unshift(item as Record<string, unknown>));
      const { error } = await readUntilFailure((await readOcfPackage(dir)).objects());
      expect(error).toMatchObject({ code: "OCF_OBJECT_INVALID", file: "Transactions.ocf.json", index: 0, jsonPath });
      expect(error.message).toMatch(message);
    }
  });

  it("a file that is not the one the manifest describes: its MD5 after its objects, its file type, a missing or non-JSON file", async () => {
    const files = fixtureBytes(validFixture());
    const stakeholders = files.get("Stakeholders.ocf.json") as Uint8Array;
    // Same objects, other bytes: the objects are yielded, then the MD5 is found wrong.
    const respaced = new Map([...files, ["Stakeholders.ocf.json", new TextEncoder().encode(`${new TextDecoder().decode(stakeholders)} `)]]);
    const md5Case = await readUntilFailure((await readOcfPackage(await writePackageFolder(fresh(), respaced))).objects());
    expect(md5Case.read.at(-1)).toMatchObject({ object_type: "STAKEHOLDER", id: "sh-7001" });
    expect(md5Case.error).toMatchObject({ code: "OCF_MD5_MISMATCH", file: "Stakeholders.ocf.json", jsonPath: "$" });
    expect(md5Case.error.message).toContain(`but the manifest gives ${md5(stakeholders)} (stakeholders_files)`);

    const cases: [Map<string, Uint8Array>, string, string, RegExp][] = [
      [resealed(new Map([...files, ["Stakeholders.ocf.json", new TextEncoder().encode('{"file_type":"OCF_STOCK_CLASSES_FILE","items":[]}')]])), "OCF_WRONG_FILE_TYPE", "$.file_type", /must be "OCF_STAKEHOLDERS_FILE" \(the manifest lists the file in stakeholders_files\), got "OCF_STOCK_CLASSES_FILE"/],
      [resealed(new Map([...files, ["Stakeholders.ocf.json", new TextEncoder().encode('{"file_type":"OCF_STAKEHOLDERS_FILE"}')]])), "OCF_WRONG_FILE_TYPE", "$.items", /is required, as a list/],
      [resealed(new Map([...files, ["Stakeholders.ocf.json", new TextEncoder().encode("[]")]])), "OCF_WRONG_FILE_TYPE", "$", /is not a JSON object/],
      [resealed(new Map([...files, ["Stakeholders.ocf.json", new TextEncoder().encode('{"file_type":"OCF_STAKEHOLDERS_FILE","items":[{]}')]])), "OCF_FILE_NOT_JSON", "$", /is not JSON/],
      [new Map([...files].filter(([path]) => path !== "Stakeholders.ocf.json")), "OCF_FILE_UNREADABLE", "$", /is listed in the manifest but not in the package/],
    ];
    for (const [bytes, code, jsonPath, message] of cases) {
      for (const path of [await writePackageFolder(fresh(), bytes), await writePackageZip(fresh(".ocf.zip"), bytes)]) {
        const { error } = await readUntilFailure((await readOcfPackage(path)).objects());
        expect(error).toMatchObject({ code, file: "Stakeholders.ocf.json", jsonPath, index: undefined });
        expect(error.message).toMatch(message);
      }
    }
  });

  it("a manifest that is not a valid OCF 1.2.0 one is refused when the package is opened; no package at all is unusable", async () => {
    const files = withManifest(fixtureBytes(validFixture()), (manifest) => {
      delete manifest.as_of;
      manifest.ocf_version = "1.1.0";
    });
    const error = await readOcfPackage(await writePackageFolder(fresh(), files)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "OCF_MANIFEST_INVALID", file: "Manifest.ocf.json", index: undefined });
    expect((error as OcfReadError).issues.map((i) => i.path).sort()).toEqual(["$.as_of", "$.ocf_version"]);
    const unsafe = withManifest(fixtureBytes(validFixture()), (manifest) => {
      (manifest.stakeholders_files as { filepath: string }[])[0] = { filepath: "../x.ocf.json", md5: "0".repeat(32) } as never;
    });
    await expect(readOcfPackage(await writePackageFolder(fresh(), unsafe))).rejects.toMatchObject({ code: "OCF_FILE_UNREADABLE", jsonPath: "$.stakeholders_files[0].filepath" });
    const twoTypes = withManifest(fixtureBytes(validFixture()), (manifest) => {
      (manifest.transactions_files as unknown[]).push((manifest.stakeholders_files as unknown[])[0]);
    });
    const listedTwice = await readOcfPackage(await writePackageFolder(fresh(), twoTypes)).catch((e: unknown) => e);
    expect(listedTwice).toMatchObject({ code: "OCF_WRONG_FILE_TYPE", file: "Manifest.ocf.json", jsonPath: "$.stakeholders_files[0].filepath" });
    expect((listedTwice as OcfReadError).message).toContain('names "Stakeholders.ocf.json", which transactions_files lists too');
    await expect(readOcfPackage(fresh())).rejects.toBeInstanceOf(PackageUnusableError);
  });

  it("an abort stops the read with the signal's reason; a read left early can be started again", async () => {
    const dir = await writePackageFolder(fresh(), fixtureBytes(validFixture()));
    const pkg = await readOcfPackage(dir);
    const all = await collect(pkg.objects());
    for await (const _ of pkg.objects()) break;
    expect(await collect(pkg.objects())).toEqual(all);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(collect(pkg.objects({ signal: controller.signal }))).rejects.toThrow("stop");
    const zip = await writePackageZip(fresh(".ocf.zip"), fixtureBytes(validFixture()));
    const opened = new AbortController();
    const zipped = await readOcfPackage(zip, { signal: opened.signal });
    opened.abort(new Error("package stopped"));
    await expect(collect(zipped.objects())).rejects.toThrow("package stopped");
  });
});

describe("any split of objects into files", () => {
  it("reads back as the objects in manifest-list and items order", async () => {
    const stakeholders = Array.from({ length: 6 }, (_, i) => example("STAKEHOLDER", { id: `sh-${i}` }));
    const transactions = [
      ...Array.from({ length: 6 }, (_, i) => example("TX_STOCK_ACCEPTANCE", { id: `acc-${i}` })),
      { object_type: "TX_STOCK_CONVERSION", id: "conv-1" },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 4 }),
        fc.shuffledSubarray(transactions),
        fc.shuffledSubarray(stakeholders),
        async (cuts, txs, holders) => {
          const split = <T>(items: T[]): T[][] => {
            const parts: T[][] = [];
            let at = 0;
            for (const cut of cuts) parts.push(items.slice(at, (at += cut)));
            parts.push(items.slice(at));
            return parts;
          };
          const fixture: PackageFixture = {
            manifest: exampleManifest(),
            files: [
              ...split(holders).map((items, i) => ({ path: `sh/${i}.ocf.json`, key: "stakeholders_files", fileType: "OCF_STAKEHOLDERS_FILE", items })),
              ...split(txs).map((items, i) => ({ path: `tx-${i}.ocf.json`, key: "transactions_files", fileType: "OCF_TRANSACTIONS_FILE", items })),
            ],
          };
          const pkg = await readOcfPackage(await writePackageFolder(fresh(), fixtureBytes(fixture)));
          // Transactions come before stakeholders: the manifest schema's list order, not the order the files were written.
          expect(await collect(pkg.objects())).toEqual([...txs, ...holders]);
        },
      ),
      { numRuns: 25 },
    );
  });
});
