/**
 * Worker threads for `validatePackageAt`: they parse runs of elements of a large file's `items` and
 * check each element by itself (`item-facts.ts`), while the validator's thread reads the file, hashes
 * it, finds where runs of elements end and applies the facts, in file order, to what the rest of the
 * package needs. JSON.parse and the schemas are most of the work of validating a package, and these
 * are what the workers share.
 *
 * The validator's thread reads a run itself whenever every worker has its fill, so a machine with
 * one spare core uses both, and workers that are still starting cost nothing. A worker is started
 * only for a file of `workerMinFileBytes` or more (one takes tens of milliseconds to start), and all
 * are ended when the validation ends, however it ends.
 *
 * The worker script sits beside this module: `validate-worker.js` in the built package, else
 * `validate-worker.ts` loaded through tsx (the tests and benchmarks run the sources).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { availableParallelism } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { ItemFacts } from "./item-facts.js";
import type { OcfItemsFileType } from "./schemas.js";

/** A run of elements for a worker to read (the bytes are moved to it, not copied). */
export interface ElementsRequest {
  bytes: Uint8Array;
  schemaType: OcfItemsFileType | undefined;
}

/** A worker's answer: it is ready, or the facts of one run (`undefined` when the run is not JSON). */
export type ElementsReply = { ready: true } | { facts: ItemFacts[] | undefined };

/** Default of `workerMinFileBytes`: a file this large takes longer to check than a worker to start. */
export const DEFAULT_WORKER_MIN_FILE_BYTES = 8 * 1024 * 1024;

/** Default of `workers`: one per core beyond the validator's own, at most 3 (the validator's thread then has its fill). */
export function defaultWorkerCount(): number {
  return Math.max(0, Math.min(3, availableParallelism() - 1));
}

/** Runs given to one worker at a time: one being read and one waiting, so that it never idles between messages. */
const IN_FLIGHT = 2;

/**
 * How runs are shared, for tests (not an option of `validatePackageAt`): `everyRun` gives every run
 * to a worker, ready or not, so that a small package is read by workers alone; `onRun` is told
 * where each run is read.
 */
export interface WorkerSharing {
  everyRun?: boolean;
  onRun?(where: "worker" | "here"): void;
  /** Told of each worker started. */
  onWorker?(worker: Worker): void;
}

interface Waiting {
  resolve(facts: ItemFacts[] | undefined): void;
  reject(error: unknown): void;
}

interface PoolWorker {
  worker: Worker;
  ready: boolean;
  waiting: Waiting[];
}

/**
 * The worker's script: `validate-worker.js` beside this module when built; from the sources, a
 * module that registers tsx in the worker and imports `validate-worker.ts` (in Node.js 20 a worker
 * does not inherit the loader of `--import tsx`).
 */
function workerScript(): URL {
  const built = new URL("./validate-worker.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  const require = createRequire(import.meta.url);
  const tsxPackage = require.resolve("tsx/package.json");
  const { exports } = JSON.parse(readFileSync(tsxPackage, "utf8")) as { exports: Record<string, { import: { default: string } }> };
  const api = pathToFileURL(join(dirname(tsxPackage), exports["./esm/api"]?.import.default ?? "dist/esm/api/index.mjs")).href;
  const source = new URL("./validate-worker.ts", import.meta.url).href;
  const code = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(source)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

export class ElementsPool {
  private readonly workers: PoolWorker[] = [];
  private failure: unknown;
  private closing = false;
  private readonly onAbort: () => void;

  constructor(
    count: number,
    private readonly signal: AbortSignal | undefined,
    private readonly sharing: WorkerSharing = {},
  ) {
    const script = workerScript();
    for (let i = 0; i < count; i++) {
      const entry: PoolWorker = { worker: new Worker(script), ready: false, waiting: [] };
      entry.worker.on("message", (reply: ElementsReply) => {
        if ("ready" in reply) entry.ready = true;
        else entry.waiting.shift()?.resolve(reply.facts);
      });
      entry.worker.on("error", (error) => this.fail(error));
      entry.worker.on("exit", (code) => {
        if (!this.closing) this.fail(new Error(`a validate worker thread stopped (exit code ${code})`));
      });
      this.workers.push(entry);
      sharing.onWorker?.(entry.worker);
    }
    this.onAbort = () => this.fail(signal?.reason);
    signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /**
   * The facts of a run of elements, read by the worker with the fewest runs, or `undefined` when
   * none is ready with room (the caller then reads the run itself). `bytes` are copied.
   */
  tryRun(bytes: Uint8Array, schemaType: OcfItemsFileType | undefined): Promise<ItemFacts[] | undefined> | undefined {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const everyRun = this.sharing.everyRun === true;
    let chosen: PoolWorker | undefined;
    for (const entry of this.workers) {
      const room = everyRun || (entry.ready && entry.waiting.length < IN_FLIGHT);
      if (room && (chosen === undefined || entry.waiting.length < chosen.waiting.length)) chosen = entry;
    }
    this.sharing.onRun?.(chosen === undefined ? "here" : "worker");
    if (chosen === undefined) return undefined;
    const { worker, waiting } = chosen;
    const copy = bytes.slice();
    return new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      const request: ElementsRequest = { bytes: copy, schemaType };
      worker.postMessage(request, [copy.buffer]);
    });
  }

  /** How many runs may wait to be applied before the reader waits for the first: what the workers hold, and a little more. */
  get capacity(): number {
    return this.workers.length * IN_FLIGHT + 2;
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    for (const entry of this.workers) for (const waiting of entry.waiting.splice(0)) waiting.reject(this.failure);
  }

  /** Ends every worker (runs still in flight are rejected). */
  async close(): Promise<void> {
    this.closing = true;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.fail(new Error("the validation ended"));
    await Promise.all(this.workers.map((entry) => entry.worker.terminate()));
  }
}
