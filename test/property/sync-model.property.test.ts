/**
 * Model-based test of `sync` (fast-check commands): the sample server's data is changed between runs
 * (records created, modified, deleted; modification times out of order inside the overlap window),
 * and after every sync the package must equal a fresh full export of what the sync can know: the
 * current records, plus the records deleted since the last full pass (no deletions feed, §6) in the
 * version the sync last saw. A full pass must therefore equal a fresh export of the current data.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/client/create-client.js";
import { epochMsToUtcDateTime } from "../../src/dates.js";
import { exportIssuer } from "../../src/export/export-issuer.js";
import { startSampleServer, loadSampleData, type SampleServer, type WireRecord } from "../../src/sample-server/server.js";
import { diffPackageObjects, summarizeChangeSet } from "../../src/sync/change-set.js";
import { storeFilesOf, storeFolderOf } from "../../src/sync/pass.js";
import { readSyncState } from "../../src/sync/state.js";
import { sync, type SyncEvent } from "../../src/sync/sync.js";
import { collectChanges } from "../helpers/change-set.js";
import { packageObjects } from "../integration/sync/helpers.js";

const ISSUER = "7";
const GENERATED_AT = "2025-07-01T00:00:00Z";
const AS_OF = "2025-07-01";
const OVERLAP_SECONDS = 60;
/** After every modification time in the sample issuer. */
const START_MS = Date.parse("2025-03-11T00:00:00Z");

type Kind = "awards" | "units";
type Records = Map<string, { kind: Kind; record: WireRecord }>;

interface Real {
  server: SampleServer;
  /** Serves the model's expectation, for the fresh export to compare with. */
  expected: SampleServer;
  outDir: string;
  stateFile: string;
  nowMs: number;
  nextId: number;
}

interface Model {
  /** What the service holds now. */
  current: Records;
  /** What the last sync saw: every record it knows, deleted ones included until a full pass. */
  view: Records;
}

function keyOf(kind: Kind, record: WireRecord): string {
  return `${kind}\u0000${String(record.id)}`;
}

function publish(server: SampleServer, records: Records): void {
  const awards: WireRecord[] = [];
  const units: WireRecord[] = [];
  for (const { kind, record } of records.values()) (kind === "awards" ? awards : units).push(structuredClone(record));
  server.data.issuers.set(ISSUER, { awards, units });
}

function stamp(record: WireRecord, real: Real, lagMs: number): void {
  // Anything inside the overlap window before "now": later changes may carry earlier times.
  record.lastModifiedDatetime = { value: epochMsToUtcDateTime(real.nowMs - lagMs) };
}

async function folderFiles(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of (await readdir(folder)).sort()) files[name] = await readFile(join(folder, name), "utf8");
  return files;
}

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly template: number,
    readonly lagMs: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const templates = [...model.current.values()];
    const source = templates[this.template % Math.max(templates.length, 1)];
    if (source === undefined) return;
    const record = structuredClone(source.record);
    record.id = `n${real.nextId++}`;
    record.securityLabel = `NEW-${String(record.id)}`;
    stamp(record, real, this.lagMs);
    model.current.set(keyOf(source.kind, record), { kind: source.kind, record });
    publish(real.server, model.current);
  }
  toString(): string {
    return `create(from #${this.template}, lag ${this.lagMs}ms)`;
  }
}

class Modify implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly index: number,
    readonly field: "securityLabel" | "stakeholderId" | "equityIncentivePlanName",
    readonly value: number,
    readonly lagMs: number,
  ) {}
  check(model: Readonly<Model>): boolean {
    return model.current.size > 0;
  }
  async run(model: Model, real: Real): Promise<void> {
    const entries = [...model.current.values()];
    const entry = entries[this.index % entries.length];
    if (entry === undefined) return;
    const record = structuredClone(entry.record);
    record[this.field] = this.field === "stakeholderId" ? String(5120 + this.value) : `${this.field}-${this.value}`;
    stamp(record, real, this.lagMs);
    model.current.set(keyOf(entry.kind, record), { kind: entry.kind, record });
    publish(real.server, model.current);
  }
  toString(): string {
    return `modify(#${this.index}.${this.field} = ${this.value}, lag ${this.lagMs}ms)`;
  }
}

