/**
 * `describe` for suites behind a gate (see `gates.ts`): they run when what they need is there; else
 * they are registered as skipped (without running their body, which may read what is missing) and
 * tagged so that `test/setup/skipped-suites-reporter.ts` prints one line for them; when the
 * environment demands them, the file fails instead.
 */
import { describe, it } from "vitest";
import { gateFailure, type Gate } from "./gates.js";

declare module "vitest" {
  interface TaskMeta {
    /** The gate a skipped suite was waiting for. */
    gate?: string;
  }
}

export function describeGated(gate: Gate, name: string, body: () => void): void {
  const failure = gateFailure(gate);
  if (failure !== undefined) throw new Error(failure);
  if (gate.found !== undefined) {
    describe(name, body);
    return;
  }
  describe(name, { skip: true, meta: { gate: gate.name } }, () => {
    it(`skipped: ${gate.missing}`, () => {});
  });
}
