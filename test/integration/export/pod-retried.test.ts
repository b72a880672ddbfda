/**
 * A pod killed mid-run and retried with the same arguments under a new host name completes without a
 * person: the killed export's lock names another host, and once it is older than its lease the retry
 * takes it over with one line, keeps the package the killed run wrote (`--resume`) and writes the rest.
 * The kill is a real SIGKILL of a real process; the new host is simulated by editing the lock file, and
 * the lease's passing by dating its renewal back (no waiting).
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";
import { type LoopbackServer, startLoopbackServer } from "../../helpers/loopback-server.js";
import { spawnCli, until } from "../../helpers/spawn-cli.js";

let dir: string;
let samples: SampleServer;
/** Forwards to the sample server, except that while `stuck` it never answers for issuer 144361. */
let api: LoopbackServer;
let stuck = true;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-pod-retried-"));
  samples = await startSampleServer({ port: 0 });
  api = await startLoopbackServer(async (request, res) => {
    if (stuck && request.url.includes("/issuers/144361/")) return;
    const answer = await fetch(`${samples.url}${request.url}`, { method: request.method });
    const body = Buffer.from(await answer.arrayBuffer());
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json", "content-length": body.length });
    res.end(body);
  });
});
afterAll(async () => {
  await api.close();
  await samples.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a pod killed mid-run and retried under a new host name", () => {
  it("takes over the killed pod's lock once its lease has run out, keeps what it wrote (--resume) and completes", async () => {
    const out = join(dir, "out");
    const args = ["export", "--base-url", api.url, "--issuer", "7", "--issuer", "144361", "--concurrency", "1", "--out", out, "--log", "plain"];
    // The fleet's lease, set in the pod template: the lock records it, and the retry judges by it.
    const killed = spawnCli(args, { env: { OCF_SYNC_LEASE_SECONDS: "90" } });
    // Issuer 7 is written, issuer 144361 is under way (its server never answers): kill it there, as a node dies.
    await until(async () => {
      const names = await readdir(out).catch(() => [] as string[]);
      return names.includes("7.report.json") && api.requests.some((r) => r.url.includes("/issuers/144361/"));
    });
    killed.child.kill("SIGKILL");
    expect((await killed.exited).signal).toBe("SIGKILL");
    const lockFile = join(out, ".ocf-sync.lock");
    const lock = JSON.parse(await readFile(lockFile, "utf8")) as Record<string, unknown>;
    expect(lock).toMatchObject({ pid: killed.child.pid, renewedAt: expect.any(String), leaseMs: 90_000 });

    // The retried pod: another host, and the killed one's last renewal older than its lease.
    const longAgo = new Date(Date.now() - 10 * 60_000).toISOString().replace(/\.\d+Z$/, "Z");
    await writeFile(lockFile, JSON.stringify({ ...lock, host: "ocf-export-0-x7k2p", startedAt: longAgo, renewedAt: longAgo }));
    stuck = false;
    const before = api.requests.length;
    const retried = await spawnCli([...args, "--resume"]).exited;

    expect(retried.code, retried.stderr).toBe(0);
    const takeover = retried.stderr.split("\n").filter((line) => line.includes("took over"));
    expect(takeover).toEqual([
      `warn: took over the lock of ${out}: process ${killed.child.pid} on host "ocf-export-0-x7k2p", which took the lock ${lockFile} at ${longAgo}, last renewed it at ${longAgo}, longer ago than its lease of 90 s (its run was killed or lost)`,
    ]);
    // Only what was missing was redone: issuer 7's package was kept, not pulled again.
    expect(retried.stderr).toContain('issuer "7": already written by this export (resumed)');
    expect(api.requests.slice(before).filter((r) => r.url.includes("/issuers/7/"))).toEqual([]);
    expect((await readdir(out)).sort()).toEqual(["144361", "144361.report.json", "7", "7.report.json"]);
    for (const name of ["7", "144361"]) expect((await validatePackageAt(join(out, name))).problems).toEqual([]);
  });

  it("takes OCF_SYNC_LEASE_SECONDS as a number of seconds from 1 to 86400, else it is a usage error", async () => {
    const out = join(dir, "bad-lease");
    for (const value of ["0", "soon", "-5", "1e3", "100000"]) {
      const io = captureIo(dir, { OCF_SYNC_LEASE_SECONDS: value });
      expect(await runCli(["export", "--base-url", api.url, "--issuer", "7", "--out", out, "--log", "plain"], io), io.stderr.text).toBe(2);
      expect(io.stderr.text).toContain(`OCF_SYNC_LEASE_SECONDS takes a number of seconds from 1 to 86400, got ${JSON.stringify(value)}`);
    }
  });
});
