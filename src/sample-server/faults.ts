/**
 * Fault injection for the sample server: with a given probability per API request, the server
 * misbehaves the way a real gateway, load balancer or network does, so that the client's retry,
 * timeout and error paths run against real sockets. A seeded PRNG makes a run repeatable: the n-th
 * API request of a server gets the same fault every time the same seed is used.
 */
import { OcfSyncError, describeValue } from "../errors.js";

/**
 * Every fault the sample server can inject.
 *
 * @category Testing
 */
export const FAULT_KINDS = [
  "429",
  "429-no-retry-after",
  "500",
  "502",
  "503",
  "reset",
  "slow-body",
  "truncated",
] as const;

/**
 * One kind of injected fault:
 * - `429`: `429 Too Many Requests` with `Retry-After: 1` and the gateway's flat body;
 * - `429-no-retry-after`: the same without `Retry-After` (the documented service sends none);
 * - `500`: a google.rpc.Status body (code 13 INTERNAL);
 * - `502`: an HTML page, as a CDN in front of the service would send (not JSON);
 * - `503`: a flat `{ "message" }` body, as the gateway sends when no upstream is available;
 * - `reset`: the TCP connection is reset without any response;
 * - `slow-body`: the status line, the headers and half of the body of the normal response arrive,
 *   then nothing more until the stall ends (the socket is then destroyed) or the server closes;
 * - `truncated`: the normal response (`200` for a valid request) with the `Content-Length` of the
 *   full body, but only half of the body is sent before the socket is closed.
 *
 * @category Testing
 */
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * Fault injection settings.
 *
 * @category Testing
 */
export interface FaultOptions {
  /** Probability in [0, 1] that an API request gets a fault. */
  rate: number;
  /** The kinds to choose from, uniformly. Must not be empty. */
  kinds: readonly FaultKind[];
  /**
   * Seed of the PRNG; the same seed gives the same sequence of faults.
   * @default a random seed
   */
  seed?: number;
}

/** Thrown by `startSampleServer` for options it cannot honour. */
export class SampleServerOptionsError extends OcfSyncError {
  declare readonly code: "SAMPLE_SERVER_OPTIONS";
  constructor(message: string) {
    super("SAMPLE_SERVER_OPTIONS", message);
    this.name = "SampleServerOptionsError";
  }
}

/**
 * A small, fast, seedable PRNG (mulberry32) returning floats in [0, 1). Not for cryptography: it
 * only has to make fault sequences repeatable.
 */
export function createPrng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Decides, request by request, whether to inject a fault and which one. */
export interface FaultPlan {
  /** The fault for the next API request, or `undefined` for a normal response. */
  next(): FaultKind | undefined;
}

/** Builds a fault plan; throws `SAMPLE_SERVER_OPTIONS` for a rate outside [0, 1] or bad kinds. */
export function createFaultPlan(options: FaultOptions): FaultPlan {
  const { rate, kinds } = options;
  if (!(rate >= 0 && rate <= 1)) {
    throw new SampleServerOptionsError(`faults.rate must be between 0 and 1, got ${describeValue(rate)}`);
  }
  if (kinds.length === 0) throw new SampleServerOptionsError("faults.kinds must name at least one fault kind");
  for (const kind of kinds) {
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
      throw new SampleServerOptionsError(
        `faults.kinds contains ${describeValue(kind)}; known kinds are ${FAULT_KINDS.join(", ")}`,
      );
    }
  }
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
  const random = createPrng(seed);
  return {
    next() {
      // Two draws per request, always, so that the kind chosen for request n does not depend on
      // whether earlier requests were faulted.
      const roll = random();
      const pick = random();
      if (roll >= rate) return undefined;
      return kinds[Math.min(kinds.length - 1, Math.floor(pick * kinds.length))];
    },
  };
}
