/**
 * Shards from the orchestrator (issue 26, item 2): `shardFromEnvironment` and the command line's
 * `--shard`, `--shard-index`, `--shard-count`, with every mistake a clear usage error.
 */
import { describe, expect, it } from "vitest";
import { readShardFlags } from "../../../src/cli/shard-flags.js";
import { parseShard, shardFromEnvironment } from "../../../src/export/shard.js";

function thrown(read: () => unknown): { name?: string; code?: string; message?: string } {
  try {
    read();
  } catch (error) {
    return error as { name?: string; code?: string; message?: string };
  }
  throw new Error("expected a throw");
}

describe("shardFromEnvironment", () => {
  it("reads a Kubernetes Indexed Job's 0-based index with the count given apart", () => {
    expect(shardFromEnvironment({ JOB_COMPLETION_INDEX: "0", OCF_SYNC_SHARD_COUNT: "4" })).toEqual({ k: 1, n: 4 });
    expect(shardFromEnvironment({ JOB_COMPLETION_INDEX: "3" }, { count: 4 })).toEqual({ k: 4, n: 4 });
  });

  it("reads an AWS Batch array job's index and size", () => {
    expect(shardFromEnvironment({ AWS_BATCH_JOB_ARRAY_INDEX: "9", AWS_BATCH_JOB_ARRAY_SIZE: "10" })).toEqual({ k: 10, n: 10 });
  });

  it("reads OCF_SYNC_SHARD=K/N, 1-based", () => {
    expect(shardFromEnvironment({ OCF_SYNC_SHARD: "2/4" })).toEqual({ k: 2, n: 4 });
  });

  it("is undefined when nothing is set, and agrees when two sources name the same shard", () => {
    expect(shardFromEnvironment({})).toBeUndefined();
    expect(shardFromEnvironment({ OCF_SYNC_SHARD: "1/2", JOB_COMPLETION_INDEX: "0", OCF_SYNC_SHARD_COUNT: "2" })).toEqual({ k: 1, n: 2 });
  });

  it.each([
    [{ JOB_COMPLETION_INDEX: "1" }, "JOB_COMPLETION_INDEX=1 needs the number of shards"],
    [{ AWS_BATCH_JOB_ARRAY_INDEX: "1" }, "AWS_BATCH_JOB_ARRAY_INDEX=1 needs the number of shards"],
    [{ JOB_COMPLETION_INDEX: "4", OCF_SYNC_SHARD_COUNT: "4" }, "JOB_COMPLETION_INDEX must be a whole number from 0 to 3"],
    [{ JOB_COMPLETION_INDEX: "-1", OCF_SYNC_SHARD_COUNT: "4" }, "JOB_COMPLETION_INDEX must be a whole number"],
    [{ AWS_BATCH_JOB_ARRAY_INDEX: "0", AWS_BATCH_JOB_ARRAY_SIZE: "zero" }, "AWS_BATCH_JOB_ARRAY_SIZE must be a whole number >= 1"],
    [{ OCF_SYNC_SHARD: "0/4" }, "OCF_SYNC_SHARD takes K/N with 1 <= K <= N"],
    [{ OCF_SYNC_SHARD_COUNT: "4" }, "OCF_SYNC_SHARD_COUNT=4 is set but no index is"],
    [{ OCF_SYNC_SHARD: "1/4", JOB_COMPLETION_INDEX: "1", OCF_SYNC_SHARD_COUNT: "4" }, "the environment names two different shards: OCF_SYNC_SHARD=1/4 is 1/4, JOB_COMPLETION_INDEX=1"],
  ])("refuses %j: %s", (env, message) => {
    const error = thrown(() => shardFromEnvironment(env));
    expect(error.code).toBe("SHARD_INVALID");
    expect(error.message).toContain(message);
  });

  it("parseShard is 1-based", () => {
    expect(parseShard("1/1")).toEqual({ k: 1, n: 1 });
    expect(thrown(() => parseShard("5/4")).code).toBe("SHARD_INVALID");
  });
});

describe("the shard flags", () => {
  it("--shard K/N is 1-based, --shard-index I --shard-count N 0-based, and both name the same shard", () => {
    expect(readShardFlags({ shard: "2/4" }, {})).toEqual({ k: 2, n: 4 });
    expect(readShardFlags({ "shard-index": "1", "shard-count": "4" }, {})).toEqual({ k: 2, n: 4 });
    expect(readShardFlags({}, { JOB_COMPLETION_INDEX: "1" })).toBeUndefined();
  });

  it("--shard auto reads the environment, with --shard-count for a Kubernetes index", () => {
    expect(readShardFlags({ shard: "auto", "shard-count": "4" }, { JOB_COMPLETION_INDEX: "1" })).toEqual({ k: 2, n: 4 });
    expect(readShardFlags({ shard: "auto" }, { AWS_BATCH_JOB_ARRAY_INDEX: "0", AWS_BATCH_JOB_ARRAY_SIZE: "3" })).toEqual({ k: 1, n: 3 });
  });

  it.each([
    [{ shard: "auto" }, {}, "--shard auto found no shard in the environment: set OCF_SYNC_SHARD=K/N"],
    [{ shard: "auto" }, { JOB_COMPLETION_INDEX: "1" }, "JOB_COMPLETION_INDEX=1 needs the number of shards: give --shard-count N"],
    [{ shard: "auto", "shard-index": "1" }, {}, "--shard auto contradicts --shard-index 1"],
    [{ shard: "2/4", "shard-index": "1" }, {}, "--shard 2/4 contradicts --shard-index 1"],
    [{ shard: "2/4", "shard-count": "4" }, {}, "--shard 2/4 contradicts --shard-count 4"],
    [{ "shard-index": "1" }, {}, "--shard-index 1 needs --shard-count N"],
    [{ "shard-count": "4" }, {}, "--shard-count 4 needs --shard-index I, or --shard auto"],
    [{ "shard-index": "4", "shard-count": "4" }, {}, "--shard-index must be a whole number from 0 to 3 (--shard-count is 4)"],
    [{ shard: "0/4" }, {}, "--shard takes K/N with 1 <= K <= N"],
    [{ shard: "auto", "shard-count": "0" }, { JOB_COMPLETION_INDEX: "0" }, "--shard-count must be between 1"],
  ])("a usage error for %j with %j: %s", (values, env, message) => {
    const error = thrown(() => readShardFlags(values, env));
    expect(error.name).toBe("UsageError");
    expect(error.message).toContain(message);
  });
});
