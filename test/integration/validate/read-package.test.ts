/**
 * loadOcfPackage against real folders and zips in a temporary directory: what it reads, what it
 * refuses, and which inputs are no package at all.
 */
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { isOcfSyncError } from "../../../src/errors.js";
import { openOcfPackage, PackageUnusableError, loadOcfPackage } from "../../../src/ocf/package-reader.js";
import { validateOcfPackage, validatePackageAt } from "../../../src/ocf/validate-package.js";
import {
  fixtureBytes,
  temporaryDirectory,
  validFixture,
  withManifest,
  writePackageFolder,
  writePackageZip,
  zipBytes,
} from "../../helpers/ocf-package-fixture.js";

const { fresh } = temporaryDirectory("ocf-sync-read-");

async function unusable(promise: Promise<unknown>): Promise<PackageUnusableError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PackageUnusableError);
  expect(isOcfSyncError(error) && error.code).toBe("PACKAGE_UNUSABLE");
  return error as PackageUnusableError;
}

/** The zip with the 32-bit field at `offset` of `name`'s central directory entry changed by `change`. */
function withCentralField(zip: Uint8Array, name: string, offset: number, change: (value: number) => number): Uint8Array {
  const copy = zip.slice();
  const view = new DataView(copy.buffer);
  for (let i = 0; i + 46 <= copy.length; i += 1) {
    if (view.getUint32(i, true) !== 0x02014b50) continue;
    const nameLength = view.getUint16(i + 28, true);
    if (new TextDecoder().decode(copy.subarray(i + 46, i + 46 + nameLength)) === name) {
      view.setUint32(i + offset, change(view.getUint32(i + offset, true)), true);
      return copy;
    }
  }
  throw new Error(`no central directory entry for ${name}`);
}

/** The zip with the CRC-32 of `name` in the central directory changed. */
const withWrongCrc = (zip: Uint8Array, name: string): Uint8Array => withCentralField(zip, name, 16, (crc) => crc ^ 1);

/** The zip with the declared (uncompressed) size of `name` in the central directory set to `size`. */
const withDeclaredSize = (zip: Uint8Array, name: string, size: number): Uint8Array => withCentralField(zip, name, 24, () => size);

