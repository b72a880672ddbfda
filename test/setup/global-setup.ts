/**
 * Runs once before any test file: a run that must not skip a gated suite (`.ci/run` sets
 * `OCF_SYNC_REQUIRE_CONFORMANCE=1` and `OCF_SYNC_REQUIRE_BROWSER=1`), or whose settings point at
 * nothing, fails here with one clear message instead of skipping.
 */
import { allGates, gateFailure } from "../helpers/gates.js";

export default function setup(): void {
  const failures = allGates().flatMap((gate) => gateFailure(gate) ?? []);
  if (failures.length > 0) throw new Error(failures.join("\n"));
}
