import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isAbortedError, isClientConfigError } from "../../../src/client/errors.js";
import { createRateLimiter, quotaWindow } from "../../../src/client/rate-limiter.js";
import { VirtualClock } from "../../helpers/virtual-clock.js";

/** The most grants any half-open window `[t, t + windowMs)` holds (a busiest window starts at a grant). */
function busiestWindow(grants: readonly number[], windowMs: number): number {
  const sorted = [...grants].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && sorted[end]! < sorted[start]! + windowMs) end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

/** The earliest grant times a first-come-first-served sliding-window-log limiter can give. */
function idealGrants(arrivals: readonly number[], perSecond: number, perMinute: number, margin: number, minuteMargin = margin): number[] {
  const order = arrivals.map((at, i) => ({ at, i })).sort((a, b) => a.at - b.at || a.i - b.i);
  const grants: number[] = [];
  for (const { at } of order) {
    const n = grants.length;
    let t = Math.max(at, n > 0 ? grants[n - 1]! : 0);
    if (n >= perSecond) t = Math.max(t, grants[n - perSecond]! + 1000 + margin);
    if (n >= perMinute) t = Math.max(t, grants[n - perMinute]! + 60_000 + minuteMargin);
    grants.push(t);
  }
  return grants;
}

/** Runs one acquire per arrival time on a virtual clock; returns the grant times in grant order. */
async function simulate(
  arrivals: readonly number[],
  limits: { perSecond: number; perMinute: number; safetyMarginMs?: number; minuteSafetyMarginMs?: number },
  aborts: ReadonlyMap<number, number> = new Map(),
): Promise<{ grants: number[]; aborted: number[] }> {
  const clock = new VirtualClock();
  const limiter = createRateLimiter({ ...limits, clock });
  const grants: number[] = [];
  const aborted: number[] = [];
  const pending: Promise<void>[] = [];
  arrivals.forEach((at, i) => {
    clock.at(at, () => {
      const controller = new AbortController();
      const abortAt = aborts.get(i);
      if (abortAt !== undefined) clock.at(at + abortAt, () => controller.abort(new Error("test abort")));
      pending.push(
        limiter.acquire({ signal: controller.signal }).then(
          () => {
            grants.push(clock.now());
          },
          (error: unknown) => {
            expect(isAbortedError(error)).toBe(true);
            aborted.push(i);
          },
        ),
      );
    });
  });
  await clock.run();
  await Promise.all(pending);
  expect(grants.length + aborted.length).toBe(arrivals.length);
  return { grants, aborted };
}

/**
 * Requests through the limiter as a client sends them: each is granted, reaches the server `delay` ms
 * later (the server counts it then) and is answered `delay + answer` ms after the grant, when the
 * caller reports it done (`acquirePermit`; with `reportDone` false, plain `acquire`). Returns the times
 * the server counted them.
 */
async function simulateRequests(
  requests: readonly { at: number; delay: number; answer: number }[],
  limits: { perSecond: number; perMinute: number; safetyMarginMs?: number; minuteSafetyMarginMs?: number },
  reportDone = true,
): Promise<number[]> {
  const clock = new VirtualClock();
  const limiter = createRateLimiter({ ...limits, clock });
  const counted: number[] = [];
  const pending: Promise<void>[] = [];
  for (const { at, delay, answer } of requests) {
    clock.at(at, () => {
      pending.push(
        (reportDone ? limiter.acquirePermit!() : limiter.acquire()).then((permit) => {
          const granted = clock.now();
          clock.at(granted + delay, () => counted.push(clock.now()));
          clock.at(granted + delay + answer, () => permit?.done());
        }),
      );
    });
  }
  await clock.run();
  await Promise.all(pending);
  expect(counted).toHaveLength(requests.length);
  return counted;
}

const limitsArb = fc.record({
  perSecond: fc.integer({ min: 1, max: 6 }),
  perMinute: fc.integer({ min: 1, max: 30 }),
  safetyMarginMs: fc.integer({ min: 0, max: 5 }),
  minuteSafetyMarginMs: fc.integer({ min: 0, max: 300 }),
});

