/**
 * Issue 25, items 1 and 2: no record poisons a later sync. A value the mapping takes round-trips
 * through the state; one issuer's unreadable entry sets aside that issuer alone; a quarantined record
 * contributes nothing, so that sync and export write the same package from the same records.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SampleServer, WireRecord } from "../../../src/sample-server/server.js";
import { readSyncState } from "../../../src/sync/state.js";
import type { SyncEvent } from "../../../src/sync/sync.js";
import { eventsOf, expectSameAsFreshExport, openSyncWorkspace, runSync, touch } from "./helpers.js";

function recordsOf(server: SampleServer, issuerId: string, kind: "awards" | "units"): WireRecord[] {
  const issuer = server.data.issuers.get(issuerId);
  if (issuer === undefined) throw new Error(`no issuer ${issuerId}`);
  return issuer[kind];
}

function recordOf(server: SampleServer, issuerId: string, kind: "awards" | "units", id: string): WireRecord {
  const record = recordsOf(server, issuerId, kind).find((r) => r.id === id);
  if (record === undefined) throw new Error(`no ${kind} ${id} of issuer ${issuerId}`);
  return record;
}

/** Each issuer's outcome in a sync's last event. */
function outcomes(events: SyncEvent[]): [string, boolean][] {
  const done = eventsOf(events, "sync-done")[0];
  if (done === undefined) throw new Error("the sync did not end with sync-done");
  return done.results.map((r) => [r.issuerId, r.ok]);
}

async function reportOf(outDir: string, issuerId: string): Promise<{ quarantined: { recordId: string }[]; warnings: { code: string; message: string }[] }> {
  return JSON.parse(await readFile(join(outDir, `${issuerId}.report.json`), "utf8")) as { quarantined: { recordId: string }[]; warnings: { code: string; message: string }[] };
}

describe("no record poisons a later sync (issue 25)", () => {
  let server: SampleServer;
  let outDir: string;
  let stateFile: string;
  beforeEach(async () => {
    ({ server, outDir, stateFile } = await openSyncWorkspace("ocf-sync-poison-", ["state", "sync-state.json"]));
  });
  afterEach(async () => server.close());

  it("an award whose shareClassName is empty (with a shareClassId) is a class-less award: three syncs in a row read the state, and write what export writes", async () => {
    const award = recordOf(server, "7", "awards", "2208");
    award.shareClassName = "";
    for (const [run, at] of ["2025-03-10T09:31:00Z", "2025-03-10T09:32:00Z", "2025-03-10T09:33:00Z"].entries()) {
      // Each run changes the award again, so that it is pulled, mapped and stored anew.
      touch(award, at);
      award.securityLabel = `RSA-blank-${run}`;
      const events = await runSync(server.url, ["7", "acme-robotics"], { outDir, stateFile });
      expect(outcomes(events), `run ${run}`).toEqual([
        ["7", true],
        ["acme-robotics", true],
      ]);
      const state = await readSyncState(stateFile);
      expect(state.unreadable).toBeUndefined();
      expect(state.issuers.map((s) => s.issuerId)).toEqual(["7", "acme-robotics"]);
      await expectSameAsFreshExport(server.url, "7", outDir);
      const warnings = (await reportOf(outDir, "7")).warnings.filter((w) => w.code === "BLANK_VALUE");
      expect(warnings.map((w) => w.message)).toEqual([`restrictedStockAward "2208" of issuer "7": shareClassName: "" is blank: taken as absent (the record names no share class this way)`]);
    }
  });

  it("an issuer's entry of the state that cannot be read is set aside: that issuer is synced afresh, the others as the state says", async () => {
    await runSync(server.url, ["7", "acme-robotics"], { outDir, stateFile });
    const file = JSON.parse(await readFile(stateFile, "utf8")) as { version: number; issuers: Record<string, unknown>[] };
    const seven = file.issuers.find((i) => i.issuerId === "7") as Record<string, unknown>;
    seven.store = { ...(seven.store as object), shards: "damaged" };
    file.issuers.push({ cursor: "not an entry" });
    await writeFile(stateFile, JSON.stringify(file));

    const events = await runSync(server.url, ["7", "acme-robotics"], { outDir, stateFile });
    expect(eventsOf(events, "state-entries-set-aside")[0]?.entries).toEqual([
      { issuerId: "7", problem: expect.stringMatching(/^at issuers\.\d\.store\.shards: /) as unknown },
      { issuerId: undefined, problem: expect.stringMatching(/^at issuers\.2\.issuerId: /) as unknown },
    ]);
    expect(eventsOf(events, "issuer-started").map((e) => [e.issuerId, e.pass, e.reason]).sort()).toEqual([
      ["7", "full", "state-unreadable"],
      ["acme-robotics", "incremental", "incremental"],
    ]);
    expect(outcomes(events)).toEqual([
      ["7", true],
      ["acme-robotics", true],
    ]);
    await expectSameAsFreshExport(server.url, "7", outDir);
    const state = await readSyncState(stateFile);
    expect(state.unreadable).toBeUndefined();
    expect(state.issuers.map((s) => [s.issuerId, s.lastPass])).toEqual([
      ["7", "full"],
      ["acme-robotics", "incremental"],
    ]);
  });

  it("an issuer listed twice in the state is set aside alone", async () => {
    await runSync(server.url, ["7", "acme-robotics"], { outDir, stateFile });
    const file = JSON.parse(await readFile(stateFile, "utf8")) as { version: number; issuers: Record<string, unknown>[] };
    file.issuers.push(file.issuers[0] as Record<string, unknown>);
    await writeFile(stateFile, JSON.stringify(file));
    const events = await runSync(server.url, ["7", "acme-robotics"], { outDir, stateFile });
    expect(eventsOf(events, "state-entries-set-aside")[0]?.entries).toEqual([{ issuerId: "7", problem: 'issuer "7" is listed more than once' }]);
    expect(outcomes(events)).toEqual([
      ["7", true],
      ["acme-robotics", true],
    ]);
    expect(eventsOf(events, "issuer-started").find((e) => e.issuerId === "acme-robotics")?.pass).toBe("incremental");
  });
});

