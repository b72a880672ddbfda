/**
 * A loopback proxy in front of an S3-compatible server (moto's) that a test steers request by request:
 * pass it on, fail it with a 500, or hold it until the test lets it go. Holding a request is how a test
 * stops a job at an exact point (its state write, say) and acts there, instead of waiting for a time.
 * And the servers an object-storage test file runs against (`s3TestServers`).
 */
import { createServer, request } from "node:http";
import type { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll } from "vitest";
import { createS3Client, type S3Sdk } from "../../src/io/s3.js";
import type { SampleServer } from "../../src/sample-server/server.js";
import { type MotoServer, startMotoServer } from "./moto-server.js";

export type ProxyDecision = "fail" | "hold" | "pass";

export interface S3Proxy {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_S3`. */
  url: string;
  /** Decides each request by its method and decoded path (the query left out); every one passes until set. */
  steer: (method: string, path: string) => ProxyDecision;
  /** The requests held so far: calling one forwards it. */
  held: (() => void)[];
  /**
   * Forward one request at a time, each once the one before is answered: moto answers 500 to two
   * writes of one key at the same moment, which a test of two writers must not depend on. @default false
   */
  serial: boolean;
  close(): Promise<void>;
}

/** Starts a proxy in front of `upstream` (`http://host:port`). */
export async function startS3Proxy(upstream: string): Promise<S3Proxy> {
  const proxy: S3Proxy = { url: "", steer: () => "pass", held: [], serial: false, close: () => Promise.resolve() };
  // The forwarded requests, one after the other, when `serial`.
  let line: Promise<void> = Promise.resolve();
  const server = createServer((req, res) => {
    const send = (): void => {
      // A connection per request (moto's server may close an idle one under a reused socket), and a
      // failure forwarded as a 502 rather than a request left without an answer.
      const out = request(`${upstream}${req.url ?? "/"}`, { method: req.method, headers: req.headers, agent: false }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.once("error", (error) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end(String(error));
      });
      req.pipe(out);
    };
    const forward = (): void => {
      if (!proxy.serial) return send();
      line = line.then(
        () =>
          new Promise<void>((answered) => {
            res.once("close", () => answered());
            send();
          }),
      );
    };
    const decision = proxy.steer(req.method ?? "GET", decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/"));
    if (decision === "fail") {
      req.resume();
      res.writeHead(500, { "content-type": "application/xml" });
      res.end("<Error><Code>InternalError</Code><Message>injected by the test</Message></Error>");
    } else if (decision === "hold") {
      proxy.held.push(forward);
    } else forward();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  proxy.url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  proxy.close = async () => {
    // A request a failed test left held would keep the proxy (and so moto) from closing.
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  };
  return proxy;
}

/** What an object-storage test runs against, once its `beforeAll` has run. */
export interface S3TestServers {
  moto: MotoServer;
  api: SampleServer;
  /** A client of moto itself (not through the proxy). */
  s3: { sdk: S3Sdk; client: S3Client };
  proxy: S3Proxy;
}

/**
 * Starts moto (`executable`, the s3 gate's `found`) with `bucket` made, the API `startApi` starts, and
 * a proxy in front of moto, before the file's tests; stops them after. Returns a getter.
 */
export function s3TestServers(executable: string, bucket: string, startApi: () => Promise<SampleServer>): () => S3TestServers {
  let servers: S3TestServers | undefined;
  const started: Partial<S3TestServers> = {};
  beforeAll(async () => {
    started.moto = await startMotoServer(executable);
    started.api = await startApi();
    started.s3 = await createS3Client(started.moto.env);
    await started.s3.client.send(new started.s3.sdk.CreateBucketCommand({ Bucket: bucket }));
    started.proxy = await startS3Proxy(started.moto.endpoint);
    servers = started as S3TestServers;
  }, 90_000);
  afterAll(async () => {
    started.s3?.client.destroy();
    await started.proxy?.close();
    await started.api?.close();
    await started.moto?.close();
  });
  return () => {
    if (servers === undefined) throw new Error("the servers start in beforeAll: ask for them inside a test");
    return servers;
  };
}