describe("createRateLimiter", () => {
  it("property: no 1 s window holds more than perSecond grants, no 60 s window more than perMinute", async () => {
    await fc.assert(
      fc.asyncProperty(limitsArb, fc.array(fc.integer({ min: 0, max: 130_000 }), { minLength: 1, maxLength: 80 }), async (limits, arrivals) => {
        const { grants } = await simulate(arrivals, limits);
        expect(grants).toHaveLength(arrivals.length);
        expect(busiestWindow(grants, 1000)).toBeLessThanOrEqual(limits.perSecond);
        expect(busiestWindow(grants, 60_000)).toBeLessThanOrEqual(limits.perMinute);
      }),
      { numRuns: 150 },
    );
  });

  it("property: every grant comes at the earliest time the windows allow, first come first served", async () => {
    await fc.assert(
      fc.asyncProperty(limitsArb, fc.array(fc.integer({ min: 0, max: 130_000 }), { minLength: 1, maxLength: 80 }), async (limits, arrivals) => {
        const { grants } = await simulate(arrivals, limits);
        expect(grants).toEqual(idealGrants(arrivals, limits.perSecond, limits.perMinute, limits.safetyMarginMs, limits.minuteSafetyMarginMs));
      }),
      { numRuns: 150 },
    );
  });

  it("property: aborted waiters reject with ABORTED and the windows still hold", async () => {
    await fc.assert(
      fc.asyncProperty(
        limitsArb,
        fc.array(fc.record({ at: fc.integer({ min: 0, max: 70_000 }), abortAfter: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }) }), {
          minLength: 1,
          maxLength: 60,
        }),
        async (limits, requests) => {
          const aborts = new Map<number, number>();
          requests.forEach((r, i) => {
            if (r.abortAfter !== undefined) aborts.set(i, r.abortAfter);
          });
          const { grants, aborted } = await simulate(
            requests.map((r) => r.at),
            limits,
            aborts,
          );
          for (const i of aborted) expect(aborts.has(i)).toBe(true);
          expect(busiestWindow(grants, 1000)).toBeLessThanOrEqual(limits.perSecond);
          expect(busiestWindow(grants, 60_000)).toBeLessThanOrEqual(limits.perMinute);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("with the defaults, uses the whole quota: 300 grants in the first 29.7 s, the 301st a minute (+250 ms) after the first", async () => {
    const { grants } = await simulate(new Array<number>(320).fill(0), { perSecond: 10, perMinute: 300 });
    expect(grants.slice(0, 11)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1025]);
    expect(grants[299]).toBe(29 * 1025);
    expect(grants[300]).toBe(60_250);
    expect(grants[310]).toBe(61_275);
  });

  it("property: however late requests reach the server before their answers, no server window holds too many", async () => {
    const requestArb = fc.record({ at: fc.integer({ min: 0, max: 130_000 }), delay: fc.integer({ min: 0, max: 3000 }), answer: fc.integer({ min: 0, max: 500 }) });
    await fc.assert(
      fc.asyncProperty(limitsArb, fc.array(requestArb, { minLength: 1, maxLength: 60 }), async (limits, requests) => {
        const counted = await simulateRequests(requests, limits);
        expect(busiestWindow(counted, 1000)).toBeLessThanOrEqual(limits.perSecond);
        expect(busiestWindow(counted, 60_000)).toBeLessThanOrEqual(limits.perMinute);
      }),
      { numRuns: 150 },
    );
  });

  it("counts a permit's slot until its answer: the first requests of a cold start, delayed 40 ms, do not share a server second with the next ones", async () => {
    // What the quota benchmark saw: ten requests granted at 0 reach the server at 40 ms (new
    // connections, a busy event loop); the eleventh, granted from the grants alone at 1025 ms,
    // arrived 1 ms later, inside the same second as the ten.
    const burst = [...Array.from({ length: 10 }, () => ({ at: 0, delay: 40, answer: 5 })), { at: 0, delay: 1, answer: 5 }];
    const limits = { perSecond: 10, perMinute: 300 };
    expect(busiestWindow(await simulateRequests(burst, limits, false), 1000)).toBe(11);
    const counted = await simulateRequests(burst, limits);
    expect(busiestWindow(counted, 1000)).toBe(10);
    // granted a second (+1 ms for the clock's rounding) after the last answer of the ten, at 45 ms
    expect(counted[10]).toBe(45 + 1000 + 1 + 1);
  });

  it("an aborted waiter gives its slot to the next one", async () => {
    // perSecond 1: A at 0; B would get 1000; B aborts at 500, so C gets 1000 instead of 2000.
    const { grants, aborted } = await simulate([0, 0, 0], { perSecond: 1, perMinute: 100, safetyMarginMs: 0 }, new Map([[1, 500]]));
    expect(aborted).toEqual([1]);
    expect(grants).toEqual([0, 1000]);
  });

  it("rejects at once for a signal that has already fired", async () => {
    const limiter = createRateLimiter({ clock: new VirtualClock() });
    const error = await limiter.acquire({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(isAbortedError(error)).toBe(true);
  });

  it("pauseUntil holds every grant until then, and a shorter pause does not shorten it", async () => {
    const clock = new VirtualClock();
    const limiter = createRateLimiter({ clock });
    limiter.pauseUntil(5000);
    limiter.pauseUntil(2000);
    const grants: number[] = [];
    const done = Promise.all([limiter.acquire(), limiter.acquire()]).then(() => grants.push(clock.now()));
    await clock.run();
    await done;
    expect(grants).toEqual([5000]);
    expect(clock.sleeps).toEqual([5000]);
  });

  it("rejects limits that are not numbers > 0, or too small for a timer", () => {
    for (const bad of [{ perSecond: 0 }, { perMinute: -1 }, { perSecond: Number.NaN }, { perSecond: Infinity }, { perSecond: 1e-7 }, { safetyMarginMs: -1 }]) {
      let error: unknown;
      try {
        createRateLimiter(bad);
      } catch (e) {
        error = e;
      }
      expect(isClientConfigError(error)).toBe(true);
    }
    expect(createRateLimiter().limits).toEqual({ perSecond: 10, perMinute: 300 });
  });
});

describe("fractional rates (a share of a quota)", () => {
  it("quotaWindow keeps whole rates, drops the fraction above 1, and spaces requests out below 1", () => {
    expect(quotaWindow(10, 1000)).toEqual({ count: 10, ms: 1000 });
    expect(quotaWindow(2.5, 1000)).toEqual({ count: 2, ms: 1000 });
    expect(quotaWindow(300 / 7, 60_000)).toEqual({ count: 42, ms: 60_000 });
    expect(quotaWindow(0.5, 1000)).toEqual({ count: 1, ms: 2000 });
    expect(quotaWindow(10 / 3 / 10, 1000)).toEqual({ count: 1, ms: 3000 });
  });

  it("accepts a rate below 1: 0.5 a second grants one request every 2 s", async () => {
    const { grants } = await simulate([0, 0, 0, 0], { perSecond: 0.5, perMinute: 300, safetyMarginMs: 0 });
    expect(grants).toEqual([0, 2000, 4000, 6000]);
  });

  it("property: the shares of N limiters (the quota divided by N, each alone) never add up to more than the quota in any window", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.integer({ min: 0, max: 130_000 }), { minLength: 1, maxLength: 60 }),
        async (n, arrivals) => {
          const all: number[] = [];
          for (let k = 0; k < n; k += 1) {
            // Each process gets every arrival: the worst case, all of them busy at once.
            const { grants } = await simulate(arrivals, { perSecond: 10 / n, perMinute: 300 / n });
            all.push(...grants);
          }
          expect(busiestWindow(all, 1000)).toBeLessThanOrEqual(10);
          expect(busiestWindow(all, 60_000)).toBeLessThanOrEqual(300);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("property: a rate r below 1 grants at most one request in any window of 1/r seconds", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.array(fc.integer({ min: 0, max: 300_000 }), { minLength: 1, maxLength: 30 }),
        async (rate, arrivals) => {
          const { grants } = await simulate(arrivals, { perSecond: rate, perMinute: 300, safetyMarginMs: 0 });
          expect(busiestWindow(grants, Math.floor(1000 / rate))).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 60 },
    );
  });
});
