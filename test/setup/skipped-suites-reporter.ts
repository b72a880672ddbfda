/**
 * Prints, at the end of a run, one line per gate whose suites were skipped (see
 * `test/helpers/gate.ts`): which suites, why, and how to run them. Nothing when none was skipped.
 */
import { relative } from "node:path";
import type { Reporter, TestModule, Vitest } from "vitest/node";
import { allGates } from "../helpers/gates.js";

export default class SkippedSuitesReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    // gate -> file -> names of its skipped suites (a file runs once per project: names are deduplicated)
    const skipped = new Map<string, Map<string, Set<string>>>();
    for (const module of testModules) {
      for (const suite of module.children.allSuites()) {
        const gate = suite.meta().gate;
        if (gate === undefined || suite.state() !== "skipped") continue;
        const files = skipped.get(gate) ?? new Map<string, Set<string>>();
        const file = relative(this.vitest?.config.root ?? process.cwd(), module.moduleId);
        files.set(file, (files.get(file) ?? new Set<string>()).add(suite.fullName));
        skipped.set(gate, files);
      }
    }
    for (const gate of allGates()) {
      const files = skipped.get(gate.name);
      if (files === undefined) continue;
      const suites = [...files.values()].reduce((n, names) => n + names.size, 0);
      const list = [...files].sort(([a], [b]) => a.localeCompare(b)).map(([file, names]) => (names.size === 1 ? file : `${file} (${names.size})`));
      const line = `SKIPPED ${suites} ${gate.name} suite${suites === 1 ? "" : "s"} (${gate.missing}) in ${list.join(", ")}. ${gate.howToRun}`;
      if (this.vitest === undefined) process.stdout.write(`${line}\n`);
      else this.vitest.logger.log(line);
    }
  }
}
