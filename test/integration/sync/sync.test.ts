import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { CountingDirectory } from "../../helpers/counting-directory.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SampleServer, WireRecord } from "../../../src/sample-server/server.js";
import { SyncLockedError } from "../../../src/sync/lock.js";
import { storeFolderOf } from "../../../src/sync/pass.js";
import { SyncStateError, readSyncState, snapshotFolderOf } from "../../../src/sync/state.js";
import { DeadlineExceededError, isOcfSyncError } from "../../../src/errors.js";
import { sync, type SyncEvent } from "../../../src/sync/sync.js";
import { answerOnly } from "../../helpers/hostile-handlers.js";
import { startLoopbackServer } from "../../helpers/loopback-server.js";
import { AS_OF, GENERATED_AT, changesOfPackage, client, eventsOf, expectSameAsFreshExport, folderFiles, folderStats, openSyncWorkspace, recordChangesOf, runSync, touch } from "./helpers.js";

function awardsOf(server: SampleServer, issuerId: string): WireRecord[] {
  const issuer = server.data.issuers.get(issuerId);
  if (issuer === undefined) throw new Error(`no issuer ${issuerId}`);
  return issuer.awards;
}

describe("sync against the sample server", () => {
  let server: SampleServer;
  let dir: string;
  let outDir: string;
  let stateFile: string;
  beforeEach(async () => {
    ({ server, dir, outDir, stateFile } = await openSyncWorkspace("ocf-sync-sync-", ["state", "sync-state.json"]));
  });
  afterEach(async () => server.close());

  it("first run pulls everything and writes the same package as a full export, then a no-change run asks one filtered page per kind", async () => {
    const first = await runSync(server.url, ["7", "acme-robotics"], { outDir, stateFile });
    const started = eventsOf(first, "issuer-started");
    expect(started.map((e) => [e.issuerId, e.pass, e.reason]).sort()).toEqual([
      ["7", "full", "first-run"],
      ["acme-robotics", "full", "first-run"],
    ]);
    const written = eventsOf(first, "package-written");
    expect(written.every((e) => e.changes.removed === 0 && e.changes.changed === 0 && e.changes.unchanged === 0)).toBe(true);
    expect(written.every((e) => e.changes.created > 0)).toBe(true);
    expect((await changesOfPackage(first, "7")).created).toHaveLength(written.find((e) => e.issuerId === "7")?.changes.created ?? -1);
    await expectSameAsFreshExport(server.url, "7", outDir);
    await expectSameAsFreshExport(server.url, "acme-robotics", outDir);
    const state = await readSyncState(stateFile);
    expect(state.issuers.map((s) => [s.issuerId, s.cursor, s.lastPass])).toEqual([
      ["7", "2025-03-10T09:30:00.000000Z", "full"],
      ["acme-robotics", "2025-05-19T11:02:58.612000Z", "full"],
    ]);
    expect(await readdir(snapshotFolderOf(stateFile))).toEqual(["7", "acme-robotics"]);
    const storeBefore = await folderFiles(storeFolderOf(stateFile, "7"));
    const packageBefore = await folderStats(join(outDir, "7"));
    const stateBefore = await readSyncState(stateFile);

    const before = server.stats().requests;
    const second = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(server.stats().requests - before).toBe(2);
    const [start] = eventsOf(second, "issuer-started");
    // cursor 09:30:00 minus the default five minutes, to the second
    expect(start).toMatchObject({ pass: "incremental", modifiedAfter: "2025-03-10T09:25:00Z" });
    const [records] = eventsOf(second, "records-changed");
    expect(records).toMatchObject({ pages: 2, pulled: 1, reread: 1 });
    expect(records?.records).toMatchObject({ created: 0, modified: 0, removed: 0, unchanged: 7 });
    expect(recordChangesOf(second, "7")).toEqual({ created: [], modified: [], removed: [], unchanged: 7 });
    // Nothing changed: the package is left as it is, and nothing of the store is written.
    expect(eventsOf(second, "package-written")).toEqual([]);
    const [kept] = eventsOf(second, "package-unchanged");
    expect(kept?.objects).toBeGreaterThan(7);
    const [result] = eventsOf(second, "sync-done")[0]?.results ?? [];
    expect(result).toMatchObject({ ok: true, export: undefined, package: { rewritten: false }, changes: { created: 0, changed: 0, removed: 0, unchanged: kept?.objects, byType: {}, sample: { created: [], changed: [], removed: [] }, leftOut: { created: 0, changed: 0, removed: 0 } } });
    expect(eventsOf(second, "object-changed")).toEqual([]);
    expect(await folderStats(join(outDir, "7"))).toEqual(packageBefore);
    expect(await folderFiles(storeFolderOf(stateFile, "7"))).toEqual(storeBefore);
    const stateAfter = await readSyncState(stateFile);
    // It keeps its pages' digests: nothing changed in them, so the same bytes next time need no parsing.
    expect(stateAfter.issuers[0]).toEqual({
      ...stateBefore.issuers[0],
      incrementalSinceFull: 1,
      lastPass: "incremental",
      syncedAt: stateAfter.issuers[0]?.syncedAt,
      unchangedPages: [
        [expect.any(String), expect.any(Number), null],
        [expect.any(String), expect.any(Number), null],
      ],
    });
    await expectSameAsFreshExport(server.url, "7", outDir);
  });

  it("does not parse a page that is the same as in the previous no-change pass, and still sees a change that keeps the modification time", async () => {
    const options = { outDir, stateFile, fullEvery: 0 };
    await runSync(server.url, ["7"], options);
    // The first pass after a full one parses its pages; the next gets the same bytes and parses none.
    expect(eventsOf(await runSync(server.url, ["7"], options), "records-changed")[0]).toMatchObject({ pages: 2, pulled: 1, reread: 1, unchangedPages: 0 });
    const again = await runSync(server.url, ["7"], options);
    expect(eventsOf(again, "records-changed")[0]).toMatchObject({ pages: 2, pulled: 1, reread: 1, unchangedPages: 2, records: { created: 0, modified: 0, removed: 0, unchanged: 7 } });
    expect(eventsOf(again, "record-changed")).toEqual([]);
    expect(eventsOf(again, "page-fetched").map((e) => e.records).sort()).toEqual([0, 1]);
    expect(eventsOf(again, "package-unchanged")).toHaveLength(1);
    expect((await readSyncState(stateFile)).issuers[0]?.unchangedPages).toHaveLength(2);

    // The record inside the overlap window changes, its modification time does not: its page differs.
    const issuer = server.data.issuers.get("7");
    const inWindow = issuer?.units.find((r) => (r.lastModifiedDatetime as { value: string }).value === "2025-03-10T09:30:00Z") as WireRecord;
    inWindow.securityLabel = "RSU-CHANGED-IN-PLACE";
    const changed = await runSync(server.url, ["7"], options);
    expect(eventsOf(changed, "records-changed")[0]).toMatchObject({ pulled: 1, reread: 0, unchangedPages: 1, records: { modified: 1, sample: { modified: [{ kind: "restrictedStockUnit", id: inWindow.id }] } } });
    expect(recordChangesOf(changed, "7").modified).toEqual([{ kind: "restrictedStockUnit", id: inWindow.id }]);
    expect(eventsOf(changed, "package-written")).toHaveLength(1);
    await expectSameAsFreshExport(server.url, "7", outDir);
    // A pass that stored something keeps no digests; the next no-change pass parses its pages again.
    expect((await readSyncState(stateFile)).issuers[0]?.unchangedPages).toBeUndefined();
    expect(eventsOf(await runSync(server.url, ["7"], options), "records-changed")[0]).toMatchObject({ reread: 1, unchangedPages: 0 });

    // Changed back to bytes whose digests an earlier pass kept (since replaced): still a change, found.
    inWindow.securityLabel = "RSU-CHANGED-AGAIN";
    await runSync(server.url, ["7"], options);
    await runSync(server.url, ["7"], options);
    expect(eventsOf(await runSync(server.url, ["7"], options), "records-changed")[0]).toMatchObject({ unchangedPages: 2 });
    inWindow.securityLabel = "RSU-CHANGED-IN-PLACE";
    const back = await runSync(server.url, ["7"], options);
    expect(eventsOf(back, "records-changed")[0]).toMatchObject({ reread: 0 });
    expect(recordChangesOf(back, "7").modified).toEqual([{ kind: "restrictedStockUnit", id: inWindow.id }]);
    await expectSameAsFreshExport(server.url, "7", outDir);
  });

  it("picks up created and modified records (out of order, inside the overlap), reports the changed fields, and sees deletions only on a full pass", async () => {
    await runSync(server.url, ["7"], { outDir, stateFile });
    const awards = awardsOf(server, "7");
    const [modified, deleted] = awards;
    if (modified === undefined || deleted === undefined) throw new Error("sample issuer 7 has awards");
    modified.securityLabel = "RSA-1-renamed";
    touch(modified, "2025-03-10T09:28:00Z"); // before the high-water mark, inside the window
    const created = structuredClone(modified);
    created.id = "9001";
    created.securityLabel = "RSA-9001";
    touch(created, "2025-03-11T00:00:00Z");
    awards.push(created);
    awards.splice(awards.indexOf(deleted), 1);

    const events = await runSync(server.url, ["7"], { outDir, stateFile });
    const records = recordChangesOf(events, "7");
    expect(records.created).toEqual([{ kind: "restrictedStockAward", id: "9001" }]);
    expect(records.modified).toEqual([{ kind: "restrictedStockAward", id: String(modified.id) }]);
    expect(records.removed).toEqual([]); // invisible to an incremental pass
    expect(eventsOf(events, "records-changed")[0]?.records.byKind).toEqual({ restrictedStockAward: { created: 1, modified: 1, removed: 0 } });
    const pkg = await changesOfPackage(events, "7");
    expect(pkg.created.map((o) => o.id)).toContain("rsa-9001-issuance");
    expect(pkg.changed).toContainEqual({ objectType: "TX_STOCK_ISSUANCE", id: `rsa-${String(modified.id)}-issuance`, fields: ["comments", "custom_id"] });
    expect(pkg.removed).toEqual([]);
    expect((await readSyncState(stateFile)).issuers[0]?.cursor).toBe("2025-03-11T00:00:00.000000Z");

    const full = await runSync(server.url, ["7"], { outDir, stateFile, full: true });
    expect(eventsOf(full, "issuer-started")[0]).toMatchObject({ pass: "full", reason: "requested" });
    expect(recordChangesOf(full, "7").removed).toEqual([{ kind: "restrictedStockAward", id: String(deleted.id) }]);
    const { removed } = await changesOfPackage(full, "7");
    expect(removed.map((o) => o.id)).toContain(`rsa-${String(deleted.id)}-issuance`);
    await expectSameAsFreshExport(server.url, "7", outDir);
  });

  it("makes every fullEvery-th pass a full one", async () => {
    const passes: string[] = [];
    for (let run = 0; run < 5; run += 1) {
      const events = await runSync(server.url, ["7"], { outDir, stateFile, fullEvery: 2 });
      passes.push(`${eventsOf(events, "issuer-started")[0]?.pass}:${eventsOf(events, "issuer-started")[0]?.reason}`);
    }
    expect(passes).toEqual(["full:first-run", "incremental:incremental", "full:periodic", "incremental:incremental", "full:periodic"]);
  });

  it("reports a failed issuer, keeps going with the others, and saves no state for it", async () => {
    const events = await runSync(server.url, ["no-such-issuer", "7"], { outDir, stateFile });
    expect(eventsOf(events, "issuer-failed").map((e) => e.issuerId)).toEqual(["no-such-issuer"]);
    const done = eventsOf(events, "sync-done")[0];
    expect(done?.results.map((r) => [r.issuerId, r.ok])).toEqual([
      ["no-such-issuer", false],
      ["7", true],
    ]);
    expect((await readSyncState(stateFile)).issuers.map((s) => s.issuerId)).toEqual(["7"]);
  });

  it("refuses a second sync while a live process holds the lock, and takes over the stale lock of a dead one", async () => {
    await mkdir(join(dir, "state"), { recursive: true });
    // process.ppid (the test runner) is alive and not this process: a lock naming this process's own pid
    // that it does not hold was left by an earlier process with that pid, and is taken over.
    // Written after the runner started (a lock written before its start would name a reused pid).
    const now = new Date().toISOString();
    await writeFile(`${stateFile}.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: now }));
    const refused = runSync(server.url, ["7"], { outDir, stateFile });
    await expect(refused).rejects.toBeInstanceOf(SyncLockedError);
    await expect(refused).rejects.toThrow(`process ${process.ppid} took it at ${now} and is still running`);
    expect(server.stats().requests).toBe(0);

    // pid 2^22+1 is above Linux's pid_max ceiling: no such process can exist
    const dead = 4_194_305;
    await writeFile(`${stateFile}.lock`, JSON.stringify({ pid: dead, host: hostname(), startedAt: "2026-01-01T00:00:00Z" }));
    const events = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(eventsOf(events, "lock-acquired")[0]?.tookOverFrom?.pid).toBe(dead);
    await expect(readFile(`${stateFile}.lock`)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses a state file it cannot read, and leaves it as it is", async () => {
    await runSync(server.url, ["7"], { outDir, stateFile });
    await writeFile(stateFile, "{ not json");
    const refused = runSync(server.url, ["7"], { outDir, stateFile });
    await expect(refused).rejects.toBeInstanceOf(SyncStateError);
    // A library user is told how to recover, as the command line's user is
    await expect(refused).rejects.toMatchObject({
      code: "SYNC_STATE_INVALID",
      path: stateFile,
      message: expect.stringMatching(
        /is not JSON .*it was left as it is\. To start afresh, move the state file away or delete it: the next sync is then a full pass of every issuer$/s,
      ),
    });
    expect(await readFile(stateFile, "utf8")).toBe("{ not json");
    await expect(readFile(`${stateFile}.lock`)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("reports every failure as an OcfSyncError with a code, as exportIssuers does: a callback's own error comes as UNEXPECTED, a plain abort reason as ABORTED", async () => {
    const callbackError = new Error("no profile for this issuer");
    const failed = await runSync(server.url, ["7", "acme-robotics"], {
      outDir,
      stateFile,
      issuerProfileOf: (issuerId) => {
        if (issuerId === "7") throw callbackError;
        return undefined;
      },
    });
    const [failure] = eventsOf(failed, "issuer-failed");
    expect(failure?.issuerId).toBe("7");
    expect(isOcfSyncError(failure?.error)).toBe(true);
    expect(failure?.error).toMatchObject({ code: "UNEXPECTED", message: "no profile for this issuer", cause: callbackError });
    const [done] = eventsOf(failed, "sync-done");
    expect(done?.results.map((r) => (r.ok ? [r.issuerId, "ok"] : [r.issuerId, r.error.code]))).toEqual([
      ["7", "UNEXPECTED"],
      ["acme-robotics", "ok"],
    ]);

    const controller = new AbortController();
    const api = client(server.url);
    const events: SyncEvent[] = [];
    try {
      const run = async (): Promise<void> => {
        for await (const event of sync(api, ["7"], { outDir, stateFile, full: true, signal: controller.signal })) {
          events.push(event);
          if (event.type === "issuer-started") controller.abort("the job was cancelled");
        }
      };
      await expect(run()).rejects.toBe("the job was cancelled");
    } finally {
      await api.close();
    }
    const stopped = events.at(-1);
    expect(stopped?.type).toBe("sync-stopped");
    if (stopped?.type !== "sync-stopped") return;
    const [result] = stopped.results;
    expect(result?.ok).toBe(false);
    if (result?.ok !== false) return;
    expect(isOcfSyncError(result.error)).toBe(true);
    expect(result.error).toMatchObject({ code: "ABORTED", cause: "the job was cancelled" });
  });

  it("pulls everything again when the snapshot is gone", async () => {
    await runSync(server.url, ["7"], { outDir, stateFile });
    await rm(snapshotFolderOf(stateFile), { recursive: true });
    const events = await runSync(server.url, ["7"], { outDir, stateFile });
    expect(eventsOf(events, "issuer-started")[0]).toMatchObject({ pass: "full", reason: "snapshot-missing" });
    await expectSameAsFreshExport(server.url, "7", outDir);
  });

  it("syncs issuers concurrently, saving every one in the state, with the results in the order given", async () => {
    const issuers = [...server.issuers].sort().reverse();
    const events = await runSync(server.url, issuers, { outDir, stateFile, concurrency: 3 });
    expect(eventsOf(events, "sync-done")[0]?.results.map((r) => [r.issuerId, r.ok])).toEqual(issuers.map((id) => [id, true]));
    expect((await readSyncState(stateFile)).issuers.map((s) => s.issuerId)).toEqual([...issuers].sort());
    expect(events.at(-1)?.type).toBe("sync-done");
  });

  it("serializes a stakeholder directory shared by every issuer once a sync, and maps again when it changes between syncs", async () => {
    const directory = new CountingDirectory([["nobody", { legalName: "Nobody Inc." }]]);
    const options = { outDir, stateFile, concurrency: 3, stakeholdersOf: () => directory };
    await runSync(server.url, server.issuers, options);
    expect(directory.reads).toBe(1);
    const unchanged = await runSync(server.url, server.issuers, options);
    expect(directory.reads).toBe(2);
    expect(eventsOf(unchanged, "package-written")).toEqual([]);
    directory.set("someone", { legalName: "Someone Ltd." });
    const changed = await runSync(server.url, server.issuers, options);
    expect(eventsOf(changed, "package-written").map((e) => e.issuerId).sort()).toEqual([...server.issuers].sort());
  });

  it("when the consumer leaves early, stops the issuers under way and releases the lock; the next run finishes", async () => {
    const api = client(server.url);
    try {
      for await (const event of sync(api, [...server.issuers], { outDir, stateFile, concurrency: 2, generatedAt: GENERATED_AT, asOf: AS_OF })) {
        if (event.type === "package-written") break;
      }
    } finally {
      await api.close();
    }
    await expect(readFile(`${stateFile}.lock`)).rejects.toMatchObject({ code: "ENOENT" });
    expect((await readdir(outDir)).filter((n) => n.startsWith("."))).toEqual([]);
    expect((await readSyncState(stateFile)).issuers.length).toBeLessThan(server.issuers.length);
    const events = await runSync(server.url, [...server.issuers], { outDir, stateFile });
    expect(eventsOf(events, "sync-done")[0]?.results.every((r) => r.ok)).toBe(true);
    for (const issuerId of server.issuers) await expectSameAsFreshExport(server.url, issuerId, outDir);
  });

  it("stops with the signal's reason when aborted", async () => {
    const controller = new AbortController();
    const api = client(server.url);
    const seen: string[] = [];
    try {
      const run = (async () => {
        for await (const event of sync(api, [...server.issuers], { outDir, stateFile, signal: controller.signal, generatedAt: GENERATED_AT })) {
          seen.push(event.type);
          if (event.type === "issuer-started") controller.abort(new Error("stop now"));
        }
      })();
      await expect(run).rejects.toThrow("stop now");
    } finally {
      await api.close();
    }
    expect(seen).not.toContain("sync-done");
    await expect(readFile(`${stateFile}.lock`)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("stopped by its deadline, reports each issuer it cut short (issuer-stopped) and every result (sync-stopped), then throws", async () => {
    // "7" is answered, "acme-robotics" held: one at a time, "7" is done when "acme-robotics" is stopped.
    const front = answerOnly(server.url, (issuerId) => issuerId === "7");
    const held = await startLoopbackServer(front.handler);
    const controller = new AbortController();
    // The deadline passing, at the moment the test chooses: sync passes the signal's reason on, as its own deadline's.
    void front.held.then(() => controller.abort(new DeadlineExceededError(60_000)));
    const api = client(held.url);
    const events: SyncEvent[] = [];
    try {
      const run = (async () => {
        for await (const event of sync(api, ["7", "acme-robotics"], { outDir, stateFile, concurrency: 1, signal: controller.signal, generatedAt: GENERATED_AT })) events.push(event);
      })();
      await expect(run).rejects.toMatchObject({ code: "DEADLINE_EXCEEDED" });
    } finally {
      await api.close();
      await held.close();
    }
    expect(eventsOf(events, "issuer-stopped").map((e) => [e.issuerId, (e.error as { code?: string }).code])).toEqual([["acme-robotics", "DEADLINE_EXCEEDED"]]);
    expect(eventsOf(events, "issuer-failed")).toEqual([]);
    expect(events.map((e) => e.type)).not.toContain("sync-done");
    const last = events.at(-1);
    expect(last?.type).toBe("sync-stopped");
    if (last?.type !== "sync-stopped") return;
    expect((last.error as { code?: string }).code).toBe("DEADLINE_EXCEEDED");
    expect(last.results.map((r) => [r.issuerId, r.ok])).toEqual([
      ["7", true],
      ["acme-robotics", false],
    ]);
    // "7" was synced whole; "acme-robotics" has no state (it had none before) and no package.
    expect((await readSyncState(stateFile)).issuers.map((i) => i.issuerId)).toEqual(["7"]);
    expect((await readdir(outDir)).sort()).toEqual(["7", "7.report.json"]);
  });

  it("carries a quarantined record over like any other, and maps it once it is fixed", async () => {
    const [award] = awardsOf(server, "7");
    if (award === undefined) throw new Error("sample issuer 7 has awards");
    const quantity = award.quantity;
    award.quantity = { value: "lots" };
    touch(award, "2025-03-10T09:29:00Z");
    const first = await runSync(server.url, ["7"], { outDir, stateFile, onInvalid: "quarantine" });
    expect(eventsOf(first, "sync-done")[0]?.results[0]?.ok).toBe(true);
    const report = async (): Promise<{ quarantined: { recordId: string }[] }> => JSON.parse(await readFile(join(outDir, "7.report.json"), "utf8")) as { quarantined: { recordId: string }[] };
    expect((await report()).quarantined.map((q) => q.recordId)).toEqual([String(award.id)]);

    // an unrelated change: the quarantined record comes from the snapshot and is quarantined again
    const other = awardsOf(server, "7")[2] as WireRecord;
    other.securityLabel = "RSA-other";
    touch(other, "2025-03-10T09:31:00Z");
    const second = await runSync(server.url, ["7"], { outDir, stateFile, onInvalid: "quarantine" });
    expect(recordChangesOf(second, "7").modified).toEqual([{ kind: "restrictedStockAward", id: String(other.id) }]);
    expect((await report()).quarantined.map((q) => q.recordId)).toEqual([String(award.id)]);
    await expectSameAsFreshExport(server.url, "7", outDir, { onInvalid: "quarantine" });

    award.quantity = quantity;
    touch(award, "2025-03-10T09:32:00Z");
    const third = await runSync(server.url, ["7"], { outDir, stateFile, onInvalid: "quarantine" });
    expect((await changesOfPackage(third, "7")).created.map((o) => o.id)).toContain(`rsa-${String(award.id)}-issuance`);
    expect((await report()).quarantined).toEqual([]);
    await expectSameAsFreshExport(server.url, "7", outDir, { onInvalid: "quarantine" });
  });
});
