/**
 * `ocf-sync pull` stopped at every point of its work (issue 25, item 4). The sample API sits behind a
 * loopback proxy that holds one chosen request (before answering it, or after half of its body), so
 * each trial waits for that state, never for a time, then sends SIGINT or SIGTERM: the exit status is
 * 130 or 143, the signal's line is the last one, there is no stack trace, the previous --out file is as
 * it was, and no part file or unfinished output is left (beside --out, or in TMPDIR for standard output).
 *
 * SIGKILL allows no cleanup: the part folder and the unfinished output stay, and the next pull to the
 * same place removes them before it starts (those of a live process excepted) and writes the same data.
 *
 * "The same data" is the same bytes: a pull writes issuers in the order listed and each issuer's lists
 * in a fixed order, whatever order their pages arrive in.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { startLoopbackServer, type LoopbackServer } from "../../helpers/loopback-server.js";
import { spawnCli, until, type SpawnedCli } from "../../helpers/spawn-cli.js";

const STOPPING = /^ocf-sync: (SIGINT|SIGTERM) received: stopping and removing this run's temporary files \(send it again to quit at once\)(; .+)?$/;
/** Concurrency 1: issuer "7" is requests 0-1, "144361" requests 2-5 (two pages a list), "acme-robotics" 6-7. */
const ISSUERS = ["--issuer", "7", "--issuer", "144361", "--issuer", "acme-robotics", "--concurrency", "1"];
const REQUESTS = 8;
const PREVIOUS = '{"previous":1}\n';

let dir: string;
let samples: SampleServer;
let complete: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-pull-signals-"));
  await mkdir(temporary());
  samples = await startSampleServer({ port: 0 });
  // What a pull that nobody stops writes: the data every pull below must either leave or write.
  const work = await trialFolder("reference");
  const proxy = await holdingProxy(undefined);
  const result = await pull(proxy, work, ["--out", join(work, "out.ndjson")]).exited;
  expect(result, result.stderr).toMatchObject({ code: 0 });
  complete = await readFile(join(work, "out.ndjson"), "utf8");
  expect(complete.split("\n").length).toBeGreaterThan(150);
  await proxy.server.close();
});
afterAll(async () => {
  await samples.close();
  await rm(dir, { recursive: true, force: true });
});

interface Proxy {
  server: LoopbackServer;
  /** Whether the held request has come and been held (`whole`: before any byte; `half`: after half its body). */
  held(): boolean;
  /** Responses sent in full. */
  answered(): number;
}

/**
 * Forwards to the sample API; request `hold.request` is never finished: not answered at all
 * (`"whole"`) or answered with half of its body (`"half"`). Held until the client goes.
 */
async function holdingProxy(hold: { request: number; how: "whole" | "half" } | undefined): Promise<Proxy> {
  let held = false;
  let answered = 0;
  const server = await startLoopbackServer(async (request, res, index) => {
    const response = await fetch(`${samples.url}${request.url}`, { headers: { accept: "application/json" } });
    const body = Buffer.from(await response.arrayBuffer());
    if (hold?.request === index) {
      if (hold.how === "half") {
        res.writeHead(response.status, { "content-type": "application/json", "content-length": body.length });
        res.write(body.subarray(0, body.length >> 1), () => (held = true));
      } else held = true;
      return; // held: the response never ends
    }
    res.writeHead(response.status, { "content-type": "application/json", "content-length": body.length });
    res.end(body, () => (answered += 1));
  });
  return { server, held: () => held, answered: () => answered };
}

function pull(proxy: Proxy, work: string, args: readonly string[]): SpawnedCli {
  // A later --concurrency wins: the trials below that give one pull issuers at once.
  return spawnCli(["pull", "--base-url", proxy.server.url, ...ISSUERS, "--log", "plain", ...args], { env: { TMPDIR: temporary() } });
}

/** The TMPDIR of every pull here (shared, so that tsx's cache there is made once). */
const temporary = (): string => join(dir, "tmp");

/** The part folders of pulls to standard output in TMPDIR. */
async function stdoutParts(): Promise<string[]> {
  return (await readdir(temporary())).filter((entry) => entry.startsWith(".ocf-sync-pull.tmp-"));
}

/** A folder for one trial, holding `out.ndjson`, a previous backup. */
async function trialFolder(name: string): Promise<string> {
  const work = await mkdtemp(join(dir, `${name}-`));
  await writeFile(join(work, "out.ndjson"), PREVIOUS);
  return work;
}

/** Stderr after the signal's line: nothing may follow it, and no stack trace may come anywhere. */
function expectOneLineAfterSignal(stderr: string, signal: "SIGINT" | "SIGTERM"): void {
  expect(stderr).not.toMatch(/\n\s+at |Error:|Warning/);
  const lines = stderr.split("\n").filter((line) => line !== "");
  const at = lines.findIndex((line) => STOPPING.test(line));
  expect(lines.slice(at)).toEqual([expect.stringContaining(`ocf-sync: ${signal} received`)]);
}

// Every request, held whole or mid-body, each with both signals and both outputs: 32 trials.
const POINTS = Array.from({ length: REQUESTS }, (_, request) =>
  (["whole", "half"] as const).map((how, i) => ({
    request,
    how,
    signal: (request + i) % 2 === 0 ? ("SIGINT" as const) : ("SIGTERM" as const),
    output: i === 0 ? ("file" as const) : ("stdout" as const),
  })),
).flat();

