/**
 * src/ocf/types-match.ts proves each public OCF type (src/ocf/types.ts) equal to what the runtime
 * schemas infer, at type-check time. This test keeps that proof whole: one entry for every export of
 * types.ts, each comparing the type it is named after, and the file kept out of the build.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const TYPES = resolve(ROOT, "src/ocf/types.ts");
const MATCH = resolve(ROOT, "src/ocf/types-match.ts");

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
}

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** The names types.ts exports (interfaces and type aliases; it has nothing else). */
function exportedTypes(file: ts.SourceFile): string[] {
  return file.statements
    .filter((s): s is ts.InterfaceDeclaration | ts.TypeAliasDeclaration => (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && isExported(s))
    .map((s) => s.name.text);
}

/** Each entry of `OcfTypesMatchSchemas`: its name and the text of its check. */
function matchEntries(file: ts.SourceFile): { name: string; check: string }[] {
  const table = file.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === "OcfTypesMatchSchemas");
  if (table === undefined) throw new Error("types-match.ts has no interface OcfTypesMatchSchemas");
  return table.members.map((member) => {
    if (!ts.isPropertySignature(member) || member.type === undefined || !ts.isIdentifier(member.name)) throw new Error(`not a named check: ${member.getText()}`);
    return { name: member.name.text, check: member.type.getText() };
  });
}

describe("types-match.ts", () => {
  const types = parse(TYPES);
  const entries = matchEntries(parse(MATCH));

  it("has one check for every type types.ts exports, and none for a type it does not", () => {
    const exported = exportedTypes(types);
    expect(exported.length).toBeGreaterThan(60);
    expect(entries.map((e) => e.name).sort()).toEqual([...exported].sort());
  });

  it("checks in each entry the public type it is named after", () => {
    for (const { name, check } of entries) {
      expect(check, name).toMatch(/^Same<Equals</);
      expect(check, name).toMatch(new RegExp(`\\bT\\.${name}\\b`));
    }
  });

  it("is compiled by the type check but left out of the build, so it never reaches dist/", () => {
    const read = (config: string): string[] => {
      const parsed = ts.getParsedCommandLineOfConfigFile(resolve(ROOT, config), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
      if (parsed === undefined) throw new Error(`${config} did not parse`);
      return parsed.fileNames.map((f) => resolve(f));
    };
    expect(read("tsconfig.json")).toContain(MATCH);
    expect(read("tsconfig.build.json")).not.toContain(MATCH);
    expect(read("tsconfig.build.json")).toContain(TYPES);
  });
});
