/** Argument parsing on node:util `parseArgs`, with messages a person can act on. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./io.js";

/**
 * `parseArgs` with strict checking, turning its errors into a usage error that points at `--help`.
 * An option given an empty value (`--settlement-class=`, `--out ""`) is refused: no option of
 * ocf-sync means anything by an empty string, and taking it silently would hide a shell mistake.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(command: string, config: T): ReturnType<typeof parseArgs<T>> {
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${message.replace(/\. To specify a positional argument.*$/s, "")}\nRun 'ocf-sync ${command} --help' for the options.`);
  }
  for (const [name, value] of Object.entries(parsed.values as Record<string, unknown>)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === "string" && v.trim() === "")) {
      throw new UsageError(`--${name} needs a value, got an empty one\nRun 'ocf-sync ${command} --help' for the options.`);
    }
  }
  return parsed;
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
