/**
 * The README stays a front door (issue 27): under 250 lines, and no sentence of its prose over 40
 * words, counted as test/helpers/prose.ts counts them (docs-prose.test.ts holds docs/ to the same bar).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { longSentences, proseParagraphs, sentences, words } from "../helpers/prose.js";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("the README", () => {
  it("is under 250 lines", () => {
    expect(README.split("\n").length).toBeLessThan(250);
  });

  it("has no sentence over 40 words", () => {
    expect(longSentences(README)).toEqual([]);
  });

  it("counts what the two checks count (a long sentence is found, code and tables are not prose)", () => {
    const long = `${Array.from({ length: 41 }, () => "word").join(" ")}.`;
    const text = ["# Title", "", "```sh", long, "```", "", `| ${long} |`, "", "- a list item.", long, "", "- item", "  ```", `  ${long}`, "  ```"].join("\n");
    const found = proseParagraphs(text).flatMap(sentences);
    expect(found).toEqual(["- a list item.", long, "- item"]);
    expect(found.filter((s) => words(s) > 40)).toEqual([long]);
    expect(longSentences(text)).toEqual([long]);
  });
});
