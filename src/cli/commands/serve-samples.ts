import { constants as bufferConstants } from "node:buffer";
import type { Stats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { errnoOf, fileSystemError, isOcfSyncError, terminalSafe } from "../../errors.js";
import { SAMPLES_AS_OF, loadSampleData, type SampleData } from "../../sample-server/data.js";
import { FAULT_KINDS, startSampleServer, type FaultKind } from "../../sample-server/server.js";
import { parseCommandArgs, parseFraction, parseInteger } from "../args.js";
import { COMMAND_OPTIONS } from "../command-options.js";
import { UsageError, asArgumentError, writeLine, type CliIo } from "../io.js";

export const SERVE_SAMPLES_HELP = `Usage: ocf-sync serve-samples [--port N] [options]

Serves the embedded sample API (the project's sample issuers, in samples/api/) on 127.0.0.1 the way the
real service answers: envelopes, pages of at most 50, opaque page tokens, the lastModified filters,
google.rpc.Status errors and RateLimit headers. Prints 'listening on http://127.0.0.1:PORT' and then
'issuers: ID,ID,...', and runs until stopped (Ctrl-C). The sample records are a snapshot whose vesting
status is as of ${SAMPLES_AS_OF}: export them with --as-of ${SAMPLES_AS_OF} to reconcile like with like.

Options:
  --port N                 port to listen on; 0 picks a free one (default 0)
  --latency-ms N           delay added to every response, in milliseconds (default 0)
  --faults KINDS           comma-separated faults to inject: ${FAULT_KINDS.join(", ")}
  --fault-rate F           share of API requests that get a fault, 0 to 1 (default 0.2 with --faults)
  --seed N                 seed of the fault sequence (default 1)
  --quota N/M              enforce N requests per second and M per minute with 429s (e.g. 10/300)
  --token TOKEN            require this bearer token on every API call
  --data DIR               serve another folder of issuer files instead of the samples

Exit status: 130 or 143 when stopped by SIGINT (Ctrl-C) or SIGTERM, the way it is meant to stop; 2 a
usage error, an unusable --data or a --port in use (pick another, or --port 0); 1 another failure to
listen.

Examples:
  ocf-sync serve-samples --port 4010
  ocf-sync serve-samples --port 0 --faults 429,503,reset --fault-rate 0.2 --latency-ms 50
  ocf-sync serve-samples --quota 10/300      # behave like the real service's published quota`;

export async function serveSamplesCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs("serve-samples", {
    args: [...argv],
    options: COMMAND_OPTIONS["serve-samples"],
    strict: true,
  });
  if (values.help === true) {
    writeLine(io.stdout, SERVE_SAMPLES_HELP);
    return 0;
  }
  const port = parseInteger("port", values.port, { min: 0, max: 65_535 }) ?? 0;
  const latencyMs = parseInteger("latency-ms", values["latency-ms"], { min: 0, max: 600_000 });
  const seed = parseInteger("seed", values.seed, { min: 0, max: 2 ** 31 - 1 }) ?? 1;
  let faults: { rate: number; kinds: FaultKind[]; seed: number } | undefined;
  if (values.faults !== undefined) {
    const kinds = values.faults.split(",").map((k) => k.trim()).filter((k) => k !== "");
    for (const kind of kinds) {
      if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
        throw new UsageError(`unknown fault ${JSON.stringify(kind)}; choose from ${FAULT_KINDS.join(", ")}`);
      }
    }
    if (kinds.length === 0) throw new UsageError("--faults needs at least one fault kind");
    faults = { rate: parseFraction("fault-rate", values["fault-rate"]) ?? 0.2, kinds: kinds as FaultKind[], seed };
  } else if (values["fault-rate"] !== undefined) {
    throw new UsageError("--fault-rate needs --faults to say which faults to inject");
  }
  let quota: { perSecond: number; perMinute: number } | undefined;
  if (values.quota !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(values.quota);
    if (m === null) throw new UsageError(`--quota takes PER_SECOND/PER_MINUTE such as 10/300, got ${JSON.stringify(values.quota)}`);
    quota = { perSecond: Number(m[1]), perMinute: Number(m[2]) };
  }
  const dataDir = values.data === undefined ? undefined : resolve(io.cwd, values.data);
  const data = dataDir === undefined ? undefined : await loadDataFolder(dataDir, io.signal);
  const server = await startSampleServer({
    port,
    ...(latencyMs === undefined ? {} : { latencyMs }),
    ...(faults === undefined ? {} : { faults }),
    ...(quota === undefined ? {} : { quota }),
    ...(values.token === undefined ? {} : { token: values.token }),
    ...(data === undefined ? {} : { data }),
  }).catch((error: unknown) => {
    if (errnoOf(error) !== "EADDRINUSE") throw error;
    throw new UsageError(`--port ${port}: 127.0.0.1:${port} is in use (another serve-samples?); pick another port, or --port 0 for a free one`, { code: "EADDRINUSE", cause: error });
  });
  writeLine(io.stdout, `listening on ${server.url}`);
  writeLine(io.stdout, `issuers: ${terminalSafe(server.issuers.join(","))}`);
  await new Promise<void>((resolveStop) => {
    if (io.signal === undefined) return; // runs until the process is killed
    if (io.signal.aborted) resolveStop();
    io.signal.addEventListener("abort", () => resolveStop(), { once: true });
  });
  await server.close();
  return 0;
}