describe("a signal at any point of a pull", () => {
  it.each(POINTS)("request $request held $how, $signal, to $output: exit 130/143, one line, no part files", async ({ request, how, signal, output }) => {
    const proxy = await holdingProxy({ request, how });
    try {
      const work = await trialFolder(`r${request}-${how}`);
      const cli = pull(proxy, work, output === "file" ? ["--out", join(work, "out.ndjson")] : []);
      await until(() => proxy.held());
      cli.child.kill(signal);
      const result = await cli.exited;
      expect(result.code).toBe(signal === "SIGINT" ? 130 : 143);
      expectOneLineAfterSignal(result.stderr, signal);
      expect(await readFile(join(work, "out.ndjson"), "utf8")).toBe(PREVIOUS);
      expect(await readdir(work)).toEqual(["out.ndjson"]);
      expect(await stdoutParts()).toEqual([]);
    } finally {
      await proxy.server.close();
    }
  });

  it.each(Array.from({ length: REQUESTS }, (_, request) => request))("issuers pulled at once, request %i held mid-body, SIGINT: exit 130, one line, no part files", async (request) => {
    const proxy = await holdingProxy({ request, how: "half" });
    try {
      const work = await trialFolder(`c3-r${request}`);
      const cli = pull(proxy, work, ["--out", join(work, "out.ndjson"), "--concurrency", "3"]);
      await until(() => proxy.held());
      cli.child.kill("SIGINT");
      const result = await cli.exited;
      expect(result.code).toBe(130);
      expectOneLineAfterSignal(result.stderr, "SIGINT");
      expect(await readFile(join(work, "out.ndjson"), "utf8")).toBe(PREVIOUS);
      expect(await readdir(work)).toEqual(["out.ndjson"]);
    } finally {
      await proxy.server.close();
    }
  });

  it.each([1, 2, 3, 4, 5, 6])("after the last response (appending, committing, renaming; trial %i): stopped cleanly or complete", async (trial) => {
    const proxy = await holdingProxy(undefined);
    try {
      const work = await trialFolder(`end-${trial}`);
      const cli = pull(proxy, work, ["--out", join(work, "out.ndjson")]);
      await until(() => proxy.answered() === REQUESTS);
      const signal = trial % 2 === 0 ? "SIGINT" : "SIGTERM";
      cli.child.kill(signal);
      const result = await cli.exited;
      // The signal may come after the pull is done: then it is complete, and the signal unseen.
      expect([0, signal === "SIGINT" ? 130 : 143]).toContain(result.code);
      // Whole or not at all: a signal after the rename (the file committed, the run not yet ended) stops
      // the run with the complete file in place; before it, the previous file stays. Never a part.
      const written = await readFile(join(work, "out.ndjson"), "utf8");
      if (result.code === 0 || written !== PREVIOUS) expect(written).toBe(complete);
      if (result.code !== 0) expectOneLineAfterSignal(result.stderr, signal);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(await readdir(work)).toEqual(["out.ndjson"]);
    } finally {
      await proxy.server.close();
    }
  });
});

describe("SIGKILL, then another pull", () => {
  /** The temporary names of a run beside `name`: `.<name>.tmp-<pid>-<8 hex>`. */
  const temporaries = async (folder: string, name: string): Promise<string[]> =>
    (await readdir(folder)).filter((entry) => entry.startsWith(`.${name}.tmp-`));

  it.each([0, 3, 6])("killed with request %i held: the next pull to the same --out removes the leftovers and writes the complete data", async (request) => {
    const work = await trialFolder(`kill-${request}`);
    const out = join(work, "out.ndjson");
    // A leftover of a live process (this test's) is not this pull's to remove.
    const live = join(work, `.out.ndjson.tmp-${process.pid}-0badcafe`);
    await writeFile(live, "in use\n");
    const proxy = await holdingProxy({ request, how: "half" });
    try {
      const killed = pull(proxy, work, ["--out", out]);
      await until(() => proxy.held());
      killed.child.kill("SIGKILL");
      expect((await killed.exited).signal).toBe("SIGKILL");
    } finally {
      await proxy.server.close();
    }
    // The part folder and the unfinished output of the killed pull.
    const left = (await temporaries(work, "out.ndjson")).filter((entry) => entry !== `.out.ndjson.tmp-${process.pid}-0badcafe`);
    expect(left).toHaveLength(2);
    const again = await holdingProxy(undefined);
    try {
      const result = await pull(again, work, ["--out", out]).exited;
      expect(result.code).toBe(0);
      for (const entry of left) expect(result.stderr).toContain(`removed ${join(work, entry)}, left by a pull that was killed`);
    } finally {
      await again.server.close();
    }
    expect(await readFile(out, "utf8")).toBe(complete);
    expect(await temporaries(work, "out.ndjson")).toEqual([`.out.ndjson.tmp-${process.pid}-0badcafe`]);
    expect(await readFile(live, "utf8")).toBe("in use\n");
  });

  it("killed while pulling to standard output: the next pull to standard output removes the part folder from TMPDIR", async () => {
    const work = await trialFolder("kill-stdout");
    const proxy = await holdingProxy({ request: 3, how: "whole" });
    try {
      const killed = pull(proxy, work, []);
      await until(() => proxy.held());
      killed.child.kill("SIGKILL");
      await killed.exited;
    } finally {
      await proxy.server.close();
    }
    expect(await stdoutParts()).toHaveLength(1);
    const again = await holdingProxy(undefined);
    try {
      const result = await pull(again, work, []).exited;
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(complete);
    } finally {
      await again.server.close();
    }
    expect(await stdoutParts()).toEqual([]);
  });
});
