import { mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { SyncLockedError, acquireSyncLock } from "../../../src/sync/lock.js";
import {
  SyncStateError,
  readSnapshot,
  readSyncState,
  removeOtherSnapshots,
  snapshotNameFor,
  writeSnapshot,
  writeSyncState,
  type SyncState,
} from "../../../src/sync/state.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-state-"));
});

describe("the state file", () => {
  const state: SyncState = {
    version: 1,
    issuers: [
      { issuerId: "zeta", cursor: null, snapshot: "zeta.1.ndjson", generation: 1, records: 0, incrementalSinceFull: 0, lastPass: "full", syncedAt: "2026-01-01T00:00:00Z" },
      { issuerId: "7", cursor: "2025-03-10T09:30:00.000000Z", snapshot: "7.2.ndjson", generation: 2, records: 7, incrementalSinceFull: 1, lastPass: "incremental", syncedAt: "2026-01-01T00:00:00Z", fullPending: true },
    ],
  };

  it("round-trips, sorted by issuer, and a missing file is an empty state", async () => {
    const file = join(dir, "state.json");
    expect(await readSyncState(file)).toEqual({ version: 1, issuers: [] });
    await writeSyncState(file, state);
    expect((await readSyncState(file)).issuers.map((s) => s.issuerId)).toEqual(["7", "zeta"]);
    expect(await readSyncState(file)).toEqual({ version: 1, issuers: [state.issuers[1], state.issuers[0]] });
    expect((await readdir(dir)).filter((n) => n.startsWith("."))).toEqual([]);
  });

  it("refuses a file that is not a state, naming where it is wrong", async () => {
    const file = join(dir, "state.json");
    await writeFile(file, JSON.stringify({ version: 1, issuers: [{ ...state.issuers[0], snapshot: "../../etc/passwd" }] }));
    await expect(readSyncState(file)).rejects.toThrow(/at issuers\.0\.snapshot/);
    await writeFile(file, JSON.stringify({ version: 2, issuers: [] }));
    await expect(readSyncState(file)).rejects.toBeInstanceOf(SyncStateError);
    await writeFile(file, JSON.stringify({ version: 1, issuers: [state.issuers[0], state.issuers[0]] }));
    await expect(readSyncState(file)).rejects.toThrow('lists issuer "zeta" twice');
  });
});

describe("snapshots", () => {
  it("keep the raw records exactly, and an issuer id cannot name another path", async () => {
    const issuerId = "north wind/../eu";
    const name = snapshotNameFor(issuerId, 4);
    expect(name).toMatch(/^north-wind-eu\.[0-9a-f]{10}\.4\.ndjson$/);
    const records = [
      { kind: "restrictedStockAward" as const, id: "1", raw: { id: "1", quantity: { value: "1.50000000000000000001" } } },
      { kind: "restrictedStockUnit" as const, id: undefined, raw: { broken: true } },
    ];
    await writeSnapshot(dir, name, issuerId, records);
    expect(await readSnapshot(dir, name, issuerId)).toEqual(records);
    expect(await readSnapshot(dir, "missing.1.ndjson", issuerId)).toBeUndefined();
    await expect(readSnapshot(dir, name, "another issuer")).rejects.toThrow('is not a record of issuer "another issuer"');
  });

  it("of other passes are removed, those of other issuers kept", async () => {
    for (const name of ["x.1.ndjson", "x.2.ndjson", "x.3.ndjson", "x.1234567890.1.ndjson", "x-y.1.ndjson", "state.json"]) await writeFile(join(dir, name), "");
    await removeOtherSnapshots(dir, "x", "x.2.ndjson");
    expect((await readdir(dir)).sort()).toEqual(["state.json", "x-y.1.ndjson", "x.1234567890.1.ndjson", "x.2.ndjson"]);
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

  it("refuses a lock of another host, which cannot be checked, and takes over one that names no owner", async () => {
    const stateFile = join(dir, "state.json");
    await writeFile(`${stateFile}.lock`, JSON.stringify({ pid: 1, host: "elsewhere", startedAt: "2026-01-01T00:00:00Z" }));
    await expect(acquireSyncLock(stateFile)).rejects.toThrow('process 1 on host "elsewhere" took it at 2026-01-01T00:00:00Z');
    // A lock file appears with its content in one step (it is linked in), so a corrupt one is no live writer's.
    await writeFile(`${stateFile}.lock`, "{");
    const lock = await acquireSyncLock(stateFile);
    expect(lock.tookOver).toMatchObject({ reason: "corrupt", owner: undefined });
    expect(lock.tookOver?.description).toContain("did not name its owner");
    await lock.release();
  });
});
