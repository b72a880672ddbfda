import { mkdir, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shardIndexOf, shardOf } from "../../../src/export/export-issuers.js";
import { createTemporaryPackageFolder, packageNameFor, recoverPackageFolders } from "../../../src/ocf/package-folder.js";

const issuerIds = fc.string({ minLength: 1, maxLength: 50, unit: fc.constantFrom("a", "B", "7", "-", "_", ".", "/", "\\", "%", " ", "é", "..", ":", "*", "\u0000", "CON") });

describe("packageNameFor", () => {
  it("keeps plain ids as they are", () => {
    expect(packageNameFor("7")).toBe("7");
    expect(packageNameFor("acme-robotics")).toBe("acme-robotics");
  });

  it("property: a single safe path segment for any id", () => {
    fc.assert(
      fc.property(fc.oneof(issuerIds, fc.string({ minLength: 1, maxLength: 50 })), (id) => {
        const name = packageNameFor(id);
        expect(name).toMatch(/^[a-z0-9_][a-z0-9_.-]*$/);
        expect(name).not.toMatch(/^\.|\.\.|\/|\\/);
        expect(name.length).toBeLessThanOrEqual(60);
      }),
    );
  });

  it("property: distinct ids get distinct names, even ignoring case", () => {
    fc.assert(
      fc.property(issuerIds, issuerIds, (a, b) => {
        fc.pre(a !== b);
        expect(packageNameFor(a).toLowerCase()).not.toBe(packageNameFor(b).toLowerCase());
      }),
    );
    expect(packageNameFor("ACME")).not.toBe(packageNameFor("acme"));
    expect(packageNameFor("..")).not.toBe("..");
    expect(packageNameFor("con")).not.toBe("con"); // a Windows device name
  });
});

describe("shardOf", () => {
  it("property: the N shards partition the list, whatever its order", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 60 }), fc.integer({ min: 1, max: 7 }), (ids, n) => {
        const shards = Array.from({ length: n }, (_, i) => shardOf(ids, i + 1, n));
        expect(shards.flat().sort()).toEqual([...ids].sort());
        const reversed = Array.from({ length: n }, (_, i) => shardOf([...ids].reverse(), i + 1, n));
        expect(reversed.map((s) => [...s].sort())).toEqual(shards.map((s) => [...s].sort()));
        for (const id of ids) expect(shards[shardIndexOf(id, n) - 1]).toContain(id);
      }),
    );
  });

  it("rejects impossible shards", () => {
    expect(() => shardOf(["a"], 0, 2)).toThrow(RangeError);
    expect(() => shardOf(["a"], 3, 2)).toThrow(RangeError);
  });
});

describe("recoverPackageFolders", () => {
  it("restores a previous package a dead export set aside, and deletes dead leftovers", async () => {
    const out = await mkdtemp(join(tmpdir(), "ocf-sync-recover-"));
    const deadPid = 2 ** 22 + 12345; // above Linux's pid_max default: no such process
    await mkdir(join(out, `.7.old-${deadPid}-0a1b2c3d`));
    await writeFile(join(out, `.7.old-${deadPid}-0a1b2c3d`, "Manifest.ocf.json"), "{}");
    await mkdir(join(out, `.7.tmp-${deadPid}-0a1b2c3e`));
    await mkdir(join(out, "acme"));
    await mkdir(join(out, `.acme.old-${deadPid}-0a1b2c3f`)); // replaced: the new one is in place
    const live = await createTemporaryPackageFolder(out, "live"); // ours, in use
    await mkdir(join(out, `.reused.tmp-${process.pid}-0a1b2c41`)); // an earlier process that had our pid (a container's pid 1)
    expect(await recoverPackageFolders(out)).toEqual(["7"]);
    expect((await readdir(out)).sort()).toEqual([basename(live), "7", "acme"].sort());
    expect(await readdir(join(out, "7"))).toEqual(["Manifest.ocf.json"]);
  });
});
