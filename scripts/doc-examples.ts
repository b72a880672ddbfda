/**
 * The `@example` snippets of the TSDoc comments in src/, as code a user would paste: `npm run
 * check:package` (scripts/check-package.ts) type-checks every one against the types installed from the
 * packed tarball, in the one tsc run it makes, then runs those that can run on their own. An example
 * that names a function that was renamed, passes an option that is gone or imports what the package
 * does not export fails the check, as it would fail its reader.
 *
 * Every `@example` holds one fenced ` ```ts ` block:
 * - On a property (of an interface or an object type), a block without `import` is a value of that
 *   property's type (the `"redis://127.0.0.1:6379/0"` of `RedisRateLimiterOptions.url`): it is
 *   type-checked as `const example: NonNullable<RedisRateLimiterOptions["url"]> = <block>`, not run.
 * - Anything else is a whole ES module that imports from `"ocf-sync"` (and `"ocf-sync/testing"`):
 *   type-checked, then run in a folder of its own (see check-package.ts for what that folder holds and
 *   which sample API the `CARTA_*` variables point at), unless its fence says why it cannot run:
 *   ` ```ts no-run: needs a Redis server `. Markdown takes the fence's first word as the language, so
 *   the reason does not show in the rendered docs.
 *
 * An `@example` without a ```ts block is an error, and so is a count of snippets different from the
 * count of `@example` tags in the text: a change of comment format cannot make the check silently pass
 * over nothing (test/unit/doc-examples.test.ts).
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import ts from "typescript";

/** One `@example` of a TSDoc comment. */
export interface DocExample {
  /** The source file, relative to the repository's root, with `/`. */
  file: string;
  /** The 1-based line of the `@example` tag. */
  line: number;
  /** The code of the ```ts block, without the comment's leading ` * `. */
  code: string;
  /** Set for a value example: the type its value must have, e.g. `NonNullable<ApiClientOptions["baseUrl"]>`. */
  valueType?: string;
  /** The module that exports the type of a value example. */
  valueModule?: string;
  /** Why the example is not run (from the fence's ` no-run: ` text), when it is not. */
  noRun?: string;
}

const FENCE_OPEN = /^```ts(?:\s+no-run:\s*(.+))?\s*$/;

/** The `@example` tags of a source text, the same way a reader of the file counts them. */
export function countExampleTags(text: string): number {
  return text.match(/@example\b/g)?.length ?? 0;
}

/** The lines of a `/** ... *\/` comment without the markers and the leading ` * ` (line i is the comment's first line + i). */
function commentLines(raw: string): string[] {
  return raw
    .replace(/^\/\*\*/, "")
    .replace(/\*\/$/, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, "").replace(/^\s+$/, ""));
}

/**
 * The type a property's value has, from the declaration that holds it: `Owner["a"]["b"]` (each step
 * without `undefined`) for property `b` of the object type of property `a` of interface or type alias
 * `Owner`; `undefined` when no exported name holds it.
 */
function propertyType(node: ts.PropertySignature | ts.PropertyDeclaration): string | undefined {
  const path: string[] = [];
  let at: ts.Node = node;
  for (;;) {
    if (!ts.isPropertySignature(at) && !ts.isPropertyDeclaration(at)) return undefined;
    path.unshift(at.name.getText().replace(/^["']|["']$/g, ""));
    const parent: ts.Node = at.parent;
    const owner = ts.isInterfaceDeclaration(parent) || ts.isClassDeclaration(parent) ? parent.name : ts.isTypeLiteralNode(parent) && ts.isTypeAliasDeclaration(parent.parent) ? parent.parent.name : undefined;
    if (owner !== undefined) return path.reduce((type, name) => `NonNullable<${type}[${JSON.stringify(name)}]>`, owner.text);
    if (!ts.isTypeLiteralNode(parent)) return undefined;
    at = parent.parent;
  }
}

/** The examples of one source file; throws on an `@example` without a ```ts block. */
export function extractExamples(file: string, text: string): DocExample[] {
  const tags = countExampleTags(text);
  if (tags === 0) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const seen = new Set<number>();
  const examples: DocExample[] = [];
  const visit = (node: ts.Node): void => {
    for (const doc of (node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? []) {
      if (seen.has(doc.pos)) continue;
      seen.add(doc.pos);
      const raw = text.slice(doc.pos, doc.end);
      const firstLine = source.getLineAndCharacterOfPosition(doc.pos).line + 1;
      const lines = commentLines(raw);
      for (let i = 0; i < lines.length; i += 1) {
        if (!/^@example\b/.test(lines[i] ?? "")) continue;
        const where = `${file}:${firstLine + i}`;
        let open = i + 1;
        while (open < lines.length && lines[open] === "") open += 1;
        const fence = FENCE_OPEN.exec(lines[open] ?? "");
        if (lines[i]?.trim() !== "@example" || fence === null) throw new Error(`${where}: an @example must hold a \`\`\`ts block, on the lines after the tag`);
        const close = lines.findIndex((line, at) => at > open && line.startsWith("```"));
        if (close < 0) throw new Error(`${where}: the \`\`\`ts block of the @example is not closed`);
        const code = `${lines.slice(open + 1, close).join("\n")}\n`;
        const example: DocExample = { file, line: firstLine + i, code };
        if (fence[1] !== undefined) example.noRun = fence[1].trim();
        if ((ts.isPropertySignature(node) || ts.isPropertyDeclaration(node)) && !/^import\b/m.test(code)) {
          const type = propertyType(node);
          if (type === undefined) throw new Error(`${where}: the property's type cannot be named from outside (an anonymous declaration holds it)`);
          example.valueType = type;
          example.valueModule = file.startsWith("src/sample-server/") ? "ocf-sync/testing" : "ocf-sync";
          example.noRun = "a value of the property's type";
        }
        examples.push(example);
        i = close;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (examples.length !== tags) throw new Error(`${file}: ${tags} @example tags but ${examples.length} snippets found; a tag outside a TSDoc comment of a declaration?`);
  return examples;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) found.push(path);
  }
  return found.sort();
}

/** Every example of src/ under `root` (the repository), in file and line order. */
export async function readDocExamples(root: string): Promise<DocExample[]> {
  const examples: DocExample[] = [];
  for (const path of await sourceFiles(join(root, "src"))) {
    examples.push(...extractExamples(relative(root, path).split("\\").join("/"), await readFile(path, "utf8")));
  }
  return examples;
}

/** The module file an example is written to in the consumer project: `doc-examples/client-create-client-338.ts`. */
export function exampleFileName(example: DocExample): string {
  return `doc-examples/${example.file.replace(/^src\//, "").replace(/\.ts$/, "").replace(/[/.]/g, "-")}-${example.line}.ts`;
}

/** The text of an example's module: the block as written, or for a value, the block typed as its property. */
export function exampleModule(example: DocExample): string {
  const origin = `// ${example.file}:${example.line}\n`;
  if (example.valueType === undefined) return `${origin}${example.code}export {};\n`;
  const owner = /^(?:NonNullable<)*(\w+)/.exec(example.valueType)?.[1] ?? "";
  return `${origin}import type { ${owner} } from ${JSON.stringify(example.valueModule)};\nexport const example: ${example.valueType} = (\n${example.code});\n`;
}
