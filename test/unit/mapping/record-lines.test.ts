import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileLines } from "../../../src/io/file-lines.js";
import { MemoryLines } from "../../../src/mapping/record-lines.js";
import { NumberList } from "../../../src/number-list.js";

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ocf-sync-lines-"));
  folders.push(dir);
  return dir;
}

describe("FileLines (what the streaming mapper keeps of each record, on disk)", () => {
  it("reads back every line by its handle, staged or written, across many 1 MiB flushes and lines longer than one", async () => {
    const path = join(await folder(), "records.jsonl");
    const lines = new FileLines(path);
    const memory = new MemoryLines();
    const texts: string[] = [];
    for (let i = 0; i < 30_000; i++) {
      // Lines of every size, with multi-byte text, and now and then one longer than the staging buffer.
      const text = i % 7_001 === 0 ? `${i}:${"é€😀".repeat(200_000)}` : `${i}:${"x".repeat(i % 97)}:ü€`;
      texts.push(text);
      expect(lines.append(text)).toBe(i);
      expect(memory.append(text)).toBe(i);
      // Staged lines are readable before they reach the file.
      if (i % 5_003 === 0) expect(lines.read(i)).toBe(text);
    }
    for (const i of [0, 1, 7_001, 14_002, 29_999, 12_345, 21_007]) {
      expect(lines.read(i)).toBe(texts[i]);
      expect(memory.read(i)).toBe(texts[i]);
    }
    for (let i = 0; i < texts.length; i += 613) expect(lines.read(i)).toBe(texts[i]);
    expect(() => lines.read(30_000)).toThrow(RangeError);
    expect(existsSync(path)).toBe(true);
    lines.dispose();
    lines.dispose();
    expect(existsSync(path)).toBe(false);
    expect(() => lines.append("more")).toThrow(/disposed/);
    expect(() => lines.read(0)).toThrow(/disposed/);
    expect(existsSync(path)).toBe(false);
  });

  it("creates no file until a line comes, and refuses to overwrite one", async () => {
    const dir = await folder();
    const idle = new FileLines(join(dir, "idle.jsonl"));
    idle.dispose();
    expect(await readdir(dir)).toEqual([]);
    const first = new FileLines(join(dir, "taken.jsonl"));
    first.append("a");
    expect(await readdir(dir)).toEqual([]);
    // A line that does not fit the staging buffer is written at once: the file is created now.
    first.append("y".repeat(2 << 20));
    expect(await readdir(dir)).toEqual(["taken.jsonl"]);
    // A second spill of the same name must not take it over.
    const second = new FileLines(join(dir, "taken.jsonl"));
    expect(() => second.append("x".repeat(2 << 20))).toThrow(/EEXIST/);
    expect(first.read(0)).toBe("a");
    expect(first.read(1)).toBe("y".repeat(2 << 20));
    second.dispose();
    expect(await readdir(dir)).toEqual(["taken.jsonl"]);
    first.dispose();
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("NumberList", () => {
  it("grows past its first block and keeps every number exactly", () => {
    const offsets = new NumberList((n) => new Float64Array(n));
    const values = Array.from({ length: 5_000 }, (_, i) => i * 2 ** 33 + 7);
    for (const v of values) offsets.push(v);
    expect(offsets.length).toBe(5_000);
    expect(values.every((v, i) => offsets.at(i) === v)).toBe(true);
    expect(() => offsets.at(5_000)).toThrow(RangeError);
  });
});
