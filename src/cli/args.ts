/** Argument parsing on node:util `parseArgs`, with messages a person can act on. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./io.js";

/** `parseArgs` with strict checking, turning its errors into a usage error that points at `--help`. */
export function parseCommandArgs<T extends ParseArgsConfig>(command: string, config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${message.replace(/\. To specify a positional argument.*$/s, "")}\nRun 'ocf-sync ${command} --help' for the options.`);
  }
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

/** A fraction from 0 to 1, or a usage error. */
export function parseFraction(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(text)) {
    throw new UsageError(`--${option} takes a fraction from 0 to 1 (for example 0.2), got ${JSON.stringify(text)}`);
  }
  return Number(text);
}
