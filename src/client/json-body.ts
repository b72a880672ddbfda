/**
 * `JSON.parse` of a response body that arrived in pieces, without making the whole body one string
 * when it is large. A large body as one buffer and one string costs far more than its parse on these
 * machines: every object over about 128 KiB gets fresh memory from the system, and touching fresh
 * memory costs about 6 ms per MiB, so a 465 KiB page of 50 records cost 3.6 ms to join and decode and
 * 3.1 ms to parse. A list page is an object whose members are small, save one array of records:
 * parsing its members and the elements of its arrays one by one, each from its own short text, makes
 * only short-lived small strings.
 *
 * The pieces are found by the one JSON framing (`json-framing.ts`, which the package validator
 * reads package files with), every array member read element by element. The value is exactly
 * `JSON.parse(body.toString("utf8"))`: every piece is parsed by `JSON.parse` itself, cuts fall only
 * on ASCII punctuation, and anything this reading does not expect (a body that is not an object, a
 * `__proto__` key, bytes that are not UTF-8, a syntax error anywhere) is left to `JSON.parse` of the
 * whole body, so that its value, or the error it throws, is the platform's own.
 */

import { JsonObjectScanner } from "../json-framing.js";

/** From this size a body is parsed piece by piece; a smaller one is joined (it fits in ordinary heap pages). */
export const SPLIT_MIN_BYTES = 128 * 1024;

/** Raised by the piecewise reading for anything it leaves to `JSON.parse` of the whole body. */
class NotPiecewise extends Error {}

/**
 * The body's JSON value: `JSON.parse` of its UTF-8 text.
 *
 * @param chunks the body's bytes, in order
 * @param splitMinBytes the size from which it is read piece by piece (tests read small bodies so)
 * @throws what `JSON.parse` of the whole text throws, when it is not JSON
 */
export function parseJsonBody(chunks: readonly Uint8Array[], size: number, splitMinBytes = SPLIT_MIN_BYTES): unknown {
  if (size >= splitMinBytes) {
    try {
      return readPiecewise(chunks);
    } catch (error) {
      if (!(error instanceof NotPiecewise)) throw error;
    }
  }
  return JSON.parse(Buffer.concat(chunks, size).toString("utf8"));
}

/**
 * The body's object, read piece by piece (for `parseJsonBody`, and for tests that it is so read).
 * @throws for a body this reading leaves to `JSON.parse` of the whole (an internal error)
 */
export function readPiecewise(chunks: readonly Uint8Array[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  let elements: unknown[] = [];
  let object = true;
  const scanner = new JsonObjectScanner(
    {
      // JSON.parse makes "__proto__" an own property; an assignment would set the prototype.
      key: (key) => (key === "__proto__" ? "has a __proto__ key" : undefined),
      streams: () => true,
      member: (key, value) => {
        result[key] = value;
      },
      arrayStart: () => {
        elements = [];
      },
      element: (_, value) => {
        elements.push(value);
      },
      arrayEnd: (key) => {
        result[key] = elements;
      },
      notAnObject: () => {
        object = false;
      },
    },
    { maxValueBytes: Number.POSITIVE_INFINITY },
  );
  for (const chunk of chunks) scanner.push(chunk);
  scanner.end();
  if (scanner.error !== undefined || !object) throw new NotPiecewise();
  return result;
}
