/** Writes docs/commands/*.md from the commands' --help texts (`npm run docs:commands`); see command-docs.ts. */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { COMMAND_DOCS_FOLDER, commandDocPages } from "./command-docs.js";

const folder = resolve(import.meta.dirname, "..", COMMAND_DOCS_FOLDER);
const pages = await commandDocPages();
mkdirSync(folder, { recursive: true });
// A page of a command that is gone goes too.
for (const name of readdirSync(folder)) if (name.endsWith(".md") && !pages.has(name)) rmSync(join(folder, name));
for (const [name, text] of pages) writeFileSync(join(folder, name), text);
