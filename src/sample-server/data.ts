/**
 * The records the sample server serves: raw wire records, exactly as the real service sends them
 * (wrappers, padded decimals, explicit nulls and all), grouped by issuer. On disk there is one JSON
 * file per issuer in `samples/api/` (shape documented in `samples/README.md`); in memory, tests may
 * build or mutate a `SampleData` directly, and the server reads it afresh on every request.
 */
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseUtcDateTime } from "../dates.js";
import { OcfSyncError, describeValue } from "../errors.js";

/**
 * One raw record as it travels on the wire (an RSA or an RSU).
 *
 * @category Testing
 */
export type WireRecord = Record<string, unknown>;

/**
 * The sample records are a snapshot: their vesting status (`vested`, `vestedQuantity`) is as of this
 * day. Export them `--as-of` this day to compare like with like.
 */
export const SAMPLES_AS_OF = "2025-06-30";

/**
 * The records of one issuer, in file order (the server sends them in its own order).
 *
 * @category Testing
 */
export interface SampleIssuer {
  /** Restricted stock awards, raw. */
  awards: WireRecord[];
  /** Restricted stock units, raw. */
  units: WireRecord[];
}

/**
 * Everything the sample server serves, keyed by issuer id.
 *
 * @category Testing
 */
export interface SampleData {
  issuers: Map<string, SampleIssuer>;
}

/** The JSON shape of one file in `samples/api/`. */
export interface SampleIssuerFile {
  /** The issuer's id, as it appears in URLs (before escaping) and in each record's `issuerId`. */
  issuerId: string;
  /** A human-readable name, for people reading the file; not served. */
  name?: string;
  /** The issuer's RSAs; absent means none. */
  restrictedStockAwards?: WireRecord[];
  /** The issuer's RSUs; absent means none. */
  restrictedStockUnits?: WireRecord[];
}

/** Thrown by `loadSampleData` for a file it cannot serve; names the file, the record and the field. */
export class SampleDataError extends OcfSyncError {
  declare readonly code: "SAMPLE_DATA_INVALID";
  constructor(message: string, options?: { cause?: unknown }) {
    super("SAMPLE_DATA_INVALID", message, options);
    this.name = "SampleDataError";
  }
}

/** The package's own sample data: `samples/api`, found from this module (works from `src/` and `dist/`). */
export function defaultDataDir(): string {
  return fileURLToPath(new URL("../../samples/api/", import.meta.url));
}

/**
 * The file name of an issuer's sample file: the id percent-encoded (as in a URL path segment), so
 * that an id such as `"north wind/eu"` cannot name another directory.
 */
export function issuerFileName(issuerId: string): string {
  return `${encodeURIComponent(issuerId)}.json`;
}

const FILE_KEYS = new Set(["issuerId", "name", "restrictedStockAwards", "restrictedStockUnits"]);
const COLLECTIONS = [
  ["restrictedStockAwards", "awards"],
  ["restrictedStockUnits", "units"],
] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks what the server itself relies on: an issuer id matching the file name, and records that are
 * objects with a unique, non-empty string `id`, the file's `issuerId` and a parseable
 * `lastModifiedDatetime` (the filters compare it). Everything else is served as written.
 */
function parseIssuerFile(file: string, json: unknown): [string, SampleIssuer] {
  if (!isObject(json)) throw new SampleDataError(`${file}: expected a JSON object, got ${describeValue(json)}`);
  for (const key of Object.keys(json)) {
    if (!FILE_KEYS.has(key)) throw new SampleDataError(`${file}: unknown top-level key ${describeValue(key)}`);
  }
  const { issuerId } = json;
  if (typeof issuerId !== "string" || issuerId.length < 1 || issuerId.length > 50) {
    throw new SampleDataError(`${file}: issuerId must be a string of 1 to 50 characters, got ${describeValue(issuerId)}`);
  }
  if (path.basename(file) !== issuerFileName(issuerId)) {
    throw new SampleDataError(`${file}: the file of issuer ${describeValue(issuerId)} must be named ${issuerFileName(issuerId)}`);
  }
  const issuer: SampleIssuer = { awards: [], units: [] };
  for (const [collection, target] of COLLECTIONS) {
    const records = json[collection];
    if (records === undefined) continue;
    if (!Array.isArray(records)) {
      throw new SampleDataError(`${file}: ${collection} must be an array, got ${describeValue(records)}`);
    }
    const seen = new Set<string>();
    records.forEach((record: unknown, index) => {
      const where = `${file}: issuer ${describeValue(issuerId)} ${collection}[${index}]`;
      if (!isObject(record)) throw new SampleDataError(`${where}: expected an object, got ${describeValue(record)}`);
      const { id } = record;
      if (typeof id !== "string" || id === "") throw new SampleDataError(`${where}.id: expected a non-empty string, got ${describeValue(id)}`);
      if (seen.has(id)) throw new SampleDataError(`${where}.id: duplicate id ${describeValue(id)}`);
      seen.add(id);
      if (record.issuerId !== issuerId) {
        throw new SampleDataError(`${where} (id ${describeValue(id)}).issuerId: expected ${describeValue(issuerId)}, got ${describeValue(record.issuerId)}`);
      }
      const modified = record.lastModifiedDatetime;
      const value = isObject(modified) ? modified.value : undefined;
      try {
        parseUtcDateTime(typeof value === "string" ? value : "");
      } catch (error) {
        throw new SampleDataError(
          `${where} (id ${describeValue(id)}).lastModifiedDatetime.value: expected a UTC date-time, got ${describeValue(modified)}`,
          { cause: error },
        );
      }
      issuer[target].push(record);
    });
  }
  return [issuerId, issuer];
}

/**
 * Reads every `*.json` file of a directory, one issuer per file, into `SampleData`.
 * Throws `SAMPLE_DATA_INVALID` (naming the file, record and field) for a file the server cannot
 * serve, and for two files claiming the same issuer.
 *
 * @param dir the directory to read; by default the package's own `samples/api` (`defaultDataDir()`)
 */
export async function loadSampleData(dir: string = defaultDataDir(), options: { signal?: AbortSignal } = {}): Promise<SampleData> {
  const { signal } = options;
  signal?.throwIfAborted();
  const names = (await readdir(dir)).filter((name) => name.endsWith(".json")).sort();
  const issuers = new Map<string, SampleIssuer>();
  for (const name of names) {
    const file = path.join(dir, name);
    const text = await readFile(file, signal === undefined ? { encoding: "utf8" } : { encoding: "utf8", signal });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new SampleDataError(`${file}: not valid JSON (${(error as Error).message})`, { cause: error });
    }
    const [issuerId, issuer] = parseIssuerFile(file, json);
    if (issuers.has(issuerId)) throw new SampleDataError(`${file}: issuer ${describeValue(issuerId)} is defined twice`);
    issuers.set(issuerId, issuer);
  }
  return { issuers };
}
