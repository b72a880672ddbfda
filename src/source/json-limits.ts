/**
 * Depth and size limits on the JSON the API sends, per record.
 *
 * `JSON.parse` reads any depth, but most of what follows a parse does not: `JSON.stringify` (of a
 * report, an NDJSON line, a snapshot), `String()` of nested arrays and any recursive walk overflow the
 * call stack at a few thousand levels. A record nested about 4,500 levels deep failed its issuer with
 * an anonymous "Maximum call stack size exceeded", after its package had been put in place and before
 * its report was written. No equity record comes near these limits: a record past one is refused on
 * its own, with a coded error naming the issuer, the record and where it went too deep, before
 * anything walks it recursively. The walks here are iterative, or bounded by the limit.
 */
import { formatPath } from "./errors.js";

/**
 * Limits on one record's JSON.
 *
 * @category Source
 */
export interface JsonLimits {
  /**
   * Most levels of objects and arrays, the record itself being level 1 (a record of the service has
   * at most 5).
   * @default 64
   */
  maxDepth: number;
  /**
   * Most bytes of JSON, as `JSON.stringify` would write it without escapes (a record of the service
   * with 40 vesting events has about 10 KB).
   * @default 4194304 (4 MiB)
   */
  maxBytes: number;
}

export const DEFAULT_JSON_LIMITS: Readonly<JsonLimits> = { maxDepth: 64, maxBytes: 4 * 1024 * 1024 };

/** How a value breaks a limit: where it went too deep, or how large it got before the walk stopped. */
export type JsonLimitBreach =
  | { kind: "depth"; path: (string | number)[]; limit: number }
  | { kind: "size"; bytes: number; limit: number };

interface Container {
  value: object;
  depth: number;
  parent: Container | undefined;
  key: string | number | undefined;
}

function pathOf(container: Container): (string | number)[] {
  const path: (string | number)[] = [];
  for (let c: Container | undefined = container; c?.key !== undefined; c = c.parent) path.push(c.key);
  return path.reverse();
}

function scalarBytes(value: unknown): number {
  switch (typeof value) {
    case "string":
      return value.length + 2;
    case "boolean":
      return value ? 4 : 5;
    case "number":
      return 8; // an estimate: the service sends its decimals as strings, and counting digits costs more than it tells
    default:
      return 4; // null
  }
}

/**
 * Checks `value` against the limits without recursion; `undefined` when it is within them. Runs on
 * every record before its schema, so it allocates nothing per value but a frame per object or array.
 * The path is that of the container past the limit: `[[[1]]]` under `maxDepth: 2` breaks it at
 * `{ kind: "depth", path: [0, 0], limit: 2 }`.
 */
export function checkJsonLimits(value: unknown, limits: JsonLimits = DEFAULT_JSON_LIMITS): JsonLimitBreach | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  let bytes = 0;
  const stack: Container[] = [{ value, depth: 1, parent: undefined, key: undefined }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > limits.maxDepth) return { kind: "depth", path: pathOf(frame), limit: limits.maxDepth };
    const container = frame.value;
    if (Array.isArray(container)) {
      bytes += 2 + container.length;
      for (let index = 0; index < container.length; index += 1) {
        const child: unknown = container[index];
        if (typeof child === "object" && child !== null) stack.push({ value: child, depth: frame.depth + 1, parent: frame, key: index });
        else bytes += scalarBytes(child);
      }
    } else {
      bytes += 2;
      const record = container as Record<string, unknown>;
      for (const key in record) {
        if (!Object.hasOwn(record, key)) continue;
        bytes += key.length + 4;
        const child = record[key];
        if (typeof child === "object" && child !== null) stack.push({ value: child, depth: frame.depth + 1, parent: frame, key });
        else bytes += scalarBytes(child);
      }
    }
    if (bytes > limits.maxBytes) return { kind: "size", bytes, limit: limits.maxBytes };
  }
  return undefined;
}

/** What stands in for the part of a too-deep value that is not kept. */
export const CUT_MARKER = "[cut: nested deeper than ocf-sync keeps]";

/**
 * A copy of `value` with every object or array below level `keepDepth` replaced by {@link CUT_MARKER}:
 * safe to serialize however deep the original was. Recursion is bounded by `keepDepth`.
 */
export function cutJson(value: unknown, keepDepth: number, depth = 1): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth > keepDepth) return CUT_MARKER;
  if (Array.isArray(value)) return value.map((v) => cutJson(v, keepDepth, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutJson(v, keepDepth, depth + 1)]));
}

/**
 * The form of a raw record (or envelope value) that may be kept in a report, an NDJSON line or a
 * snapshot: the value itself, unless it is deeper than `limits.maxDepth`; then a copy cut one level
 * below the limit, so that it is still too deep when read again (a quarantined record stays
 * quarantined for the same reason) but can be written.
 */
export function keepableJson(value: unknown, limits: JsonLimits = DEFAULT_JSON_LIMITS): unknown {
  const breach = checkJsonLimits(value, { maxDepth: limits.maxDepth, maxBytes: Number.POSITIVE_INFINITY });
  return breach === undefined ? value : cutJson(value, limits.maxDepth + 1);
}

/** The message of a breach, naming where: `extra.a.a.a…: nested deeper than 64 levels`. */
export function describeBreach(breach: JsonLimitBreach): { pathText: string; path: (string | number)[]; message: string } {
  if (breach.kind === "size") {
    return { path: [], pathText: "", message: `the record is larger than ${breach.limit} bytes of JSON (the limit for one record)` };
  }
  const shown = breach.path.length > 8 ? `${formatPath(breach.path.slice(0, 8))}…` : formatPath(breach.path);
  return {
    path: breach.path,
    pathText: shown,
    message: `nested deeper than ${breach.limit} levels of objects and arrays (the limit for one record)`,
  };
}
