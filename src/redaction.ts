/**
 * Redaction of credentials (issue 25, item 3): one `Redactor` knows every secret in play (the token or
 * client secret given, the values of a token URL's query, each token a token endpoint answered with)
 * and finds them wherever a server, a gateway or a record echoes them, also transformed:
 *
 * - cut: any run of 8 or more characters of a secret counts as the secret (the second half of a token
 *   is as good as the first to whoever reads it); a secret of 4 to 7 characters is matched whole;
 * - in any mix of upper and lower case (ASCII letters);
 * - escaped as in a JSON string (`\/`, `\u002B`, a token written wholly as `\uXXXX`), percent-encoded
 *   once or twice (`%2B`, `%252B`), form-encoded (a space as `+`), in any nesting of these: the text
 *   is decoded (positions kept) and searched again;
 * - base64 and base64url, padded or not, of the secret alone or inside anything longer (`Bearer
 *   <token>`, the `id:secret` of HTTP Basic): each secret is encoded at the three byte alignments and
 *   the characters that depend on it alone are searched.
 *
 * Speed: no secret, no work. Otherwise one trigram in six positions is looked up in a table filled
 * once per secret (see `scan`); only the stretches of text around a `\` or a `%` are decoded and
 * searched again. A response body is looked at as bytes first (`holdsIn`), and walked only when it
 * holds a secret.
 */

import { StringDecoder } from "node:string_decoder";

/** What replaces a secret. */
export const REDACTED = "[REDACTED]";
/** Shorter values are not credentials anyone would issue, and replacing them would garble messages. */
const MIN_SECRET_LENGTH = 4;
/** A run of this many characters of a secret (or of one of its encodings) is the secret. */
const WINDOW = 8;
const GRAM = 3;
// Every window holds a trigram starting at a multiple of this.
const GRAM_STEP = WINDOW - GRAM + 1;
const TABLE_BITS = 18;
// Percent-decoding and JSON-unescaping are applied this many times at most (a URL-encoded JSON escape
// of a double-encoded character is three).
const MAX_DECODE_DEPTH = 3;
// The most characters one decoded character takes in the text, with room to spare (`%255Cu002B`, a JSON
// escape URL-encoded twice, is 10), times a window: how far from an escape a window it helps reveal reaches.
const ESCAPE_REACH = 12 * WINDOW;
// What `holdsIn` keeps of a piece to look at with the next: a window and the escapes around it.
const CARRY = 2 * ESCAPE_REACH;

/**
 * Finds and replaces the secrets it was given.
 *
 * @category Client
 */
export interface Redactor {
  /** Adds secrets to find from now on (a token as it is minted); `undefined`, empty and short ones are ignored. */
  add(...secrets: readonly (string | undefined)[]): void;
  /** Whether any secret is known: without one, `redact` returns its text unchanged at no cost. */
  readonly active: boolean;
  /** `text` with every appearance of a secret, in any form above, replaced with `[REDACTED]`. */
  redact(text: string): string;
  /**
   * Whether UTF-8 text given in pieces (a response body as it arrived) holds a secret anywhere, also
   * across pieces: a cheap look before a walk of what it parses to with `redactValue`.
   */
  holdsIn(pieces: Iterable<Uint8Array>): boolean;
  /**
   * A JSON-like value with every string in it (keys too) redacted: the same value when none holds a
   * secret, else a copy. `onRedacted` hears the path of each string that was changed.
   */
  redactValue<T>(value: T, onRedacted?: (path: readonly (string | number)[]) => void): T;
}

