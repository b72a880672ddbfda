/**
 * Runs a task per input with bounded concurrency (p-limit) and yields results as they complete, or in
 * the inputs' order. Only a window of `2 × concurrency` tasks is scheduled at a time, so a list of
 * thousands of issuers never holds thousands of finished results waiting for a slow consumer (or, in
 * the inputs' order, for a slow task before them).
 */
import pLimit from "p-limit";

/**
 * What a promise that is waited for later came to, as a value: it never rejects. Both generators below
 * keep work under way while the consumer holds a yielded item, and nothing listens to that work until
 * the next `Promise.race`; a rejection in between (an abort's reason, as a signal makes every source
 * fail at once) was an unhandled rejection, which ended the CLI with a stack trace (issue 25, item 4).
 */
type Settled<K, R> = { key: K; ok: true; value: R } | { key: K; ok: false; error: unknown };

function settle<K, R>(key: K, promise: Promise<R>): Promise<Settled<K, R>> {
  return promise.then(
    (value) => ({ key, ok: true as const, value }),
    (error: unknown) => ({ key, ok: false as const, error }),
  );
}

/** The value of the first of `pending` to settle, with its key; throws its error when it failed. */
async function first<K, R>(pending: Map<K, Promise<Settled<K, R>>>): Promise<{ key: K; value: R }> {
  const settled = await Promise.race(pending.values());
  if (!settled.ok) throw settled.error;
  return settled;
}

/** The value of `pending`'s task `key` once it settles; throws its error when it failed. */
async function inPlace<R>(pending: Map<number, Promise<Settled<number, R>>>, key: number): Promise<{ key: number; value: R }> {
  const settled = await (pending.get(key) as Promise<Settled<number, R>>);
  if (!settled.ok) throw settled.error;
  return settled;
}

/**
 * `task` runs with a signal that fires when the consumer stops early (`break`, `return`, a throw in
 * the loop): the tasks under way are then stopped through it, and have all settled (their cleanup
 * done) before the iteration ends; those not started yet are not started.
 */
export const inCompletionOrder = inOrder("completion");

/**
 * `inCompletionOrder`, but each result is yielded in its input's place: a result that finished before
 * those of earlier inputs waits for them. The window is the same, so a slow task holds up to
 * `2 × concurrency - 1` finished results after it, and no more tasks start until it finishes.
 */
export const inInputOrder = inOrder("input");

/** The scheduler that yields its results in `order`. */
function inOrder(order: "completion" | "input") {
  return <T, R>(inputs: Iterable<T>, concurrency: number, task: (input: T, stopped: AbortSignal) => Promise<R>): AsyncGenerator<R, void, undefined> =>
    inWindow(inputs, concurrency, task, order);
}

async function* inWindow<T, R>(
  inputs: Iterable<T>,
  concurrency: number,
  task: (input: T, stopped: AbortSignal) => Promise<R>,
  order: "completion" | "input",
): AsyncGenerator<R, void, undefined> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a whole number of at least 1, got ${concurrency}`);
  }
  const limit = pLimit(concurrency);
  const stop = new AbortController();
  const iterator = inputs[Symbol.iterator]();
  const pending = new Map<number, Promise<Settled<number, R>>>();
  let nextKey = 0;
  const fill = (): void => {
    while (pending.size < concurrency * 2) {
      const next = iterator.next();
      if (next.done === true) return;
      const key = nextKey++;
      pending.set(key, settle(key, limit(() => (stop.signal.aborted ? Promise.reject(stop.signal.reason) : task(next.value, stop.signal)))));
    }
  };
  fill();
  let head = 0;
  try {
    while (pending.size > 0) {
      const { key, value } = order === "completion" ? await first(pending) : await inPlace(pending, head++);
      pending.delete(key);
      fill();
      yield value;
    }
  } finally {
    if (pending.size > 0) {
      stop.abort(new Error("the consumer stopped the iteration"));
      await Promise.allSettled(pending.values());
    }
  }
}

/**
 * Yields the items of several async iterables as each source has them, all sources running at once.
 * Each source is asked for its next item as soon as its previous one is taken, so at most one item per
 * source waits while the consumer works. When a source fails or the consumer stops early, `stop` is
 * called (to abort the others' work in flight) and every source is closed before this ends; a
 * source's failure is then thrown.
 */
export async function* interleave<T>(sources: readonly AsyncIterable<T>[], stop: () => void): AsyncGenerator<T, void, undefined> {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]());
  const pending = new Map<number, Promise<Settled<number, IteratorResult<T, unknown>>>>();
  const ask = (index: number): void => {
    pending.set(index, settle(index, (iterators[index] as AsyncIterator<T>).next()));
  };
  iterators.forEach((_, index) => ask(index));
  let completed = false;
  try {
    while (pending.size > 0) {
      const { key: index, value: result } = await first(pending);
      if (result.done === true) {
        pending.delete(index);
        continue;
      }
      ask(index);
      yield result.value;
    }
    completed = true;
  } finally {
    if (!completed) {
      stop();
      await Promise.allSettled(pending.values());
      await Promise.allSettled(iterators.map((iterator) => iterator.return?.()));
    }
  }
}