/**
 * Changes a record inside the overlap window without changing its modification time (a late commit,
 * or a service that stamps at the second): every pass re-reads it, so the sync must see the change,
 * even when the previous pass got the same page bytes back and did not parse them.
 */
class ModifyInPlace implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly index: number,
    readonly value: number,
  ) {}
  check(model: Readonly<Model>): boolean {
    return model.current.size > 0;
  }
  async run(model: Model, real: Real): Promise<void> {
    // The cursor is never later than "now": a record modified within the overlap before now is re-read.
    const recent = [...model.current.values()].filter(({ record }) => Date.parse((record.lastModifiedDatetime as { value: string }).value) >= real.nowMs - OVERLAP_SECONDS * 1000);
    const entry = recent[this.index % Math.max(recent.length, 1)];
    if (entry === undefined) return;
    const record = structuredClone(entry.record);
    record.securityLabel = `in-place-${this.value}`;
    model.current.set(keyOf(entry.kind, record), { kind: entry.kind, record });
    publish(real.server, model.current);
  }
  toString(): string {
    return `modifyInPlace(#${this.index} = ${this.value})`;
  }
}

class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check(model: Readonly<Model>): boolean {
    return model.current.size > 1;
  }
  async run(model: Model, real: Real): Promise<void> {
    const keys = [...model.current.keys()];
    const key = keys[this.index % keys.length];
    if (key === undefined) return;
    model.current.delete(key);
    publish(real.server, model.current);
  }
  toString(): string {
    return `delete(#${this.index})`;
  }
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check(): boolean {
    return true;
  }
  async run(_model: Model, real: Real): Promise<void> {
    real.nowMs += this.ms;
  }
  toString(): string {
    return `advance(${this.ms}ms)`;
  }
}

