/**
 * One list holds every error code (src/error-codes.ts), and docs/errors.md is generated from it
 * (scripts/error-docs.ts). The compiler already refuses a code outside the list where an error is
 * made; this reads src/ as text too, so that a code given some other way (a constant, a comparison, a
 * set of the CLI's exit rules) that the list lacks fails here, and so does a listed code thrown nowhere.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ERRORS_PAGE, USAGE_ERRORS_OF_ARGUMENTS, errorCodeEntries, errorsPage } from "../../scripts/error-docs.js";
import { OCF_SYNC_ERROR_CODES } from "../../src/error-codes.js";

const ROOT = resolve(import.meta.dirname, "../..");
const LIST_FILE = "src/error-codes.ts";

/** What a code looks like: upper-case words joined by `_`. */
const CODE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$|^[A-Z]{4,}$/;
/**
 * Codes that are not ocf-sync's: the system's (`ENOENT`, `EADDRINUSE`), Node's (`ERR_MODULE_NOT_FOUND`),
 * undici's (`UND_ERR_CLOSED`), and the client's mark on a timed-out attempt, which it turns into
 * `API_TIMEOUT` before any caller sees it (src/client/transport.ts).
 */
const FOREIGN = /^(E[A-Z0-9]+|ERR_[A-Z0-9_]+|UND_ERR_[A-Z0-9_]+|OCF_SYNC_ATTEMPT_TIMEOUT)$/;
/** Lists of codes that are not errors': warnings, package problems, reconciliation differences. */
const NOT_ERROR_LISTS = /WARNING|PROBLEM|DIFFERENCE/;
/** An expression whose `.code` is an error's. */
const ERROR_VALUE = /error|failure|cause|reason/i;

/**
 * The codes the files give to errors, each with where: the first argument of `new ...Error(...)` and of
 * `super(...)` in an error class, a `code:` property of their arguments, a `code` field or parameter
 * typed with literals in an error class, a `<error>.code === "..."` comparison, what a function typed to
 * return an `...ErrorCode` returns, and the constants named `..._CODE` or `..._CODES` (not warnings',
 * problems' or differences'). A constant given as a code is read through its declaration, in any of the
 * files; a choice (`a ? "X" : "Y"`, `code ?? "X"`) gives each of its sides.
 */
