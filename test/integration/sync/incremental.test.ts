/**
 * What an incremental sync does and does not redo: a changed record rewrites only its shard of the
 * store and the change set comes from the stored mappings; a pass whose package fails keeps its
 * records; other options write the package again from the store; leftovers of killed runs go.
 */
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SampleServer, WireRecord } from "../../../src/sample-server/server.js";
import { diffPackageObjects, summarizeChangeSet } from "../../../src/sync/change-set.js";
import { CHANGE_SAMPLE_LIMIT } from "../../../src/sync/change-tally.js";
import { storeFolderOf } from "../../../src/sync/pass.js";
import { readSyncState, snapshotFolderOf } from "../../../src/sync/state.js";
import { changesOfPackage, eventsOf, recordChangesOf, expectSameAsFreshExport, generatedIssuer, folderFiles, openSyncWorkspace, packageObjects, runSync, touch } from "./helpers.js";

describe("an incremental sync", () => {
  let server: SampleServer;
  let dir: string;
  let outDir: string;
  let stateFile: string;
  beforeEach(async () => {
    ({ server, dir, outDir, stateFile } = await openSyncWorkspace("ocf-sync-incremental-", ["state.json"]));
  });
  afterEach(async () => server.close());

  it("rewrites only the shard of a changed record, and takes the change set from the stored mappings", async () => {
    const records = generatedIssuer(server, "big", 1100);
    const first = await runSync(server.url, ["big"], { outDir, stateFile });
    const store = storeFolderOf(stateFile, "big");
    const before = await folderFiles(store);
    expect([...before.keys()].filter((n) => n.endsWith(".out"))).toHaveLength(4); // 1,100 records: 4 shards
    const packageBefore = await packageObjects(join(outDir, "big"));
    // A first pass: every object of the package said once as created, and a summary of the first ones only.
    const created = await changesOfPackage(first, "big");
    expect(created).toEqual(diffPackageObjects(new Map(), packageBefore));
    const [summary] = eventsOf(first, "package-written");
    expect(summary?.changes.created).toBe(packageBefore.size);
    expect(summary?.changes.sample.created).toEqual(created.created.slice(0, CHANGE_SAMPLE_LIMIT));
    expect(summary?.changes.leftOut.created).toBe(packageBefore.size - CHANGE_SAMPLE_LIMIT);
    // And every record said once as created, the summary naming the first ones only.
    const recordsCreated = recordChangesOf(first, "big").created;
    expect(recordsCreated).toHaveLength(1100);
    const [pulled] = eventsOf(first, "records-changed");
    expect(pulled?.records).toMatchObject({ created: 1100, modified: 0, removed: 0, unchanged: 0, leftOut: { created: 1100 - CHANGE_SAMPLE_LIMIT, modified: 0, removed: 0 } });
    expect(pulled?.records.sample.created).toEqual(recordsCreated.slice(0, CHANGE_SAMPLE_LIMIT));
    expect(pulled?.records.byKind).toEqual({ restrictedStockAward: { created: 550, modified: 0, removed: 0 }, restrictedStockUnit: { created: 550, modified: 0, removed: 0 } });
    expect(summary?.changes.byType.TX_STOCK_ISSUANCE?.created).toBe(created.created.filter((o) => o.objectType === "TX_STOCK_ISSUANCE").length);

    const changed = records.find((r) => r.id === "g7") as WireRecord;
    changed.securityLabel = "RSU-RENAMED";
    touch(changed, "2025-04-02T00:00:00Z");
    const requests = server.stats().requests;
    const events = await runSync(server.url, ["big"], { outDir, stateFile });
    expect(server.stats().requests - requests).toBe(2);
    expect(recordChangesOf(events, "big")).toEqual({ created: [], modified: [{ kind: "restrictedStockUnit", id: "g7" }], removed: [], unchanged: 1099 });

    // One shard's two files were written again (under the new generation); the others are untouched.
    const after = await folderFiles(store);
    const gone = [...before.keys()].filter((n) => !after.has(n));
    const added = [...after.keys()].filter((n) => !before.has(n));
    expect(gone.filter((n) => /\.(out|raw)$/.test(n))).toHaveLength(2);
    expect(added.filter((n) => /\.(out|raw)$/.test(n))).toHaveLength(2);
    for (const [name, content] of after) if (before.has(name)) expect(content, name).toBe(before.get(name));

    const [written] = eventsOf(events, "package-written");
    const packageAfter = await packageObjects(join(outDir, "big"));
    expect(await changesOfPackage(events, "big")).toEqual(diffPackageObjects(packageBefore, packageAfter));
    expect(written?.changes).toEqual(summarizeChangeSet(diffPackageObjects(packageBefore, packageAfter)));
    expect(written?.changes.sample.changed.map((o) => o.id)).toContain("rsu-g7-issuance");
    await expectSameAsFreshExport(server.url, "big", outDir);
  });

  it("maps units again when an award renames the class they deliver, so they follow it", async () => {
    await runSync(server.url, ["7"], { outDir, stateFile });
    const awards = server.data.issuers.get("7")?.awards ?? [];
    let minute = 40;
    for (const award of awards) {
      if (award.shareClassName !== "Common") continue;
      award.shareClassName = "Common Stock";
      touch(award, `2025-03-10T09:${minute++}:00Z`);
    }
    const events = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(eventsOf(events, "issuer-failed")).toEqual([]);
    const changed = await changesOfPackage(events, "7");
    // The units' issuances (never pulled again) now name the renamed class, as a fresh export does.
    expect(changed.created.map((o) => o.id)).toContain("stock-class-Common Stock");
    expect(changed.changed.map((o) => o.id)).toContain("rsu-8801-issuance");
    await expectSameAsFreshExport(server.url, "7", outDir);
  });

  it("keeps the records of a pass whose package fails: the next run pulls only what changed since", async () => {
    const [award] = server.data.issuers.get("7")?.awards ?? [];
    if (award === undefined) throw new Error("sample issuer 7 has awards");
    const quantity = award.quantity;
    award.quantity = { value: "lots" };
    touch(award, "2025-03-10T09:29:00Z");
    const failed = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(eventsOf(failed, "issuer-failed")[0]?.error).toMatchObject({ code: "SOURCE_RECORD_INVALID" });
    expect(eventsOf(failed, "state-saved").map((e) => e.stage)).toEqual(["records"]);
    await expect(stat(join(outDir, "7"))).rejects.toMatchObject({ code: "ENOENT" });
    const saved = (await readSyncState(stateFile)).issuers[0];
    expect(saved).toMatchObject({ cursor: "2025-03-10T09:30:00.000000Z", records: 7 });
    expect(saved?.package).toBeUndefined();

    // The same failure again costs the filtered requests only, not the whole pull.
    let requests = server.stats().requests;
    const again = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(server.stats().requests - requests).toBe(2);
    expect(eventsOf(again, "issuer-failed")).toHaveLength(1);

    award.quantity = quantity;
    touch(award, "2025-03-10T09:31:00Z");
    requests = server.stats().requests;
    const fixed = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(server.stats().requests - requests).toBe(2);
    expect(eventsOf(fixed, "issuer-started")[0]).toMatchObject({ pass: "incremental" });
    expect((await changesOfPackage(fixed, "7")).removed).toEqual([]);
    await expectSameAsFreshExport(server.url, "7", outDir);
  });

  it("writes the package again from the stored records when the options change or the package is gone, pulling nothing more", async () => {
    await runSync(server.url, ["7"], { outDir, stateFile });
    const count = async (options: Parameters<typeof runSync>[2]): Promise<{ requests: number; events: Awaited<ReturnType<typeof runSync>> }> => {
      const requests = server.stats().requests;
      const events = await runSync(server.url, ["7"], options);
      return { requests: server.stats().requests - requests, events };
    };

    // Another lineage: every record is mapped again, from its stored JSON (award 2208 loses its balance).
    const remapped = await count({ outDir, stateFile, lineage: "same-security" as const });
    expect(remapped.requests).toBe(2);
    expect((await changesOfPackage(remapped.events, "7")).changed.length).toBeGreaterThan(0);
    const fresh = await mkdtemp(join(tmpdir(), "ocf-sync-fresh-"));
    await runSync(server.url, ["7"], { outDir: fresh, stateFile: join(fresh, "state.json"), lineage: "same-security" as const });
    expect(await folderFiles(join(outDir, "7"))).toEqual(await folderFiles(join(fresh, "7")));

    // A zip asked for now, then the package folder deleted: written again each time.
    const zipped = await count({ outDir, stateFile, lineage: "same-security" as const, zip: true });
    expect(zipped.requests).toBe(2);
    expect(eventsOf(zipped.events, "package-written")[0]?.changes).toMatchObject({ created: 0, changed: 0, removed: 0 });
    expect(eventsOf(zipped.events, "object-changed")).toEqual([]);
    await stat(join(outDir, "7.ocf.zip"));
    await rm(join(outDir, "7"), { recursive: true });
    const restored = await count({ outDir, stateFile, lineage: "same-security" as const, zip: true });
    expect(restored.requests).toBe(2);
    expect(eventsOf(restored.events, "package-written")).toHaveLength(1);
    expect(await folderFiles(join(outDir, "7"))).toEqual(await folderFiles(join(fresh, "7")));

    // And with the same options once more, nothing is written.
    const still = await count({ outDir, stateFile, lineage: "same-security" as const, zip: true });
    expect(still.requests).toBe(2);
    expect(eventsOf(still.events, "package-unchanged")).toHaveLength(1);
  });

  it("removes what killed runs left beside the state, and nothing else", async () => {
    await runSync(server.url, ["7"], { outDir, stateFile });
    const store = storeFolderOf(stateFile, "7");
    const kept = await folderFiles(store);
    const leftovers = [
      join(dir, ".state.json.tmp-4242-0a1b2c3d"),
      join(store, "0.99.out"),
      join(store, ".state.json.tmp-1-2"),
      join(snapshotFolderOf(stateFile), "7.3.ndjson"),
    ];
    for (const file of leftovers) await writeFile(file, "left by a killed run");
    await mkdir(join(store, ".staging"));
    await writeFile(join(store, ".staging", "12.stage"), "half a line");
    await mkdir(join(snapshotFolderOf(stateFile), "ghost"));
    await writeFile(join(dir, "notes.txt"), "not the sync's");

    const events = await runSync(server.url, ["7"], { outDir, stateFile });
    const [removed] = eventsOf(events, "leftovers-removed");
    expect([...(removed?.files ?? [])].sort()).toEqual([...leftovers, join(store, ".staging"), join(snapshotFolderOf(stateFile), "ghost")].sort());
    expect(await folderFiles(store)).toEqual(kept);
    expect((await readdir(dir)).sort()).toEqual(["notes.txt", "out", "state.json", "state.json.snapshots"]);
    expect(eventsOf(events, "package-unchanged")).toHaveLength(1);
  });

  it("refuses a damaged store file, saying how to start the issuer afresh", async () => {
    await runSync(server.url, ["7"], { outDir, stateFile });
    const store = storeFolderOf(stateFile, "7");
    const shard = (await readdir(store)).find((n) => n.endsWith(".out")) as string;
    await writeFile(join(store, shard), "not a store line");
    const [award] = server.data.issuers.get("7")?.awards ?? [];
    touch(award as WireRecord, "2025-03-10T09:31:00Z");
    const failed = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(eventsOf(failed, "issuer-failed")[0]?.error).toMatchObject({ code: "SYNC_STORE_DAMAGED", message: expect.stringContaining(`delete the folder ${store}`) });
    await rm(store, { recursive: true });
    const again = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(eventsOf(again, "issuer-started")[0]).toMatchObject({ pass: "full", reason: "snapshot-missing" });
    await expectSameAsFreshExport(server.url, "7", outDir);
  });

  it("reads the state of an earlier version: one full pass, then incremental ones", async () => {
    await mkdir(snapshotFolderOf(stateFile), { recursive: true });
    await writeFile(join(snapshotFolderOf(stateFile), "7.3.ndjson"), "");
    await writeFile(
      stateFile,
      JSON.stringify({
        version: 1,
        issuers: [{ issuerId: "7", cursor: "2025-03-10T09:30:00.000000Z", snapshot: "7.3.ndjson", generation: 3, records: 7, incrementalSinceFull: 1, lastPass: "incremental", syncedAt: "2026-01-01T00:00:00Z" }],
      }),
    );
    const upgraded = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(eventsOf(upgraded, "issuer-started")[0]).toMatchObject({ pass: "full", reason: "state-upgraded" });
    expect(await readdir(snapshotFolderOf(stateFile))).toEqual(["7"]);
    await expectSameAsFreshExport(server.url, "7", outDir);
    const next = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(eventsOf(next, "issuer-started")[0]).toMatchObject({ pass: "incremental" });
  });
});
