/** Shared by the sync tests: sample data to mutate, a fresh export to compare with, and a sync runner. */
import { mkdtemp, readFile, readdir, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { createApiClient, type ApiClient } from "../../../src/client/create-client.js";
import { exportIssuer } from "../../../src/export/export-issuer.js";
import { packageNameFor } from "../../../src/ocf/package-folder.js";
import { loadSampleData, startSampleServer, type SampleData, type SampleServer, type WireRecord } from "../../../src/sample-server/server.js";
import { summarizeChangeSet, type OcfChangeSet, type PackageObjectMap } from "../../../src/sync/change-set.js";
import { collectChanges } from "../../helpers/change-set.js";
import { RecordTally, type RecordRef } from "../../../src/sync/record-changes.js";
import { sync, type SyncEvent, type SyncOptions } from "../../../src/sync/sync.js";

export const GENERATED_AT = "2025-07-01T00:00:00Z";
export const AS_OF = "2025-07-01";

/** A private copy of the sample data, safe to mutate. */
export async function freshSampleData(): Promise<SampleData> {
  return loadSampleData();
}

export function client(url: string): ApiClient {
  return createApiClient({ baseUrl: url, rateLimit: false });
}

/** A sample server with a private copy of the data, and a fresh folder for packages and the state. */
export async function openSyncWorkspace(prefix: string, stateFile: string[]): Promise<{ server: SampleServer; dir: string; outDir: string; stateFile: string }> {
  const server = await startSampleServer({ port: 0, data: await freshSampleData() });
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { server, dir, outDir: join(dir, "out"), stateFile: join(dir, ...stateFile) };
}

/** Runs a sync to the end and returns its events. */
export async function runSync(url: string, issuers: string[], options: SyncOptions): Promise<SyncEvent[]> {
  const api = client(url);
  const events: SyncEvent[] = [];
  try {
    for await (const event of sync(api, issuers, { generatedAt: GENERATED_AT, asOf: AS_OF, ...options })) events.push(event);
  } finally {
    await api.close();
  }
  return events;
}

/** The files of a folder, by name. */
export async function folderFiles(folder: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of (await readdir(folder)).sort()) files.set(name, await readFile(join(folder, name), "utf8"));
  return files;
}

/** The files of a folder with what shows a rewrite: inode, size and modification time. */
export async function folderStats(folder: string): Promise<Map<string, { ino: number; size: number; mtimeMs: number }>> {
  const stats = new Map<string, { ino: number; size: number; mtimeMs: number }>();
  for (const name of (await readdir(folder)).sort()) {
    const { ino, size, mtimeMs } = await stat(join(folder, name));
    stats.set(name, { ino, size, mtimeMs });
  }
  return stats;
}

/** Every OCF object of a package folder, read from its files (the test's own reader). */
export async function packageObjects(folder: string): Promise<PackageObjectMap> {
  const objects: PackageObjectMap = new Map();
  const add = (item: Record<string, unknown>): void => {
    objects.set(`${String(item.object_type)}\u0000${String(item.id)}`, item);
  };
  for (const name of await readdir(folder)) {
    const json = JSON.parse(await readFile(join(folder, name), "utf8")) as { issuer?: Record<string, unknown>; items?: Record<string, unknown>[] };
    if (json.issuer !== undefined) add(json.issuer);
    for (const item of json.items ?? []) add(item);
  }
  return objects;
}

/** Asserts that the synced package of `issuerId` is byte for byte a fresh full export of what the server serves now. */
export async function expectSameAsFreshExport(url: string, issuerId: string, outDir: string, options: { onInvalid?: "fail" | "quarantine" } = {}): Promise<void> {
  const fresh = await mkdtemp(join(tmpdir(), "ocf-sync-fresh-"));
  const api = client(url);
  try {
    await exportIssuer(api, issuerId, { outDir: fresh, generatedAt: GENERATED_AT, asOf: AS_OF, ...options });
  } finally {
    await api.close();
  }
  const name = packageNameFor(issuerId);
  expect(await folderFiles(join(outDir, name)), issuerId).toEqual(await folderFiles(join(fresh, name)));
}

