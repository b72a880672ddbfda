/**
 * A real node:http server on 127.0.0.1 (port 0) for client tests. Each request is recorded and
 * handed to a handler chosen by its index, so a test scripts "first 503, then 200" directly.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach } from "vitest";

export interface RecordedRequest {
  method: string;
  /** Path and query as sent on the request line. */
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** Answers one request; `index` counts from 0 over all requests the server received. */
export type Handler = (request: RecordedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a server; `handlers[i]` answers request `i`, the last one answers every request after. */
export async function startLoopbackServer(handlers: Handler | readonly Handler[]): Promise<LoopbackServer> {
  const list = Array.isArray(handlers) ? handlers : [handlers as Handler];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      const index = requests.length;
      requests.push(recorded);
      const handler = list[Math.min(index, list.length - 1)]!;
      Promise.resolve(handler(recorded, res, index)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}

/** A handler that sends `body` as JSON (a string is sent as is) with `status` and extra headers. */
export function reply(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_request, res) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
    res.end(text);
  };
}

/** A handler that closes the connection without answering. */
export const resetConnection: Handler = (_request, res) => {
  res.socket?.destroy();
};

/** A handler that never answers (until the server closes). */
export const hang: Handler = () => {};

/**
 * For a test file: `serve` starts a server and `track` registers anything closable (a client); all are
 * closed after each test.
 */
export function closedAfterEach(): {
  serve(handlers: Handler | readonly Handler[]): Promise<LoopbackServer>;
  track<T extends { close(): Promise<void> }>(closable: T): T;
} {
  const servers: LoopbackServer[] = [];
  const others: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(others.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return {
    async serve(handlers) {
      const server = await startLoopbackServer(handlers);
      servers.push(server);
      return server;
    },
    track(closable) {
      others.push(closable);
      return closable;
    },
  };
}
