/**
 * The smallest Redis client the shared rate limiter needs: RESP2 over one `node:net` connection,
 * commands pipelined in order, `AUTH` and `SELECT` from a `redis://[user:password@]host:port/db` URL.
 * Written here rather than taken from npm because the limiter sends three commands (EVALSHA, EVAL and
 * the connection's AUTH/SELECT), and a dependency for that would weigh more than this file.
 *
 * A connection that fails (refused, reset, closed by the server) rejects every command waiting on it;
 * the next command opens a new one. A command's `signal` stops the wait, not the command: its reply
 * is still read, so the replies of later commands keep their order. The socket keeps the process
 * alive only while a command waits for its reply (an idle client never holds a command line open).
 */
import { type Socket, connect } from "node:net";
import type { OcfSyncErrorCode } from "../error-codes.js";
import { OcfSyncError } from "../errors.js";
import { abortError, isAborted } from "./abort.js";

/** A reply: simple strings and bulk strings as strings, integers as numbers, arrays nested. */
export type RespValue = string | number | null | RespValue[];

/** An error reply from the server (`-ERR ...`, `-NOSCRIPT ...`): the connection is fine. */
export class RespReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RespReplyError";
  }
}

/** The code of a connection that could not be made, or that failed under a command. */
export const REDIS_UNAVAILABLE = "RATE_LIMITER_UNAVAILABLE" satisfies OcfSyncErrorCode;

/** Where to connect, read from a `redis://` URL. */
export interface RedisAddress {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  /** The URL without its credentials, for messages. */
  display: string;
}

/**
 * Reads `redis://[[user]:password@]host[:port][/db]` (port 6379 and db 0 by default). Throws a
 * `RangeError` naming what is wrong (never the password).
 */
export function parseRedisUrl(text: string): RedisAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RangeError("is not a URL: give redis://host:port/db");
  }
  if (url.protocol === "rediss:") throw new RangeError("uses TLS (rediss://), which is not supported: give redis://host:port/db");
  if (url.protocol !== "redis:") throw new RangeError(`must start with redis://, not ${url.protocol}//`);
  if (url.hostname === "") throw new RangeError("has no host: give redis://host:port/db");
  const port = url.port === "" ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, "");
  if (!/^\d*$/.test(path) || url.search !== "" || url.hash !== "") throw new RangeError("takes only a database number after the host, such as redis://127.0.0.1:6379/0");
  const db = path === "" ? 0 : Number(path);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const address: RedisAddress = { host, port, db, display: `redis://${url.host}/${db}` };
  if (url.username !== "") address.username = decodeURIComponent(url.username);
  if (url.password !== "") address.password = decodeURIComponent(url.password);
  return address;
}

function encode(args: readonly (string | number)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.from(String(arg), "utf8");
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from("\r\n"));
  }
  return Buffer.concat(parts);
}

type Parsed = { value: RespValue | RespReplyError; end: number };

/** One reply from `offset`, or `undefined` when the buffer does not hold all of it yet. */
function parseReply(buffer: Buffer, offset: number): Parsed | undefined {
  const lineEnd = buffer.indexOf("\r\n", offset);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buffer[offset]!);
  const line = buffer.toString("utf8", offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case "+":
      return { value: line, end: next };
    case "-":
      return { value: new RespReplyError(line), end: next };
    case ":":
      return { value: Number(line), end: next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString("utf8", next, next + length), end: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: RespValue[] = [];
      let at = next;
      for (let i = 0; i < count; i += 1) {
        const item = parseReply(buffer, at);
        if (item === undefined) return undefined;
        // An error inside an array (a script's error_reply) is kept as its message.
        items.push(item.value instanceof RespReplyError ? item.value.message : item.value);
        at = item.end;
      }
      return { value: items, end: at };
    }
    default:
      throw new Error(`unexpected reply type ${JSON.stringify(type)}`);
  }
}

interface Waiter {
  resolve(value: RespValue): void;
  reject(error: Error): void;
}

/** Options of {@link createRespClient}. */
export interface RespClientOptions {
  /**
   * Longest wait to connect, in ms.
   * @default 5000
   */
  connectTimeoutMs?: number;
}

