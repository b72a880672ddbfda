/**
 * `--shard`, `--shard-index` and `--shard-count`: which slice of the issuer list this run takes, given
 * 1-based on the command line (`--shard 2/4`), 0-based as orchestrators number their tasks
 * (`--shard-index 1 --shard-count 4`), or read from the orchestrator's environment (`--shard auto`,
 * see `src/export/shard.ts`). Any mistake is a usage error naming the flag or variable.
 */
import { isOcfSyncError } from "../errors.js";
import { shardOf } from "../export/export-issuers.js";
import { SHARD_INVALID, type Shard, parseShard, shardFromEnvironment, shardOfIndex } from "../export/shard.js";
import { parseInteger } from "./args.js";
import { UsageError } from "./io.js";

/** Help of the shard options, shared by the commands that take them. */
export const SHARD_HELP = `  --shard K/N              take only the K-th of N slices of the issuer list (1-based: 1/4 to 4/4; by a
                           hash of each id, so every job agrees with no coordination). The quota is
                           split too: each shard paces itself to its part of the issuers (25 of 80
                           issuers: 25/80 of the rates), unless --rate-limiter shares one quota
  --shard auto             read the shard from the orchestrator: OCF_SYNC_SHARD=K/N, a Kubernetes
                           Indexed Job's JOB_COMPLETION_INDEX (with --shard-count or
                           OCF_SYNC_SHARD_COUNT, as Kubernetes sets no count), or an AWS Batch array
                           job's AWS_BATCH_JOB_ARRAY_INDEX and AWS_BATCH_JOB_ARRAY_SIZE (0-based)
  --shard-index I          the same 0-based, as orchestrators count: --shard-index 0 --shard-count 4
                           is --shard 1/4
  --shard-count N          the number of shards, with --shard-index or --shard auto`;

const SHARD_USAGE_HINT = "set OCF_SYNC_SHARD=K/N, or run in a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with --shard-count N or OCF_SYNC_SHARD_COUNT) or an AWS Batch array job (AWS_BATCH_JOB_ARRAY_INDEX and AWS_BATCH_JOB_ARRAY_SIZE)";

function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (isOcfSyncError(error) && error.code === SHARD_INVALID) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** The run's shard from its flags (and, with `--shard auto`, its environment); `undefined` for no sharding. */
export function readShardFlags(
  values: { shard?: string | undefined; "shard-index"?: string | undefined; "shard-count"?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): Shard | undefined {
  const { shard } = values;
  const index = values["shard-index"];
  const count = parseInteger("shard-count", values["shard-count"], { min: 1, max: 1_000_000 });
  if (shard === "auto") {
    if (index !== undefined) throw new UsageError(`--shard auto contradicts --shard-index ${index}: give one of them`);
    const found = usage(() => shardFromEnvironment(env, count === undefined ? {} : { count }));
    if (found === undefined) throw new UsageError(`--shard auto found no shard in the environment: ${SHARD_USAGE_HINT}`);
    return found;
  }
  if (shard !== undefined) {
    if (index !== undefined || count !== undefined) {
      throw new UsageError(`--shard ${shard} contradicts ${index !== undefined ? `--shard-index ${index}` : `--shard-count ${count}`}: give --shard K/N (1-based) or --shard-index I --shard-count N (0-based)`);
    }
    return usage(() => parseShard(shard, "--shard"));
  }
  if (index !== undefined) {
    if (count === undefined) throw new UsageError(`--shard-index ${index} needs --shard-count N (the number of shards)`);
    return usage(() => shardOfIndex(index, String(count), { index: "--shard-index", count: "--shard-count" }));
  }
  if (count !== undefined) throw new UsageError(`--shard-count ${count} needs --shard-index I, or --shard auto`);
  return undefined;
}

/** The issuers of `shard` among `issuers` (all of them without a shard). */
export function shardSlice(issuers: readonly string[], shard: Shard | undefined): string[] {
  return shard === undefined ? [...issuers] : shardOf(issuers, shard.k, shard.n);
}

/** A shard's part of the credential's quota: `part` of `whole`. */
export interface QuotaShare {
  readonly part: number;
  readonly whole: number;
}

/**
 * The part of the quota of the shard that took `mine` of `all` (`undefined`: no shard, the whole
 * quota). Every shard knows the whole issuer list, so each takes the part its issuers are of it: a
 * hash gives 80 issuers to 4 shards as 25, 18, 22 and 15, and an even 1/4 would leave the largest
 * shard last while the others' share went unused. The parts add up to the whole, so the shards
 * together stay under the quota. An empty shard (it makes no requests) takes 1/N.
 */
export function quotaShare(all: readonly string[], mine: readonly string[], shard: Shard | undefined): QuotaShare | undefined {
  if (shard === undefined) return undefined;
  const whole = new Set(all).size;
  return mine.length === 0 || whole === 0 ? { part: 1, whole: shard.n } : { part: mine.length, whole };
}

/** The state file of a shard of a sync: `state.json` becomes `state.json.shard-2-of-4`. */
export function shardStateFile(state: string, shard: Shard): string {
  return `${state}.shard-${shard.k}-of-${shard.n}`;
}
