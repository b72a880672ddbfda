/**
 * The one JSON framing of ocf-sync: a push parser for a JSON text that is an object whose members
 * are small, save arrays that may be large. It takes the text's bytes in chunks of any size and
 * hands over each top-level member, and each element of the arrays its handler asks for, as soon as
 * it is complete, parsed. Memory follows the largest single value, never the text. Two readers use
 * it: the package validator, for the `{ "file_type": …, "items": [ … ] }` files of an OCF package
 * (`ocf/json-items.ts`), and the API client, for a large list page (`client/json-body.ts`: there a
 * body as one buffer and one string would cost far more than its parse, see that module).
 *
 * The scanner itself only finds where each value begins and ends (tracking strings, escapes and
 * nesting); every value is then checked and parsed by the platform: UTF-8 by a fatal `TextDecoder`,
 * JSON by `JSON.parse`. So a text is accepted exactly when `JSON.parse` of its whole would be
 * (RFC 8259: no byte order mark, no trailing commas), save for the keys the handler refuses.
 *
 * Errors say what is wrong and where, in bytes from the start of the text: an invalid UTF-8
 * sequence, a syntax error, the text ending early, or a single value over `maxValueBytes`.
 */

import { isAscii } from "node:buffer";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

/**
 * `bytes` as text, or an exception when they are not UTF-8. ASCII (nearly every OCF file) is read
 * as Latin-1, which for ASCII is the same text and takes a copy instead of a decode: fifty times
 * faster, and decoding is a large share of reading a package.
 */
