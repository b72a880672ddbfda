/**
 * The `ocf-sync` command line: argument parsing and printing only. Every command calls the library.
 */
import { readFileSync } from "node:fs";
import { isOcfSyncError } from "../errors.js";
import { demoCommand } from "./commands/demo.js";
import { exportCommand } from "./commands/export.js";
import { pullCommand } from "./commands/pull.js";
import { reconcileCommand } from "./commands/reconcile.js";
import { serveSamplesCommand } from "./commands/serve-samples.js";
import { syncCommand } from "./commands/sync.js";
import { validateCommand } from "./commands/validate.js";
import { UsageError, writeLine, type CliIo } from "./io.js";

const COMMANDS: Record<string, { summary: string; run: (argv: readonly string[], io: CliIo) => Promise<number> }> = {
  demo: { summary: "export every sample issuer of the embedded sample API to ./out and validate it", run: demoCommand },
  export: { summary: "pull, map, validate and write one OCF 1.2.0 package per issuer", run: exportCommand },
  pull: { summary: "pull awards and units of issuers as NDJSON (a raw backup)", run: pullCommand },
  reconcile: { summary: "prove that source and OCF numbers match (or two OCF packages)", run: reconcileCommand },
  "serve-samples": { summary: "serve the embedded sample API on 127.0.0.1", run: serveSamplesCommand },
  sync: { summary: "keep OCF packages current, pulling only what changed since the last run", run: syncCommand },
  validate: { summary: "check an OCF package (folder or .ocf.zip) and report every problem", run: validateCommand },
};

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return `ocf-sync ${packageVersion()}: restricted stock awards and units to Open Cap Table Format 1.2.0

Usage: ocf-sync <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  .join("\n")}

Run 'ocf-sync <command> --help' for a command's options and examples.

Examples:
  ocf-sync demo
  ocf-sync serve-samples --port 4010 &
  ocf-sync export --base-url http://127.0.0.1:4010 --issuer 7 --issuer acme-robotics --out out --zip
  ocf-sync validate out/7.ocf.zip
  ocf-sync pull --base-url http://127.0.0.1:4010 --issuer 7 --out 7.ndjson`;
}

/** Runs the CLI with `argv` (without `node` and the script) and returns the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    writeLine(io.stdout, mainHelp());
    return command === undefined ? 2 : 0;
  }
  if (command === "--version" || command === "-v") {
    writeLine(io.stdout, packageVersion());
    return 0;
  }
  const entry = COMMANDS[command];
  if (entry === undefined) {
    writeLine(io.stderr, `ocf-sync: unknown command ${JSON.stringify(command)}. Commands: ${Object.keys(COMMANDS).join(", ")}.`);
    writeLine(io.stderr, "Run 'ocf-sync --help' for usage.");
    return 2;
  }
  try {
    return await entry.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      writeLine(io.stderr, `ocf-sync ${command}: ${error.message}`);
      return 2;
    }
    if (isOcfSyncError(error)) {
      writeLine(io.stderr, `ocf-sync ${command}: ${error.message} [${error.code}]`);
      return 1;
    }
    throw error;
  }
}