class Sync implements fc.AsyncCommand<Model, Real> {
  constructor(readonly full: boolean) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const viewBefore = JSON.stringify([...model.view.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
    if (this.full) model.view = new Map(model.current);
    else for (const [key, entry] of model.current) model.view.set(key, entry);
    const viewChanged = JSON.stringify([...model.view.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) !== viewBefore;

    const packageFolder = join(real.outDir, ISSUER);
    const objectsBefore = existsSync(packageFolder) ? await packageObjects(packageFolder) : new Map();
    const client = createApiClient({ baseUrl: real.server.url, rateLimit: false });
    const events: SyncEvent[] = [];
    try {
      for await (const event of sync(client, [ISSUER], {
        outDir: real.outDir,
        stateFile: real.stateFile,
        full: this.full,
        fullEvery: 0,
        overlapSeconds: OVERLAP_SECONDS,
        generatedAt: GENERATED_AT,
        asOf: AS_OF,
      })) {
        events.push(event);
      }
    } finally {
      await client.close();
    }
    const failed = events.find((e) => e.type === "issuer-failed");
    expect(failed, failed?.type === "issuer-failed" ? String(failed.error) : "").toBeUndefined();

    publish(real.expected, model.view);
    const freshDir = await mkdtemp(join(tmpdir(), "ocf-sync-model-fresh-"));
    const expectedClient = createApiClient({ baseUrl: real.expected.url, rateLimit: false });
    try {
      await exportIssuer(expectedClient, ISSUER, { outDir: freshDir, generatedAt: GENERATED_AT, asOf: AS_OF });
    } finally {
      await expectedClient.close();
    }
    expect(await folderFiles(join(real.outDir, ISSUER))).toEqual(await folderFiles(join(freshDir, ISSUER)));

    // The change set, taken from the stored mappings, is the difference of the two packages.
    const written = events.find((e): e is Extract<SyncEvent, { type: "package-written" }> => e.type === "package-written");
    const objectsAfter = await packageObjects(packageFolder);
    // Every change is said once, as an object-changed event, and the summary is that change set's.
    if (written !== undefined) {
      const diff = diffPackageObjects(objectsBefore, objectsAfter);
      const said = events.flatMap((e) => (e.type === "object-changed" ? [e] : []));
      expect((await collectChanges(said, objectsBefore.size)).changes).toEqual(diff);
      expect(written.changes).toEqual(summarizeChangeSet(diff));
    } else expect(objectsAfter).toEqual(objectsBefore);
    if (!viewChanged) expect(written?.changes ?? { created: 0, changed: 0, removed: 0 }).toMatchObject({ created: 0, changed: 0, removed: 0 });
    // Nothing is kept beside the state but what it names.
    const state = await readSyncState(real.stateFile);
    for (const issuer of state.issuers) expect((await readdir(storeFolderOf(real.stateFile, issuer.issuerId))).sort()).toEqual([...storeFilesOf(issuer)].sort());
  }
  toString(): string {
    return this.full ? "sync(full)" : "sync";
  }
}

describe("sync, model-based", () => {
  let server: SampleServer;
  let expected: SampleServer;
  let initial: Records;
  beforeAll(async () => {
    const data = await loadSampleData();
    const issuer = data.issuers.get(ISSUER);
    if (issuer === undefined) throw new Error("sample issuer 7 is missing");
    initial = new Map();
    for (const record of issuer.awards) initial.set(keyOf("awards", record), { kind: "awards", record });
    for (const record of issuer.units) initial.set(keyOf("units", record), { kind: "units", record });
    server = await startSampleServer({ port: 0, data: { issuers: new Map() } });
    expected = await startSampleServer({ port: 0, data: { issuers: new Map() } });
  });
  afterAll(async () => {
    await server.close();
    await expected.close();
  });

  it("keeps the package equal to a fresh full export of what it can know, after every sync", async () => {
    // Small lags often: a change stamped just before the high-water mark is what a cursor without an
    // overlap window would miss.
    const lag = fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: OVERLAP_SECONDS * 1000 - 1 }));
    const commands = [
      fc.tuple(fc.nat(), lag).map(([t, l]) => new Create(t, l)),
      fc.tuple(fc.nat(), fc.constantFrom("securityLabel" as const, "stakeholderId" as const, "equityIncentivePlanName" as const), fc.integer({ min: 0, max: 3 }), lag).map(
        ([i, f, v, l]) => new Modify(i, f, v, l),
      ),
      fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2 })).map(([i, v]) => new ModifyInPlace(i, v)),
      fc.nat().map((i) => new Delete(i)),
      fc.integer({ min: 1, max: 90_000 }).map((ms) => new Advance(ms)),
      fc.boolean().map((full) => new Sync(full)),
      fc.constant(new Sync(false)),
    ];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 14 }), async (cmds) => {
        const dir = await mkdtemp(join(tmpdir(), "ocf-sync-model-"));
        const model: Model = { current: new Map(initial), view: new Map() };
        publish(server, model.current);
        const real: Real = { server, expected, outDir: join(dir, "out"), stateFile: join(dir, "state.json"), nowMs: START_MS, nextId: 1 };
        // Every run starts with a first (full) sync, then the generated history.
        await new Sync(false).run(model, real);
        await fc.asyncModelRun(() => ({ model, real }), cmds);
      }),
      // A run takes well under a second. One that never ends would only show as this test's timeout,
      // with no seed; cut at 30 s it fails as a counterexample fast-check reports (seed, path and
      // commands) without shrinking, so that it can be replayed.
      { numRuns: 25, plugins: [fc.timeout(30_000)], endOnFailure: true },
    );
  }, 120_000);
});
