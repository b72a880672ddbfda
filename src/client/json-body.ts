/**
 * `JSON.parse` of a response body that arrived in pieces, without making the whole body one string
 * when it is large. A large body as one buffer and one string costs far more than its parse on these
 * machines: every object over about 128 KiB gets fresh memory from the system, and touching fresh
 * memory costs about 6 ms per MiB, so a 465 KiB page of 50 records cost 3.6 ms to join and decode and
 * 3.1 ms to parse. A list page is an object whose members are small, save one array of records:
 * parsing its members and the elements of its arrays one by one, each from its own short text, makes
 * only short-lived small strings.
 *
 * The value is exactly `JSON.parse(body.toString("utf8"))`. Only the punctuation between the pieces
 * (`{`, `"key"`, `:`, `,`, `[`, `]`, `}` and white space) is read here; every piece is parsed by
 * `JSON.parse` itself, which checks its syntax. Cuts fall only on ASCII punctuation, never inside a
 * UTF-8 sequence, so the pieces decode as the whole body does. Anything this reading does not expect
 * (a body that is not an object, a `__proto__` key, a syntax error anywhere) is left to `JSON.parse`
 * of the whole body, so that its value, or the error it throws, is the platform's own.
 */

/** From this size a body is parsed piece by piece; a smaller one is joined (it fits in ordinary heap pages). */
export const SPLIT_MIN_BYTES = 128 * 1024;

/** Raised by the piecewise reading for anything it leaves to `JSON.parse` of the whole body. */
class NotPiecewise extends Error {}

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;

function isSpace(byte: number): boolean {
  return byte === SPACE || byte === LF || byte === CR || byte === TAB;
}

/** Where the reading is, between pieces or inside one. */
const At = {
  /** Before the body's `{`. */
  Start: 0,
  /** After `{`: a key or `}`. */
  FirstKey: 1,
  /** After `,` in the object: a key. */
  Key: 2,
  /** After a key: `:`. */
  Colon: 3,
  /** After `:`: a member's value. */
  Value: 4,
  /** After a member's value: `,` or `}`. */
  AfterValue: 5,
  /** After a member's `[`: an element or `]`. */
  FirstElement: 6,
  /** After `,` in a member's array: an element. */
  Element: 7,
  /** After an element: `,` or `]`. */
  AfterElement: 8,
  /** After the body's `}`: only white space. */
  End: 9,
} as const;
type At = (typeof At)[keyof typeof At];

/** What a piece being read is. */
const Piece = { Key: 0, Value: 1, Element: 2 } as const;
type Piece = (typeof Piece)[keyof typeof Piece];

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
      if (!(error instanceof NotPiecewise || error instanceof SyntaxError)) throw error;
    }
  }
  return JSON.parse(Buffer.concat(chunks, size).toString("utf8"));
}

/**
 * The body's object, read piece by piece (for `parseJsonBody`, and for tests that it is so read).
 * @throws for a body this reading leaves to `JSON.parse` of the whole (a `SyntaxError` or an internal error)
 */
export function readPiecewise(chunks: readonly Uint8Array[]): Record<string, unknown> {
  return new PiecewiseReader(chunks).read();
}

class PiecewiseReader {
  private at: At = At.Start;
  private readonly result: Record<string, unknown> = {};
  private key = "";
  private elements: unknown[] = [];
  /** The piece being read, if any: what it is, and where it starts (chunk, offset). */
  private piece: Piece | undefined;
  private pieceChunk = 0;
  private pieceStart = 0;
  /** Inside a piece: brackets open, inside a string, after a backslash in one, a bare number or literal. */
  private depth = 0;
  private inString = false;
  private escaped = false;
  private bare = false;

  constructor(private readonly chunks: readonly Uint8Array[]) {}

