/**
 * The CLI loads a command's modules only when that command runs: `--version`, `--help` and usage
 * errors load none, and `validate` loads neither the HTTP client nor the mapping. Checked in a child
 * process that runs the CLI's sources (through tsx) with a module hook that records every module loaded.
 */
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { InterruptedError } from "../../../src/errors.js";
import { captureIo } from "../../helpers/capture.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../../..");

/** The project modules (paths under src/) that `runCli(argv)` loads, in a fresh process. */
async function modulesLoadedBy(argv: readonly string[]): Promise<string[]> {
  // Registers a resolve hook that prints each project module resolved, then runs the CLI's entry.
  const script = `
    import { register } from "node:module";
    const hooks = "data:text/javascript," + encodeURIComponent(\`
      export async function resolve(specifier, context, next) {
        const found = await next(specifier, context);
        if (found.url.includes("/src/")) process.stderr.write("LOADED " + found.url + "\\\\n");
        return found;
      }\`);
    register(hooks);
    const { runCli } = await import(${JSON.stringify(`${ROOT}/src/cli/main.ts`)});
    const { Writable } = await import("node:stream");
    const sink = new Writable({ write(_c, _e, done) { done(); } });
    process.exitCode = await runCli(${JSON.stringify(argv)}, { stdout: sink, stderr: sink, env: {}, cwd: process.cwd() });
  `;
  const { stderr } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT }).catch((e: { stderr: string }) => e);
  return [...stderr.matchAll(/^LOADED file:\/\/.*?\/src\/(.*)$/gm)].map((m) => m[1] ?? "");
}

describe("commands are loaded when they run", () => {
  it("--version and --help load no command", async () => {
    for (const argv of [["--version"], ["--help"], ["no-such-command"]]) {
      const loaded = await modulesLoadedBy(argv);
      expect(loaded).toContain("cli/main.ts");
      expect(loaded.filter((m) => m.startsWith("cli/commands/"))).toEqual([]);
    }
  });

  it("validate loads its command, and neither the HTTP client nor the mapping", async () => {
    const loaded = await modulesLoadedBy(["validate", "samples/ocf/7"]);
    expect(loaded).toContain("cli/commands/validate.ts");
    expect(loaded).toContain("ocf/validate-package.ts");
    expect(loaded.filter((m) => m.startsWith("cli/commands/") && m !== "cli/commands/validate.ts")).toEqual([]);
    expect(loaded.filter((m) => m.startsWith("client/create-client") || m.startsWith("mapping/map-issuer"))).toEqual([]);
  });

  it("a signal while the command loads: the command does not start, and the status is the signal's", async () => {
    // runCli runs up to the command's import, then waits for it: the signal comes while it loads.
    const controller = new AbortController();
    const io = captureIo(tmpdir(), {}, controller.signal);
    const status = runCli(["serve-samples", "--port", "0"], io);
    controller.abort(new InterruptedError("SIGINT"));
    expect(await status).toBe(130);
    // Not started: no server listening, nothing said after the signal's one line (printed by the handler).
    expect(io.stdout.text).toBe("");
    expect(io.stderr.text).toBe("");
  });
});
