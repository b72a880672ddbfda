/**
 * docs/commands/ is generated from the --help texts (scripts/command-docs.ts): a page that differs
 * from what the help now says, a missing page or a page of no command fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMAND_DOCS_FOLDER, commandDocPages } from "../../scripts/command-docs.js";
import { commandSummaries } from "../../src/cli/main.js";

const FOLDER = resolve(import.meta.dirname, "../..", COMMAND_DOCS_FOLDER);
const STALE = "docs/commands/ is out of date: run `npm run docs:commands`";

describe("docs/commands/", () => {
  it("holds one page per command and the index, each exactly as the help generates it", async () => {
    const pages = await commandDocPages();
    expect([...pages.keys()].sort(), STALE).toEqual(readdirSync(FOLDER).filter((name) => name.endsWith(".md")).sort());
    for (const [name, text] of pages) expect(readFileSync(resolve(FOLDER, name), "utf8"), `${STALE} (${name} differs)`).toBe(text);
  });

  it("gives each command its help in a text block", async () => {
    const pages = await commandDocPages();
    for (const { name } of commandSummaries()) {
      const page = pages.get(`${name}.md`);
      expect(page).toContain(`# ocf-sync ${name}\n`);
      expect(page).toContain(`\`\`\`text\nUsage: ocf-sync ${name}`);
      expect(page).toContain("(../cli.md)");
    }
  });

  it("is linked from docs/cli.md's command table", () => {
    const cli = readFileSync(resolve(FOLDER, "../cli.md"), "utf8");
    for (const { name } of commandSummaries()) expect(cli).toContain(`(commands/${name}.md)`);
  });
});
