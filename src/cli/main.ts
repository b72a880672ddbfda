/**
 * The `ocf-sync` command line: argument parsing and printing only. Every command calls the library.
 */
import { ocfSyncVersion } from "../version.js";
import { Writable } from "node:stream";
import { createRedactor, urlSecrets, type Redactor } from "../redaction.js";
import { errnoOf, fileSystemError, FileSystemError, isFileSystemError, isInterruptedError, isOcfSyncError, terminalSafe } from "../errors.js";
import { closest } from "../closest.js";
import { typedValue } from "./args.js";
import { UNEXPECTED_ERROR_CODE, USAGE_ERROR_CODE, UsageError, usageErrorMessage, writeLine, type CliIo } from "./io.js";
import { createReporter } from "./progress.js";
import { jobFailureExitStatus, USAGE_FAILURE_CODES } from "./run-record.js";

type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

/**
 * The commands, each loaded only when it runs: `--help`, `--version` and a usage error load none, and
 * a command loads only what it uses (`validate` neither the HTTP client nor the mapping). Loading all
 * of them took about 0.4 s of every run.
 */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  demo: { summary: "export every sample issuer of the embedded sample API to ./out and validate it", load: async () => (await import("./commands/demo.js")).demoCommand },
  export: { summary: "pull, map, validate and write one OCF 1.2.0 package per issuer", load: async () => (await import("./commands/export.js")).exportCommand },
  pull: { summary: "pull awards and units of issuers as NDJSON (a raw backup)", load: async () => (await import("./commands/pull.js")).pullCommand },
  reconcile: { summary: "prove that source and OCF numbers match (or two OCF packages)", load: async () => (await import("./commands/reconcile.js")).reconcileCommand },
  "serve-samples": { summary: "serve the embedded sample API on 127.0.0.1", load: async () => (await import("./commands/serve-samples.js")).serveSamplesCommand },
  summarize: { summary: "merge the run records (--summary) of several runs or shards into one report", load: async () => (await import("./commands/summarize.js")).summarizeCommand },
  sync: { summary: "keep OCF packages current, pulling only what changed since the last run", load: async () => (await import("./commands/sync.js")).syncCommand },
  validate: { summary: "check an OCF package (folder or .ocf.zip) and report every problem", load: async () => (await import("./commands/validate.js")).validateCommand },
};

/** Every command's name and its one-line summary, in the order of the main help (for docs/commands/). */
export function commandSummaries(): ReadonlyArray<{ name: string; summary: string }> {
  return Object.entries(COMMANDS).map(([name, { summary }]) => ({ name, summary }));
}

function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return `ocf-sync ${ocfSyncVersion()}: restricted stock awards and units to Open Cap Table Format 1.2.0

${USAGE}

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  .join("\n")}

Run 'ocf-sync <command> --help' (or 'ocf-sync help <command>') for a command's options and examples,
'ocf-sync --version' for the version. Options go after the command; --log MODE may come before it.

Examples:
  ocf-sync demo
  ocf-sync serve-samples --port 4010 &
  ocf-sync export --base-url http://127.0.0.1:4010 --issuer 7 --issuer acme-robotics --out out --zip --as-of 2025-06-30
  ocf-sync validate out/7.ocf.zip
  ocf-sync pull --base-url http://127.0.0.1:4010 --issuer 7 --out 7.ndjson`;
}

const USAGE = "Usage: ocf-sync <command> [options]";

/** The line that closes a mistake in the command: the commands there are, and where the help is. */
function commandsLine(): string {
  return `Commands: ${Object.keys(COMMANDS).join(", ")}. Run 'ocf-sync --help' for usage.`;
}

/**
 * Runs the CLI with `argv` (without `node` and the script) and returns the exit status. This is the
 * one error boundary of the commands:
 *
 * - 0 success; 1 the job failed in part or whole (an issuer failed, the API or the disk refused, the
 *   deadline passed), with a clear line and its code; 2 a usage error or an argument that cannot be
 *   used (a bad flag, a path that is not writable, unusable input);
 * - 130 or 143 after SIGINT or SIGTERM (`io.signal` fired with an `InterruptedError`): the one line
 *   was printed when the signal came, and nothing more is (stderr is muted from then on);
 * - 70, with a stack trace, only for what is a bug in ocf-sync.
 *
 * Every line on stderr passes through redaction of the secrets the command was given (flags and
 * environment) and of the tokens minted during the run, in every form a `Redactor` finds, whatever
 * part of the code printed it; so does every `--json` document.
 */
export async function runCli(typed: readonly string[], io: CliIo): Promise<number> {
  const stdout = guardStdout(io);
  try {
    const code = await runCommand(typed, { ...io, signal: stdout.signal }, () => stdout.failure() !== undefined);
    await stdout.flushed();
    const interrupted = interruptedExitCode(io.signal);
    const failure = stdout.failure();
    if (interrupted !== undefined || failure === undefined) return interrupted ?? code;
    if (failure.errno === "EPIPE") return 141;
    reportLine(io, typed, `ocf-sync${firstWord(typed)}: ${failure.message}`, failure.code);
    return 1;
  } finally {
    stdout.dispose();
  }
}

