/**
 * The API reference names only what a user can import. Every name a public doc comment mentions as
 * code (`Name`, `name()`, `Name.member`, or a type in `@throws {Name}`) that src/ declares at the top
 * of a module must be exported from src/index.ts; a name also declared as a member, parameter or
 * property of the same file passes (it is that field), and a word src/ declares nowhere is prose.
 * "Public" doc comments are those TypeDoc shows: of each export of src/index.ts and its members, and
 * the module comment. `{@link Name}` is TypeDoc's own check (validation.invalidLink). Every export also
 * carries one `@category` of the reference's jobs.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const CATEGORIES = ["Client", "Errors", "Source", "Mapping", "OCF", "Export", "Reconcile", "Sync", "Testing"];

/** Nodes whose name declares something (not `a.b`, whose `b` is a use). */
function declaresName(node: ts.Node): boolean {
  return (
    ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) ||
    ts.isEnumDeclaration(node) || ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isPropertySignature(node) ||
    ts.isPropertyDeclaration(node) || ts.isMethodSignature(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) ||
    ts.isSetAccessor(node) || ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node) || ts.isBindingElement(node) ||
    ts.isEnumMember(node) || ts.isTypeParameterDeclaration(node)
  );
}

function isTopLevel(node: ts.Node): boolean {
  return ts.isSourceFile(node.parent) || (ts.isVariableDeclaration(node) && ts.isSourceFile(node.parent.parent.parent));
}

function jsDocsOf(node: ts.Node): readonly ts.JSDoc[] {
  return (node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? [];
}

const programs = new Map<string, ReturnType<typeof readPublicApi>>();

/** The program of every .ts file under `root/src`, with src/index.ts's exports resolved (built once per root). */
function publicApi(root: string): ReturnType<typeof readPublicApi> {
  const known = programs.get(root) ?? readPublicApi(root);
  programs.set(root, known);
  return known;
}

function readPublicApi(root: string): { program: ts.Program; files: string[]; exports: ts.Symbol[]; checker: ts.TypeChecker } {
  const src = join(root, "src");
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((file) => file.endsWith(".ts")).map((file) => join(src, file));
  const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const index = program.getSourceFile(join(src, "index.ts"));
  const moduleSymbol = index === undefined ? undefined : checker.getSymbolAtLocation(index);
  if (moduleSymbol === undefined) throw new Error(`no module at ${join(src, "index.ts")}`);
  return { program, files, exports: checker.getExportsOfModule(moduleSymbol), checker };
}

function declarationsOf(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Node[] {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return (target.declarations ?? []).map((declaration) => (ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration));
}

/** `file:line: Name` for each name a public doc comment mentions that a user cannot import. */
function danglingReferences(root: string): string[] {
  const { program, files, exports, checker } = publicApi(root);
  const exported = new Set(exports.map((symbol) => symbol.name));
  const topLevel = new Set<string>();
  const membersOf = new Map<string, Set<string>>();
  for (const file of files) {
    const members = new Set<string>();
    const visit = (node: ts.Node): void => {
      const name = (node as { name?: ts.Node }).name;
      if (name !== undefined && ts.isIdentifier(name) && declaresName(node)) (isTopLevel(node) ? topLevel : members).add(name.text);
      ts.forEachChild(node, visit);
    };
    visit(program.getSourceFile(file)!);
    membersOf.set(file, members);
  }
  const docs = new Set<ts.JSDoc>();
  const collect = (node: ts.Node): void => {
    if (ts.isBlock(node)) return; // a function's body is not documentation
    if (ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword)) return;
    for (const doc of jsDocsOf(node)) docs.add(doc);
    ts.forEachChild(node, collect);
  };
  for (const symbol of exports) for (const declaration of declarationsOf(checker, symbol)) collect(declaration);
  const first = program.getSourceFile(join(root, "src/index.ts"))!.statements[0];
  if (first !== undefined) for (const doc of jsDocsOf(first)) docs.add(doc);
  const found = new Set<string>();
  for (const doc of docs) {
    const file = doc.getSourceFile();
    const text = doc.getText().replace(/```[\s\S]*?```/g, "");
    for (const [, code, thrown, braced] of text.matchAll(/`([^`\n]+)`|@throws\s*\{([^}\n]+)\}|\{(?:@link(?:code|plain)?\s+)?([A-Za-z_$][\w$]*)[^}\n]*\}/g)) {
      // A file name (`Manifest.ocf.json`) is not a reference, whatever a module calls its own types.
      if (code !== undefined && /\.(json|ndjson|zip|csv|html|md|ts|js)$/.test(code)) continue;
      const name = /^([A-Za-z_$][\w$]*)(?:\(\)|\.[\w$.]+)?$/.exec(code ?? thrown ?? braced ?? "")?.[1];
      if (name === undefined || !topLevel.has(name) || exported.has(name) || membersOf.get(file.fileName)?.has(name) === true) continue;
      found.add(`${relative(root, file.fileName)}:${file.getLineAndCharacterOfPosition(doc.getStart()).line + 1}: ${name}`);
    }
  }
  return [...found].sort();
}

describe("doc comments of the public API", () => {
  it("mention only names a user can import (or a member of their own file)", () => {
    expect(danglingReferences(ROOT), "export these names from src/index.ts, or say what they are in words").toEqual([]);
  });

  it("are checked by a rule that finds a thrown error class not exported and a helper named in a span, and spares a field and prose", () => {
    const root = mkdtempSync(join(tmpdir(), "doc-references-"));
    try {
      writeFileSync(join(root, "package.json"), '{ "type": "module" }');
      const src = join(root, "src");
      mkdirSync(src);
      const write = (name: string, text: string): void => writeFileSync(join(src, name), text);
      write("other.ts", "/** Counts. */\nexport function count(): number {\n  return 1;\n}\n");
      write("index.ts", 'export { load, type Options } from "./load.js";\n');
      write(
        "load.ts",
        [
          "/** Not exported. */",
          "export class IntegrityError extends Error {}",
          "function helper(): void {}",
          "/** Options; `count` is a field, `Nowhere` is prose. */",
          "export interface Options { count?: number }",
          "/**",
          " * Loads, repaired by `helper()`.",
          " * @throws {IntegrityError} when it does not match.",
          " */",
          "export function load(options: Options): void { helper(); void options; }",
        ].join("\n"),
      );
      expect(danglingReferences(root)).toEqual(["src/load.ts:6: IntegrityError", "src/load.ts:6: helper"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("API reference categories", () => {
  it("gives every export of src/index.ts one @category of the reference's jobs", () => {
    const { exports, checker } = publicApi(ROOT);
    const wrong = exports.flatMap((symbol) => {
      const categories = declarationsOf(checker, symbol)
        .flatMap((declaration) => jsDocsOf(declaration))
        .flatMap((doc) => doc.tags ?? [])
        .filter((tag) => tag.tagName.text === "category")
        .map((tag) => ts.getTextOfJSDocComment(tag.comment)?.trim() ?? "");
      return categories.length === 1 && CATEGORIES.includes(categories[0]!) ? [] : [`${symbol.name}: ${categories.join(", ") || "none"}`];
    });
    expect(wrong, `each export needs exactly one of @category ${CATEGORIES.join(", ")}`).toEqual([]);
  });
});
