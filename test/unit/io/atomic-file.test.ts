/** Files replaced only by a complete successor: a failed or aborted write leaves the previous file and no temporary file. */
import { readFile, readdir, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { createAtomicWriteStream, createTemporarySibling, openAtomicWriteStream, writeFileAtomic } from "../../../src/io/atomic-file.js";
import { acquireLockFile } from "../../../src/io/lock-file.js";
import { prepareOutputFolder } from "../../../src/cli/job-flags.js";
import { makeFolder } from "../../../src/io/folders.js";

const dir = temporaryFolder("ocf-sync-atomic-");

describe("atomic writes", () => {
  it("replaces a file only on commit, buffering many small writes", async () => {
    const target = join(dir(), "a.ndjson");
    await writeFile(target, "previous\n");
    const stream = await openAtomicWriteStream(target);
    for (let i = 0; i < 10_000; i += 1) await stream.write(`{"line":${i}}\n`);
    expect(await readFile(target, "utf8")).toBe("previous\n");
    await stream.commit();
    const lines = (await readFile(target, "utf8")).trim().split("\n");
    expect(lines).toHaveLength(10_000);
    expect(lines[9_999]).toBe('{"line":9999}');
    expect(await readdir(dir())).toEqual(["a.ndjson"]);
  });

  it("abort leaves the previous file and removes the temporary one, also after a flush", async () => {
    const target = join(dir(), "b.json");
    await writeFile(target, "previous");
    const stream = createAtomicWriteStream(target);
    await stream.write("new");
    await stream.flush();
    await stream.abort();
    await stream.abort();
    expect(await readFile(target, "utf8")).toBe("previous");
    expect((await readdir(dir())).filter((n) => n.startsWith(".b.json"))).toEqual([]);
  });

  it("stops writing once the signal fires; the caller's abort then cleans up", async () => {
    const target = join(dir(), "c.json");
    const controller = new AbortController();
    const stream = await openAtomicWriteStream(target, { signal: controller.signal });
    await stream.write("part");
    controller.abort(new Error("stop"));
    await expect(stream.write("more")).rejects.toThrow("stop");
    await stream.abort();
    expect((await readdir(dir())).filter((n) => n.includes("c.json"))).toEqual([]);
  });

  it("refuses a target that is a folder or a device, and a place where no file can be made, at open", async () => {
    await expect(openAtomicWriteStream(dir())).rejects.toThrow(`cannot write ${dir()}: it is a folder, not a file`);
    await expect(openAtomicWriteStream("/dev/null")).rejects.toThrow("it is not a regular file");
    await expect(writeFileAtomic("/proc/ocf-sync.json", "{}")).rejects.toMatchObject({ code: "FILE_SYSTEM_ERROR", errno: "ENOENT" });
    await expect(writeFileAtomic(join(dir(), "missing", "x.json"), "{}")).rejects.toThrow(`the folder ${join(dir(), "missing")} does not exist`);
  });
});

describe("makeFolder", () => {
  it("creates missing parents, accepts an existing folder, and says which part is a file", async () => {
    const nested = join(dir(), "x", "y", "z");
    await makeFolder(nested);
    await makeFolder(nested);
    await writeFile(join(dir(), "file"), "");
    await expect(makeFolder(join(dir(), "file", "sub"))).rejects.toThrow(`${join(dir(), "file")} is a file where a folder should be`);
    await expect(makeFolder(join(dir(), "file"))).rejects.toThrow("it exists and is not a folder");
  });

  it("ends at once under /proc, where Node's recursive mkdir loops forever", async () => {
    await expect(makeFolder("/proc/ocf-sync-x/y")).rejects.toThrow("the file system does not allow new folders in /proc");
  });
});

describe("the temporary sibling a lock is written to, and an output folder probed with", () => {
  it("holds its content under the name recovery removes, and leaves nothing when it cannot be made", async () => {
    const folder = join(dir(), "sibling");
    await makeFolder(folder);
    const made = await createTemporarySibling(join(folder, ".ocf-sync.lock"), "owner\n");
    expect(basename(made)).toMatch(new RegExp(`^\\.\\.ocf-sync\\.lock\\.tmp-${process.pid}-[0-9a-f]{8}$`));
    expect(await readFile(made, "utf8")).toBe("owner\n");
    await expect(createTemporarySibling(join(folder, "missing", "x"), "")).rejects.toMatchObject({ code: "ENOENT" });
    expect(await readdir(folder)).toEqual([basename(made)]);
  });

  it("the probe of an output folder and the lock take the same road: a folder that passes the probe takes the lock, leaving only it", async () => {
    const out = join(dir(), "out");
    await prepareOutputFolder("out", out, undefined);
    expect(await readdir(out)).toEqual([]);
    const lock = await acquireLockFile(join(out, ".ocf-sync.lock"), () => new Error("refused"));
    expect(await readdir(out)).toEqual([".ocf-sync.lock"]);
    await lock.release();
    await writeFile(join(dir(), "a-file"), "not a folder\n");
    await expect(prepareOutputFolder("out", join(dir(), "a-file"), undefined)).rejects.toThrow(/--out/);
  });
});
