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
 * are ended when the validation ends, however it ends. Workers are off by default (`workers: 0`):
 * measured on 2 cores they do not yet make a package faster to check, because structured-cloning
 * the facts back costs the reading thread about what their parsing saves it. The MD5 thread
 * (`Md5Thread`) serves large files with workers, and without them when `workerMinFileBytes` is
 * given (by default, without workers, every file is hashed on the validator's thread: measured on
 * 2 cores, the thread did not pay).
 *
 * The worker script sits beside this module: `validate-worker.js` in the built package, else
 * `validate-worker.ts` loaded through tsx (the tests and benchmarks run the sources).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { ItemFacts } from "./item-facts.js";
import { framedRun } from "./json-items.js";
import type { OcfItemsFileType } from "./schemas.js";

/** A run of elements for a worker to read, framed (`framedRun`; the bytes are moved to it, not copied). */
export interface ElementsRequest {
  framed: Uint8Array<ArrayBuffer>;
  schemaType: OcfItemsFileType | undefined;
}

/** A worker's answer: it is ready, or the facts of one run (`undefined` when the run is not JSON), with the run's buffer given back. */
export type ElementsReply = { ready: true } | { facts: ItemFacts[] | undefined; framed: Uint8Array<ArrayBuffer> };

/** Default of `workerMinFileBytes`: a file this large takes longer to check than a worker to start. */
export const DEFAULT_WORKER_MIN_FILE_BYTES = 8 * 1024 * 1024;

/**
 * Runs given to one worker at a time: enough waiting that it does not idle while this thread reads
 * a run itself or hashes a chunk.
 */
const IN_FLIGHT = 8;

/** Chunks the MD5 thread may hold before the reading thread waits for it: memory stays bounded if it falls behind. */
const MD5_IN_FLIGHT = 8;

/** Buffers given back by workers kept for the next runs (a fresh buffer costs page faults on every use). */
const SPARE_BUFFERS = 16;

/**
 * How runs are shared, for tests (not an option of `validatePackageAt`): `place` says where each run
 * (numbered from 0) is read, `"worker"` giving it to the worker with the fewest runs, ready or not,
 * so that even a small package is read by workers (`undefined`: a ready worker with room, else this
 * thread); `onRun` is told where each run is read, `onWorker` of each thread started.
 */
export interface WorkerSharing {
  place?(run: number): "worker" | "here" | undefined;
  onRun?(where: "worker" | "here"): void;
  onWorker?(worker: Worker): void;
}

interface Waiting<T = ItemFacts[] | undefined> {
  resolve(value: T): void;
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

/**
 * A thread that computes a file's MD5 from copies of its chunks, in order, so that the reading
 * thread does not (hashing is a large share of what it does otherwise). Plain JavaScript with
 * nothing but Node.js built-ins: it starts in a few milliseconds, from the sources or the build.
 */
const MD5_THREAD = `
const { parentPort } = require("node:worker_threads");
const { createHash } = require("node:crypto");
let hash = createHash("md5");
parentPort.on("message", (message) => {
  if (message === null) {
    parentPort.postMessage(hash.digest("hex"));
    hash = createHash("md5");
    return;
  }
  hash.update(message);
  parentPort.postMessage(message, [message.buffer]);
});
`;

export class Md5Thread {
  private readonly worker = new Worker(MD5_THREAD, { eval: true });
  private readonly spare: ArrayBuffer[] = [];
  private readonly digests: Waiting<string>[] = [];
  /** Chunks given and not hashed yet, and who waits for fewer. */
  private inFlight = 0;
  private room: Waiting<void> | undefined;
  private failure: unknown;
  private closing = false;

  constructor(sharing: WorkerSharing = {}) {
    this.worker.on("exit", (code) => {
      if (!this.closing) this.fail(new Error(`the MD5 thread stopped (exit code ${code})`));
    });
    sharing.onWorker?.(this.worker);
    this.worker.on("message", (message: Uint8Array<ArrayBuffer> | string) => {
      if (typeof message === "string") {
        this.digests.shift()?.resolve(message);
        return;
      }
      if (this.spare.length < SPARE_BUFFERS) this.spare.push(message.buffer);
      this.inFlight -= 1;
      if (this.inFlight < MD5_IN_FLIGHT) this.takeRoom()?.resolve();
    });
    this.worker.on("error", (error) => this.fail(error));
  }

