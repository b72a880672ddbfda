/** Argument parsing on node:util `parseArgs`, with messages a person can act on. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { closest } from "../closest.js";
import { COMMAND_OPTIONS, type CommandName } from "./command-options.js";
import { UsageError } from "./io.js";

/**
 * `parseArgs` with strict checking, turning its errors into a usage error (which the error boundary
 * closes with where the help is: see `usageErrorMessage`).
 * An option given an empty value (`--settlement-class=`, `--out ""`) is refused: no option of
 * ocf-sync means anything by an empty string, and taking it silently would hide a shell mistake.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(command: CommandName, config: T): ReturnType<typeof parseArgs<T>> {
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${explainParseError(message, command, Object.keys(config.options ?? {}), config.args ?? [])}`);
  }
  for (const [name, value] of Object.entries(parsed.values as Record<string, unknown>)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === "string" && v.trim() === "")) {
      throw new UsageError(`--${name} needs a value, got an empty one`);
    }
  }
  return parsed;
}

/**
 * node's `parseArgs` message in words that help: an unknown option with the other commands that take
 * it (given to the wrong command, it is no typo) and the closest known one; an
 * option followed by another option (its value forgotten, or empty in `--token $UNSET`) or by a
 * negative number, which `parseArgs` calls "ambiguous" and answers with advice (`--x=-5`) that only
 * leads to the next refusal: no option of ocf-sync takes a negative number.
 */
function explainParseError(message: string, command: CommandName, known: readonly string[], args: readonly string[]): string {
  const unknown = /^Unknown option '(--?)([^']*)'/.exec(message);
  if (unknown !== null) {
    const name = unknown[2] ?? "";
    const owners = unknown[1] === "--" ? commandsTaking(name) : [];
    const guess = closest(name, known);
    const positional = POSITIONAL_ARGUMENTS[command];
    const unnamed = unknown[1] === "--" && positional?.names.includes(name.toLowerCase()) === true ? positional.hint : undefined;
    return (
      (message.split(". ")[0] ?? message) +
      (unnamed === undefined ? "" : `: ${unnamed}`) +
      (owners.length === 0 ? "" : `: --${name} is an option of ${owners.join(", ")}; not of ${command}`) +
      (guess === undefined || unnamed !== undefined ? "" : `; did you mean --${guess}?`)
    );
  }
  const dashed = /^Option '--([^' ]+)' argument is ambiguous/.exec(message);
  if (dashed !== null) {
    const option = `--${dashed[1] ?? ""}`;
    const next = args[args.indexOf(option) + 1] ?? "";
    // The next argument is named only when it is one of the command's options, never else (it may be a secret).
    return /^-\d/.test(next)
      ? `${option} needs a value; a value that starts with "-" (a negative number) is not one any option takes`
      : `${option} needs a value, but the next argument is ${known.some((name) => `--${name}` === next) ? `the option ${next}` : "an option"}`;
  }
  return message.replace(/\. To specify a positional argument.*$/s, "");
}

/**
 * The arguments a command takes without an option name, and the names a person may try to give them
 * as options (`reconcile --package out/7`): said so, rather than a guess at another option.
 */
const POSITIONAL_ARGUMENTS: Partial<Record<CommandName, { names: readonly string[]; hint: string }>> = {
  validate: { names: ["path", "package", "file", "folder", "zip", "in", "input"], hint: "the package is given without an option name: ocf-sync validate PATH" },
  reconcile: { names: ["package", "path", "ocf", "folder", "zip"], hint: "the package is given without an option name, e.g. ocf-sync reconcile --source FILE PACKAGE" },
};

/** The commands that take the long option `--name`, in the order of the table. */
function commandsTaking(name: string): CommandName[] {
  return (Object.keys(COMMAND_OPTIONS) as CommandName[]).filter((command) => Object.hasOwn(COMMAND_OPTIONS[command], name));
}

/**
 * The value the arguments, as typed, give the option `--name` (`--name V` or `--name=V`; the last one
 * counts, as in `parseArgs`; nothing after `--`): for what must be known before, or without, parsing
 * them, such as how to report that they cannot be parsed.
 */
export function typedValue(argv: readonly string[], name: string): string | undefined {
  return typedOccurrences(argv, name).at(-1)?.value;
}

/** Whether the arguments, as typed, give the option `--name` (before `--`): see `typedValue`. */
export function typedFlag(argv: readonly string[], name: string): boolean {
  return typedOccurrences(argv, name).length > 0;
}

function typedOccurrences(argv: readonly string[], name: string): { value: string | undefined }[] {
  const found: { value: string | undefined }[] = [];
  for (const [i, arg] of argv.entries()) {
    if (arg === "--") break;
    if (arg === `--${name}`) found.push({ value: argv[i + 1] });
    else if (arg.startsWith(`--${name}=`)) found.push({ value: arg.slice(name.length + 3) });
  }
  return found;
}

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration such as `90s`, `15m`, `2h` or `500ms` (a unit is required: a bare number is ambiguous), in
 * milliseconds; or a usage error naming the option.
 */
export function parseDuration(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  const ms = m === null ? Number.NaN : Math.round(Number(m[1]) * (DURATION_UNITS[m[2] ?? ""] ?? Number.NaN));
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > 7 * 24 * 3_600_000) {
    throw new UsageError(`--${option} takes a duration from 1ms to 168h with its unit, such as 90s, 15m or 2h; got ${JSON.stringify(text)}`);
  }
  return ms;
}

/**
 * A span in whole seconds: a bare whole number of seconds (`300`), or a duration with its unit as
 * `parseDuration` takes it (`90s`, `5m`, `1h`); or a usage error naming the option.
 */
export function parseSeconds(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return parseInteger(option, trimmed, { min: 0, max: 7 * 24 * 3600 });
  const m = /^(\d+(?:\.\d+)?)(s|m|h)$/.exec(trimmed);
  const seconds = m === null ? Number.NaN : Number(m[1]) * ((DURATION_UNITS[m[2] ?? ""] ?? Number.NaN) / 1000);
  if (!Number.isSafeInteger(seconds) || seconds > 7 * 24 * 3600) {
    throw new UsageError(`--${option} takes whole seconds (300) or a duration with its unit (90s, 5m, 1h), up to 168h; got ${JSON.stringify(text)}`);
  }
  return seconds;
}

/** A whole number within bounds, or a usage error naming the option. */
export function parseInteger(option: string, text: string | undefined, bounds: { min: number; max?: number }): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`--${option} takes a whole number, got ${JSON.stringify(text)}`);
  const value = Number.parseInt(text, 10);
  if (value < bounds.min || (bounds.max !== undefined && value > bounds.max)) {
    throw new UsageError(`--${option} must be between ${bounds.min} and ${bounds.max ?? "∞"}, got ${value}`);
  }
  return value;
}

/** A number > 0 written in decimals (`10`, `2.5`, `0.25`), at most `max`, or a usage error naming the option. */
export function parsePositiveNumber(option: string, text: string | undefined, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = /^(\d+(\.\d+)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  if (!(value > 0 && value <= max)) throw new UsageError(`--${option} takes a number above 0 and up to ${max} (fractions too, such as 2.5 or 0.25), got ${JSON.stringify(text)}`);
  return value;
}

/** A fraction from 0 to 1, or a usage error. */
export function parseFraction(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(text)) {
    throw new UsageError(`--${option} takes a fraction from 0 to 1 (for example 0.2), got ${JSON.stringify(text)}`);
  }
  return Number(text);
}
