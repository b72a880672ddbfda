/**
 * docs/errors.md, the page of every error code, made from src/error-codes.ts (each code, its section
 * and its doc comment, read by the TypeScript parser) and from the CLI's exit-status rules
 * (src/cli/run-record.ts), so the page and the code never drift: `npm run docs:errors` writes it and
 * test/unit/error-codes.test.ts fails when the committed page differs from what this returns.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import ts from "typescript";
import { RETRY_EXIT_STATUS, RETRYABLE_JOB_CODES, TRANSIENT_ISSUER_CODES, USAGE_FAILURE_CODES } from "../src/cli/run-record.js";
import { OCF_SYNC_ERROR_CODES, type OcfSyncErrorCode } from "../src/error-codes.js";

/** The page, from the repository's root. */
export const ERRORS_PAGE = "docs/errors.md";

const SOURCE = "src/error-codes.ts";
const ROOT = resolve(import.meta.dirname, "..");

/** One code of the list as its source says it. */
export interface ErrorCodeEntry {
  code: string;
  /** The `// ...` line above the code's group: what part of ocf-sync throws it. */
  section: string;
  /** The doc comment's text on one line. */
  meaning: string;
}

/**
 * The codes of `OCF_SYNC_ERROR_CODES` in source order, with their sections and doc comments; a list it
 * spreads (`...API_ERROR_CODES`, declared in the same file) is read in its place.
 */
export function errorCodeEntries(source = readFileSync(resolve(ROOT, SOURCE), "utf8")): ErrorCodeEntry[] {
  const file = ts.createSourceFile(SOURCE, source, ts.ScriptTarget.Latest, true);
  const lists = new Map<string, ts.ArrayLiteralExpression>();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      let init = declaration.initializer;
      while (init !== undefined && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init))) init = init.expression;
      if (init !== undefined && ts.isArrayLiteralExpression(init)) lists.set(declaration.name.getText(file), init);
    }
  }
  const entries: ErrorCodeEntry[] = [];
  let section = "";
  const read = (list: ts.ArrayLiteralExpression): void => {
    for (const element of list.elements) {
      let meaning = "";
      for (const range of ts.getLeadingCommentRanges(source, element.pos) ?? []) {
        const text = source.slice(range.pos, range.end);
        if (text.startsWith("/**")) meaning = docText(text);
        else if (text.startsWith("//")) section = text.slice(2).trim();
      }
      if (ts.isSpreadElement(element)) {
        const spread = lists.get(element.expression.getText(file));
        if (spread === undefined) throw new Error(`${SOURCE}: ${element.getText(file)} is not a list of this file`);
        read(spread);
        continue;
      }
      if (!ts.isStringLiteral(element)) throw new Error(`${SOURCE}: ${element.getText(file)} is not a string literal`);
      if (meaning === "") throw new Error(`${SOURCE}: ${element.text} has no doc comment`);
      entries.push({ code: element.text, section, meaning });
    }
  };
  const all = lists.get("OCF_SYNC_ERROR_CODES");
  if (all === undefined) throw new Error(`${SOURCE} declares no OCF_SYNC_ERROR_CODES array`);
  read(all);
  return entries;
}

/** `/** A, B. *\/` → `A, B.` (on one line). */
function docText(comment: string): string {
  return comment
    .replace(/^\/\*\*|\*\/$/g, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\*?\s?/, "").trim())
    .filter((line) => line !== "")
    .join(" ");
}

/**
 * Codes the CLI turns into a usage error (exit status 2) where the command line caused them: the file
 * that does so, the text by which it tells the error, and what in the command line ("always": wherever
 * the CLI meets it). test/unit/error-codes.test.ts checks that each file still makes a `UsageError` and
 * holds that text.
 */
