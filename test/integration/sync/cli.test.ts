import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";
import type { WireRecord } from "../../../src/sample-server/server.js";
import { CHANGE_SAMPLE_LIMIT } from "../../../src/sync/change-tally.js";
import { GENERATED_AT, freshSampleData, generatedIssuer, packageObjects, touch } from "./helpers.js";

/** An issuer of the run record --json prints, with its pass in `sync`. */
interface IssuerDocument {
  issuerId: string;
  status: string;
  package: { written: boolean };
  sync: SyncDocument;
}
interface SyncDocument {
  pass: string;
  created: number;
  changed: number;
  removed: number;
  unchanged: number;
  objectTypes: Record<string, { created: number; changed: number; removed: number }>;
  objects: {
    created: { objectType: string; id: string }[];
    changed: { objectType: string; id: string; fields: string[] }[];
    removed: { id: string }[];
    limit: number;
    leftOut: { created: number; changed: number; removed: number };
  };
}
/** A line of --changes FILE. */
interface ChangeLine {
  issuerId: string;
  change: "created" | "changed" | "removed";
  objectType: string;
  id: string;
  fields?: string[];
}

describe("ocf-sync sync", () => {
  let server: SampleServer;
  let dir: string;
  beforeEach(async () => {
    server = await startSampleServer({ port: 0, data: await freshSampleData() });
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-sync-cli-"));
  });
  afterEach(async () => server.close());

  const run = async (...extra: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    const io = captureIo(dir);
    const code = await runCli(["sync", "--base-url", server.url, "--issuer", "7", "--out", "out", "--state", "state.json", "--generated-at", GENERATED_AT, "--log", "plain", ...extra], io);
    return { code, stdout: io.stdout.text, stderr: io.stderr.text };
  };

  it("prints a human summary, then with --json the change set with created, changed, removed and unchanged per issuer", async () => {
    const first = await run();
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^issuer\s+pass\s+pulled\s+created\s+changed\s+removed\s+unchanged\s+status$/m);
    expect(first.stdout).toMatch(/^7\s+full \(first-run\)\s+7\s+\d+\s+0\s+0\s+0\s+ok$/m);
    expect(first.stdout).toMatch(/^7: a new package of the issuer and \d+ objects$/m);
    expect(first.stderr).toContain('issuer "7": full pass (first-run)');

    const awards = server.data.issuers.get("7")?.awards ?? [];
    const [award, gone] = awards;
    if (award === undefined || gone === undefined) throw new Error("sample issuer 7 has awards");
    award.securityLabel = "RSA-1-renamed";
    touch(award, "2025-03-10T09:29:59Z");
    const human = await run();
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("~ TX_STOCK_ISSUANCE rsa-2207-issuance (comments, custom_id)");
    expect(human.stderr).toContain("records modified since 2025-03-10T09:25:00Z");

    awards.splice(awards.indexOf(gone), 1);
    const json = await run("--json", "--full");
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as { issuers: IssuerDocument[] };
    expect(doc.issuers).toHaveLength(1);
    const [issuer] = doc.issuers;
    expect(issuer).toMatchObject({ issuerId: "7", status: "ok", sync: { pass: "full", changed: expect.any(Number), created: 0 } });
    expect(issuer?.sync.removed).toBeGreaterThan(0);
    expect(issuer?.sync.objects.removed.map((o) => o.id)).toContain(`rsa-${String(gone.id)}-issuance`);
    expect(issuer?.sync.unchanged).toBeGreaterThan(0);
  });

  it("writes every change once to --changes FILE, while --json and --summary name the first CHANGE_SAMPLE_LIMIT of each list and count the rest", async () => {
    const records = generatedIssuer(server, "big", 300);
    const big = async (...extra: string[]): Promise<{ doc: { issuers: IssuerDocument[] }; lines: ChangeLine[]; summary: { issuers: IssuerDocument[] } }> => {
      const io = captureIo(dir);
      const args = ["sync", "--base-url", server.url, "--issuer", "big", "--out", "out", "--state", "big.json", "--generated-at", GENERATED_AT, "--json"];
      expect(await runCli([...args, "--summary", "runs/big.json", "--changes", "changes/big.ndjson", ...extra], io)).toBe(0);
      const text = await readFile(join(dir, "changes", "big.ndjson"), "utf8");
      expect(text === "" || text.endsWith("\n")).toBe(true);
      return {
        doc: JSON.parse(io.stdout.text) as { issuers: IssuerDocument[] },
        lines: text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as ChangeLine),
        summary: JSON.parse(await readFile(join(dir, "runs", "big.json"), "utf8")) as { issuers: IssuerDocument[] },
      };
    };

    const first = await big();
    const objects = await packageObjects(join(dir, "out", "big"));
    expect(objects.size).toBeGreaterThan(CHANGE_SAMPLE_LIMIT);
    // Every object of the new package, each once, created.
    const keys = first.lines.map((l) => `${l.objectType}\u0000${l.id}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort()).toEqual([...objects.keys()].sort());
    expect(first.lines.every((l) => l.issuerId === "big" && l.change === "created" && !("fields" in l))).toBe(true);
    // The run record: the counts of all, the first CHANGE_SAMPLE_LIMIT by type then id, the rest left out.
    const [issuer] = first.doc.issuers;
    expect(issuer?.sync).toMatchObject({ created: objects.size, changed: 0, removed: 0, unchanged: 0 });
    expect(issuer?.sync.objects.limit).toBe(CHANGE_SAMPLE_LIMIT);
    expect(issuer?.sync.objects.created).toEqual(
      first.lines
        .map(({ objectType, id }) => ({ objectType, id }))
        .sort((a, b) => (`${a.objectType}\u0000${a.id}` < `${b.objectType}\u0000${b.id}` ? -1 : 1))
        .slice(0, CHANGE_SAMPLE_LIMIT),
    );
    expect(issuer?.sync.objects.leftOut).toEqual({ created: objects.size - CHANGE_SAMPLE_LIMIT, changed: 0, removed: 0 });
    const perType = new Map<string, number>();
    for (const l of first.lines) perType.set(l.objectType, (perType.get(l.objectType) ?? 0) + 1);
    expect(issuer?.sync.objectTypes).toEqual(Object.fromEntries([...perType].sort(([a], [b]) => (a < b ? -1 : 1)).map(([type, created]) => [type, { created, changed: 0, removed: 0 }])));
    expect(first.summary.issuers[0]?.sync).toEqual(issuer?.sync);

    // A later run: the file holds that run's changes only, a changed object with its fields.
    const changed = records.find((r) => r.id === "g7") as WireRecord;
    changed.securityLabel = "RSU-RENAMED";
    touch(changed, "2025-04-02T00:00:00Z");
    const second = await big();
    expect(second.lines).toEqual([{ issuerId: "big", change: "changed", objectType: "TX_EQUITY_COMPENSATION_ISSUANCE", id: "rsu-g7-issuance", fields: ["comments", "custom_id"] }]);
    expect(second.lines.every((l) => l.change === "changed")).toBe(true);
    expect(second.doc.issuers[0]?.sync).toMatchObject({ created: 0, changed: second.lines.length, objects: { leftOut: { created: 0, changed: 0, removed: 0 } } });

    // Nothing changed: an empty file.
    expect((await big()).lines).toEqual([]);
  });

  it("refuses a --changes FILE it cannot write as a usage error, before any request", async () => {
    await writeFile(join(dir, "blocker"), "");
    const before = server.stats().requests;
    const refused = await run("--changes", "blocker/changes.ndjson");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--changes: ");
    expect(server.stats().requests).toBe(before);
  });

  it("says on stderr when the package's as-of date is past tranches the source has not vested, naming the date the source fits", async () => {
    const late = await run("--as-of", "2026-11-26");
    expect(late.code).toBe(0);
    expect(late.stderr).toContain('warn: issuer "7", asOf: is 2026-11-26, but 2 records have tranches dated on or before it');
    expect(late.stderr).toContain("export as of 2025-06-30 or earlier");
    const onTime = await run("--as-of", "2025-06-30", "--full");
    expect(onTime.stderr).toContain('issuer "7": package written to');
    expect(onTime.stderr).not.toContain("UNVESTED");
    expect(onTime.stderr).not.toContain("have not vested");
  });

  it("says when nothing changed: the package left as it is, the pages asked and the records re-read", async () => {
    expect((await run()).code).toBe(0);
    const again = await run("--json");
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('issuer "7": nothing changed; package left as it is');
    expect(again.stderr).toMatch(/issuer "7": 1 record pulled in 2 pages \(1 re-read unchanged\)/);
    const [issuer] = (JSON.parse(again.stdout) as { issuers: IssuerDocument[] }).issuers;
    expect(issuer).toMatchObject({ package: { written: false }, sync: { pass: "incremental", created: 0, changed: 0, removed: 0, records: { pages: 2, reread: 1 } } });
    expect(issuer?.sync.unchanged).toBeGreaterThan(7);
  });

  it("needs --state, and exits 1 naming the holder when another sync holds the lock", async () => {
    const io = captureIo(dir);
    expect(await runCli(["sync", "--base-url", server.url, "--issuer", "7", "--out", "out"], io)).toBe(2);
    expect(io.stderr.text).toContain("--state FILE is required");

    await mkdir(dir, { recursive: true });
    // process.ppid (the test runner) is alive and not this process: a lock naming this process's own pid
    // that it does not hold was left by an earlier process with that pid, and is taken over.
    // Written after the runner started (a lock written before its start would name a reused pid).
    const now = new Date().toISOString();
    await writeFile(join(dir, "state.json.lock"), JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: now }));
    const locked = await run();
    expect(locked.code).toBe(75);
    expect(locked.stderr).toContain(`another sync is using this state: process ${process.ppid} took it at ${now} and is still running`);
    expect(locked.stderr).toContain("[SYNC_LOCKED]");
  });

  it("exits 1 when an issuer fails, still syncing the others", async () => {
    const io = captureIo(dir);
    const code = await runCli(["sync", "--base-url", server.url, "--issuer", "nobody", "--issuer", "7", "--out", "out", "--state", "state.json", "--log", "plain", "--json"], io);
    expect(code).toBe(1);
    const doc = JSON.parse(io.stdout.text) as { issuers: { issuerId: string; status: string; error?: { code: string } }[] };
    expect(doc.issuers.map((i) => [i.issuerId, i.status])).toEqual([
      ["nobody", "failed"],
      ["7", "ok"],
    ]);
    expect(doc.issuers[0]?.error?.code).toMatch(/^API_/);
  });

  it("sets aside an issuer's entry of the state it cannot read with a warning line, syncs that issuer afresh and the others as the state says (exit 0)", async () => {
    expect((await run("--issuer", "acme-robotics")).code).toBe(0);
    const statePath = join(dir, "state.json");
    const state = JSON.parse(await readFile(statePath, "utf8")) as { issuers: Record<string, unknown>[] };
    const seven = state.issuers.find((i) => i.issuerId === "7") as Record<string, unknown>;
    seven.cursor = "yesterday";
    await writeFile(statePath, JSON.stringify(state));
    const again = await run("--issuer", "acme-robotics");
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`the sync state ${statePath}: the entry of issuer "7" cannot be read (at issuers.0.cursor: `);
    expect(again.stderr).toContain("); that issuer is synced afresh (a full pass) and the others as the state says");
    expect(again.stderr).toContain('issuer "7": full pass (state-unreadable)');
    expect(again.stdout).toMatch(/^acme-robotics\s+incremental\s/m);
  });
});
