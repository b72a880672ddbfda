/**
 * Canonical JSON and the digests that say whether what a job kept still holds: a stored mapping is
 * reused only when it was made by the same code with the same mapping options, and a package is left
 * as it is only when it was written with the same options. A resumed export (resume.ts) and a sync
 * (src/sync/, above export) both read them, so they live here.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import type { MappingOptions } from "../mapping/types.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted, so that two objects compare equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** A short digest of JSON values (object keys sorted, so their order does not matter). */
export function digestOf(values: readonly unknown[]): string {
  return digestOfJson(canonicalJson(values));
}

/** The folders (next to this module's own) whose code turns a source record into its OCF objects. */
const MAPPING_CODE_FOLDERS = ["source", "mapping", "ocf"];

let codeDigest: Promise<string> | undefined;

/**
 * A digest of the code that parses and maps records: the files of `src/source`, `src/mapping` and
 * `src/ocf` and those at the top of `src/` (or of `dist/`, as installed). Another version of ocf-sync,
 * or any edit of that code, maps every kept record again (from its stored JSON, with no request).
 *
 * Read synchronously, once a process: some sixty files, a few milliseconds; read a file at a time
 * through promises, they took ten times the CPU (a sync in which nothing changed spent a third of
 * its time here).
 */
export function mappingCodeDigest(): Promise<string> {
  codeDigest ??= new Promise<string>((resolve) => {
    const root = new URL("../", import.meta.url);
    const hash = createHash("sha256");
    const addFolder = (folder: URL, filesOnly: boolean): void => {
      for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (entry.isDirectory()) {
          if (!filesOnly) addFolder(new URL(`${entry.name}/`, folder), false);
        } else if (entry.isFile()) {
          hash.update(`${entry.name}\u0000`).update(readFileSync(new URL(entry.name, folder)));
        }
      }
    };
    addFolder(root, true);
    for (const folder of MAPPING_CODE_FOLDERS) addFolder(new URL(`${folder}/`, root), false);
    resolve(hash.digest("base64url").slice(0, 22));
  });
  return codeDigest;
}

/** The canonical JSON of a stakeholder directory as `mappingDigest` digests it (entries sorted by key). */
export type DirectoryJson = (directory: ReadonlyMap<string, unknown>) => string;

/** Serializes a directory afresh each time (a directory of 50,000 entries takes a few hundred ms). */
export const directoryJson: DirectoryJson = (directory) =>
  canonicalJson([...directory.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * A `DirectoryJson` that serializes each directory object once, for one job in which no directory
 * changes (keyed on the object, so a caller's later edit of its Map in another job is never missed).
 */
export function directoryJsonOnce(): DirectoryJson {
  const seen = new WeakMap<ReadonlyMap<string, unknown>, string>();
  return (directory) => {
    let json = seen.get(directory);
    if (json === undefined) {
      json = directoryJson(directory);
      seen.set(directory, json);
    }
    return json;
  };
}

/**
 * The digest a stored mapping is made under. The per-record mapping reads these options, never
 * `asOf`, which only sets the manifest's date and the issuer's placeholder formation date in the
 * issuer-level objects (a property test keeps this true). The value is `digestOf` of the five parts
 * (the directory's JSON composed in, so that a memoized `directoryJsonOf` gives the same digest).
 */
export function mappingDigest(code: string, options: MappingOptions, directoryJsonOf: DirectoryJson = directoryJson): string {
  // Strict mode turns some mappings into errors; the code part carries it, so that a digest without it stays as it was.
  const head = canonicalJson([options.strict === true ? `${code}+strict` : code, options.settlementStockClassName ?? null, options.lineage ?? null, options.issuerProfile ?? null]);
  const stakeholders = options.stakeholders === undefined ? "null" : directoryJsonOf(options.stakeholders);
  return digestOfJson(`${head.slice(0, -1)},${stakeholders}]`);
}

/** `digestOf` of JSON already in canonical form. */
function digestOfJson(json: string): string {
  return createHash("sha256").update(json).digest("base64url").slice(0, 22);
}
