/**
 * One HTTP exchange over undici, with the body read under a size limit and the whole exchange under
 * a deadline. No retries, no error mapping: the caller decides what a status or a thrown undici error
 * means.
 *
 * undici's `headersTimeout` and `bodyTimeout` only bound silences: a server that sends one byte a
 * second never trips them, and held a pull for as long as it liked. `attemptTimeoutMs` bounds the
 * whole attempt, from sending the request to the last byte of the body.
 */
import { type Dispatcher, request } from "undici";

/** A response read to its end (or to the size limit). */
export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body (joined from `chunks` when first read). */
  readonly body: Buffer;
  /** The body as it arrived, in pieces: a reader that needs no single buffer (a digest) spares the copy. */
  readonly chunks: readonly Buffer[];
  /** The body's length in bytes. */
  size: number;
  /** True when the body was longer than the limit: `body` then holds only what came before it. */
  truncated: boolean;
}

function rawResponse(status: number, headers: Record<string, string>, chunks: Buffer[], size: number, truncated: boolean): RawResponse {
  let body: Buffer | undefined;
  return {
    status,
    headers,
    get body() {
      body ??= Buffer.concat(chunks, size);
      return body;
    },
    chunks,
    size,
    truncated,
  };
}

/** One request to send. */
export interface RawRequest {
  /** Absolute URL, already escaped. */
  url: string;
  method: "GET" | "POST";
  /** Header names in lower case. */
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request and the body read. */
  signal?: AbortSignal | undefined;
  /** Passed per request, so that they apply to an injected dispatcher too. */
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** The whole attempt: headers and the entire body. Past it, {@link ATTEMPT_TIMEOUT_CODE} is thrown. */
  attemptTimeoutMs: number;
  /** Most body bytes to read; see {@link RawResponse.truncated}. */
  maxBodyBytes: (status: number) => number;
  /** Stop at once, reading nothing, when `Content-Length` is over the limit (instead of reading up to it). */
  failFastOnLength: (status: number) => boolean;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

/** Stops reading a body and frees its connection. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  // undici's body emits an abort error when destroyed early; nobody else listens for it any more.
  body.on("error", () => {});
  body.destroy();
}

/** The `code` of the error {@link sendRaw} throws when an attempt passes `attemptTimeoutMs`. */
export const ATTEMPT_TIMEOUT_CODE = "OCF_SYNC_ATTEMPT_TIMEOUT";

/**
 * Sends one request. Throws what undici throws (network errors, timeouts, aborts), and an error with
 * code {@link ATTEMPT_TIMEOUT_CODE} when the attempt passes its deadline. When the caller's signal
 * fires, the error thrown is undici's abort error (the caller checks its signal).
 */
export async function sendRaw(dispatcher: Dispatcher, raw: RawRequest): Promise<RawResponse> {
  // One controller per attempt, fired by the deadline or by the caller's signal: a listener rather than
  // AbortSignal.any, so that nothing stays attached to a long-lived caller signal after the attempt.
  const attempt = new AbortController();
  const deadline = new Error(`the attempt took longer than ${raw.attemptTimeoutMs} ms`);
  const timer = setTimeout(() => attempt.abort(deadline), raw.attemptTimeoutMs);
  const onAbort = (): void => attempt.abort(raw.signal?.reason);
  if (raw.signal?.aborted === true) onAbort();
  else raw.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await exchange(dispatcher, raw, attempt.signal);
  } catch (error) {
    if (attempt.signal.reason === deadline && raw.signal?.aborted !== true) {
      throw Object.assign(new Error(deadline.message), { code: ATTEMPT_TIMEOUT_CODE, cause: error });
    }
    throw error;
  } finally {
    clearTimeout(timer);
    raw.signal?.removeEventListener("abort", onAbort);
  }
}

async function exchange(dispatcher: Dispatcher, raw: RawRequest, signal: AbortSignal): Promise<RawResponse> {
  const options: Parameters<typeof request>[1] = {
    dispatcher,
    method: raw.method,
    headers: raw.headers,
    headersTimeout: raw.headersTimeoutMs,
    bodyTimeout: raw.bodyTimeoutMs,
    signal,
  };
  if (raw.body !== undefined) options.body = raw.body;
  const response = await request(raw.url, options);
  const status = response.statusCode;
  const headers = flattenHeaders(response.headers);
  const limit = raw.maxBodyBytes(status);
  const declared = headers["content-length"];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit && raw.failFastOnLength(status)) {
    discard(response.body);
    return rawResponse(status, headers, [], 0, true);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      size = limit;
      discard(response.body);
      return rawResponse(status, headers, chunks, size, true);
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return rawResponse(status, headers, chunks, size, false);
}
