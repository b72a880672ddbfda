/**
 * `JSON.stringify` of a reply as UTF-8 bytes in pieces of a few tens of KiB, so that a large list page
 * never becomes one large string and one large buffer: objects over about 128 KiB get fresh memory,
 * which costs more than the serializing on these machines (see `client/json-body.ts`, the client's
 * side of the same thing). The members of a plain object and the elements of its arrays are each
 * serialized by `JSON.stringify`; the pieces joined are exactly the bytes of `JSON.stringify(value)`.
 */

/** About this many bytes of text go into one piece. */
const PIECE_CHARS = 32 * 1024;

/** An object `JSON.stringify` writes member by member with nothing of its own (no `toJSON`). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/** Whether `JSON.stringify` would call a `toJSON` of `value` (with its key, which a piece does not know). */
function hasToJson(value: unknown): boolean {
  return value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function";
}

/** The UTF-8 bytes of `JSON.stringify(value)` in pieces; none when it gives `undefined` (a function, say). */
export function jsonPieces(value: unknown): Buffer[] {
  if (!isPlainObject(value) || Object.values(value).some((m) => hasToJson(m) || (Array.isArray(m) && m.some(hasToJson)))) {
    const text = JSON.stringify(value) as string | undefined;
    return text === undefined ? [] : [Buffer.from(text, "utf8")];
  }
  const pieces: Buffer[] = [];
  let text = "{";
  const add = (more: string): void => {
    text += more;
    if (text.length >= PIECE_CHARS) {
      pieces.push(Buffer.from(text, "utf8"));
      text = "";
    }
  };
  let first = true;
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (Array.isArray(member)) {
      add(`${first ? "" : ","}${JSON.stringify(key)}:[`);
      for (let i = 0; i < member.length; i++) add(`${i === 0 ? "" : ","}${(JSON.stringify(member[i]) as string | undefined) ?? "null"}`);
      add("]");
    } else {
      const serialized = JSON.stringify(member) as string | undefined;
      // A member JSON.stringify leaves out (undefined, a function, a symbol).
      if (serialized === undefined) continue;
      add(`${first ? "" : ","}${JSON.stringify(key)}:${serialized}`);
    }
    first = false;
  }
  text += "}";
  pieces.push(Buffer.from(text, "utf8"));
  return pieces;
}