describe("quarantine: sync and export write the same package from the same records (issue 25, item 2)", () => {
  let server: SampleServer;
  let outDir: string;
  let stateFile: string;
  beforeEach(async () => {
    ({ server, outDir, stateFile } = await openSyncWorkspace("ocf-sync-agree-", ["state", "sync-state.json"]));
  });
  afterEach(async () => server.close());

  /** Issuer 7 whose awards give their class only by id, but 2207, which names it. */
  function onlyNamedBy2207(): WireRecord {
    for (const award of recordsOf(server, "7", "awards")) if (award.id !== "2207") delete award.shareClassName;
    return recordOf(server, "7", "awards", "2207");
  }

  it("a class named only by an award the mapping quarantines: the units and awards of its id are in the class export puts them in", async () => {
    const named = onlyNamedBy2207();
    // Parses, but cannot be mapped: no price is invented.
    delete named.pricePerShare;
    const first = await runSync(server.url, ["7"], { outDir, stateFile, onInvalid: "quarantine" });
    expect(outcomes(first)).toEqual([["7", true]]);
    expect((await reportOf(outDir, "7")).quarantined.map((q) => q.recordId)).toEqual(["2207"]);
    await expectSameAsFreshExport(server.url, "7", outDir, { onInvalid: "quarantine" });

    // An incremental pass that changes a unit of that class: still as export writes it.
    const unit = recordOf(server, "7", "units", "8802");
    unit.securityLabel = "RSU-relabelled";
    touch(unit, "2025-03-10T09:31:00Z");
    const second = await runSync(server.url, ["7"], { outDir, stateFile, onInvalid: "quarantine" });
    expect(eventsOf(second, "issuer-started")[0]?.pass).toBe("incremental");
    await expectSameAsFreshExport(server.url, "7", outDir, { onInvalid: "quarantine" });
  });

  it("the award that names the class becomes one the mapping quarantines in an incremental pass: the name goes with it", async () => {
    const named = onlyNamedBy2207();
    await runSync(server.url, ["7"], { outDir, stateFile, onInvalid: "quarantine" });
    await expectSameAsFreshExport(server.url, "7", outDir, { onInvalid: "quarantine" });
    delete named.pricePerShare;
    touch(named, "2025-03-10T09:31:00Z");
    const second = await runSync(server.url, ["7"], { outDir, stateFile, onInvalid: "quarantine" });
    expect(eventsOf(second, "issuer-started")[0]?.pass).toBe("incremental");
    expect((await reportOf(outDir, "7")).quarantined.map((q) => q.recordId)).toEqual(["2207"]);
    await expectSameAsFreshExport(server.url, "7", outDir, { onInvalid: "quarantine" });
    // Fixed again: the name comes back.
    named.pricePerShare = { currencyCode: { value: "USD" }, amount: { value: "0.01" } };
    touch(named, "2025-03-10T09:32:00Z");
    await runSync(server.url, ["7"], { outDir, stateFile, onInvalid: "quarantine" });
    expect((await reportOf(outDir, "7")).quarantined).toEqual([]);
    await expectSameAsFreshExport(server.url, "7", outDir, { onInvalid: "quarantine" });
  });

  it("the award that names the class is deleted: the next full pass maps the records of its id again, as export writes them", async () => {
    onlyNamedBy2207();
    await runSync(server.url, ["7"], { outDir, stateFile, onInvalid: "quarantine" });
    const awards = recordsOf(server, "7", "awards");
    awards.splice(awards.findIndex((a) => a.id === "2207"), 1);
    const second = await runSync(server.url, ["7"], { outDir, stateFile, onInvalid: "quarantine", full: true });
    expect(eventsOf(second, "records-changed")[0]?.records.removed).toEqual([{ kind: "restrictedStockAward", id: "2207" }]);
    await expectSameAsFreshExport(server.url, "7", outDir, { onInvalid: "quarantine" });
  });

  it("an award naming a class id by another name than the others, and a class-less unit that is the only grant of its plan, do not fail the issuer", async () => {
    const other = recordOf(server, "7", "awards", "2209");
    other.shareClassName = "Common (other name)";
    const lone = recordOf(server, "7", "units", "8803");
    delete lone.shareClassId;
    lone.equityIncentivePlanName = "A plan of one unit";
    for (const onInvalid of ["quarantine", "fail"] as const) {
      const events = await runSync(server.url, ["7"], { outDir, stateFile, onInvalid, full: true });
      expect(outcomes(events), onInvalid).toEqual([["7", true]]);
      await expectSameAsFreshExport(server.url, "7", outDir, { onInvalid });
      const codes = (await reportOf(outDir, "7")).warnings.map((w) => w.code);
      expect(codes).toContain("STOCK_CLASS_NAME_CHOSEN");
    }
  });
});
