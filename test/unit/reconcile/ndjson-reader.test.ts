/** `readPulledNdjson`: the NDJSON of `ocf-sync pull` read back, from real files. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NdjsonFormatError, issuerPullToNdjson, readPulledNdjson, readPulledNdjsonInto } from "../../../src/pull/ndjson.js";
import type { ParsedRecord } from "../../../src/source/records.js";

describe("readPulledNdjson", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-ndjson-"));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  const file = async (name: string, lines: readonly unknown[]): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"));
    return path;
  };
  const award = (id: string, modified: string, quantity = "10") => ({
    id,
    issuerId: "7",
    quantity: { value: quantity },
    lastModifiedDatetime: { value: modified },
  });

  it("reads what the pull writes, per issuer: records, quarantined lines and records that no longer parse", async () => {
    const written = [
      ...issuerPullToNdjson({
        issuerId: "7",
        awards: [],
        units: [],
        raw: [{ kind: "restrictedStockAward", id: "A", raw: award("A", "2025-01-01T00:00:00Z") }],
        quarantined: [],
        warnings: [],
      }),
    ].join("");
    const path = await file("mixed.ndjson", [
      written.trimEnd(),
      "",
      { kind: "restrictedStockUnit", issuerId: "8", id: "U", record: { id: "U", issuerId: "8", quantity: { value: "5" } } },
      { kind: "restrictedStockUnit", issuerId: "8", id: "Q", quarantined: true, issues: [{ message: "bad date" }], record: { id: "Q" } },
      { kind: "restrictedStockAward", issuerId: "8", id: "B", record: { id: "B", quantity: { value: "ten" } } },
    ]);
    const issuers = await readPulledNdjson(path);
    expect([...issuers.keys()]).toEqual(["7", "8"]);
    expect(issuers.get("7")?.awards.map((a) => [a.id, a.quantity])).toEqual([["A", "10"]]);
    const eight = issuers.get("8");
    expect(eight?.units.map((u) => u.id)).toEqual(["U"]);
    expect(eight?.quarantined.map((q) => [q.kind, q.recordId, q.message.includes("bad date") || q.message.includes("quantity")])).toEqual([
      ["restrictedStockUnit", "Q", true],
      ["restrictedStockAward", "B", true],
    ]);
  });

  it("keeps the most recently modified copy of a record listed twice, wherever it is in the file", async () => {
    const path = await file("twice.ndjson", [
      { kind: "restrictedStockAward", issuerId: "7", id: "A", record: award("A", "2025-02-01T00:00:00Z", "20") },
      { kind: "restrictedStockAward", issuerId: "7", id: "A", record: award("A", "2025-01-01T00:00:00Z", "10") },
      { kind: "restrictedStockAward", issuerId: "7", id: "C", record: award("C", "2025-01-01T00:00:00Z") },
      { kind: "restrictedStockAward", issuerId: "7", id: "C", record: award("C", "2025-03-01T00:00:00Z", "30") },
    ]);
    expect((await readPulledNdjson(path)).get("7")?.awards.map((a) => [a.id, a.quantity])).toEqual([
      ["A", "20"],
      ["C", "30"],
    ]);
  });

  it("names the file and line of a line that is not JSON or not a record line", async () => {
    const notJson = await file("not-json.ndjson", [{ kind: "restrictedStockAward", issuerId: "7", id: "A", record: award("A", "2025-01-01T00:00:00Z") }, "{oops"]);
    await expect(readPulledNdjson(notJson)).rejects.toThrow(NdjsonFormatError);
    await expect(readPulledNdjson(notJson)).rejects.toThrow(`${notJson} line 2: is not JSON`);
    const noKind = await file("no-kind.ndjson", [{ issuerId: "7", record: {} }]);
    await expect(readPulledNdjson(noKind)).rejects.toMatchObject({ code: "NDJSON_INVALID", line: 1 });
  });

  it("parses only the records of the issuers a sink is given for, and still checks every line", async () => {
    const lines = [
      { kind: "restrictedStockAward", issuerId: "7", id: "A", record: award("A", "2025-01-01T00:00:00Z") },
      { kind: "restrictedStockAward", issuerId: "8", id: "B", record: { id: "B", quantity: { value: "ten" } } },
      { kind: "restrictedStockUnit", issuerId: "8", id: "Q", quarantined: true, issues: [{ message: "bad date" }], record: { id: "Q" } },
      { kind: "restrictedStockAward", issuerId: "7", id: "A", record: award("A", "2025-02-01T00:00:00Z", "20") },
    ];
    const path = await file("wanted.ndjson", lines);
    const asked: string[] = [];
    const seen: string[] = [];
    const sink = {
      add: (parsed: ParsedRecord) => seen.push(`add ${parsed.record.id} ${parsed.record.quantity}`) - 1,
      replace: (parsed: ParsedRecord, slot: number) => void seen.push(`replace ${slot} ${parsed.record.id} ${parsed.record.quantity}`),
      quarantined: (q: { recordId: string | undefined }) => void seen.push(`quarantined ${q.recordId}`),
    };
    await readPulledNdjsonInto(path, (id) => (asked.push(id), id === "7" ? sink : undefined));
    // Asked once per issuer; issuer 8's records neither parsed (its invalid award would be quarantined) nor handed over.
    expect(asked).toEqual(["7", "8"]);
    expect(seen).toEqual(["add A 10", "replace 0 A 20"]);
    const broken = await file("wanted-broken.ndjson", [...lines, { issuerId: "8", record: {} }]);
    await expect(readPulledNdjsonInto(broken, (id) => (id === "7" ? sink : undefined))).rejects.toMatchObject({ code: "NDJSON_INVALID", line: 5 });
  });

  it("stops when aborted", async () => {
    const path = await file("abort.ndjson", [{ kind: "restrictedStockAward", issuerId: "7", id: "A", record: award("A", "2025-01-01T00:00:00Z") }]);
    await expect(readPulledNdjson(path, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
  });
});
