/**
 * The extractor of the TSDoc `@example` snippets that `npm run check:package` type-checks and runs
 * (scripts/doc-examples.ts): it finds every one, so that a change of comment format cannot make that
 * check pass over nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { exampleFileName, exampleModule, extractExamples, readDocExamples } from "../../scripts/doc-examples.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** `@example` as a reader finds it: every occurrence in every .ts file of src/. */
function tagsInSource(): number {
  let tags = 0;
  for (const entry of readdirSync(join(ROOT, "src"), { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith(".ts")) tags += readFileSync(join(entry.parentPath, entry.name), "utf8").split("@example").length - 1;
  }
  return tags;
}

describe("the @example snippets of src/", () => {
  it("are found, one per @example tag", async () => {
    const examples = await readDocExamples(ROOT);
    expect(examples.length).toBeGreaterThan(0);
    expect(examples).toHaveLength(tagsInSource());
  });

  it("are whole code: no comment markers left, every module importing the package it shows, one file each", async () => {
    const examples = await readDocExamples(ROOT);
    for (const example of examples) {
      const where = `${example.file}:${example.line}`;
      expect(example.code, where).not.toMatch(/^\s*\*/m);
      expect(example.code.trim(), where).not.toBe("");
      if (example.valueType === undefined) expect(example.code, where).toMatch(/from "ocf-sync(\/testing)?";/);
    }
    expect(new Set(examples.map(exampleFileName)).size).toBe(examples.length);
  });
});

describe("extractExamples", () => {
  const source = [
    "export interface Options {",
    "  /**",
    "   * Nested.",
    "   * @example",
    "   * ```ts",
    '   * { url: "s3://b/p" }',
    "   * ```",
    "   */",
    "  inner?: {",
    "    /**",
    "     * @example",
    "     * ```ts",
    '     * "x"',
    "     * ```",
    "     */",
    "    name: string;",
    "  };",
    "}",
    "",
    "/**",
    " * Does it.",
    " *",
    " * @example",
    " * ```ts no-run: needs a Redis server",
    ' * import { run } from "ocf-sync";',
    " * if (run()) {",
    " *   console.log(1);",
    " * }",
    " * ```",
    " *",
    " * @category Client",
    " */",
    "export function run(): boolean {",
    "  return true;",
    "}",
    "",
  ].join("\n");

  it("takes each block without the comment's ` * `, keeping its indentation, with the line of its tag", () => {
    const [outer, inner, module] = extractExamples("src/x.ts", source);
    expect(outer).toEqual({
      file: "src/x.ts",
      line: 4,
      code: '{ url: "s3://b/p" }\n',
      valueType: 'NonNullable<Options["inner"]>',
      valueModule: "ocf-sync",
      noRun: "a value of the property's type",
    });
    expect(inner).toMatchObject({ line: 11, code: '"x"\n', valueType: 'NonNullable<NonNullable<Options["inner"]>["name"]>' });
    expect(module).toEqual({ file: "src/x.ts", line: 23, code: 'import { run } from "ocf-sync";\nif (run()) {\n  console.log(1);\n}\n', noRun: "needs a Redis server" });
  });

  it("writes a value as a typed constant and a module as it is", () => {
    const [outer, , module] = extractExamples("src/x.ts", source);
    expect(exampleModule(outer!)).toBe('// src/x.ts:4\nimport type { Options } from "ocf-sync";\nexport const example: NonNullable<Options["inner"]> = (\n{ url: "s3://b/p" }\n);\n');
    expect(exampleModule(module!)).toBe('// src/x.ts:23\nimport { run } from "ocf-sync";\nif (run()) {\n  console.log(1);\n}\nexport {};\n');
    expect(exampleFileName(module!)).toBe("doc-examples/x-23.ts");
  });

  it("refuses an @example without a ```ts block, or with one left open", () => {
    expect(() => extractExamples("src/y.ts", '/**\n * @example\n * run();\n */\nexport function run(): void {}\n')).toThrow("src/y.ts:2: an @example must hold a ```ts block");
    expect(() => extractExamples("src/y.ts", '/**\n * @example "x"\n */\nexport const x = "x";\n')).toThrow("src/y.ts:2: an @example must hold a ```ts block");
    expect(() => extractExamples("src/y.ts", "/**\n * @example\n * ```ts\n * run();\n */\nexport function run(): void {}\n")).toThrow("src/y.ts:2: the ```ts block of the @example is not closed");
  });

  it("refuses an @example it cannot place (outside a declaration's TSDoc comment)", () => {
    expect(() => extractExamples("src/z.ts", "// @example\nexport const z = 1;\n")).toThrow("src/z.ts: 1 @example tags but 0 snippets found");
  });
});
