/** The issuers a command works on: repeated `--issuer` flags and/or a file with one id per line. */
import { resolve } from "node:path";
import { UsageError } from "./io.js";
import { readUtf8File } from "./text-file.js";

/**
 * The results of a job in the order the issuers were given, each issuer without one given
 * `stopped(issuerId)` (failed by the deadline that stopped the job, so that the summary accounts for
 * every issuer; `undefined` leaves it out).
 */
export function everyIssuer<R extends { issuerId: string }>(issuers: readonly string[], results: readonly R[], stopped: (issuerId: string) => R | undefined): R[] {
  const byIssuer = new Map(results.map((r) => [r.issuerId, r]));
  return issuers.flatMap((issuerId) => byIssuer.get(issuerId) ?? stopped(issuerId) ?? []);
}

/**
 * Reads `--issuers-file`: one issuer id per line; blank lines and lines starting with `#` are skipped;
 * surrounding spaces are trimmed (ids never start or end with a space in the service). A `#` after an
 * id is part of it, not a comment: an id may hold `#` and spaces (it is URL-escaped when sent), and
 * cutting it there would send another issuer's id.
 */
export async function readIssuerList(
  cwd: string,
  flags: { issuer?: string[] | undefined; "issuers-file"?: string | undefined },
): Promise<string[]> {
  const ids = [...(flags.issuer ?? [])];
  // Named as resolved, as every path the command line prints is.
  const file = flags["issuers-file"] === undefined ? undefined : resolve(cwd, flags["issuers-file"]);
  if (file !== undefined) {
    const text = await readUtf8File("issuers-file", file);
    for (const line of text.split(/\r?\n/)) {
      const id = line.trim();
      if (id !== "" && !id.startsWith("#")) ids.push(id);
    }
  }
  for (const id of ids) {
    if (id.length < 1 || id.length > 50) {
      throw new UsageError(`issuer id ${JSON.stringify(id)} must be 1 to 50 characters long`);
    }
  }
  if (ids.length === 0 && file !== undefined) {
    throw new UsageError(`--issuers-file ${file} names no issuer: it needs one issuer id per line (blank lines and lines starting with # are skipped)`);
  }
  if (ids.length === 0) throw new UsageError("name at least one issuer with --issuer ID or --issuers-file FILE");
  return [...new Set(ids)];
}
