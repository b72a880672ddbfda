/**
 * How much the V8 heap may grow between full collections. By default V8 lets the old generation grow
 * up to four times what was live after the last collection, so a job whose live set grows a little
 * (the export's per-record handles: about 100 bytes a record) sees its peak memory grow four times as
 * much. The CLI asks for at most 1.5 times: an export's peak stays within 1.2x from 10k to 100k
 * records (see docs/benchmarks.md), for a few more collections.
 *
 * Only the CLI does this (and the benchmarks that stand for it): a library does not change its host
 * process's V8 flags. A program that calls `exportIssuer` can run node with the same flag.
 */
import { setFlagsFromString } from "node:v8";

/** The V8 flag the CLI sets. */
export const HEAP_GROWTH_FLAG = "--heap-growing-percent=50";

/**
 * Sets `HEAP_GROWTH_FLAG` unless node was started with a heap growth of its own on its command line.
 * (Node 20 refuses the flag in NODE_OPTIONS; it is looked for there too, for versions that allow it.)
 * Returns whether it set it.
 */
export function boundHeapGrowth(
  node: { execArgv: readonly string[]; nodeOptions: string | undefined } = { execArgv: process.execArgv, nodeOptions: process.env.NODE_OPTIONS },
  setFlag: (flag: string) => void = setFlagsFromString,
): boolean {
  const given = [...node.execArgv, ...(node.nodeOptions ?? "").split(/\s+/)].some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg));
  if (given) return false;
  setFlag(HEAP_GROWTH_FLAG);
  return true;
}