  /** Hashes a copy of `chunk` (the caller may reuse it at once); waits while the thread has its fill. */
  async update(chunk: Uint8Array): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    const spare = this.spare.pop();
    const buffer = spare !== undefined && spare.byteLength >= chunk.length ? spare : new ArrayBuffer(Math.max(chunk.length, 1 << 20));
    const copy = new Uint8Array(buffer, 0, chunk.length);
    copy.set(chunk);
    this.worker.postMessage(copy, [buffer]);
    this.inFlight += 1;
    if (this.inFlight >= MD5_IN_FLIGHT) await new Promise<void>((resolve, reject) => (this.room = { resolve, reject }));
  }

  private takeRoom(): Waiting<void> | undefined {
    const room = this.room;
    this.room = undefined;
    return room;
  }

  /** The MD5 of the chunks given since the last digest, in hex. */
  digest(): Promise<string> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.digests.push({ resolve, reject });
      this.worker.postMessage(null);
    });
  }

  fail(error: unknown): void {
    this.failure ??= error;
    for (const waiting of this.digests.splice(0)) waiting.reject(this.failure);
    this.takeRoom()?.reject(this.failure);
  }

  /** Ends the thread (a digest still awaited is rejected). */
  async close(): Promise<void> {
    this.closing = true;
    this.fail(new Error("the validation ended"));
    await this.worker.terminate();
  }
}

export class ElementsPool {
  /** Hashes the files read with this pool. */
  private readonly md5: Md5Thread;
  private readonly workers: PoolWorker[] = [];
  private readonly spare: ArrayBuffer[] = [];
  /** Runs given so far (for `WorkerSharing.place`). */
  private runs = 0;
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
        if ("ready" in reply) {
          entry.ready = true;
          return;
        }
        if (this.spare.length < SPARE_BUFFERS) this.spare.push(reply.framed.buffer);
        entry.waiting.shift()?.resolve(reply.facts);
      });
      entry.worker.on("error", (error) => this.fail(error));
      entry.worker.on("exit", (code) => {
        if (!this.closing) this.fail(new Error(`a validate worker thread stopped (exit code ${code})`));
      });
      this.workers.push(entry);
      sharing.onWorker?.(entry.worker);
    }
    this.md5 = new Md5Thread(sharing);
    this.onAbort = () => this.fail(signal?.reason);
    signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /**
   * The facts of a run of elements, read by the worker with the fewest runs, or `undefined` when
   * none is ready with room (the caller then reads the run itself). `bytes` are copied.
   */
  tryRun(bytes: Uint8Array, schemaType: OcfItemsFileType | undefined): Promise<ItemFacts[] | undefined> | undefined {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const placed = this.sharing.place?.(this.runs++);
    let chosen: PoolWorker | undefined;
    for (const entry of placed === "here" ? [] : this.workers) {
      const room = placed === "worker" || (entry.ready && entry.waiting.length < IN_FLIGHT);
      if (room && (chosen === undefined || entry.waiting.length < chosen.waiting.length)) chosen = entry;
    }
    this.sharing.onRun?.(chosen === undefined ? "here" : "worker");
    if (chosen === undefined) return undefined;
    const { worker, waiting } = chosen;
    const framed = framedRun(bytes, this.spare.pop());
    return new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      const request: ElementsRequest = { framed, schemaType };
      worker.postMessage(request, [framed.buffer]);
    });
  }

  /** Hashes `chunk` (copied) as the next bytes of the file being read; waits while the MD5 thread has its fill. */
  hash(chunk: Uint8Array): Promise<void> {
    return this.md5.update(chunk);
  }

  /** The MD5 of the file whose chunks were hashed, in hex; the next file starts afresh. */
  digest(): Promise<string> {
    return this.md5.digest();
  }

  /** How many runs may wait to be applied before the reader waits for the first: what the workers hold, and a little more. */
  get capacity(): number {
    return this.workers.length * IN_FLIGHT + 2;
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    for (const entry of this.workers) for (const waiting of entry.waiting.splice(0)) waiting.reject(this.failure);
    this.md5.fail(this.failure);
  }

  /** Ends every worker (runs still in flight are rejected). */
  async close(): Promise<void> {
    this.closing = true;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.fail(new Error("the validation ended"));
    await Promise.all([...this.workers.map((entry) => entry.worker.terminate()), this.md5.close()]);
  }
}