  read(): Record<string, unknown> {
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c] as Uint8Array;
      let i = 0;
      while (i < chunk.length) {
        i = this.piece === undefined ? this.between(chunk, c, i) : this.inside(chunk, c, i);
      }
    }
    // A bare value (a number or literal) ends with the body only where the object is cut off.
    if (this.at !== At.End || this.piece !== undefined) throw new NotPiecewise();
    return this.result;
  }

  /** Reads punctuation from `i`; returns where to go on. */
  private between(chunk: Uint8Array, c: number, i: number): number {
    const byte = chunk[i] as number;
    if (isSpace(byte)) return i + 1;
    switch (this.at) {
      case At.Start:
        if (byte !== LBRACE) throw new NotPiecewise();
        this.at = At.FirstKey;
        return i + 1;
      case At.FirstKey:
        if (byte === RBRACE) {
          this.at = At.End;
          return i + 1;
        }
        return this.startKey(byte, c, i);
      case At.Key:
        return this.startKey(byte, c, i);
      case At.Colon:
        if (byte !== COLON) throw new NotPiecewise();
        this.at = At.Value;
        return i + 1;
      case At.Value:
        if (byte === LBRACKET) {
          this.elements = [];
          this.at = At.FirstElement;
          return i + 1;
        }
        return this.startPiece(Piece.Value, byte, c, i);
      case At.AfterValue:
        if (byte === COMMA) this.at = At.Key;
        else if (byte === RBRACE) this.at = At.End;
        else throw new NotPiecewise();
        return i + 1;
      case At.FirstElement:
        if (byte === RBRACKET) {
          this.member(this.elements);
          return i + 1;
        }
        return this.startPiece(Piece.Element, byte, c, i);
      case At.Element:
        return this.startPiece(Piece.Element, byte, c, i);
      case At.AfterElement:
        if (byte === COMMA) this.at = At.Element;
        else if (byte === RBRACKET) this.member(this.elements);
        else throw new NotPiecewise();
        return i + 1;
      case At.End:
        throw new NotPiecewise();
    }
  }

  private startKey(byte: number, c: number, i: number): number {
    if (byte !== QUOTE) throw new NotPiecewise();
    return this.startPiece(Piece.Key, byte, c, i);
  }

  /** Starts reading a piece at its first byte (`i`, not white space). */
  private startPiece(piece: Piece, byte: number, c: number, i: number): number {
    this.piece = piece;
    this.pieceChunk = c;
    this.pieceStart = i;
    this.depth = 0;
    this.escaped = false;
    this.inString = byte === QUOTE;
    this.bare = !this.inString && byte !== LBRACE && byte !== LBRACKET;
    if (byte === LBRACE || byte === LBRACKET) this.depth = 1;
    // A bare value is read from its first byte; the others from the next one.
    return this.bare ? i : i + 1;
  }

  /** Reads the piece on from `i`; returns where to go on. */
  private inside(chunk: Uint8Array, c: number, i: number): number {
    const length = chunk.length;
    if (this.bare) {
      // A number or a literal: up to the punctuation or space after it (JSON.parse checks what it is).
      while (i < length) {
        const byte = chunk[i] as number;
        if (byte === COMMA || byte === RBRACE || byte === RBRACKET || isSpace(byte)) {
          this.endPiece(c, i);
          return i;
        }
        i++;
      }
      return i;
    }
    let { depth, inString, escaped } = this;
    while (i < length) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i++;
        }
        // The string's text, up to its closing quote (a backslash escapes the byte after it).
        let byte = 0;
        while (i < length && (byte = chunk[i] as number) !== QUOTE && byte !== BACKSLASH) i++;
        if (i === length) break;
        i++;
        if (byte === BACKSLASH) {
          escaped = true;
          continue;
        }
        inString = false;
        if (depth === 0) {
          this.endPiece(c, i);
          return i;
        }
        continue;
      }
      const byte = chunk[i++] as number;
      if (byte === QUOTE) inString = true;
      else if (byte === LBRACE || byte === LBRACKET) depth++;
      else if (byte === RBRACE || byte === RBRACKET) {
        depth--;
        if (depth === 0) {
          this.depth = 0;
          this.endPiece(c, i);
          return i;
        }
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return i;
  }

  /** The piece ends before byte `end` of chunk `c`: parses it and takes it in. */
  private endPiece(c: number, end: number): void {
    const value: unknown = JSON.parse(this.text(c, end));
    const piece = this.piece;
    this.piece = undefined;
    if (piece === Piece.Key) {
      // JSON.parse makes "__proto__" an own property; an assignment would set the prototype.
      if (value === "__proto__") throw new NotPiecewise();
      this.key = value as string;
      this.at = At.Colon;
    } else if (piece === Piece.Element) {
      this.elements.push(value);
      this.at = At.AfterElement;
    } else {
      this.member(value);
    }
  }

  private member(value: unknown): void {
    this.result[this.key] = value;
    this.at = At.AfterValue;
  }

  /** The UTF-8 text of the piece, from its start to byte `end` of chunk `c`. */
  private text(c: number, end: number): string {
    const first = this.chunks[this.pieceChunk] as Uint8Array;
    if (this.pieceChunk === c) return Buffer.from(first.buffer, first.byteOffset, first.length).toString("utf8", this.pieceStart, end);
    const parts: Uint8Array[] = [first.subarray(this.pieceStart)];
    for (let k = this.pieceChunk + 1; k < c; k++) parts.push(this.chunks[k] as Uint8Array);
    parts.push((this.chunks[c] as Uint8Array).subarray(0, end));
    return Buffer.concat(parts).toString("utf8");
  }
}
