import { mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { SyncLockedError, acquireSyncLock } from "../../../src/sync/lock.js";
import { SyncStateError, readSyncState, writeSyncState, type SyncState } from "../../../src/sync/state.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-state-"));
});

describe("the state file", () => {
  const state: SyncState = {
    version: 2,
    issuers: [
      { issuerId: "zeta", cursor: null, generation: 1, records: 0, incrementalSinceFull: 0, lastPass: "full", syncedAt: "2026-01-01T00:00:00Z", store: { shards: [0], recent: 1, mapping: "abc" } },
      {
        issuerId: "7",
        cursor: "2025-03-10T09:30:00.000000Z",
        generation: 2,
        records: 7,
        incrementalSinceFull: 1,
        lastPass: "incremental",
        syncedAt: "2026-01-01T00:00:00Z",
        fullPending: true,
        store: { shards: [2, 1], recent: 2, mapping: "abc" },
        package: { generation: 1, shards: [1, 1], build: "def", folder: "/out/7", zip: null, objects: 30 },
      },
    ],
  };

  it("round-trips, sorted by issuer, one issuer a line, and a missing file is an empty state", async () => {
    const file = join(dir, "state.json");
    expect(await readSyncState(file)).toEqual({ version: 2, issuers: [] });
    await writeSyncState(file, state);
    expect((await readSyncState(file)).issuers.map((s) => s.issuerId)).toEqual(["7", "zeta"]);
    expect(await readSyncState(file)).toEqual({ version: 2, issuers: [state.issuers[1], state.issuers[0]] });
    expect((await readFile(file, "utf8")).split("\n")).toHaveLength(8);
    expect((await readdir(dir)).filter((n) => n.startsWith("."))).toEqual([]);
    await writeSyncState(file, { version: 2, issuers: [] });
    expect(await readSyncState(file)).toEqual({ version: 2, issuers: [] });
  });

  it("refuses a file that is not a state, and sets aside, alone, an issuer's entry it cannot read, naming where it is wrong", async () => {
    const file = join(dir, "state.json");
    await writeFile(file, JSON.stringify({ version: 2, issuers: [{ ...state.issuers[0], store: { shards: [1], recent: 1, mapping: "../../etc" } }, state.issuers[1]] }));
    expect(await readSyncState(file)).toEqual({
      version: 2,
      issuers: [state.issuers[1]],
      unreadable: [{ issuerId: "zeta", problem: expect.stringMatching(/^at issuers\.0\.store\.mapping: /) as unknown }],
    });
    await writeFile(file, JSON.stringify({ version: 3, issuers: [] }));
    await expect(readSyncState(file)).rejects.toBeInstanceOf(SyncStateError);
    await expect(readSyncState(file)).rejects.toThrow(/it was left as it is\. To start afresh, move the state file away or delete it: the next sync is then a full pass of every issuer$/);
    await writeFile(file, JSON.stringify({ version: 2, issuers: {} }));
    await expect(readSyncState(file)).rejects.toThrow(/at issuers: /);
    await writeFile(file, JSON.stringify({ version: 2, issuers: [state.issuers[0], state.issuers[1], state.issuers[0]] }));
    expect(await readSyncState(file)).toEqual({ version: 2, issuers: [state.issuers[1]], unreadable: [{ issuerId: "zeta", problem: 'issuer "zeta" is listed more than once' }] });
    await writeFile(file, JSON.stringify({ version: 1, issuers: [{ issuerId: "7" }, null] }));
    expect(await readSyncState(file)).toEqual({
      version: 2,
      issuers: [],
      unreadable: [
        { issuerId: "7", problem: expect.stringMatching(/^at issuers\.0\.cursor: /) as unknown },
        { issuerId: undefined, problem: expect.stringMatching(/^at issuers\.1: /) as unknown },
      ],
    });
  });

  it("reads a state of version 1, keeping cursors and counts, without a store (the next pass is full)", async () => {
    const file = join(dir, "state.json");
    const v1 = { issuerId: "7", cursor: "2025-03-10T09:30:00.000000Z", snapshot: "7.2.ndjson", generation: 2, records: 7, incrementalSinceFull: 1, lastPass: "incremental", syncedAt: "2026-01-01T00:00:00Z" };
    await writeFile(file, JSON.stringify({ version: 1, issuers: [v1] }));
    const { snapshot: _snapshot, ...kept } = v1;
    expect(await readSyncState(file)).toEqual({ version: 2, issuers: [kept] });
  });
});

describe("the lock", () => {
  it("lets one of two syncs in, and frees the state on release", async () => {
    const stateFile = join(dir, "state.json");
    const results = await Promise.allSettled([acquireSyncLock(stateFile), acquireSyncLock(stateFile)]);
    const held = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(held).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected");
    expect(refused?.status === "rejected" ? refused.reason : undefined).toBeInstanceOf(SyncLockedError);
    const owner = JSON.parse(await readFile(`${stateFile}.lock`, "utf8")) as { pid: number; host: string };
    expect(owner).toMatchObject({ pid: process.pid, host: hostname() });
    await held[0]?.release();
    const again = await acquireSyncLock(stateFile);
    expect(again.tookOverFrom).toBeUndefined();
    await again.release();
  });

  it("refuses a lock of another host within its lease, takes over one past it, and one that names no owner", async () => {
    const stateFile = join(dir, "state.json");
    await writeFile(`${stateFile}.lock`, JSON.stringify({ pid: 1, host: "elsewhere", startedAt: "2026-01-01T00:00:00Z", renewedAt: "2026-01-01T00:00:50Z", leaseMs: 60_000 }));
    const within = Date.parse("2026-01-01T00:01:00Z");
    await expect(acquireSyncLock(stateFile, { now: () => within })).rejects.toThrow('process 1 on host "elsewhere" took it at 2026-01-01T00:00:00Z and renewed it at 2026-01-01T00:00:50Z');
    const expired = await acquireSyncLock(stateFile, { now: () => within + 60_000 });
    expect(expired.tookOver).toMatchObject({ reason: "lease-expired", owner: { host: "elsewhere" } });
    await expired.release();
    // A lock file appears with its content in one step (it is linked in), so a corrupt one is no live writer's.
    await writeFile(`${stateFile}.lock`, "{");
    const lock = await acquireSyncLock(stateFile);
    expect(lock.tookOver).toMatchObject({ reason: "corrupt", owner: undefined });
    expect(lock.tookOver?.description).toContain("did not name its owner");
    await lock.release();
  });
});
