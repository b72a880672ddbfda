/**
 * moto's S3-compatible server for the object-storage tests: `moto_server` started on a free loopback
 * port of its own, ready when its HTTP endpoint answers (polled, no fixed delay), stopped by the test.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { freePort, stopChild } from "./redis-server.js";

export interface MotoServer {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  /** The variables that point the AWS SDK (and so `ocf-sync`) at it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** How long moto may take to start (Python imports): a bound on the polling, not a wait. */
const START_TIMEOUT_MS = 60_000;

/** Starts `executable` (the s3 gate's `found`). */
export async function startMotoServer(executable: string): Promise<MotoServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(executable, ["-H", "127.0.0.1", "-p", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const endpoint = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${String(child.exitCode)} before it answered:\n${output}`);
    try {
      const response = await fetch(`${endpoint}/`);
      await response.arrayBuffer();
      break;
    } catch {
      if (Date.now() - started > START_TIMEOUT_MS) {
        await stopChild(child);
        throw new Error(`moto_server did not answer on ${endpoint} within ${START_TIMEOUT_MS} ms:\n${output}`);
      }
      await delay(50);
    }
  }
  return {
    endpoint,
    env: {
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "testing",
      AWS_SECRET_ACCESS_KEY: "testing",
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    },
    close: () => stopChild(child),
  };
}
