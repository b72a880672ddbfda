/**
 * Which slice of a batch this process takes, as the orchestrator that started it says. Each engine
 * numbers its tasks its own way: Kubernetes Indexed Jobs set `JOB_COMPLETION_INDEX` (0-based, and no
 * count: the manifest's `completions` must be passed on), AWS Batch array jobs set
 * `AWS_BATCH_JOB_ARRAY_INDEX` (0-based) and `AWS_BATCH_JOB_ARRAY_SIZE`, and anything else (a GitHub
 * Actions matrix, an Airflow task) can set `OCF_SYNC_SHARD=K/N` (1-based, as `--shard K/N`). A
 * {@link Shard} is always 1-based, the form `shardOf` takes.
 */
import type { OcfSyncErrorCode } from "../error-codes.js";
import { OcfSyncError } from "../errors.js";

/**
 * The K-th of N slices, 1 <= K <= N.
 *
 * @category Export
 */
export interface Shard {
  /** 1-based: the first slice is 1. */
  readonly k: number;
  readonly n: number;
}

/**
 * The code of the error for a shard that is missing, malformed or contradictory.
 *
 * @category Export
 */
export const SHARD_INVALID = "SHARD_INVALID" satisfies OcfSyncErrorCode;

function shardError(message: string): OcfSyncError {
  return new OcfSyncError(SHARD_INVALID, message);
}

const WHOLE = /^\d+$/;

