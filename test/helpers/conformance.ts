/**
 * Conformance suites: the tests that compare ocf-sync with third-party artifacts (the official OCF
 * schemas and samples, the service's OpenAPI document and spec), read from the folder named by
 * `OCF_SYNC_SHARED_DIR` (by default the `shared` folder beside the project, when it exists: see `gates.ts`).
 * Every other test runs on a lone clone, with the project's own fixtures.
 *
 * The folder may be read only from inside `describeConformance` (its body or its tests): `sharedPath`
 * refuses anything else, so an own test cannot come to depend on the folder unnoticed, even on a
 * machine that has it.
 */
import { join } from "node:path";
import { expect } from "vitest";
import { describeGated } from "./gate.js";
import { conformanceGate } from "./gates.js";

const MARK = "conformance: ";
const GATE = conformanceGate();

/** How many `describeConformance` bodies are being collected right now. */
let collecting = 0;

/** `describe` for a conformance suite: titled "conformance: <name>", run only when the folder is there. */
export function describeConformance(name: string, body: () => void): void {
  describeGated(GATE, `${MARK}${name}`, () => {
    collecting += 1;
    try {
      body();
    } finally {
      collecting -= 1;
    }
  });
}

/** The path of `parts` inside the third-party folder; throws outside a conformance suite. */
export function sharedPath(...parts: string[]): string {
  const test = expect.getState().currentTestName;
  if (collecting === 0 && !(test ?? "").includes(MARK)) {
    throw new Error(
      `the third-party folder was read outside a conformance suite (${test ?? "at collection"}): ` +
        "own tests use the project's fixtures; comparisons with third-party artifacts go in describeConformance(...)",
    );
  }
  if (GATE.found === undefined) throw new Error(`a conformance suite ran without the third-party folder: ${GATE.missing}`);
  return join(GATE.found, ...parts);
}