/** Sets the record's wire `lastModifiedDatetime`. */
export function touch(record: WireRecord, at: string): void {
  record.lastModifiedDatetime = { value: at };
}

export function eventsOf<T extends SyncEvent["type"]>(events: readonly SyncEvent[], type: T): Extract<SyncEvent, { type: T }>[] {
  return events.filter((e): e is Extract<SyncEvent, { type: T }> => e.type === type);
}

/**
 * Every change a sync said of `issuerId`'s package (its `object-changed` events, each object once), after
 * checking that they are what its `package-written` summary counts and samples.
 */
export async function changesOfPackage(events: readonly SyncEvent[], issuerId: string): Promise<OcfChangeSet> {
  const written = eventsOf(events, "package-written").filter((e) => e.issuerId === issuerId);
  expect(written).toHaveLength(1);
  const summary = (written[0] as (typeof written)[number]).changes;
  const said = eventsOf(events, "object-changed").filter((e) => e.issuerId === issuerId);
  const { changes } = await collectChanges(
    said.map(({ type: _type, issuerId: _issuer, ...change }) => change),
    summary.unchanged + summary.changed + summary.removed,
  );
  expect(summarizeChangeSet(changes)).toEqual(summary);
  return changes;
}

/**
 * Every record change a pass said of `issuerId` (its `record-changed` events, each record once, all
 * before its `records-changed`), by kind then id, after checking that they are what its `records-changed`
 * summary counts and samples. Takes the events of one pass of the issuer.
 */
export function recordChangesOf(events: readonly SyncEvent[], issuerId: string): { created: RecordRef[]; modified: RecordRef[]; removed: RecordRef[]; unchanged: number } {
  const ofIssuer = events.filter((e) => "issuerId" in e && e.issuerId === issuerId);
  const summaries = eventsOf(ofIssuer, "records-changed");
  expect(summaries).toHaveLength(1);
  const summary = (summaries[0] as (typeof summaries)[number]).records;
  const said = eventsOf(ofIssuer, "record-changed");
  expect(said.every((e) => ofIssuer.indexOf(e) < ofIssuer.indexOf(summaries[0] as SyncEvent))).toBe(true);
  const keys = said.map((e) => `${e.kind}\u0000${e.id ?? ""}`);
  expect(new Set(keys).size).toBe(keys.length);
  const tally = new RecordTally(Number.MAX_SAFE_INTEGER);
  for (const { type: _type, issuerId: _issuer, ...change } of said) tally.add(change);
  const all = tally.summary(summary.unchanged);
  const bounded = new RecordTally();
  for (const { type: _type, issuerId: _issuer, ...change } of said) bounded.add(change);
  expect(bounded.summary(summary.unchanged)).toEqual(summary);
  return { created: all.sample.created, modified: all.sample.modified, removed: all.sample.removed, unchanged: all.unchanged };
}

/** An issuer of `count` records cloned from issuer 7's, with ids of their own, modified one a minute up to 2025-04-01. */
export function generatedIssuer(server: SampleServer, issuerId: string, count: number): WireRecord[] {
  const sample = server.data.issuers.get("7");
  if (sample === undefined) throw new Error("sample issuer 7 is missing");
  const awards: WireRecord[] = [];
  const units: WireRecord[] = [];
  for (let i = 0; i < count; i += 1) {
    const isAward = i % 2 === 0;
    const templates = isAward ? sample.awards : sample.units;
    const record = structuredClone(templates[i % templates.length] as WireRecord);
    record.id = `g${i}`;
    record.issuerId = issuerId;
    record.securityLabel = `${isAward ? "RSA" : "RSU"}-G${i}`;
    touch(record, new Date(Date.parse("2025-04-01T00:00:00Z") - (count - i) * 60_000).toISOString());
    (isAward ? awards : units).push(record);
  }
  server.data.issuers.set(issuerId, { awards, units });
  return [...awards, ...units];
}
