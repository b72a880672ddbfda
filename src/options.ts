/**
 * Checks of the options a library user passes. From JavaScript any value can come: a value the types
 * rule out is refused with a `TypeError` naming the function, the option and the value, rather than
 * used as something else (an `onInvalid` typo quarantining records, an empty `outDir` writing into the
 * working folder, a negative overlap skipping records). An option left out (`undefined`) is not checked.
 */
import { describeValue } from "./errors.js";

/** The error for option `name` of `fn`: it must be `expected`, and `value` was given. */
export function optionError(fn: string, name: string, expected: string, value: unknown): TypeError {
  const shown = value === undefined ? "none" : describeValue(value);
  return new TypeError(`${fn}: options.${name} must be ${expected}, got ${shown}`);
}

/** `value` must be a path: a non-empty string (an empty one would be the working folder). */
export function checkPath(fn: string, name: string, value: unknown): void {
  if (typeof value !== "string" || value === "") throw optionError(fn, name, "a path (a non-empty string)", value);
}

/** `value`, when given, must be one of `allowed`. */
export function checkOneOf(fn: string, name: string, value: unknown, allowed: readonly unknown[]): void {
  if (value === undefined || allowed.includes(value)) return;
  const listed = allowed.map((a) => describeValue(a));
  throw optionError(fn, name, listed.length === 1 ? (listed[0] ?? "") : `${listed.slice(0, -1).join(", ")} or ${listed.at(-1) ?? ""}`, value);
}

/** `value`, when given, must be a whole number of at least `min`. */
export function checkWholeNumber(fn: string, name: string, value: unknown, min: number): void {
  if (value === undefined || (Number.isSafeInteger(value) && (value as number) >= min)) return;
  throw optionError(fn, name, `a whole number of at least ${min}`, value);
}

/** `value`, when given, must be a number of at least `min` (`Infinity` allowed only when `infinite`). */
export function checkNumber(fn: string, name: string, value: unknown, min: number, options: { infinite?: boolean } = {}): void {
  if (value === undefined) return;
  if (typeof value === "number" && value >= min && (Number.isFinite(value) || (options.infinite === true && value === Number.POSITIVE_INFINITY))) return;
  throw optionError(fn, name, `a number of at least ${min}`, value);
}

/**
 * Refuses a key of `options` that is not one of `known`: from JavaScript, a misspelt option
 * (`outdir`, `concurency`) would otherwise be ignored without a word. Names the option it resembles.
 */
export function checkKnownKeys(fn: string, options: object, known: ReadonlySet<string>): void {
  for (const key of Object.keys(options)) {
    if (known.has(key)) continue;
    const like = [...known].find((k) => k.toLowerCase() === key.toLowerCase());
    throw new TypeError(`${fn}: unknown option ${describeValue(key)}${like === undefined ? "" : ` (did you mean ${describeValue(like)}?)`}`);
  }
}

/**
 * The keys of the options type `T`, as a set for {@link checkKnownKeys}. The compiler checks that
 * the list names every key of `T` (and nothing else), so that a new option is never refused.
 */
export function optionKeys<T>(): <const K extends readonly (keyof T & string)[]>(
  keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, K[number]> }),
) => ReadonlySet<string> {
  return (keys) => new Set(keys);
}
