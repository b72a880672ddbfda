/**
 * SIGINT and SIGTERM on the real CLI in a child process. Each test waits for the state it targets (the
 * server has the request the job is stuck on; the CLI's line on stderr), never for a fixed time, then
 * checks the exit status (130 or 143), the one line, no stack trace, earlier outputs intact and this
 * run's temporary files gone.
 */
import { constants } from "node:fs";
import { access, cp, mkdtemp, open, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";
import { trickle } from "../../helpers/hostile-handlers.js";
import { type LoopbackServer, hang, startLoopbackServer } from "../../helpers/loopback-server.js";
import { spawnCli, until } from "../../helpers/spawn-cli.js";

const GOLDEN = resolve(import.meta.dirname, "../../../samples/ocf");
const STOPPING = /^ocf-sync: (SIGINT|SIGTERM) received: stopping and removing this run's temporary files \(send it again to quit at once\)(; .+)?$/;

let dir: string;
const servers: LoopbackServer[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-signals-"));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function stuckServer(handler = hang): Promise<LoopbackServer> {
  const server = await startLoopbackServer(handler);
  servers.push(server);
  return server;
}

/** Entries of a folder that are temporary files or folders of a run (`.<name>.tmp-<pid>-<hex>`). */
async function leftovers(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((name) => /\.tmp-\d+-[0-9a-f]{8}$/.test(name));
}

function expectOneCleanLine(stderr: string, signal: "SIGINT" | "SIGTERM"): void {
  const lines = stderr.split("\n").filter((line) => line !== "");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(STOPPING);
  expect(lines[0]).toContain(signal);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe("a signal stops the job cleanly", () => {
  it("SIGINT during a pull whose server never answers: exit 130, one line, the previous --out file intact, no temporary file", async () => {
    const server = await stuckServer();
    const work = await mkdtemp(join(dir, "pull-"));
    const out = join(work, "backup.ndjson");
    await writeFile(out, '{"previous":1}\n{"previous":2}\n');
    const cli = spawnCli(["pull", "--base-url", server.url, "--issuer", "7", "--out", out, "--log", "plain"]);
    await until(() => server.requests.length > 0);
    cli.child.kill("SIGINT");
    const result = await cli.exited;
    expect(result.code).toBe(130);
    expectOneCleanLine(result.stderr, "SIGINT");
    expect(await readFile(out, "utf8")).toBe('{"previous":1}\n{"previous":2}\n');
    expect(await leftovers(work)).toEqual([]);
  });

  it("SIGTERM (as `timeout` sends) during a pull of a body trickled a byte a second: exit 143", async () => {
    const server = await stuckServer(trickle(JSON.stringify({ restrictedStockAwards: [] }), 1000));
    const work = await mkdtemp(join(dir, "pull-term-"));
    const cli = spawnCli(["pull", "--base-url", server.url, "--issuer", "7", "--out", join(work, "x.ndjson"), "--log", "plain"]);
    await until(() => server.requests.length > 0);
    cli.child.kill("SIGTERM");
    const result = await cli.exited;
    expect(result.code).toBe(143);
    expectOneCleanLine(result.stderr, "SIGTERM");
    expect(await readdir(work)).toEqual([]);
  });

  it("SIGTERM during an export: the previous package intact, the temporary package folder removed, the lock released", async () => {
    const server = await stuckServer();
    const out = await mkdtemp(join(dir, "export-"));
    await cp(join(GOLDEN, "7"), join(out, "7"), { recursive: true });
    const cli = spawnCli(["export", "--base-url", server.url, "--issuer", "7", "--out", out, "--log", "plain"]);
    await until(() => server.requests.length > 0);
    // The export is under way: its temporary package folder and the folder's lock exist now.
    expect(await leftovers(out)).toHaveLength(1);
    expect(await readdir(out)).toContain(".ocf-sync.lock");
    cli.child.kill("SIGTERM");
    const result = await cli.exited;
    expect(result.code).toBe(143);
    expectOneCleanLine(result.stderr, "SIGTERM");
    // The line says how to go on.
    expect(result.stderr).toContain("; to go on later, run the same command with --resume");
    // The interrupted job keeps its file, so that --resume can continue it.
    expect((await readdir(out)).sort()).toEqual([".ocf-sync-export.json", "7"]);
    expect((await validatePackageAt(join(out, "7"))).problems).toEqual([]);
  });

  it("SIGINT during a sync: the state file untouched, both locks released", async () => {
    const server = await stuckServer();
    const work = await mkdtemp(join(dir, "sync-"));
    const stateFile = join(work, "state.json");
    await writeFile(stateFile, '{"version":1,"issuers":[]}\n');
    const cli = spawnCli(["sync", "--base-url", server.url, "--issuer", "7", "--out", join(work, "out"), "--state", stateFile, "--log", "plain"]);
    await until(() => server.requests.length > 0);
    cli.child.kill("SIGINT");
    const result = await cli.exited;
    expect(result.code).toBe(130);
    // The sync announces its pass before the pull; nothing after the signal but the one line.
    const afterSignal = result.stderr.slice(result.stderr.search(/ocf-sync: SIGINT/));
    expectOneCleanLine(afterSignal, "SIGINT");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await readFile(stateFile, "utf8")).toBe('{"version":1,"issuers":[]}\n');
    expect((await readdir(work)).sort()).toEqual(["out", "state.json"]);
    expect(await readdir(join(work, "out"))).toEqual([]);
  });

  it("a second signal exits at once, even while the first cannot stop a read that no abort reaches", async () => {
    // Reading a FIFO blocks in the system until data comes; no AbortSignal reaches it. So after the
    // first signal the job cannot finish on its own, and it is the second signal that ends it.
    const work = await mkdtemp(join(dir, "fifo-"));
    const fifo = join(work, "source.ndjson");
    execFileSync("mkfifo", [fifo]);
    const cli = spawnCli(["reconcile", "--source", fifo, join(GOLDEN, "7")]);
    // A reader is blocked on the FIFO once a non-blocking open for writing succeeds.
    let writer: Awaited<ReturnType<typeof open>> | undefined;
    await until(async () => {
      writer = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
      return writer !== undefined;
    });
    try {
      cli.child.kill("SIGINT");
      await cli.waitForStderr((line) => STOPPING.test(line));
      cli.child.kill("SIGINT");
      const result = await cli.exited;
      // Ended by the signal itself (the shell reports 128 + 2 = 130), not by an exit call that would wait for the stuck read.
      expect(result.signal).toBe("SIGINT");
      expectOneCleanLine(result.stderr, "SIGINT");
    } finally {
      await writer?.close();
    }
    await access(fifo); // the input is the user's: left alone
  });
});