/** ` COMMAND` for the line of a failure, as typed (after any global options), or nothing. */
function firstWord(typed: readonly string[]): string {
  const { first } = splitGlobalOptions(typed);
  return first !== undefined && Object.hasOwn(COMMANDS, first) ? ` ${first}` : "";
}

/** The path a failure to write standard output names. */
const STANDARD_OUTPUT = "standard output";

/**
 * Standard output that fails (a full disk, `> /dev/full`; a reader gone, `| head -1`): the first
 * error stops the command through the signal it is given, as an interrupt does, so that it cleans up
 * as after a failure (a pull's part files, a temporary package), and nothing more is printed; the run
 * then ends with one line on standard error and status 1, or quietly with 141 for a reader gone
 * (EPIPE), as SIGPIPE ends other tools. Without this, the error was an uncaught exception.
 */
function guardStdout(io: CliIo): { signal: AbortSignal; failure(): FileSystemError | undefined; flushed(): Promise<void>; dispose(): void } {
  const stopped = new AbortController();
  let failure: FileSystemError | undefined;
  const fail = (error: unknown): void => {
    if (failure !== undefined) return;
    const errno = errnoOf(error);
    const why = fileSystemError("write to", STANDARD_OUTPUT, error);
    failure = isFileSystemError(why) ? why : new FileSystemError("write to", STANDARD_OUTPUT, error instanceof Error ? error.message : String(error), { errno, cause: error });
    stopped.abort(failure);
  };
  io.stdout.on("error", fail);
  return {
    signal: io.signal === undefined ? stopped.signal : AbortSignal.any([io.signal, stopped.signal]),
    failure: () => failure,
    // Every write handed to the system (or failed): an error comes as the callback of the last one.
    flushed: () =>
      new Promise<void>((resolveFlushed) => {
        io.stdout.write("", (error?: Error | null) => {
          if (error !== undefined && error !== null) fail(error);
          resolveFlushed();
        });
      }),
    dispose: () => {
      // A failure after the command (none is written then) must not be an uncaught error either.
      io.stdout.removeListener("error", fail);
      io.stdout.on("error", () => {});
    },
  };
}

async function runCommand(typed: readonly string[], io: CliIo, stdoutFailed: () => boolean): Promise<number> {
  const { globals, first, afterFirst } = splitGlobalOptions(typed);
  // `ocf-sync help export` is `ocf-sync export --help`.
  const [command, ...given] = first === "help" && afterFirst[0] !== undefined ? [afterFirst[0], "--help"] : [first, ...afterFirst];
  // The global options typed before the command go after it, where the command reads them.
  const rest = [...globals, ...given];
  const argv = command === undefined ? globals : [command, ...rest];
  if (command === undefined) {
    // No command is a usage error like any other: a short usage on standard error, status 2. The
    // whole help is what --help asks for, on standard output with status 0.
    reportLine(io, argv, `ocf-sync: no command given\n${USAGE}\n${commandsLine()}`, undefined);
    return 2;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    writeLine(io.stdout, mainHelp());
    return 0;
  }
  if (command === "--version" || command === "-v") {
    writeLine(io.stdout, ocfSyncVersion());
    return 0;
  }
  const entry = COMMANDS[command];
  if (entry === undefined) {
    const guess = closest(command.replace(/^-+/, ""), Object.keys(COMMANDS));
    const advice = guess !== undefined ? `; did you mean ${guess}?` : command.startsWith("-") ? `: options go after the command (${USAGE.replace("Usage: ", "")})` : "";
    reportLine(io, argv, `ocf-sync: unknown command ${JSON.stringify(command)}${advice}\n${commandsLine()}`, undefined);
    return 2;
  }
  const redactor = createRedactor(secretsOf(rest, io.env));
  const guarded = guardStderr({ ...io, redactor }, redactor, stdoutFailed);
  try {
    const run = await entry.load();
    // A signal while the command loaded: it does not start (a server would listen, an export begin,
    // after the signal's line said the run is stopping).
    const stopped = interruptedExitCode(io.signal);
    if (stopped !== undefined) return stopped;
    const code = await run(rest, guarded.io);
    return interruptedExitCode(io.signal) ?? code;
  } catch (error) {
    return interruptedExitCode(io.signal) ?? reportFailure(command, error, guarded.io, rest);
  } finally {
    guarded.dispose();
  }
}

/**
 * The global options typed before the command (`ocf-sync --log json export ...`), the first argument
 * after them (the command) and the rest: `--log VALUE` and `--log=VALUE`, as docs/cli.md says `--log
 * json` is read anywhere. They are handed to the command after its name; a command that takes no
 * `--log` then says so, as it would had they been typed after it.
 */
export function splitGlobalOptions(argv: readonly string[]): { globals: string[]; first: string | undefined; afterFirst: string[] } {
  const globals: string[] = [];
  let i = 0;
  for (;;) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === "--log" && value !== undefined && !value.startsWith("-")) {
      globals.push(arg, value);
      i += 2;
    } else if (arg?.startsWith("--log=") === true) {
      globals.push(arg);
      i += 1;
    } else break;
  }
  const [first, ...afterFirst] = argv.slice(i);
  return { globals, first, afterFirst };
}