/**
 * Reads `--data`, before the server starts: a folder of issuer files. Whatever makes it unusable is a
 * usage error (exit status 2) naming the folder or the file: not a folder, a folder that cannot be
 * read, a `*.json` entry that is not a regular file (a folder, a dangling link, a FIFO that would be
 * waited on forever) or is too large to read whole, a file that cannot be read or served.
 */
async function loadDataFolder(dir: string, signal: AbortSignal | undefined): Promise<SampleData> {
  let isFolder: boolean;
  let names: string[];
  try {
    isFolder = (await stat(dir)).isDirectory();
    names = isFolder ? (await readdir(dir)).filter((name) => name.endsWith(".json")).sort() : [];
  } catch (error) {
    throw asArgumentError("data", fileSystemError("read the folder", dir, error));
  }
  if (!isFolder) throw new UsageError(`--data: ${dir} is a file; give the folder that holds the issuer files`, { code: "FILE_SYSTEM_ERROR" });
  for (const name of names) {
    const file = join(dir, name);
    let entry: Stats;
    try {
      entry = await stat(file);
    } catch (error) {
      throw asArgumentError("data", fileSystemError("read", file, error));
    }
    if (!entry.isFile()) {
      throw new UsageError(`--data: ${terminalSafe(file)} is not a regular file (${entry.isDirectory() ? "a folder" : "a device, FIFO or socket"}); every *.json in the folder is read as an issuer file`, { code: "FILE_SYSTEM_ERROR" });
    }
    if (entry.size > bufferConstants.MAX_STRING_LENGTH) {
      throw new UsageError(
        `--data: ${terminalSafe(file)} has ${entry.size} bytes, more than an issuer file may hold (${bufferConstants.MAX_STRING_LENGTH}, the longest JavaScript string)`,
        { code: "SAMPLE_DATA_INVALID" },
      );
    }
  }
  try {
    return await loadSampleData(dir, signal === undefined ? {} : { signal });
  } catch (error) {
    if (isOcfSyncError(error) && error.code === "SAMPLE_DATA_INVALID") throw new UsageError(`--data: ${error.message}`, { code: error.code, cause: error });
    // A file changed since it was looked at (grown past the limit, replaced by a folder): still the data's fault.
    const code = (error as { code?: unknown } | null)?.code;
    if (error instanceof RangeError && (code === "ERR_FS_FILE_TOO_LARGE" || code === "ERR_STRING_TOO_LONG")) {
      throw new UsageError(`--data: ${dir}: a file is too large to read: ${error.message}`, { code: "SAMPLE_DATA_INVALID", cause: error });
    }
    throw asArgumentError("data", fileSystemError("read", dir, error));
  }
}