function thrownCodes(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const sources = [...files].map(([path, text]) => ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true));
  const constants = new Map<string, string>();
  for (const source of sources) {
    const visit = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined) {
        const value = unwrap(node.initializer);
        if (ts.isStringLiteral(value)) constants.set(node.name.text, value.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const found = new Map<string, string[]>();
  const add = (source: ts.SourceFile, node: ts.Node, code: string | undefined): void => {
    if (code === undefined || !CODE.test(code) || FOREIGN.test(code)) return;
    const where = `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
    found.set(code, [...(found.get(code) ?? []), where]);
  };
  /** The codes an expression can be: a literal, a constant, either side of `?:`, `??` or `||`. */
  const valuesOf = (node: ts.Node): (string | undefined)[] => {
    const value = unwrap(node);
    if (ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value)) return [value.text];
    if (ts.isIdentifier(value)) return [constants.get(value.text)];
    if (ts.isConditionalExpression(value)) return [...valuesOf(value.whenTrue), ...valuesOf(value.whenFalse)];
    if (ts.isBinaryExpression(value) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(value.operatorToken.kind)) {
      return [...valuesOf(value.left), ...valuesOf(value.right)];
    }
    return [];
  };
  const addAll = (source: ts.SourceFile, node: ts.Node): void => {
    for (const code of valuesOf(node)) add(source, node, code);
  };
  const literalTypes = (source: ts.SourceFile, type: ts.TypeNode | undefined): void => {
    if (type === undefined) return;
    const visit = (node: ts.Node): void => {
      if (ts.isLiteralTypeNode(node) && ts.isStringLiteral(node.literal)) add(source, node, node.literal.text);
      ts.forEachChild(node, visit);
    };
    visit(type);
  };
  for (const source of sources) {
    const visit = (node: ts.Node): void => {
      const madeError =
        (ts.isNewExpression(node) && /Error$/.test(node.expression.getText(source))) ||
        (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword && inErrorClass(node, source));
      if (madeError) {
        const [first, ...rest] = (node as ts.NewExpression | ts.CallExpression).arguments ?? [];
        if (first !== undefined) addAll(source, first);
        for (const argument of [first, ...rest]) {
          if (argument === undefined || !ts.isObjectLiteralExpression(unwrap(argument))) continue;
          for (const property of (unwrap(argument) as ts.ObjectLiteralExpression).properties) {
            if (ts.isPropertyAssignment(property) && property.name.getText(source) === "code") addAll(source, property.initializer);
          }
        }
      }
      if (ts.isReturnStatement(node) && node.expression !== undefined) {
        const fn = ts.findAncestor(node, ts.isFunctionLike);
        if (fn?.type !== undefined && /ErrorCode$/.test(fn.type.getText(source))) addAll(source, node.expression);
      }
      if ((ts.isPropertyDeclaration(node) || ts.isParameter(node)) && node.name.getText(source) === "code" && inErrorClass(node, source)) literalTypes(source, node.type);
      if (
        ts.isBinaryExpression(node) &&
        [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(node.operatorToken.kind)
      ) {
        for (const [side, other] of [[node.left, node.right], [node.right, node.left]] as const) {
          const inner = unwrap(side);
          if (ts.isPropertyAccessExpression(inner) && inner.name.text === "code" && ERROR_VALUE.test(inner.expression.getText(source))) addAll(source, other);
        }
      }
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && /_CODES?$/.test(node.name.text) && !NOT_ERROR_LISTS.test(node.name.text) && node.initializer !== undefined) {
        const strings = (inner: ts.Node): void => {
          if (ts.isStringLiteral(inner)) add(source, inner, inner.text);
          ts.forEachChild(inner, strings);
        };
        strings(node.initializer);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** `x as T`, `x satisfies T`, `(x)`, `x!` → `x`. */
function unwrap(node: ts.Node): ts.Node {
  let inner = node;
  while (ts.isAsExpression(inner) || ts.isSatisfiesExpression(inner) || ts.isParenthesizedExpression(inner) || ts.isNonNullExpression(inner)) inner = inner.expression;
  return inner;
}

/** Whether `node` is inside a class that extends a class named `...Error`. */
function inErrorClass(node: ts.Node, source: ts.SourceFile): boolean {
  for (let at: ts.Node | undefined = node.parent; at !== undefined; at = at.parent) {
    if (ts.isClassDeclaration(at) || ts.isClassExpression(at)) {
      return (at.heritageClauses ?? []).some((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword && clause.types.some((t) => /Error$/.test(t.expression.getText(source))));
    }
  }
  return false;
}

/** Every .ts file under src/ but the list itself, by path from the root. */
function sourceFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) files.set(relative(ROOT, path), readFileSync(path, "utf8"));
    }
  };
  walk(resolve(ROOT, "src"));
  files.delete(LIST_FILE);
  return files;
}

const LISTED: readonly string[] = OCF_SYNC_ERROR_CODES;

describe("the error codes", () => {
  const thrown = thrownCodes(sourceFiles());

  it("are each listed once, in OCF_SYNC_ERROR_CODES, with a one-line meaning and a section", () => {
    const entries = errorCodeEntries();
    expect(entries.map((e) => e.code)).toEqual([...LISTED]);
    expect(new Set(LISTED).size).toBe(LISTED.length);
    for (const entry of entries) {
      expect(entry.meaning, entry.code).toMatch(/^\S.*\.$|^\S.*…$/);
      expect(entry.meaning, entry.code).not.toContain("\n");
      expect(entry.section, entry.code).not.toBe("");
    }
  });

  it("thrown anywhere in src/ are all listed", () => {
    // Enough found that the reading cannot have silently missed the files' forms.
    expect(thrown.size).toBeGreaterThan(45);
    const unlisted = [...thrown].filter(([code]) => !LISTED.includes(code)).map(([code, where]) => `${code} (${where.join(", ")})`);
    expect(unlisted).toEqual([]);
  });

  it("listed are each given somewhere in src/ (as a string in code, not only in a comment)", () => {
    const strings = new Set<string>();
    for (const [path, text] of sourceFiles()) {
      const visit = (node: ts.Node): void => {
        if (ts.isStringLiteralLike(node)) strings.add(node.text);
        ts.forEachChild(node, visit);
      };
      visit(ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true));
    }
    expect(LISTED.filter((code) => !strings.has(code))).toEqual([]);
  });

  it("are found in every form the reading claims, and a made-up one is caught", () => {
    const files = new Map([
      [
        "a.ts",
        `const NAMED = "MADE_UP_CONSTANT";
         class LocalError extends OcfSyncError {
           declare readonly code: "MADE_UP_FIELD" | "MADE_UP_FIELD_TOO";
           constructor(code: "MADE_UP_PARAMETER") { super("MADE_UP_SUPER", "m"); }
         }
         throw new OcfSyncError("MADE_UP_NEW", "message IN_CAPS");
         throw new OtherError(NAMED);
         throw new NetworkError({ code: "MADE_UP_PROPERTY", what: "x" });
         if (isOcfSyncError(error) && error.code === "MADE_UP_COMPARED") {}
         if (w.code === "NOT_AN_ERROR_CODE") {}
         const SOME_JOB_CODES = new Set(["MADE_UP_SET"]);
         function codeOf(status: number): SomeErrorCode { return status === 1 ? "MADE_UP_RETURNED" : "MADE_UP_RETURNED_TOO"; }
         throw new LocalError(details.code ?? "MADE_UP_DEFAULT");
         const MAPPING_WARNING_CODES = ["NOT_AN_ERROR_WARNING"];
         throw new UsageError("m", { code: "EADDRINUSE" });`,
      ],
    ]);
    expect([...thrownCodes(files).keys()].sort()).toEqual(
      ["MADE_UP_COMPARED", "MADE_UP_CONSTANT", "MADE_UP_DEFAULT", "MADE_UP_RETURNED", "MADE_UP_RETURNED_TOO", "MADE_UP_FIELD", "MADE_UP_FIELD_TOO", "MADE_UP_NEW", "MADE_UP_PARAMETER", "MADE_UP_PROPERTY", "MADE_UP_SET", "MADE_UP_SUPER"].sort(),
    );
  });
});

describe(ERRORS_PAGE, () => {
  it("is what src/error-codes.ts and the CLI's exit rules generate (run `npm run docs:errors`)", () => {
    expect(readFileSync(resolve(ROOT, ERRORS_PAGE), "utf8")).toBe(errorsPage());
  });

  it("names every listed code once, in a row of its table", () => {
    const rows = readFileSync(resolve(ROOT, ERRORS_PAGE), "utf8").split("\n").filter((line) => line.startsWith("| `"));
    expect(rows.map((row) => /^\| `([A-Z0-9_]+)`/.exec(row)?.[1])).toEqual([...LISTED]);
  });

  it("says exit status 2 for the codes a CLI file turns into a usage error, and that file still does", () => {
    for (const [code, { file, made }] of Object.entries(USAGE_ERRORS_OF_ARGUMENTS)) {
      const text = readFileSync(resolve(ROOT, file), "utf8");
      expect(text, `${file} makes a UsageError`).toContain("new UsageError(");
      expect(text, `${file} tells ${code} by ${made}`).toContain(made);
    }
  });

  it("is linked from the pages that discuss errors and exit statuses", () => {
    for (const page of ["docs/library.md", "docs/operations.md", "docs/cli.md"]) {
      expect(readFileSync(resolve(ROOT, page), "utf8"), page).toContain("errors.md");
    }
  });
});