export function utf8Text(decoder: { decode(bytes: Uint8Array): string }, bytes: Uint8Array): string {
  if (isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
  return decoder.decode(bytes);
}

/** The size of a new buffer for a framed run: a run of 64 KiB and a large element fit, so buffers can be used again. */
const RUN_BUFFER_BYTES = 128 * 1024;

/**
 * A run of elements of an array framed as a JSON array: `[` + the bytes + `]`, in a copy of its own
 * (parsed without joining strings), written into `spare` when it is large enough (the last run's).
 */
function framedRun(bytes: Uint8Array, spare?: ArrayBuffer): Uint8Array<ArrayBuffer> {
  const length = bytes.length + 2;
  const buffer = spare !== undefined && spare.byteLength >= length ? spare : new ArrayBuffer(Math.max(length, RUN_BUFFER_BYTES));
  const framed = new Uint8Array(buffer, 0, length);
  framed[0] = 0x5b;
  framed.set(bytes, 1);
  framed[length - 1] = 0x5d;
  return framed;
}

/** Whether `c` is JSON whitespace (space, tab, line feed, carriage return). */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** What the scanner found in a text, in order. */
export interface JsonObjectHandler {
  /**
   * A key of the text's object, read before its value: a message (the rest of a sentence about the
   * text, e.g. `is not … (the key "items" appears twice …)`) refuses the text there.
   */
  key?(key: string, startByte: number): string | undefined;
  /** Whether the value of `key`, when it is an array, is read element by element (else it is a `member`). */
  streams(key: string): boolean;
  /** A top-level member of the object, parsed (an array that `streams` is not one). */
  member(key: string, value: unknown): void;
  /** The value of `key` is an array read element by element: its elements follow, then `arrayEnd`. */
  arrayStart(key: string): void;
  /** One element of the array, parsed, with its index and the byte range it spans (-1, -1 when parsed in a run with others). */
  element(index: number, value: unknown, startByte: number, endByte: number): void;
  /** The array that started last ends (its `]` is read). */
  arrayEnd(key: string): void;
  /** The text's value is not a JSON object (an array, a string, …): here it is, parsed. */
  notAnObject(value: unknown): void;
}

/** Why a text could not be read through. */
export interface JsonScanError {
  /** `"not-json"`: bad UTF-8, a byte order mark, a syntax error or a refused key; `"too-large"`: one value over the limit. */
  kind: "not-json" | "too-large";
  /** The rest of a sentence about the text, e.g. `is not JSON (… at byte 17)`. */
  message: string;
}

/** Options of `JsonObjectScanner`. */
export interface JsonObjectScannerOptions {
  /**
   * The largest single value (an element of an array read element by element, or a top-level member) read, in bytes.
   * @default DEFAULT_MAX_VALUE_BYTES (64 MiB)
   */
  maxValueBytes?: number;
}

/** Default of `maxValueBytes`: no OCF object comes near it (a large issuance is a few kilobytes). */
export const DEFAULT_MAX_VALUE_BYTES = 64 * 1024 * 1024;

type State =
  | "start"
  | "key-or-end"
  | "key"
  | "colon"
  | "value"
  | "comma-or-end"
  | "elements-first"
  | "elements-value"
  | "elements-comma-or-end"
  | "done"
  | "failed";

/** Where the current value is going once captured. */
type Target = "root" | "member" | "item" | "key";

/**
 * Scans one text. Call `push` with each chunk, then `end`; read `error` after either (once set,
 * further input is ignored). Chunks may be reused by the caller after `push` returns.
 */
export class JsonObjectScanner {
  /** The first problem found; scanning stops there. */
  error: JsonScanError | undefined;

  private state: State = "start";
  /** Bytes of the text before the current chunk. */
  private offset = 0;
  private readonly maxValueBytes: number;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

  // The value being captured: its kind, where it started, the parts from earlier chunks.
  private capturing = false;
  private target: Target = "root";
  private primitive = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private valueStart = 0;
  private parts: Uint8Array[] = [];
  private partsBytes = 0;

  private key = "";
  private elementIndex = 0;
  private firstBytes: number[] = [];
  /** Where runs of elements are framed for `JSON.parse` (`framedRun`), used again for each. */
  private runBuffer: ArrayBuffer | undefined;

  constructor(
    private readonly handler: JsonObjectHandler,
    options: JsonObjectScannerOptions = {},
  ) {
    this.maxValueBytes = options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
  }

  /** Scans the next chunk of the text. */
  push(chunk: Uint8Array): void {
    if (this.stopped() || chunk.length === 0) return;
    if (this.offset === 0 && this.firstBytes.length < 3) {
      // A byte order mark is recognised even when it is split across chunks.
      for (let i = 0; i < chunk.length && this.firstBytes.length < 3; i++) this.firstBytes.push(chunk[i] as number);
      const [a, b, c] = this.firstBytes;
      if (a === 0xef && (b === undefined || b === 0xbb) && (c === undefined || c === 0xbf)) {
        if (this.firstBytes.length === 3) return this.fail("not-json", "starts with a byte order mark, which JSON does not allow");
      }
    }
    let i = 0;
    const n = chunk.length;
    // Where a run of elements may be tried (see `startElements`); past `n` once a try failed in this chunk.
    let batchFrom = 0;
    while (i < n && !this.stopped()) {
      if (this.capturing) {
        i = this.capture(chunk, i);
        continue;
      }
      const c = chunk[i] as number;
      if (isSpace(c)) {
        i++;
        continue;
      }
      switch (this.state) {
        case "start":
          this.begin(c === LBRACE ? "structure" : "root", chunk, i);
          if (c === LBRACE) {
            this.state = "key-or-end";
            i++;
          }
          break;
        case "key-or-end":
          if (c === RBRACE) {
            this.state = "done";
            i++;
          } else {
            i = this.expectKey(c, chunk, i);
          }
          break;
        case "key":
          i = this.expectKey(c, chunk, i);
          break;
        case "colon":
          if (c !== COLON) return this.syntax(`expected ":" after the key ${JSON.stringify(this.key)}`, i);
          this.state = "value";
          i++;
          break;
        case "value":
          if (c === LBRACKET && this.handler.streams(this.key)) {
            this.elementIndex = 0;
            this.handler.arrayStart(this.key);
            this.state = "elements-first";
            i++;
          } else {
            this.begin("member", chunk, i);
          }
          break;
        case "comma-or-end":
          if (c === COMMA) this.state = "key";
          else if (c === RBRACE) this.state = "done";
          else return this.syntax('expected "," or "}" after a member of the file object', i);
          i++;
          break;
        case "elements-first":
          if (c === RBRACKET) {
            this.state = "comma-or-end";
            this.handler.arrayEnd(this.key);
            i++;
          } else {
            const next = this.startElements(chunk, i, batchFrom);
            batchFrom = next > i ? next : n;
            i = next;
          }
          break;
        case "elements-value":
          if (c === RBRACKET) return this.syntax("expected a value after the comma (JSON allows no trailing comma)", i);
          {
            const next = this.startElements(chunk, i, batchFrom);
            batchFrom = next > i ? next : n;
            i = next;
          }
          break;
        case "elements-comma-or-end":
          if (c === COMMA) this.state = "elements-value";
          else if (c === RBRACKET) {
            this.state = "comma-or-end";
            this.handler.arrayEnd(this.key);
          } else return this.syntax(`expected "," or "]" after ${this.elementPath(this.elementIndex - 1)}`, i);
          i++;
          break;
        default:
          return this.syntax("expected the end of the file after the file object", i);
      }
    }
    this.offset += n;
  }

  /** Whether scanning has stopped at an error. */
  private stopped(): boolean {
    return this.state === "failed";
  }

  /** Call once every chunk is pushed. */
  end(): void {
    if (this.stopped()) return;
    if (this.capturing && this.primitive && this.target === "root") {
      // A bare number or literal runs to the end of the file.
      this.finishValue(new Uint8Array(0), 0);
    }
    if (this.state === "start") return this.fail("not-json", "is not JSON (the file is empty)");
    if (this.state !== "done") {
      const where = this.capturing ? (this.target === "item" ? ` inside ${this.elementPath(this.elementIndex)}` : " inside a value") : "";
      return this.fail("not-json", `is not JSON (the file ends early${where}, at byte ${this.offset})`);
    }
  }

  /** `$.key[index]`, for messages. */
  private elementPath(index: number): string {
    return `$.${this.key}[${index}]`;
  }

  /**
   * At the start of an element of an array read element by element: parses as many whole elements as the rest of the chunk
   * holds with one `JSON.parse`, or starts scanning the one element byte by byte. Returns where to
   * go on. A batch runs from here to the last `}` that a `,` follows in the chunk: when
   * `[` + that text + `]` parses, the text is a run of whole elements (a cut inside a string leaves
   * it unterminated, a cut inside an object leaves it unbalanced, so neither parses); when it does
   * not, the chunk is scanned byte by byte as usual, which finds and words any error. Most of a
   * package file is read this way, in native code.
   */
  private startElements(chunk: Uint8Array, i: number, batchFrom: number): number {
    const end = i >= batchFrom && chunk[i] === LBRACE ? lastElementEnd(chunk, i) : -1;
    if (end > i && end - i <= this.maxValueBytes) {
      let elements: unknown;
      try {
        // Framed in bytes, so the text is made once (a template string would be joined again by JSON.parse).
        const framed = framedRun(chunk.subarray(i, end + 1), this.runBuffer);
        this.runBuffer = framed.buffer;
        elements = JSON.parse(utf8Text(this.decoder, framed));
      } catch {
        elements = undefined;
      }
      if (Array.isArray(elements)) {
        for (const element of elements) this.handler.element(this.elementIndex++, element, -1, -1);
        // Past the comma after the last element of the batch: the next element is expected.
        this.state = "elements-value";
        return chunk.indexOf(COMMA, end) + 1;
      }
    }
    this.begin("item", chunk, i);
    return i;
  }

  private expectKey(c: number, chunk: Uint8Array, i: number): number {
    if (c !== QUOTE) {
      this.syntax("expected a string key", i);
      return i;
    }
    this.begin("key", chunk, i);
    return i;
  }

  /** Starts capturing a value at `chunk[i]`; `"structure"` is the file object's own brace. */
  private begin(target: Target | "structure", chunk: Uint8Array, i: number): void {
    if (target === "structure") return;
    const c = chunk[i] as number;
    this.capturing = true;
    this.target = target;
    this.primitive = c !== LBRACE && c !== LBRACKET && c !== QUOTE;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.valueStart = i;
    this.parts = [];
    this.partsBytes = 0;
  }

  /** Scans the value being captured from `chunk[i]`; returns where scanning stopped. */
  private capture(chunk: Uint8Array, i: number): number {
    const n = chunk.length;
    const start = this.valueStart;
    if (this.primitive) {
      while (i < n) {
        const c = chunk[i] as number;
        if (c === COMMA || c === RBRACKET || c === RBRACE || isSpace(c)) return this.finishValue(chunk, i);
        i++;
      }
      return this.carry(chunk, start, n);
    }
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    while (i < n) {
      if (inString) {
        // The hot loop: most of a file is inside strings.
        if (escaped) {
          escaped = false;
          i++;
          continue;
        }
        let c = chunk[i] as number;
        while (c !== QUOTE && c !== BACKSLASH) {
          if (++i === n) break;
          c = chunk[i] as number;
        }
        if (i === n) break;
        if (c === BACKSLASH) escaped = true;
        else {
          inString = false;
          if (depth === 0) {
            // A string value (or key) ends here.
            this.depth = depth;
            this.inString = inString;
            return this.finishValue(chunk, i + 1);
          }
        }
        i++;
        continue;
      }
      const c = chunk[i] as number;
      if (c === QUOTE) inString = true;
      else if (c === LBRACE || c === LBRACKET) depth++;
      else if (c === RBRACE || c === RBRACKET) {
        if (--depth === 0) {
          this.depth = depth;
          this.inString = inString;
          this.escaped = escaped;
          return this.finishValue(chunk, i + 1);
        }
      }
      i++;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return this.carry(chunk, start, n);
  }

  /** The chunk ended inside the value: keeps a copy of its part, within the size limit. */
  private carry(chunk: Uint8Array, start: number, n: number): number {
    // A copy: the caller may reuse the chunk (and a Buffer's `slice` would not copy).
    const part = new Uint8Array(n - start);
    part.set(chunk.subarray(start, n));
    this.parts.push(part);
    this.partsBytes += part.length;
    this.valueStart = 0;
    if (this.partsBytes > this.maxValueBytes) {
      this.tooLarge();
      return n;
    }
    return n;
  }

  private tooLarge(): void {
    const what = this.target === "item" ? this.elementPath(this.elementIndex) : this.target === "member" ? `the value of ${JSON.stringify(this.key)}` : "its value";
    this.fail("too-large", `holds a value over the limit of ${this.maxValueBytes} bytes (${what}); it is not read further`);
  }

  /** The value ends before `chunk[end]`: decodes, parses and hands it over. Returns `end`. */
  private finishValue(chunk: Uint8Array, end: number): number {
    const startByte = this.offset + this.valueStart - this.partsBytes;
    const endByte = this.offset + end;
    let bytes: Uint8Array;
    if (this.parts.length === 0) {
      bytes = chunk.subarray(this.valueStart, end);
    } else {
      bytes = new Uint8Array(this.partsBytes + end);
      let at = 0;
      for (const part of this.parts) {
        bytes.set(part, at);
        at += part.length;
      }
      bytes.set(chunk.subarray(0, end), at);
      this.parts = [];
      this.partsBytes = 0;
    }
    this.capturing = false;
    if (bytes.length > this.maxValueBytes) {
      this.tooLarge();
      return end;
    }
    let text: string;
    try {
      text = utf8Text(this.decoder, bytes);
    } catch {
      this.fail("not-json", `is not UTF-8 text (an invalid byte sequence at byte ${startByte + firstInvalidUtf8(bytes)})`);
      return end;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const where = this.target === "item" ? `${this.elementPath(this.elementIndex)}, ` : "";
      const detail = error instanceof Error ? error.message : String(error);
      this.fail("not-json", `is not JSON (${where}the value from byte ${startByte}: ${detail})`);
      return end;
    }
    switch (this.target) {
      case "root":
        this.state = "done";
        this.handler.notAnObject(value);
        break;
      case "key": {
        this.key = value as string;
        const refused = this.handler.key?.(this.key, startByte);
        if (refused !== undefined) {
          this.fail("not-json", refused);
          return end;
        }
        this.state = "colon";
        break;
      }
      case "member":
        this.state = "comma-or-end";
        this.handler.member(this.key, value);
        break;
      case "item":
        this.state = "elements-comma-or-end";
        this.handler.element(this.elementIndex++, value, startByte, endByte);
        break;
    }
    return end;
  }

  private syntax(expected: string, i: number): void {
    this.fail("not-json", `is not JSON (${expected}, at byte ${this.offset + i})`);
  }

  private fail(kind: JsonScanError["kind"], message: string): void {
    this.state = "failed";
    this.capturing = false;
    this.parts = [];
    this.error ??= { kind, message };
  }
}

/**
 * How far a run of elements parsed at once reaches, about (a larger element makes a larger run):
 * every object of a run stays alive until its last element is checked, and each collection of the
 * young generation copies what is alive; runs of 64 KiB rather than a whole chunk of 1 MiB cut the
 * collector's share of validating a package by about half.
 */
const RUN_BYTES = 64 * 1024;

/**
 * Where a run of whole elements starting at `chunk[from]` (a `{`) may end: the last `}` of the chunk
 * (of its first `RUN_BYTES` past `from`, when one is there) that sits at the start of a line indented as the element's own first line and that a `,` follows,
 * as pretty-printed JSON closes an element of `items` (looking past one that ends the chunk or that
 * something else follows, such as the last element's); -1 if none. Only a guess, checked by parsing.
 */
function lastElementEnd(chunk: Uint8Array, from: number): number {
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
  const lineStart = bytes.lastIndexOf(0x0a, from) + 1;
  if (lineStart === 0) return -1;
  for (let k = lineStart; k < from; k++) if (bytes[k] !== 0x20 && bytes[k] !== 0x09) return -1;
  const closer = Buffer.concat([Buffer.from([0x0a]), bytes.subarray(lineStart, from), Buffer.from([RBRACE])]);
  // The last closer of the chunk may be the last element's, followed by "]": try the one before.
  const lastBefore = (start: number): number => {
    for (let at = bytes.lastIndexOf(closer, start); at > from; at = bytes.lastIndexOf(closer, at - 1)) {
      const end = at + closer.length - 1;
      let j = end + 1;
      while (j < bytes.length && isSpace(bytes[j] as number)) j++;
      if (bytes[j] === COMMA) return end;
    }
    return -1;
  };
  const window = from + RUN_BYTES;
  const found = window < bytes.length ? lastBefore(window) : -1;
  return found !== -1 ? found : lastBefore(bytes.length);
}

/** The index of the first byte of the first invalid UTF-8 sequence of `bytes` (for messages). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  // In stream mode a decoder holds back an incomplete sequence at the end instead of failing, so
  // "this prefix decodes" holds for every prefix up to the byte that makes a sequence invalid and
  // for none after it.
  const decodes = (length: number, stream: boolean): boolean => {
    try {
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, length), { stream });
      return true;
    } catch {
      return false;
    }
  };
  let low = 0;
  let high = bytes.length;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (decodes(mid, true)) low = mid;
    else high = mid - 1;
  }
  // Back to where the sequence that went wrong began (it may have started up to three bytes before).
  let start = low;
  while (start > 0 && low - start < 3 && !decodes(start, false)) start -= 1;
  return start;
}
