/** Suites that drive a real Chromium (see `gates.ts` for where it is looked for). */
import { describeGated } from "./gate.js";
import { chromiumGate } from "./gates.js";

const GATE = chromiumGate();

/** `describe` for suites that need Chromium: skipped with one printed line when there is none. */
export function describeWithChromium(name: string, body: () => void): void {
  describeGated(GATE, name, body);
}

/** The Chromium executable; only inside `describeWithChromium`. */
export function chromiumPath(): string {
  if (GATE.found === undefined) throw new Error(`no Chromium: ${GATE.missing}`);
  return GATE.found;
}