/** 130 or 143 when `signal` fired for SIGINT or SIGTERM. */
function interruptedExitCode(signal: AbortSignal | undefined): number | undefined {
  const reason: unknown = signal?.reason;
  return signal?.aborted === true && isInterruptedError(reason) ? reason.exitCode : undefined;
}

/**
 * Prints why a command failed: one JSON log line (as `--log json` writes them, with the code) when the
 * arguments ask for `--log json`, else a line of text ending in the code in brackets (a usage error
 * without a code has none). The arguments are read as typed, since the error may be that they cannot
 * be parsed.
 */
function reportLine(io: CliIo, argv: readonly string[], message: string, code: string | undefined): void {
  if (typedValue(argv, "log") === "json") {
    createReporter(io.stderr, "json", { env: io.env }).log("error", message, { code: code ?? USAGE_ERROR_CODE });
  } else {
    writeLine(io.stderr, linesSafe(`${message}${code === undefined ? "" : ` [${code}]`}`));
  }
}

/** `text` with the control characters of each of its lines escaped (`terminalSafe`), its own line breaks kept. */
function linesSafe(text: string): string {
  return text.split("\n").map(terminalSafe).join("\n");
}

/** Prints why the command failed and returns its exit status (see `runCli`). */
function reportFailure(command: string, error: unknown, io: CliIo, argv: readonly string[]): number {
  if (error instanceof UsageError) {
    reportLine(io, argv, `ocf-sync ${command}: ${usageErrorMessage(command, error)}`, error.code);
    return 2;
  }
  if (isOcfSyncError(error)) {
    reportLine(io, argv, `ocf-sync ${command}: ${terminalSafe(error.message)}`, error.code);
    // A client option the flags gave that the client refuses is a usage error; a job that could not
    // run for now (a lock held, the deadline) ends with the status that says "retry it".
    return USAGE_FAILURE_CODES.has(error.code) ? 2 : jobFailureExitStatus(error, false);
  }
  const errno = errnoOf(error);
  if (errno !== undefined) {
    // A system failure (a file, a port in use) that no layer turned into a typed error: still the user's to fix, not a bug.
    reportLine(io, argv, `ocf-sync ${command}: ${terminalSafe(error instanceof Error ? error.message : String(error))}`, errno);
    return 1;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (typedValue(argv, "log") === "json") {
    reportLine(io, argv, `ocf-sync ${command}: unexpected error (a bug in ocf-sync; please report it): ${detail}`, UNEXPECTED_ERROR_CODE);
  } else {
    writeLine(io.stderr, `ocf-sync ${command}: unexpected error (a bug in ocf-sync; please report it with what follows):\n${linesSafe(detail)}`);
  }
  return 70;
}

/**
 * The secrets a command was given: tokens and client secrets, and what a token URL or a base URL
 * holds in its query or user info (`urlSecrets`), from flags and the environment.
 */
function secretsOf(argv: readonly string[], env: CliIo["env"]): string[] {
  const secrets = [env.OCF_SYNC_TOKEN, env.OCF_SYNC_CLIENT_SECRET];
  const urls = [env.OCF_SYNC_TOKEN_URL, env.OCF_SYNC_BASE_URL];
  argv.forEach((arg, i) => {
    for (const [flag, found] of [["--token", secrets], ["--client-secret", secrets], ["--token-url", urls], ["--base-url", urls]] as const) {
      // A next argument that starts with "-" is an option (parseArgs takes no such value after a space).
      if (arg === flag && argv[i + 1]?.startsWith("-") !== true) found.push(argv[i + 1]);
      else if (arg.startsWith(`${flag}=`)) found.push(arg.slice(flag.length + 1));
    }
  });
  const urlParts = urls.flatMap((url) => (url === undefined ? [] : urlSecrets(url)));
  return [...secrets, ...urlParts].filter((s): s is string => s !== undefined && s !== "");
}

/**
 * `io` with a stderr that redacts with `redactor` every write and falls silent once `io.signal` fires
 * for a signal (the signal's one line has been printed by then) or for standard output that failed
 * (whose one line `runCli` prints at the end).
 */
function guardStderr(io: CliIo, redactor: Redactor, stdoutFailed: () => boolean): { io: CliIo; dispose(): void } {
  let muted = false;
  const target = io.stderr;
  const stderr = new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, _encoding, callback): void {
      if (!muted) {
        const text = chunk.toString();
        target.write(redactor.redact(text));
      }
      callback();
    },
  });
  Object.defineProperty(stderr, "isTTY", { get: () => target.isTTY });
  Object.defineProperty(stderr, "columns", { get: () => target.columns });
  const onAbort = (): void => {
    if (isInterruptedError(io.signal?.reason) || stdoutFailed()) muted = true;
  };
  if (io.signal?.aborted === true) onAbort();
  else io.signal?.addEventListener("abort", onAbort, { once: true });
  return { io: { ...io, stderr }, dispose: () => io.signal?.removeEventListener("abort", onAbort) };
}