/** `code` with A-Z folded to a-z. */
function fold(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

function foldText(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** Where the window of `text` at `at` (folded) sits in the table of windows. */
function windowIndex(text: string, at: number): number {
  let hash = 0;
  for (let k = at; k < at + WINDOW; k += 1) hash = (Math.imul(hash, 31) + fold(text.charCodeAt(k))) | 0;
  return Math.imul(hash, 0x9e3779b1) >>> (32 - TABLE_BITS);
}

/** Where the trigram of (folded) character codes `a b c` sits in the table of trigrams. */
function gramIndex(a: number, b: number, c: number): number {
  return Math.imul(((a * 31 + b) * 31 + c) | 0, 0x9e3779b1) >>> (32 - TABLE_BITS);
}

/**
 * The base64 and base64url characters that encode `secret` alone, wherever it sits in a longer
 * encoded text: for each of the 3 byte alignments, the characters none of whose 6 bits come from
 * another byte.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift += 1) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64").replace(/=+$/, "");
    const total = shift + bytes.length;
    const core = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * total) / 6));
    cores.push(core, core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return cores;
}

/** The plain forms searched for: the secret, as form-encoded (a space as `+`), and its base64 cores. */
function formsOf(secret: string): string[] {
  return [secret, secret.replaceAll(" ", "+"), ...base64Cores(secret)];
}

interface DecodedView {
  text: string;
  /** For each character of `text`, where its source starts and ends in the original text. */
  start: Int32Array;
  end: Int32Array;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = fold(code);
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

function hexAt(text: string, at: number, digits: number): number {
  let value = 0;
  for (let i = 0; i < digits; i += 1) {
    const digit = at + i < text.length ? hexValue(text.charCodeAt(at + i)) : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

const JSON_ESCAPES: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const utf8 = new TextDecoder();

/** One pass of JSON-unescaping and percent-decoding; `undefined` when nothing was decoded. */
function decodeOnce(text: string): DecodedView | undefined {
  const chars: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let changed = false;
  const push = (piece: string, from: number, to: number): void => {
    for (const char of piece.split("")) {
      chars.push(char);
      starts.push(from);
      ends.push(to);
    }
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === "\\" && text[i + 1] === "u" && hexAt(text, i + 2, 4) >= 0) {
      push(String.fromCharCode(hexAt(text, i + 2, 4)), i, i + 6);
      i += 6;
      changed = true;
    } else if (char === "\\" && i + 1 < text.length && Object.hasOwn(JSON_ESCAPES, text[i + 1]!)) {
      push(JSON_ESCAPES[text[i + 1]!]!, i, i + 2);
      i += 2;
      changed = true;
    } else if (char === "%" && hexAt(text, i + 1, 2) >= 0) {
      // A run of escaped bytes is decoded as UTF-8 together: a non-ASCII character is several.
      const bytes: number[] = [];
      const from = i;
      while (text[i] === "%" && hexAt(text, i + 1, 2) >= 0) {
        bytes.push(hexAt(text, i + 1, 2));
        i += 3;
      }
      if (bytes.every((b) => b < 0x80)) bytes.forEach((b, k) => push(String.fromCharCode(b), from + 3 * k, from + 3 * k + 3));
      else push(utf8.decode(Uint8Array.from(bytes)), from, i);
      changed = true;
    } else {
      push(char, i, i + 1);
      i += 1;
    }
  }
  return changed ? { text: chars.join(""), start: Int32Array.from(starts), end: Int32Array.from(ends) } : undefined;
}

/** The text decoded as often as it decodes (at most `MAX_DECODE_DEPTH` times), positions in the original. */
function decodedViews(text: string): DecodedView[] {
  const views: DecodedView[] = [];
  let current = text;
  for (let depth = 0; depth < MAX_DECODE_DEPTH && (current.includes("\\") || current.includes("%")); depth += 1) {
    const next = decodeOnce(current);
    if (next === undefined) break;
    const previous = views[views.length - 1];
    if (previous !== undefined) {
      // Positions in the previous view, mapped on to the original text.
      for (let k = 0; k < next.text.length; k += 1) {
        next.start[k] = previous.start[next.start[k]!]!;
        next.end[k] = previous.end[next.end[k]! - 1]!;
      }
    }
    views.push(next);
    current = next.text;
  }
  return views;
}

/**
 * The stretches of `text` around its escapes (`\` and `%`), merged where they meet: a window of a
 * secret that decoding reveals lies within `ESCAPE_REACH` of an escape, and any other is found in the
 * text as it is. So only these stretches are decoded, and text without escapes never is.
 */
function escapedStretches(text: string): [number, number][] {
  const stretches: [number, number][] = [];
  let backslash = text.indexOf("\\");
  let percent = text.indexOf("%");
  while (backslash !== -1 || percent !== -1) {
    const at = backslash === -1 ? percent : percent === -1 ? backslash : Math.min(backslash, percent);
    const from = Math.max(0, at - ESCAPE_REACH);
    const to = Math.min(text.length, at + ESCAPE_REACH);
    const last = stretches[stretches.length - 1];
    if (last !== undefined && from <= last[1]) last[1] = to;
    else stretches.push([from, to]);
    if (at === backslash) backslash = text.indexOf("\\", at + 1);
    else percent = text.indexOf("%", at + 1);
  }
  return stretches;
}

/**
 * A redactor of `secrets` (more may be added later).
 *
 * @category Client
 */
export function createRedactor(secrets: Iterable<string | undefined> = []): Redactor {
  const known = new Set<string>();
  const windows = new Set<string>();
  // The trigrams of the windows, by `gramIndex`.
  const grams = new Uint8Array(1 << TABLE_BITS);
  // The windows, by `windowIndex`: most trigrams found lead to no window, and are told so without a string made.
  const windowTable = new Uint8Array(1 << TABLE_BITS);
  // Secrets shorter than a window, folded: searched for whole.
  const shorts = new Set<string>();

  function addForm(form: string): void {
    const folded = foldText(form);
    if (folded.length < WINDOW) {
      if (folded.length >= MIN_SECRET_LENGTH) shorts.add(folded);
      return;
    }
    for (let at = 0; at + WINDOW <= folded.length; at += 1) {
      const window = folded.slice(at, at + WINDOW);
      if (windows.has(window)) continue;
      windows.add(window);
      windowTable[windowIndex(window, 0)] = 1;
      for (let k = 0; k + GRAM <= WINDOW; k += 1) grams[gramIndex(window.charCodeAt(k), window.charCodeAt(k + 1), window.charCodeAt(k + 2))] = 1;
    }
  }

  /**
   * Adds to `found` the ranges `[start, end)` of `text` that are a window of a secret. Every window
   * holds a trigram that starts at a multiple of 6 (of any 6 consecutive positions, one is), so only
   * those trigrams are looked up in the table of the secrets' trigrams, and the windows around one
   * that is there are checked: half the characters are read, a sixth are hashed.
   */
  function scan(text: string, found: number[]): void {
    const last = text.length - WINDOW;
    if (windows.size > 0 && last >= 0) {
      for (let i = 0; i + GRAM <= text.length; i += GRAM_STEP) {
        if (grams[gramIndex(fold(text.charCodeAt(i)), fold(text.charCodeAt(i + 1)), fold(text.charCodeAt(i + 2)))] !== 1) continue;
        for (let at = Math.max(0, i - WINDOW + GRAM); at <= Math.min(i, last); at += 1) {
          if (windowTable[windowIndex(text, at)] === 1 && windows.has(foldText(text.slice(at, at + WINDOW)))) found.push(at, at + WINDOW);
        }
      }
    }
    if (shorts.size > 0) {
      const folded = foldText(text);
      for (const short of shorts) {
        for (let at = folded.indexOf(short); at !== -1; at = folded.indexOf(short, at + 1)) found.push(at, at + short.length);
      }
    }
  }

  /** Every range of `text` that is a secret in some form, in the original's positions. */
  function rangesOf(text: string): number[] {
    const found: number[] = [];
    scan(text, found);
    for (const [from, to] of escapedStretches(text)) {
      for (const view of decodedViews(text.slice(from, to))) {
        const inView: number[] = [];
        scan(view.text, inView);
        for (let k = 0; k < inView.length; k += 2) found.push(from + view.start[inView[k]!]!, from + view.end[inView[k + 1]! - 1]!);
      }
    }
    return found;
  }

  function holdsIn(pieces: Iterable<Uint8Array>): boolean {
    if (known.size === 0) return false;
    const decoder = new StringDecoder("utf8");
    // The end of the text so far, looked at again with the start of the next piece: a secret may
    // straddle them. (Each piece is searched apart: a string joined of two is slow to read.)
    let carry = "";
    const holds = (text: string): boolean => {
      if (rangesOf(text).length > 0 || (carry !== "" && rangesOf(carry + text.slice(0, CARRY)).length > 0)) return true;
      carry = text.length >= CARRY ? text.slice(-CARRY) : (carry + text).slice(-CARRY);
      return false;
    };
    for (const piece of pieces) {
      if (holds(decoder.write(piece))) return true;
    }
    return holds(decoder.end());
  }

  function redact(text: string): string {
    if (known.size === 0 || text.length < MIN_SECRET_LENGTH) return text;
    const found = rangesOf(text);
    if (found.length === 0) return text;
    const ranges: [number, number][] = [];
    for (let k = 0; k < found.length; k += 2) ranges.push([found[k]!, found[k + 1]!]);
    ranges.sort((a, b) => a[0] - b[0]);
    let out = "";
    let position = 0;
    // The run of overlapping or touching ranges being gathered: replaced once, as a whole.
    let [runStart, runEnd] = ranges[0]!;
    for (const [start, end] of ranges) {
      if (start <= runEnd) {
        runEnd = Math.max(runEnd, end);
        continue;
      }
      out += `${text.slice(position, runStart)}${REDACTED}`;
      position = runEnd;
      [runStart, runEnd] = [start, end];
    }
    return `${out}${text.slice(position, runStart)}${REDACTED}${text.slice(runEnd)}`;
  }

  function redactValue<T>(value: T, onRedacted?: (path: readonly (string | number)[]) => void): T {
    if (known.size === 0) return value;
    const path: (string | number)[] = [];
    const visit = (node: unknown): unknown => {
      if (typeof node === "string") {
        const shown = node.length < MIN_SECRET_LENGTH ? node : redact(node);
        if (shown !== node) onRedacted?.([...path]);
        return shown;
      }
      if (typeof node !== "object" || node === null) return node;
      if (Array.isArray(node)) {
        let copy: unknown[] | undefined;
        for (let index = 0; index < node.length; index += 1) {
          const item: unknown = node[index];
          path.push(index);
          const shown = visit(item);
          path.pop();
          if (shown !== item) (copy ??= [...node])[index] = shown;
        }
        return copy ?? node;
      }
      const record = node as Record<string, unknown>;
      let copy: Record<string, unknown> | undefined;
      for (const key of Object.keys(record)) {
        const item = record[key];
        path.push(key);
        const shown = visit(item);
        const shownKey = key.length < MIN_SECRET_LENGTH ? key : redact(key);
        if (shownKey !== key) onRedacted?.([...path]);
        path.pop();
        if (shown === item && shownKey === key) continue;
        copy ??= { ...record };
        if (shownKey !== key) delete copy[key];
        copy[shownKey] = shown;
      }
      return copy ?? node;
    };
    return visit(value) as T;
  }

  const redactor: Redactor = {
    add(...more) {
      for (const secret of more) {
        if (secret === undefined || secret.length < MIN_SECRET_LENGTH || known.has(secret)) continue;
        known.add(secret);
        for (const form of formsOf(secret)) addForm(form);
      }
    },
    get active() {
      return known.size > 0;
    },
    redact,
    holdsIn,
    redactValue,
  };
  redactor.add(...secrets);
  return redactor;
}

// `scheme://user:password@`, `?query` and `#fragment`, found in text that may not parse as a URL.
const URL_PARTS = /^(?<head>[^:/?#]+:\/\/)?(?:(?<userinfo>[^/?#]*)@)?(?<rest>[^?#]*)(?:\?(?<query>[^#]*))?(?:#(?<fragment>.*))?$/s;

/**
 * A URL as it may be shown in a message or a log line: the user and password, every query value and
 * the fragment replaced with `[REDACTED]`, names of query parameters kept. Some token endpoints take
 * a key in the query (`?client_secret=…`, `?api_key=…`); any value may be one, so none is shown.
 * Works on text that is not a valid URL too (it is shown when refused as one).
 */
export function redactUrl(text: string): string {
  const { head = "", userinfo, rest = "", query, fragment } = URL_PARTS.exec(text)?.groups ?? {};
  const shownQuery =
    query === undefined
      ? ""
      : `?${query
          .split("&")
          .map((pair) => (pair.includes("=") ? `${pair.slice(0, pair.indexOf("="))}=${REDACTED}` : pair === "" ? "" : REDACTED))
          .join("&")}`;
  return `${head}${userinfo === undefined ? "" : `${REDACTED}@`}${rest}${shownQuery}${fragment === undefined ? "" : `#${REDACTED}`}`;
}

/**
 * The values {@link redactUrl} hides, decoded, for a `Redactor` to find wherever a server or
 * a transport error echoes them.
 */
export function urlSecrets(text: string): string[] {
  const { userinfo, query, fragment } = URL_PARTS.exec(text)?.groups ?? {};
  const decode = (part: string): string => {
    try {
      return decodeURIComponent(part.replaceAll("+", " "));
    } catch {
      return part;
    }
  };
  const pieces = [
    ...(userinfo === undefined ? [] : userinfo.split(":")),
    ...(query === undefined ? [] : query.split("&").map((pair) => (pair.includes("=") ? pair.slice(pair.indexOf("=") + 1) : pair))),
    ...(fragment === undefined ? [] : [fragment]),
  ];
  return pieces.filter((piece) => piece !== "").flatMap((piece) => [...new Set([piece, decode(piece)])]);
}