/** A connection to one Redis server. */
export interface RespClient {
  /** Where it connects, without credentials. */
  readonly address: string;
  /** Sends a command and resolves with its reply; rejects with {@link RespReplyError} for an error reply. */
  command(args: readonly (string | number)[], options?: { signal?: AbortSignal }): Promise<RespValue>;
  /** Closes the connection; commands sent afterwards open a new one. */
  close(): void;
}

/** A client of the Redis server at `url` (`redis://host:port/db`); it connects on the first command. */
export function createRespClient(url: string, options: RespClientOptions = {}): RespClient {
  const address = parseRedisUrl(url);
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  let socket: Socket | undefined;
  let buffer: Buffer = Buffer.alloc(0);
  let waiters: Waiter[] = [];

  function fail(error: Error): void {
    const failed = waiters;
    waiters = [];
    buffer = Buffer.alloc(0);
    socket?.destroy();
    socket = undefined;
    for (const waiter of failed) waiter.reject(error);
  }

  function unavailable(what: string, cause?: unknown): OcfSyncError {
    const detail = cause instanceof Error ? `: ${cause.message}` : "";
    return new OcfSyncError(REDIS_UNAVAILABLE, `the shared rate limiter's Redis at ${address.display} ${what}${detail}`, { cause });
  }

  function onData(chunk: Buffer): void {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    let offset = 0;
    for (;;) {
      let parsed: Parsed | undefined;
      try {
        parsed = parseReply(buffer, offset);
      } catch (error) {
        fail(unavailable("sent something that is not RESP", error));
        return;
      }
      if (parsed === undefined) break;
      offset = parsed.end;
      const waiter = waiters.shift();
      if (waiter === undefined) {
        fail(unavailable("sent a reply nobody asked for"));
        return;
      }
      if (parsed.value instanceof RespReplyError) waiter.reject(parsed.value);
      else waiter.resolve(parsed.value);
    }
    buffer = buffer.subarray(offset);
    if (waiters.length === 0) socket?.unref();
  }

  /** Opens the connection, queueing AUTH and SELECT ahead of any command. */
  function open(): Socket {
    const s = connect({ host: address.host, port: address.port });
    socket = s;
    s.setNoDelay(true);
    s.setTimeout(connectTimeoutMs, () => {
      if (socket === s) fail(unavailable(`did not answer within ${connectTimeoutMs} ms`));
    });
    s.once("connect", () => s.setTimeout(0));
    s.on("data", (chunk: Buffer) => {
      if (socket === s) onData(chunk);
    });
    s.on("error", (error) => {
      if (socket === s) fail(unavailable("cannot be reached", error));
    });
    s.on("close", () => {
      if (socket === s) fail(unavailable("closed the connection"));
    });
    const setup: (string | number)[][] = [];
    if (address.password !== undefined) setup.push(address.username === undefined ? ["AUTH", address.password] : ["AUTH", address.username, address.password]);
    if (address.db !== 0) setup.push(["SELECT", address.db]);
    for (const args of setup) {
      waiters.push({
        resolve: () => {},
        // A refused AUTH or SELECT makes the connection useless: every command behind it fails.
        reject: (error) => fail(unavailable(`refused ${String(args[0])}`, error instanceof RespReplyError ? new Error(error.message) : error)),
      });
      s.write(encode(args));
    }
    return s;
  }

  return {
    address: address.display,
    command(args, commandOptions = {}) {
      const { signal } = commandOptions;
      if (isAborted(signal)) return Promise.reject(abortError(`Redis ${String(args[0])}`, signal));
      const s = socket ?? open();
      s.ref();
      return new Promise<RespValue>((resolve, reject) => {
        const onAbort = (): void => reject(abortError(`Redis ${String(args[0])}`, signal));
        signal?.addEventListener("abort", onAbort, { once: true });
        waiters.push({
          resolve: (value) => {
            signal?.removeEventListener("abort", onAbort);
            resolve(value);
          },
          reject: (error) => {
            signal?.removeEventListener("abort", onAbort);
            reject(error);
          },
        });
        s.write(encode(args));
      });
    },
    close() {
      const s = socket;
      socket = undefined;
      const failed = waiters;
      waiters = [];
      s?.end();
      s?.unref();
      for (const waiter of failed) waiter.reject(unavailable("was closed by this client"));
    },
  };
}
