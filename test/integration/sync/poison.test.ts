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
import { eventsOf, expectSameAsFreshExport, openSyncWorkspace, recordChangesOf, runSync, touch } from "./helpers.js";

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

// Every test: a sample server with a private copy of the data, and fresh folders for packages and state.
let server: SampleServer;
let outDir: string;
let stateFile: string;
beforeEach(async () => {
  ({ server, outDir, stateFile } = await openSyncWorkspace("ocf-sync-poison-", ["state", "sync-state.json"]));
});
afterEach(async () => server.close());

describe("no record poisons a later sync (issue 25)", () => {
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
    expect(recordChangesOf(second, "7").removed).toEqual([{ kind: "restrictedStockAward", id: "2207" }]);
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

describe("a sync over issuers of which one has a record of every fuzzed kind (issue 25, done when)", () => {
  const control = "Com\u0000mon\u001b[2J\r\n\u0007\u2028\u202e";
  /** Copies of issuer 7's award 2207 and unit 8801, each with one kind of bad value. */
  function fuzzedRecords(): { awards: WireRecord[]; units: WireRecord[] } {
    const copyOf =
      (kind: "awards" | "units", sourceId: string, label: string) =>
      (id: string, change: (r: WireRecord) => void): WireRecord => {
        const r = structuredClone(recordOf(server, "7", kind, sourceId));
        r.id = id;
        r.securityLabel = `${label}-${id}`;
        change(r);
        return r;
      };
    const award = copyOf("awards", "2207", "RSA");
    const unit = copyOf("units", "8801", "RSU");
    const empty = (r: WireRecord): void => {
      for (const key of ["stakeholderId", "equityIncentivePlanName", "securityLabel", "shareClassName", "shareClassId", "securityId", "vestingScheduleTemplateId"]) r[key] = "";
    };
    return {
      awards: [
        award("9001", empty),
        award("9002", (r) => (r.shareClassName = " ")),
        award("9003", (r) => (r.shareClassName = "y".repeat(51))),
        award("9004", (r) => (r.securityLabel = "x".repeat(100_000))),
        award("9005", (r) => {
          r.shareClassName = control.slice(0, 20);
          r.stakeholderId = "\u0007holder";
          r.equityIncentivePlanName = "\u2028plan\u0000";
        }),
        // Another name for the class id the issuer's other awards call "Common".
        award("9006", (r) => (r.shareClassName = "Preferred")),
        award("9007", (r) => (r.quantity = { value: "0" })),
        award("9008", (r) => (r.quantity = { value: "99999999999999999999999999999999.999999" })),
        award("9009", (r) => (r.shareClassId = "__proto__")),
        award("9010", (r) => {
          r.shareClassId = "a-class-only-this-award-names";
          r.shareClassName = "";
        }),
      ],
      units: [
        unit("9101", empty),
        unit("9102", (r) => (r.shareClassId = "")),
        unit("9103", (r) => (r.quantity = { value: "0" })),
        unit("9104", (r) => (r.quantity = { value: "99999999999999999999999999999999.999999" })),
        unit("9105", (r) => {
          delete r.shareClassId;
          r.equityIncentivePlanName = "A plan of this unit alone";
        }),
        unit("9106", (r) => (r.shareClassId = "\u001b[2J")),
      ],
    };
  }

  it("runs three times: the other issuers sync every time, the bad records are quarantined, and the state stays readable", async () => {
    const { awards, units } = fuzzedRecords();
    recordsOf(server, "7", "awards").push(...awards);
    recordsOf(server, "7", "units").push(...units);
    const issuers = ["7", "acme-robotics", "144361"];
    for (const [run, at] of ["2025-03-10T09:31:00Z", "2025-03-10T09:32:00Z", "2025-03-10T09:33:00Z"].entries()) {
      // Every bad record changes each run, so that each pass pulls, maps and stores it anew.
      for (const record of [...awards, ...units]) {
        touch(record, at);
        if (typeof record.securityLabel === "string" && record.securityLabel.length < 100) record.securityLabel = `${record.securityLabel.replace(/-run\d$/, "")}-run${run}`;
      }
      const events = await runSync(server.url, issuers, { outDir, stateFile, onInvalid: "quarantine" });
      expect(outcomes(events), `run ${run}`).toEqual([
        ["7", true],
        ["acme-robotics", true],
        ["144361", true],
      ]);
      const state = await readSyncState(stateFile);
      expect(state.unreadable, `run ${run}`).toBeUndefined();
      expect(state.issuers.map((s) => s.issuerId).sort()).toEqual(["144361", "7", "acme-robotics"]);
      for (const issuerId of issuers) await expectSameAsFreshExport(server.url, issuerId, outDir, { onInvalid: "quarantine" });
      const quarantined = (await reportOf(outDir, "7")).quarantined.map((q) => q.recordId).sort();
      // Too long (a label, a name), no stakeholder, a quantity of zero that its tranches contradict: set
      // aside; every other one maps.
      expect(quarantined, `run ${run}`).toEqual(["9001", "9003", "9004", "9007", "9101", "9103"]);
    }
    // Under --on-invalid fail the bad issuer fails alone, and the state stays readable.
    touch(awards[0] as WireRecord, "2025-03-10T09:34:00Z");
    const failing = await runSync(server.url, issuers, { outDir, stateFile });
    expect(outcomes(failing)).toEqual([
      ["7", false],
      ["acme-robotics", true],
      ["144361", true],
    ]);
    expect((await readSyncState(stateFile)).unreadable).toBeUndefined();
  });
});

