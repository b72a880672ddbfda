/**
 * `sync --out s3://... --state s3://...` (issue 26, item 5) against a real S3-compatible server (moto's,
 * started on loopback by the test). An export and two syncs: the packages validate when downloaded. A
 * sync killed (SIGKILL) between its package uploads and its state write leaves the previous state,
 * and the next sync redoes the work. Of two syncs of one state, the one that writes it second gets
 * S3_COMMIT_CONFLICT and exit 75.
 *
 * Each kill or conflict lands at one exact point: a proxy in front of moto holds the state's write,
 * and the test acts once that write is seen. No two writers ever send the same key at once (moto
 * answers 500 to that).
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMPLETE_MARKER, committedPackage, downloadPackage } from "../../../src/export/s3-package.js";
import { parseS3Url, s3GetObject, type S3Target } from "../../../src/io/s3.js";
import { packageNameFor } from "../../../src/ocf/package-folder.js";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";
import { startSampleServer, type WireRecord } from "../../../src/sample-server/server.js";
import { readSyncState } from "../../../src/sync/state.js";
import { runCliProcess } from "../../helpers/cli-process.js";
import { describeGated } from "../../helpers/gate.js";
import { s3Gate } from "../../helpers/gates.js";
import { s3TestServers } from "../../helpers/s3-servers.js";
import { spawnCli, type SpawnedCli } from "../../helpers/spawn-cli.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { AS_OF, GENERATED_AT, eventsOf, expectSameAsFreshExport, freshSampleData, runSync, touch } from "./helpers.js";

const BUCKET = "ocf-sync-state";
const ISSUERS = ["7", "acme-robotics"];
const gate = s3Gate();

interface IssuerLine {
  issuerId: string;
  status: string;
  package: { written: boolean } | null;
  sync?: { records: { modified: number } };
  error: { code: string } | null;
}

describeGated(gate, "sync with s3://", () => {
  const folder = temporaryFolder("ocf-sync-s3-sync-");
  const servers = s3TestServers(gate.found ?? "moto_server", BUCKET, async () => startSampleServer({ port: 0, data: await freshSampleData() }));

  const target = (url: string): S3Target => ({ ...servers().s3, location: parseS3Url(url) });
  const syncArgs = (out: string, state: string, issuers: string[]): string[] => [
    "sync",
    "--base-url",
    servers().api.url,
    ...issuers.flatMap((id) => ["--issuer", id]),
    "--out",
    out,
    "--state",
    state,
    "--generated-at",
    GENERATED_AT,
    "--as-of",
    AS_OF,
    "--concurrency",
    "1",
    "--json",
    "--log",
    "plain",
  ];
  const viaProxy = (): Record<string, string> => ({ ...servers().moto.env, AWS_ENDPOINT_URL_S3: servers().proxy.url });
  /** The state object: its text and ETag. */
  const stateObject = async (url: string): Promise<{ text: string; etag: string | undefined }> => {
    const location = parseS3Url(url);
    const got = await s3GetObject(target(url), location.prefix, undefined);
    return { text: (await got?.Body?.transformToString("utf8")) ?? "", etag: got?.ETag };
  };
  /** Downloads each issuer's committed package and checks it: valid, and as a fresh export of what the API serves now. */
  const expectPackagesCurrent = async (out: string, into: string): Promise<void> => {
    for (const issuerId of ISSUERS) {
      const name = packageNameFor(issuerId);
      expect(await downloadPackage(target(out), name, into), issuerId).toBeDefined();
      expect((await validatePackageAt(join(into, name))).problems, issuerId).toEqual([]);
      await expectSameAsFreshExport(servers().api.url, issuerId, into);
    }
  };
  /** Holds the first write of `key` (and records every write); resolves once it is held. */
  const holdWriteOf = (key: string, writes: string[]): Promise<void> =>
    new Promise((seen) => {
      let holding = false;
      servers().proxy.steer = (method, path) => {
        if (method !== "PUT") return "pass";
        writes.push(path.replace(`/${BUCKET}/`, ""));
        if (holding || path !== `/${BUCKET}/${key}`) return "pass";
        holding = true;
        seen();
        return "hold";
      };
    });

  /** Resolves once the write is held; fails with the CLI's output if it exits first. */
  const heldOrExited = (write: Promise<void>, cli: SpawnedCli): Promise<void> =>
    Promise.race([
      write,
      cli.exited.then((end) => {
        throw new Error(`the sync ended (${end.code ?? end.signal}) before its state write:\n${end.stderr}`);
      }),
    ]);

  it("an export and two syncs: the packages validate when downloaded; a sync killed between writes leaves the previous state usable", { timeout: 240_000 }, async () => {
    const out = `s3://${BUCKET}/packages`;
    const state = `s3://${BUCKET}/sync-state.json`;
    const exported = await runCliProcess(
      ["export", "--base-url", servers().api.url, ...ISSUERS.flatMap((id) => ["--issuer", id]), "--out", out, "--generated-at", GENERATED_AT, "--as-of", AS_OF],
      { cwd: folder(), env: servers().moto.env },
    );
    expect(exported.code, exported.stderr).toBe(0);

    // The first sync: a full pass of each issuer, its packages replacing the export's, then its state.
    const first = await runCliProcess(syncArgs(out, state, ISSUERS), { cwd: folder(), env: servers().moto.env });
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as { issuers: IssuerLine[] }).issuers.map((i) => i.status)).toEqual(["ok", "ok"]);
    await expectPackagesCurrent(out, join(folder(), "first"));
    const committed = await stateObject(state);
    expect(committed.etag).toBeDefined();
    expect(committed.text).toContain('"issuerId":"7"');

    // A change the second sync must carry into the package of 7.
    const award = servers().api.data.issuers.get("7")?.awards?.[0] as WireRecord;
    award.securityLabel = `${String(award.securityLabel)}-changed`;
    touch(award, "2025-07-01T00:00:00Z");

    // The second sync, killed once its state write is seen (held at the proxy, never sent on).
    const writes: string[] = [];
    const stateWrite = holdWriteOf("sync-state.json", writes);
    const killed = spawnCli(syncArgs(out, state, ISSUERS), { env: viaProxy() });
    await heldOrExited(stateWrite, killed);
    killed.child.kill("SIGKILL");
    const end = await killed.exited;
    servers().proxy.steer = () => "pass";
    servers().proxy.held.splice(0);
    expect(end.signal, end.stderr).toBe("SIGKILL");
    // Its package of 7 and the records it stored went first; the state write, last, never landed.
    const markerOf7 = writes.indexOf(`packages/7/${COMPLETE_MARKER}`);
    expect(markerOf7, writes.join("\n")).toBeGreaterThan(-1);
    expect(writes.some((key) => key.startsWith("sync-state.json.snapshots/7/"))).toBe(true);
    expect(writes.at(-1)).toBe("sync-state.json");
    expect(writes.filter((key) => key === "sync-state.json")).toHaveLength(1);

    // The previous state, as it was, reads whole; the package of 7 in storage is the newer, committed one.
    expect(await stateObject(state)).toEqual(committed);
    const copy = join(folder(), "previous-state.json");
    await writeFile(copy, committed.text);
    expect((await readSyncState(copy)).issuers.map((i) => i.issuerId).sort()).toEqual(ISSUERS);
    expect(await committedPackage(target(out), "7")).toBeDefined();

    // The next sync starts from it, redoes the change, and commits.
    const second = await runCliProcess(syncArgs(out, state, ISSUERS), { cwd: folder(), env: servers().moto.env });
    expect(second.code, second.stderr).toBe(0);
    const lines = (JSON.parse(second.stdout) as { issuers: IssuerLine[] }).issuers;
    expect(lines.find((i) => i.issuerId === "7")).toMatchObject({ status: "ok", package: { written: true }, sync: { records: { modified: 1 } } });
    expect(lines.find((i) => i.issuerId === "acme-robotics")).toMatchObject({ status: "ok", package: { written: false } });
    expect((await stateObject(state)).etag).not.toBe(committed.etag);
    await expectPackagesCurrent(out, join(folder(), "second"));
  });

  it("the library: sync() with s3Out and s3State writes in its working folders, uploads, and commits the state last", { timeout: 120_000 }, async () => {
    const work = join(folder(), "library");
    const env = servers().moto.env;
    const out = `s3://${BUCKET}/library`;
    const state = `s3://${BUCKET}/library-state.json`;
    const options = { outDir: join(work, "out"), stateFile: join(work, "state.json"), s3Out: { url: out, env }, s3State: { url: state, env } };
    const events = await runSync(servers().api.url, ["7"], options);
    expect(eventsOf(events, "package-written").map((e) => e.folder)).toEqual([`${out}/7`]);
    expect(events.map((e) => e.type).slice(-2)).toEqual(["state-committed", "sync-done"]);
    expect(eventsOf(events, "state-committed")[0]?.url).toBe(state);
    const committed = await stateObject(state);
    expect(committed.text).toContain('"issuerId":"7"');
    // Again, with the working folders gone: the state and its records come from storage, nothing
    // changed, and the package in storage is current.
    await rm(work, { recursive: true, force: true });
    const again = await runSync(servers().api.url, ["7"], options);
    expect(eventsOf(again, "package-unchanged").map((e) => e.folder)).toEqual([`${out}/7`]);
    expect(eventsOf(again, "issuer-started")[0]?.pass).toBe("incremental");
  });

  it("of two syncs of one state, the one that writes it second gets S3_COMMIT_CONFLICT and exit 75", { timeout: 240_000 }, async () => {
    const out = `s3://${BUCKET}/race`;
    const state = `s3://${BUCKET}/race-state.json`;
    // The first sync reads no state and is held at its write (If-None-Match: *).
    const stateWrite = holdWriteOf("race-state.json", []);
    const held = spawnCli(syncArgs(out, state, ["7"]), { env: viaProxy() });
    await heldOrExited(stateWrite, held);
    // The second runs whole meanwhile, straight to moto, and commits first.
    const other = await runCliProcess(syncArgs(out, state, ["7"]), { cwd: folder(), env: servers().moto.env });
    expect(other.code, other.stderr).toBe(0);
    const won = await stateObject(state);
    servers().proxy.steer = () => "pass";
    for (const go of servers().proxy.held.splice(0)) go();
    const lost = await held.exited;
    expect(lost.code, lost.stderr).toBe(75);
    const document = JSON.parse(lost.stdout) as { error: { code: string; message: string }; issuers: IssuerLine[] };
    expect(document.error.code).toBe("S3_COMMIT_CONFLICT");
    expect(document.error.message).toContain("another sync committed this state meanwhile");
    expect(document.issuers.map((i) => i.error?.code)).toEqual(["S3_COMMIT_CONFLICT"]);
    // The state is the winner's, untouched.
    expect(await stateObject(state)).toEqual(won);
  });
});
