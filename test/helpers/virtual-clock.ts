/**
 * Fake clocks for client tests: waits cost no real time and every requested wait is recorded.
 */
import type { Clock } from "../../src/client/clock.js";

const START_MS = 1_767_225_600_000; // 2026-01-01T00:00:00Z

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Every `sleep` advances the time by its length at once. For code that waits one thing at a time
 * (a request's backoff): `sleeps` then lists the delays asked for, in order.
 */
export class SteppingClock implements Clock {
  nowMs: number;
  readonly sleeps: number[] = [];

  constructor(startMs = START_MS) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) throw signal.reason;
    this.sleeps.push(ms);
    this.nowMs += Math.max(0, ms);
    await nextTurn();
    // The signal may have fired during the turn; TypeScript cannot see that across the await.
    if ((signal as AbortSignal | undefined)?.aborted === true) throw signal?.reason;
  }
}

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

/**
 * Discrete-event time for concurrent waiters: sleeps become timers, and {@link run} fires them in
 * time order (ties in the order they were set), letting all promise reactions settle in between.
 */
export class VirtualClock implements Clock {
  nowMs: number;
  readonly sleeps: number[] = [];
  #timers: Timer[] = [];
  #seq = 0;

  constructor(startMs = 0) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as unknown);
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      const timer: Timer = {
        at: this.nowMs + Math.max(0, ms),
        seq: this.#seq++,
        fire: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.#timers = this.#timers.filter((t) => t !== timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#timers.push(timer);
    });
  }

  /** Fires `fn` at `at` (absolute virtual time). */
  at(at: number, fn: () => void): void {
    this.#timers.push({ at, seq: this.#seq++, fire: fn });
  }

  /** Fires timers in order until none is left. */
  async run(): Promise<void> {
    for (;;) {
      await nextTurn();
      if (this.#timers.length === 0) return;
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const timer = this.#timers.shift()!;
      this.nowMs = Math.max(this.nowMs, timer.at);
      timer.fire();
    }
  }
}