describe("valid packages", () => {
  it("reads a folder and a zip of the same package alike, and both are valid", async () => {
    const files = fixtureBytes(validFixture());
    const folder = await loadOcfPackage(await writePackageFolder(fresh(), files));
    const zip = await loadOcfPackage(await writePackageZip(fresh(".ocf.zip"), files));
    expect(folder.container).toBe("folder");
    expect(zip.container).toBe("zip");
    for (const pkg of [folder, zip]) {
      expect(pkg.paths).toEqual([...files.keys()].sort());
      expect([...pkg.files.keys()].sort()).toEqual([...files.keys()].filter((p) => p !== "Manifest.ocf.json").sort());
      expect(validateOcfPackage(pkg).problems).toEqual([]);
    }
  });

  it("tells a zip by its content, not its name", async () => {
    const path = await writePackageZip(fresh(".bin"), fixtureBytes(validFixture()));
    expect((await validatePackageAt(path)).valid).toBe(true);
  });

  it("gives the same report for a folder and a zip of one corrupted package", async () => {
    const files = withManifest(fixtureBytes(validFixture()), (m) => (m.bogus = true));
    files.set("Stray.ocf.json", new TextEncoder().encode("{}"));
    const folder = await validatePackageAt(await writePackageFolder(fresh(), files));
    const zip = await validatePackageAt(await writePackageZip(fresh(".ocf.zip"), files));
    expect(folder.problems.map((p) => p.code)).toEqual(["SCHEMA", "UNLISTED_FILE"]);
    expect(zip).toEqual(folder);
  });

  it("reads a folder's file and a zip entry chunk by chunk, to the file's exact bytes", async () => {
    const files = fixtureBytes(validFixture());
    const expected = Buffer.from(files.get("Transactions.ocf.json") ?? new Uint8Array());
    for (const pkg of [await openOcfPackage(await writePackageFolder(fresh(), files)), await openOcfPackage(await writePackageZip(fresh(".ocf.zip"), files))]) {
      try {
        const content = await pkg.open("Transactions.ocf.json");
        expect(content.state === "stream" && content.size).toBe(expected.length);
        const read: Uint8Array[] = [];
        // A chunk may be reused once the next one is asked for: each is copied.
        if (content.state === "stream") for await (const chunk of content.chunks) read.push(chunk.slice());
        expect(Buffer.concat(read)).toEqual(expected);
      } finally {
        await pkg.close();
      }
    }
  });

  it("stops when the signal fires", async () => {
    const path = await writePackageFolder(fresh(), fixtureBytes(validFixture()));
    const controller = new AbortController();
    controller.abort();
    await expect(loadOcfPackage(path, { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("inputs that are no package: PackageUnusableError", () => {
  it("a path that does not exist, a file that is not a zip, the manifest itself", async () => {
    expect((await unusable(loadOcfPackage(fresh()))).message).toMatch(/cannot read .*: no such file or folder$/);
    const text = fresh(".txt");
    await writeFile(text, "hello");
    expect((await unusable(loadOcfPackage(text))).message).toBe(`${text} is neither a folder nor a zip file`);
    const folder = await writePackageFolder(fresh(), fixtureBytes(validFixture()));
    expect((await unusable(loadOcfPackage(join(folder, "Manifest.ocf.json")))).message).toMatch(/give the folder that holds it$/);
  });

  it("a folder without a manifest", async () => {
    const files = fixtureBytes(validFixture());
    files.delete("Manifest.ocf.json");
    const folder = await writePackageFolder(fresh(), files);
    expect((await unusable(loadOcfPackage(folder))).message).toBe(`${folder} holds no Manifest.ocf.json: not an OCF package folder`);
  });

  it("a folder of packages (an export's --out) given for one: the packages inside are named", async () => {
    const out = fresh();
    await writePackageFolder(join(out, "7"), fixtureBytes(validFixture()));
    await writePackageFolder(join(out, "acme"), fixtureBytes(validFixture()));
    await writeFile(join(out, "7.ocf.zip"), "not read");
    await writeFile(join(out, "7.report.json"), "{}");
    expect((await unusable(loadOcfPackage(out))).message).toBe(
      `${out} holds no Manifest.ocf.json: not an OCF package folder; it holds 3 packages, to validate one at a time: ${join(out, "7")}, ${join(out, "acme")}, ${join(out, "7.ocf.zip")}`,
    );
  });

  it("a manifest that is not JSON, or not a JSON object", async () => {
    const notJson = new Map(fixtureBytes(validFixture()));
    notJson.set("Manifest.ocf.json", new TextEncoder().encode('{"file_type": "OCF_MANIFEST_FILE",'));
    expect((await unusable(loadOcfPackage(await writePackageFolder(fresh(), notJson)))).message).toMatch(/Manifest\.ocf\.json in .* is not JSON \(/);
    const array = new Map(notJson);
    array.set("Manifest.ocf.json", new TextEncoder().encode("[]"));
    expect((await unusable(loadOcfPackage(await writePackageZip(fresh(".ocf.zip"), array)))).message).toMatch(/is \[\], not a JSON object: not an OCF manifest$/);
  });

  it("a truncated zip, wherever it is cut", async () => {
    const zip = zipBytes(fixtureBytes(validFixture()));
    for (const keep of [zip.length - 1, zip.length - 22, Math.floor(zip.length / 2), 4]) {
      const path = fresh(".ocf.zip");
      await writeFile(path, zip.subarray(0, keep));
      expect((await unusable(loadOcfPackage(path))).message).toMatch(/is not a readable zip \(truncated or corrupt/);
    }
  });

  it("a zip whose manifest is in a folder (ocf-sync reads flat zips)", async () => {
    const nested = new Map([...fixtureBytes(validFixture())].map(([path, bytes]) => [`pkg/${path}`, bytes]));
    const path = await writePackageZip(fresh(".ocf.zip"), nested);
    expect((await unusable(loadOcfPackage(path))).message).toBe(
      `${path} has no Manifest.ocf.json at its root (it has pkg/Manifest.ocf.json; ocf-sync reads flat zips, with every file at the root)`,
    );
  });

  it("a zip or manifest over the size limit", async () => {
    const files = fixtureBytes(validFixture());
    const zip = await writePackageZip(fresh(".ocf.zip"), files);
    expect((await unusable(loadOcfPackage(zip, { maxFileBytes: 100 }))).message).toMatch(/has \d+ bytes, over the limit of 100$/);
    const manifestSize = files.get("Manifest.ocf.json")?.length ?? 0;
    const folder = await writePackageFolder(fresh(), files);
    expect((await unusable(loadOcfPackage(folder, { maxFileBytes: manifestSize - 1 }))).message).toBe(
      `Manifest.ocf.json in ${folder} has ${manifestSize} bytes, over the limit of ${manifestSize - 1}`,
    );
  });
});

describe("bounds: what the reader will not read", () => {
  // In a zip the whole zip counts against the limit too; oversized entries are covered by the declared-size test below.
  it("a listed file of a folder over the size limit is reported, not read", async () => {
    const files = fixtureBytes(validFixture());
    const limit = Math.max(...[...files].flatMap(([path, bytes]) => (path === "Transactions.ocf.json" ? [] : [bytes.length])));
    const transactionsSize = files.get("Transactions.ocf.json")?.length ?? 0;
    expect(transactionsSize).toBeGreaterThan(limit);
    const pkg = await loadOcfPackage(await writePackageFolder(fresh(), files), { maxFileBytes: limit });
    expect(pkg.files.get("Transactions.ocf.json")).toEqual({ state: "too-large", size: transactionsSize, limit });
    expect(validateOcfPackage(pkg).problems.filter((p) => p.code === "FILE_TOO_LARGE")).toEqual([
      {
        code: "FILE_TOO_LARGE",
        file: "Manifest.ocf.json",
        jsonPath: "$.transactions_files[0].filepath",
        message: `lists "Transactions.ocf.json", which has ${transactionsSize} bytes, over the limit of ${limit}; it is not read`,
      },
    ]);
  });

  it("zip entries named outside the package, or twice, are refused", async () => {
    const entries = Object.fromEntries(fixtureBytes(validFixture()));
    const zip = zipSync({ ...entries, "../evil.ocf.json": new Uint8Array([123, 125]), "/abs.ocf.json": new Uint8Array([123, 125]), "sub/../Stakeholders.ocf.json": new Uint8Array([1]) });
    const path = fresh(".ocf.zip");
    await writeFile(path, zip);
    const report = await validatePackageAt(path);
    expect(report.problems.map((p) => [p.code, p.file, p.message])).toEqual([
      ["UNSAFE_PATH", "../evil.ocf.json", "its name leads out of the package; it is not read"],
      ["UNSAFE_PATH", "/abs.ocf.json", "its name is an absolute path; it is not read"],
      ["DUPLICATE_ENTRY", "sub/../Stakeholders.ocf.json", "is a second entry for Stakeholders.ocf.json; it is not read"],
    ]);
  });

  it("a zip entry whose declared size is a lie: too large is not inflated, too small or too big is corrupt", async () => {
    const zip = zipBytes(fixtureBytes(validFixture()));
    const huge = fresh(".ocf.zip");
    await writeFile(huge, withDeclaredSize(zip, "Transactions.ocf.json", 0x7fffffff));
    const pkg = await loadOcfPackage(huge, { maxFileBytes: 1024 * 1024 });
    expect(pkg.files.get("Transactions.ocf.json")).toEqual({ state: "too-large", size: 0x7fffffff, limit: 1024 * 1024 });
    const larger = fresh(".ocf.zip");
    await writeFile(larger, withDeclaredSize(zip, "Transactions.ocf.json", 100_000));
    expect((await unusable(loadOcfPackage(larger))).message).toMatch(/entry "Transactions.ocf.json" inflates to \d+ bytes, not the 100000 it declares/);
    const tiny = fresh(".ocf.zip");
    await writeFile(tiny, withDeclaredSize(zip, "Transactions.ocf.json", 3));
    expect((await unusable(loadOcfPackage(tiny))).message).toMatch(/entry "Transactions.ocf.json" declares 3 bytes but holds \d+ compressed/);
  });

  it("a zip entry that does not match its CRC-32 makes the zip unusable, for the whole read and the streaming check alike", async () => {
    const path = fresh(".ocf.zip");
    await writeFile(path, withWrongCrc(zipBytes(fixtureBytes(validFixture())), "Transactions.ocf.json"));
    expect((await unusable(loadOcfPackage(path))).message).toMatch(/entry "Transactions.ocf.json" fails its CRC-32 check/);
    expect((await unusable(validatePackageAt(path))).message).toMatch(/entry "Transactions.ocf.json" fails its CRC-32 check/);
  });

  it("in a folder: a link leading out of the package is not followed; a folder is not a file; unlisted files are found in subfolders", async () => {
    const outside = fresh(".ocf.json");
    await writeFile(outside, JSON.stringify({ file_type: "OCF_STAKEHOLDERS_FILE", items: [] }));
    const files = withManifest(fixtureBytes(validFixture()), (manifest) => {
      (manifest.stakeholders_files as unknown[]).push({ filepath: "Linked.ocf.json", md5: "0".repeat(32) }, { filepath: "Folder.ocf.json", md5: "0".repeat(32) });
    });
    const folder = await writePackageFolder(fresh(), files);
    await symlink(outside, join(folder, "Linked.ocf.json"));
    await mkdir(join(folder, "Folder.ocf.json"));
    await mkdir(join(folder, "old"));
    await writeFile(join(folder, "old", "Transactions.ocf.json"), "{}");
    const pkg = await loadOcfPackage(folder);
    expect(pkg.files.get("Linked.ocf.json")).toEqual({ state: "outside" });
    expect(validateOcfPackage(pkg).problems.map((p) => [p.code, p.file, p.jsonPath])).toEqual([
      ["UNSAFE_PATH", "Manifest.ocf.json", "$.stakeholders_files[1].filepath"],
      ["FILE_MISSING", "Manifest.ocf.json", "$.stakeholders_files[2].filepath"],
      ["UNLISTED_FILE", "old/Transactions.ocf.json", "$"],
    ]);
  });

  it("in a folder: a link to a file inside the package is read", async () => {
    const files = fixtureBytes(validFixture());
    const folder = await writePackageFolder(fresh(), files);
    await mkdir(join(folder, "data"));
    await rm(join(folder, "Stakeholders.ocf.json"));
    await writeFile(join(folder, "data", "stakeholders.json"), files.get("Stakeholders.ocf.json") ?? "");
    await symlink(join(folder, "data", "stakeholders.json"), join(folder, "Stakeholders.ocf.json"));
    expect((await validatePackageAt(folder)).problems).toEqual([]);
  });
});