export const USAGE_ERRORS_OF_ARGUMENTS: Partial<Record<OcfSyncErrorCode, { file: string; made: string; argument: string }>> = {
  FILE_SYSTEM_ERROR: { file: "src/cli/io.ts", made: "isFileSystemError(error) ? new UsageError(", argument: "a path given as an argument (`--out`, `--summary`, …)" },
  SHARD_INVALID: { file: "src/cli/shard-flags.ts", made: "error.code === SHARD_INVALID) throw new UsageError(", argument: "always" },
  S3_CLIENT_MISSING: { file: "src/cli/s3-location.ts", made: "error instanceof S3ClientMissingError ? new UsageError(", argument: "always" },
  SAMPLE_DATA_INVALID: { file: "src/cli/commands/serve-samples.ts", made: "error.code === \"SAMPLE_DATA_INVALID\") throw new UsageError(", argument: "the files of `serve-samples --data`" },
};

/**
 * The CLI's exit status when a command fails with `code`, in words. The rules are those of
 * src/cli/run-record.ts and src/cli/main.ts, and the usage errors above; what they decide by more than
 * the code (a network error that can never work, an object store's HTTP status) is said here as they say it.
 */
export function exitStatusOf(code: OcfSyncErrorCode): string {
  if (code === "USAGE_ERROR" || USAGE_FAILURE_CODES.has(code)) return "2";
  const usage = USAGE_ERRORS_OF_ARGUMENTS[code];
  if (usage !== undefined) return usage.argument === "always" ? "2" : `2 for ${usage.argument}, else 1`;
  if (code === "INTERRUPTED") return "130 (SIGINT), 143 (SIGTERM)";
  // src/cli/main.ts: a failure of the command that is no typed error nor a system error is a bug.
  if (code === "UNEXPECTED") return "1 for an issuer's failure; 70 for a bug that stops the command";
  if (RETRYABLE_JOB_CODES.has(code)) return `${RETRY_EXIT_STATUS}`;
  if (code === "S3_REQUEST_FAILED") return `${RETRY_EXIT_STATUS}¹ when storage was unreachable, 408, 429 or 5xx; else 1`;
  if (code === "API_NETWORK_ERROR") return `${RETRY_EXIT_STATUS}¹, or 1 for a connection that can never work (TLS to plain HTTP, a refused certificate)`;
  if (TRANSIENT_ISSUER_CODES.has(code)) return `${RETRY_EXIT_STATUS}¹`;
  return "1";
}

/** A table cell: a `|` would end it. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

/** The page. */
export function errorsPage(entries = errorCodeEntries()): string {
  const listed = entries.map((e) => e.code);
  if (listed.join() !== OCF_SYNC_ERROR_CODES.join()) throw new Error(`${SOURCE}: the parsed codes are not OCF_SYNC_ERROR_CODES`);
  const lines = [
    "<!-- Generated from src/error-codes.ts by `npm run docs:errors` (scripts/write-error-docs.ts); do not edit. -->",
    "",
    "# Error codes",
    "",
    "Every error ocf-sync throws or reports carries one of these stable codes. The code is:",
    "",
    "- `error.code` of an `OcfSyncError` (`OCF_SYNC_ERROR_CODES`, type `OcfSyncErrorCode`);",
    "- the `code` of a failed issuer in a result, a `--json` document, a JSON log line or a run record;",
    "- the `[CODE]` that ends an error line of the CLI.",
    "",
    "The exit status is the CLI's when a command ends with that failure. An issuer's failure makes the exit status",
    `1. It makes it ${RETRY_EXIT_STATUS} (retry the job) when every issuer that failed failed on a transient cause (¹).`,
    "A failure of the whole job ends with the status shown. A system error no layer named carries the system's own",
    "code (`ENOENT`, `EADDRINUSE`, …) and exit status 1. See",
    "[operations.md](operations.md#exit-statuses) for what a retry policy does with each status.",
  ];
  let section: string | undefined;
  for (const entry of entries) {
    if (entry.section !== section) {
      section = entry.section;
      lines.push("", `## ${section}`, "", "| Code | Meaning | Exit status |", "| --- | --- | --- |");
    }
    lines.push(`| \`${entry.code}\` | ${cell(entry.meaning)} | ${cell(exitStatusOf(entry.code as OcfSyncErrorCode))} |`);
  }
  return `${lines.join("\n")}\n`;
}
