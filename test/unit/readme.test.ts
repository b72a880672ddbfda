/**
 * The README stays a front door (issue 27): under 250 lines, and no sentence of its prose over 40
 * words. Code blocks, tables and headings are not prose; a list item is a paragraph of its own.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** The prose paragraphs of a Markdown text: code blocks, tables and headings left out, a list item its own paragraph. */
function proseParagraphs(markdown: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  const close = (): void => {
    if (current.length > 0) paragraphs.push(current.join(" "));
    current = [];
  };
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) {
      fenced = !fenced;
      close();
      continue;
    }
    if (fenced || line.startsWith("|") || line.startsWith("#") || line.trim() === "") {
      close();
      continue;
    }
    if (/^\s*([-*]|\d+\.)\s/.test(line)) close();
    current.push(line.trim());
  }
  close();
  return paragraphs;
}

/** The sentences of a paragraph: split after `.`, `!` or `?` and a space (so `.ocf.zip` and `e.g.x` stay whole). */
function sentences(paragraph: string): string[] {
  return paragraph.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== "");
}

const words = (sentence: string): number => sentence.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

describe("the README", () => {
  it("is under 250 lines", () => {
    expect(README.split("\n").length).toBeLessThan(250);
  });

  it("has no sentence over 40 words", () => {
    const long = proseParagraphs(README)
      .flatMap(sentences)
      .filter((s) => words(s) > 40);
    expect(long).toEqual([]);
  });

  it("counts what the two checks count (a long sentence is found, code and tables are not prose)", () => {
    const long = `${Array.from({ length: 41 }, () => "word").join(" ")}.`;
    const text = ["# Title", "", "```sh", long, "```", "", `| ${long} |`, "", "- a list item.", long].join("\n");
    const found = proseParagraphs(text).flatMap(sentences);
    expect(found).toEqual(["- a list item.", long]);
    expect(found.filter((s) => words(s) > 40)).toEqual([long]);
  });
});
