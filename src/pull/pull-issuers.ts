/**
 * Pulling many issuers at once. Each issuer is isolated: its failure (an API error, an invalid record
 * under `onInvalid: "fail"`) is reported as its result and the others carry on. All requests go through
 * the one client, and so through its one rate limiter.
 */
import { withDeadline, withStop } from "../client/abort.js";
import type { ApiClient } from "../client/create-client.js";
import { asOcfSyncError, type OcfSyncError } from "../errors.js";
import { checkKnownKeys, optionKeys } from "../options.js";
import { inCompletionOrder } from "./concurrent.js";
import { PULL_OPTION_KEYS, checkPullOptions, pullIssuer, type IssuerPull, type PullOptions } from "./pull-issuer.js";

/** Options of {@link pullIssuers}: those of one issuer's pull, and how many issuers at once. */
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

/** The outcome of one issuer in a multi-issuer pull. */
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
 * for await (const result of pullIssuers(client, ["7", "144361"], { concurrency: 2 })) {
 *   if (result.ok) console.log(result.issuerId, result.pull.awards.length);
 *   else console.error(result.issuerId, result.error);
 * }
 */
export async function* pullIssuers(
  client: ApiClient,
  issuerIds: Iterable<string>,
  options: PullManyOptions = {},
): AsyncGenerator<IssuerPullResult, void, undefined> {
  checkKnownKeys("pullIssuers", options, PULL_MANY_OPTION_KEYS);
  checkPullOptions("pullIssuers", options);
  const { concurrency = 4, deadlineMs, ...pullOptions } = options;
  const job = withDeadline(options.signal, deadlineMs);
  try {
    // Left early, the loop stops the pulls under way (their requests aborted) before it ends.
    yield* inCompletionOrder(uniqueInOrder(issuerIds), concurrency, async (issuerId, stopped): Promise<IssuerPullResult> => {
      try {
        stopped.throwIfAborted();
        return { issuerId, ok: true, pull: await pullIssuer(client, issuerId, { ...pullOptions, signal: withStop(job.signal, stopped) }) };
      } catch (error) {
        return { issuerId, ok: false, error: asOcfSyncError(error) };
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
