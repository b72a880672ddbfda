/**
 * A real `redis-server` for the shared-quota tests: started on a free loopback port of its own, in a
 * temporary folder, with nothing saved to disk (`--save '' --appendonly no`), and stopped by the test.
 * Ready when it says so on its standard output (no fixed delay).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  /** `redis://127.0.0.1:<port>/0` */
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function launch(executable: string, port: number, dir: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const onData = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      if (/ready to accept connections/i.test(output)) {
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.resume();
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${String(code)} before it was ready:\n${output}`)));
  });
}

export function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Starts `executable` (the redis gate's `found`). */
export async function startRedisServer(executable: string): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), "ocf-sync-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(executable, port, dir);
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    async stop() {
      await stopChild(child);
      child = undefined;
    },
    async restart() {
      await stopChild(child);
      child = await launch(executable, port, dir);
    },
    async close() {
      await stopChild(child);
      child = undefined;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
