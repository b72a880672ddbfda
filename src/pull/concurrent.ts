/**
 * Runs a task per input with bounded concurrency (p-limit) and yields results as they complete.
 * Only a window of `2 × concurrency` tasks is scheduled at a time, so a list of thousands of issuers
 * never holds thousands of finished results waiting for a slow consumer.
 */
import pLimit from "p-limit";

export async function* inCompletionOrder<T, R>(
  inputs: Iterable<T>,
  concurrency: number,
  task: (input: T) => Promise<R>,
): AsyncGenerator<R, void, undefined> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a whole number of at least 1, got ${concurrency}`);
  }
  const limit = pLimit(concurrency);
  const iterator = inputs[Symbol.iterator]();
  const pending = new Map<number, Promise<{ key: number; result: R }>>();
  let nextKey = 0;
  const fill = (): void => {
    while (pending.size < concurrency * 2) {
      const next = iterator.next();
      if (next.done === true) return;
      const key = nextKey++;
      pending.set(
        key,
        limit(() => task(next.value)).then((result) => ({ key, result })),
      );
    }
  };
  fill();
  while (pending.size > 0) {
    const { key, result } = await Promise.race(pending.values());
    pending.delete(key);
    fill();
    yield result;
  }
}