/** A whole number from its text, or `undefined` when it is not one (`08` is 8; `1.0`, `-1`, ` 1` are not). */
function wholeNumber(text: string): number | undefined {
  if (!WHOLE.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Reads `K/N` (1-based: `1/4` is the first of four).
 *
 * @example
 * ```ts
 * import { parseShard } from "ocf-sync";
 * console.log(parseShard("2/4")); // { k: 2, n: 4 }
 * ```
 *
 * @category Export
 */
export function parseShard(text: string, where = "a shard"): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const k = m === null ? undefined : wholeNumber(m[1]!);
  const n = m === null ? undefined : wholeNumber(m[2]!);
  if (k === undefined || n === undefined || n < 1 || k < 1 || k > n) {
    throw shardError(`${where} takes K/N with 1 <= K <= N, such as 2/4 (the first slice is 1/N), got ${JSON.stringify(text)}`);
  }
  return { k, n };
}

/**
 * The shard of a 0-based index among `count`, as orchestrators number their tasks.
 *
 * @example
 * ```ts
 * import { shardOfIndex } from "ocf-sync";
 * console.log(shardOfIndex("0", "4")); // { k: 1, n: 4 }
 * ```
 *
 * @category Export
 */
export function shardOfIndex(index: string, count: string, names: { index: string; count: string } = { index: "the index", count: "the count" }): Shard {
  const i = wholeNumber(index.trim());
  const n = wholeNumber(count.trim());
  if (n === undefined || n < 1) throw shardError(`${names.count} must be a whole number >= 1, got ${JSON.stringify(count)}`);
  if (i === undefined || i >= n) throw shardError(`${names.index} must be a whole number from 0 to ${n - 1} (${names.count} is ${n}), got ${JSON.stringify(index)}`);
  return { k: i + 1, n };
}

/** The variables {@link shardFromEnvironment} reads, for messages and documentation. */
export const SHARD_VARIABLES = ["OCF_SYNC_SHARD", "JOB_COMPLETION_INDEX", "OCF_SYNC_SHARD_COUNT", "AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JOB_ARRAY_SIZE"] as const;

function given(value: string | undefined): value is string {
  return value !== undefined && value !== "";
}

/**
 * This process's shard from the orchestrator's environment, `undefined` when none is set:
 *
 * - `OCF_SYNC_SHARD=K/N` (1-based);
 * - `JOB_COMPLETION_INDEX` (Kubernetes Indexed Job, 0-based) with the count from `options.count`
 *   (`--shard-count`) or `OCF_SYNC_SHARD_COUNT`, as Kubernetes sets no count;
 * - `AWS_BATCH_JOB_ARRAY_INDEX` with `AWS_BATCH_JOB_ARRAY_SIZE` (0-based; the count may be given as
 *   for Kubernetes instead).
 *
 * More than one of them is fine when they name the same shard; when they differ, or an index comes
 * without a count, or a value is malformed, it throws an error with code `SHARD_INVALID` that names
 * the variables.
 *
 * @example
 * ```ts
 * import { shardFromEnvironment, shardOf } from "ocf-sync";
 * // The pod of index 2 of a Kubernetes Indexed Job of 8 completions, with OCF_SYNC_SHARD_COUNT=8 in the pod template:
 * console.log(shardFromEnvironment({ JOB_COMPLETION_INDEX: "2", OCF_SYNC_SHARD_COUNT: "8" })); // { k: 3, n: 8 }
 * const issuers = ["7", "144361", "acme-robotics"];
 * const shard = shardFromEnvironment(process.env); // undefined outside an orchestrator
 * const mine = shard === undefined ? issuers : shardOf(issuers, shard.k, shard.n);
 * console.log(mine);
 * ```
 *
 * @category Export
 */
export function shardFromEnvironment(env: Readonly<Record<string, string | undefined>>, options: { count?: number } = {}): Shard | undefined {
  const found: { shard: Shard; from: string }[] = [];
  const countOption = options.count;
  if (countOption !== undefined && !(Number.isSafeInteger(countOption) && countOption >= 1)) {
    throw shardError(`the shard count must be a whole number >= 1, got ${String(countOption)}`);
  }
  if (given(env.OCF_SYNC_SHARD)) found.push({ shard: parseShard(env.OCF_SYNC_SHARD, "OCF_SYNC_SHARD"), from: `OCF_SYNC_SHARD=${env.OCF_SYNC_SHARD}` });
  const explicitCount =
    countOption !== undefined
      ? { text: String(countOption), name: "the shard count (--shard-count)" }
      : given(env.OCF_SYNC_SHARD_COUNT)
        ? { text: env.OCF_SYNC_SHARD_COUNT, name: "OCF_SYNC_SHARD_COUNT" }
        : undefined;
  const indexed: { index: string; count: string | undefined; countName: string; extra: string }[] = [];
  if (given(env.JOB_COMPLETION_INDEX)) indexed.push({ index: "JOB_COMPLETION_INDEX", count: undefined, countName: "", extra: "a Kubernetes Indexed Job sets no count" });
  if (given(env.AWS_BATCH_JOB_ARRAY_INDEX)) {
    indexed.push({ index: "AWS_BATCH_JOB_ARRAY_INDEX", count: env.AWS_BATCH_JOB_ARRAY_SIZE, countName: "AWS_BATCH_JOB_ARRAY_SIZE", extra: "AWS_BATCH_JOB_ARRAY_SIZE is unset" });
  }
  for (const { index, count, countName, extra } of indexed) {
    const value = env[index]!;
    const countOf = given(count) ? { text: count, name: countName } : explicitCount;
    if (countOf === undefined) {
      throw shardError(`${index}=${value} needs the number of shards: give --shard-count N or set OCF_SYNC_SHARD_COUNT (${extra})`);
    }
    found.push({ shard: shardOfIndex(value, countOf.text, { index, count: countOf.name }), from: `${index}=${value} (0-based) of ${countOf.name === countName ? `${countName}=` : ""}${countOf.text}` });
  }
  if (found.length === 0) {
    if (explicitCount !== undefined && countOption === undefined) {
      throw shardError(`OCF_SYNC_SHARD_COUNT=${env.OCF_SYNC_SHARD_COUNT} is set but no index is (JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX)`);
    }
    return undefined;
  }
  const first = found[0]!;
  const other = found.find(({ shard }) => shard.k !== first.shard.k || shard.n !== first.shard.n);
  if (other !== undefined) {
    throw shardError(`the environment names two different shards: ${first.from} is ${first.shard.k}/${first.shard.n}, ${other.from} is ${other.shard.k}/${other.shard.n}; unset one`);
  }
  return first.shard;
}
