/**
 * Pulling many issuers at once. Each issuer is isolated: its failure (an API error, an invalid record
 * under `onInvalid: "fail"`) is reported as its result and the others carry on. All requests go through
 * the one client, and so through its one rate limiter.
 */
import { withDeadline, withStop } from "../client/abort.js";
import type { ApiClient } from "../client/create-client.js";
import { asOcfSyncError, type OcfSyncError } from "../errors.js";
import { checkKnownKeys, optionKeys } from "../options.js";
import { inCompletionOrder, inInputOrder } from "./concurrent.js";
import { PULL_OPTION_KEYS, checkPullOptions, pullIssuer, type IssuerPull, type PullOptions } from "./pull-issuer.js";

/**
 * Options of {@link pullIssuers}: those of one issuer's pull, and how many issuers at once.
 *
 * @category Source
 */
export interface PullManyOptions extends PullOptions {
  /** Issuers pulled at the same time. @default 4 */
  concurrency?: number;
  /**
   * The longest the whole pull may take, in milliseconds. When it passes, everything under way stops,
   * the issuers not finished get a `DEADLINE_EXCEEDED` result, and the iteration then throws that
   * `DeadlineExceededError`. @default no deadline
   */
  deadlineMs?: number;
}

const PULL_MANY_OPTION_KEYS: ReadonlySet<string> = new Set([...PULL_OPTION_KEYS, ...optionKeys<Omit<PullManyOptions, keyof PullOptions>>()(["concurrency", "deadlineMs"])]);

/**
 * The outcome of one issuer in a multi-issuer pull.
 *
 * @category Source
 */
export type IssuerPullResult =
  | { issuerId: string; ok: true; pull: IssuerPull }
  | { issuerId: string; ok: false; error: OcfSyncError };

/**
 * Pulls each issuer and yields its result as soon as it finishes (completion order, not input order).
 * Never throws for one issuer's failure; stops early only when `signal` aborts or `deadlineMs` passes
 * (it throws the signal's reason, or the `DeadlineExceededError`). Leaving the loop early (`break`)
 * aborts the pulls under way before the iteration ends.
 *
 * @example
 * ```ts
 * import { createApiClient, pullIssuers } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * for await (const result of pullIssuers(client, ["7", "144361"], { concurrency: 2 })) {
 *   if (result.ok) console.log(result.issuerId, result.pull.awards.length);
 *   else console.error(result.issuerId, result.error);
 * }
 * await client.close();
 * ```
 *
 * @category Source
 */
export async function* pullIssuers(
  client: ApiClient,
  issuerIds: Iterable<string>,
  options: PullManyOptions = {},
): AsyncGenerator<IssuerPullResult, void, undefined> {
  checkKnownKeys("pullIssuers", options, PULL_MANY_OPTION_KEYS);
  checkPullOptions("pullIssuers", options);
  const { concurrency: _concurrency, deadlineMs: _deadlineMs, ...pullOptions } = options;
  for await (const result of eachIssuer(issuerIds, options, (issuerId, signal) => pullIssuer(client, issuerId, { ...pullOptions, ...signal }))) {
    yield result.ok ? { issuerId: result.issuerId, ok: true, pull: result.value } : result;
  }
}

/**
 * Runs `task` for each issuer (each id once, `concurrency` at a time) and yields its outcome as soon
 * as it finishes: its value, or its error as an `OcfSyncError`. The task is given the job's signal
 * (the caller's `signal` and `deadlineMs`, and a stop when the loop is left early: the tasks under way
 * then end before the iteration does); when the job's signal fires, the iteration throws its reason
 * once every task under way has ended. `pullIssuers` is this with `pullIssuer` as the task. With
 * `order: "input"` the outcomes come in the issuers' order instead (see `inInputOrder`), so that what
 * is written from them is the same from run to run.
 */
export async function* eachIssuer<R>(
  issuerIds: Iterable<string>,
  options: Pick<PullManyOptions, "concurrency" | "deadlineMs" | "signal"> & { order?: "completion" | "input" },
  task: (issuerId: string, signal: { signal: AbortSignal }) => Promise<R>,
): AsyncGenerator<{ issuerId: string; ok: true; value: R } | { issuerId: string; ok: false; error: OcfSyncError }, void, undefined> {
  const { concurrency = 4, deadlineMs } = options;
  const job = withDeadline(options.signal, deadlineMs);
  try {
    const inOrder = options.order === "input" ? inInputOrder : inCompletionOrder;
    yield* inOrder(uniqueInOrder(issuerIds), concurrency, async (issuerId, stopped) => {
      try {
        return { issuerId, ok: true as const, value: await task(issuerId, { signal: withStop(job.signal, stopped) }) };
      } catch (error) {
        return { issuerId, ok: false as const, error: asOcfSyncError(error) };
      }
    });
    job.signal?.throwIfAborted();
  } finally {
    job.dispose();
  }
}

function* uniqueInOrder(values: Iterable<string>): Generator<string> {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) continue;
    seen.add(value);
    yield value;
  }
}
