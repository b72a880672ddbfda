/**
 * The two schedulers of concurrent work keep work under way while their consumer holds an item they
 * yielded. Work that fails in that time must fail the iteration when it resumes, never be an unhandled
 * rejection (which ended `ocf-sync pull` with a stack trace on about 1 SIGINT in 8: issue 25, item 4).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inCompletionOrder, inInputOrder, interleave } from "../../../src/pull/concurrent.js";

let unhandled: unknown[];
const listener = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled = [];
  process.on("unhandledRejection", listener);
});
afterEach(() => {
  process.off("unhandledRejection", listener);
});

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Two turns of the event loop: Node reports a rejection nobody handles once the microtasks are done. */
async function turns(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("work that fails while the consumer holds an item", () => {
  it("interleave: a source that fails meanwhile fails the iteration, and is no unhandled rejection", async () => {
    const failing = gate();
    const failed = gate();
    async function* source(): AsyncGenerator<number> {
      yield 1;
      await failing.opened;
      failed.open();
      throw new Error("the source failed");
    }
    let stopped = 0;
    const taken: number[] = [];
    await expect(
      (async () => {
        for await (const item of interleave([source()], () => (stopped += 1))) {
          taken.push(item);
          failing.open();
          await failed.opened;
          await turns();
        }
      })(),
    ).rejects.toThrow("the source failed");
    expect(taken).toEqual([1]);
    expect(stopped).toBe(1);
    expect(unhandled).toEqual([]);
  });

  it("inCompletionOrder: a task that fails meanwhile fails the iteration, and is no unhandled rejection", async () => {
    const second = gate();
    const thirdFailed = gate();
    const tasks: Record<number, () => Promise<number>> = {
      1: async () => 1,
      2: async () => {
        await second.opened;
        return 2;
      },
      3: async () => {
        thirdFailed.open();
        throw new Error("task 3 failed");
      },
    };
    const taken: number[] = [];
    await expect(
      (async () => {
        for await (const value of inCompletionOrder([1, 2, 3], 1, (n) => tasks[n]!())) {
          taken.push(value);
          if (value !== 1) continue;
          second.open();
          await thirdFailed.opened;
          await turns();
        }
      })(),
    ).rejects.toThrow("task 3 failed");
    expect(taken).toEqual([1, 2]);
    expect(unhandled).toEqual([]);
  });
});

describe("inInputOrder", () => {
  it("yields each result in its input's place, and starts no task beyond the window while an earlier one runs", async () => {
    const gates = [gate(), gate(), gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const results = inInputOrder([0, 1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      await gates[n]!.opened;
      return n;
    });
    const taken: number[] = [];
    const consumed = (async () => {
      for await (const value of results) taken.push(value);
    })();
    await turns();
    expect(started).toEqual([0, 1]);
    // Tasks 1 to 3 end while task 0 runs: each frees its slot, up to the window of 2 × 2 tasks.
    for (const n of [1, 2, 3]) {
      gates[n]!.open();
      await turns();
    }
    expect(started).toEqual([0, 1, 2, 3]);
    expect(taken).toEqual([]);
    gates[0]!.open();
    await turns();
    expect(taken).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    gates[5]!.open();
    await turns();
    expect(taken).toEqual([0, 1, 2, 3]);
    gates[4]!.open();
    await consumed;
    expect(taken).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("yields results that finished in the reverse order in the inputs' order", async () => {
    const gates = [gate(), gate(), gate()];
    const results = inInputOrder([0, 1, 2], 3, async (n) => {
      await gates[n]!.opened;
      return n;
    });
    const taken: number[] = [];
    const consumed = (async () => {
      for await (const value of results) taken.push(value);
    })();
    gates[2]!.open();
    await turns();
    gates[1]!.open();
    await turns();
    expect(taken).toEqual([]);
    gates[0]!.open();
    await consumed;
    expect(taken).toEqual([0, 1, 2]);
  });
});
