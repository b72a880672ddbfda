/**
 * Handlers for `startLoopbackServer` that misbehave the way hostile or broken servers do: a body sent
 * one byte at a time, a connection reset in the middle of the body; and the sample API behind a
 * server that changes its answers. (`hang` and `resetConnection` are in loopback-server.ts.)
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll } from "vitest";
import { startSampleServer, type SampleServer } from "../../src/sample-server/server.js";
import { reply, startLoopbackServer, type Handler, type LoopbackServer, type RecordedRequest } from "./loopback-server.js";

/** Sends a 200 with `body` one byte every `intervalMs` (a whole body can take as long as one likes). */
export function trickle(body: string, intervalMs: number): Handler {
  return (_request, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.flushHeaders();
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= body.length) {
        clearInterval(timer);
        res.end();
        return;
      }
      res.write(body[sent]);
      sent += 1;
    }, intervalMs);
    res.on("close", () => clearInterval(timer));
  };
}

/** Sends a 200 announcing `body`, writes its first half, then destroys the connection. */
export function resetMidBody(body: string): Handler {
  return (_request, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.write(body.slice(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
  };
}

/**
 * Answers the requests of the issuers `answered` takes from `upstream` (the sample API, passed through
 * as it answers), and never answers any other: a job on both kinds ends the first and is under way on
 * the others for as long as a test likes. `held` resolves once a request is being held, the state in
 * which a test stops the job (never after a fixed delay).
 */
export function answerOnly(upstream: string, answered: (issuerId: string) => boolean): { handler: Handler; held: Promise<void> } {
  let onHeld = (): void => {};
  const held = new Promise<void>((resolve) => {
    onHeld = resolve;
  });
  const handler: Handler = async (request, res) => {
    const issuerId = decodeURIComponent(/^\/v1alpha1\/issuers\/([^/]+)\//.exec(request.url)?.[1] ?? "");
    if (!answered(issuerId)) {
      onHeld();
      return;
    }
    const response = await fetch(`${upstream}${request.url}`, { headers: { accept: "application/json" } });
    const body = await response.text();
    res.writeHead(response.status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
  return { handler, held };
}

/** The sample API's answer to a request, as it sent it. */
export interface UpstreamAnswer {
  status: number;
  body: string;
}

/**
 * For a test file: the sample API behind a loopback server whose `handle` answers every request,
 * given a way to ask the sample API for its own answer (to pass it on changed, or not at all). Both
 * are started before the tests and closed after; the getter gives the loopback server's URL.
 */
export function hostileSampleApi(handle: (request: RecordedRequest, res: ServerResponse, upstream: () => Promise<UpstreamAnswer>) => void | Promise<void>): () => string {
  let samples: SampleServer | undefined;
  let hostile: LoopbackServer | undefined;
  beforeAll(async () => {
    const started = await startSampleServer({ port: 0 });
    samples = started;
    hostile = await startLoopbackServer((request, res) =>
      handle(request, res, async () => {
        const response = await fetch(`${started.url}${request.url}`, { headers: { accept: "application/json" } });
        return { status: response.status, body: await response.text() };
      }),
    );
  });
  afterAll(async () => {
    await hostile?.close();
    await samples?.close();
  });
  return () => {
    if (hostile === undefined) throw new Error("the servers start in beforeAll: ask for the URL inside a test");
    return hostile.url;
  };
}
