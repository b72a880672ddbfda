/**
 * The reference pages are written for a reader in a hurry too (issue 27, item 1): no sentence of their
 * prose over 40 words, counted as the README's are (test/helpers/prose.ts). Every Markdown page in
 * docs/ is held to it, a new one included, and so are the generated command pages (docs/commands/,
 * from --help) and CONTRIBUTING.md. docs/api/ is TypeDoc's output, built and git-ignored: its text is
 * the doc comments', which are not prose pages.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { longSentences } from "../helpers/prose.js";

const ROOT = resolve(import.meta.dirname, "../..");

const markdownIn = (folder: string): string[] =>
  readdirSync(join(ROOT, folder))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(folder, name));

const PAGES = [...markdownIn("docs"), ...markdownIn("docs/commands"), "CONTRIBUTING.md"];

describe("the documentation pages", () => {
  it("are found (docs/*.md, docs/commands/*.md and CONTRIBUTING.md)", () => {
    expect(PAGES).toEqual(expect.arrayContaining(["docs/cli.md", "docs/errors.md", "docs/commands/export.md", "CONTRIBUTING.md"]));
  });

  it.each(PAGES)("%s has no sentence over 40 words", (page) => {
    const long = longSentences(readFileSync(join(ROOT, page), "utf8"));
    expect(long, `${page}: split these sentences (40 words at most)`).toEqual([]);
  });
});
