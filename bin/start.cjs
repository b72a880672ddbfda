// Loaded by ocf-sync.cjs once Node.js is known to be new enough: runs the compiled CLI from dist/.
"use strict";
const { existsSync } = require("node:fs");
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");

const entry = join(__dirname, "..", "dist", "cli", "bin.js");
if (!existsSync(entry)) {
  process.stderr.write("ocf-sync: dist/ is missing: run `npm run build` first (a git checkout is built on demand, not by npm ci)\n");
  process.exit(70);
}
import(pathToFileURL(entry).href).catch((error) => {
  process.stderr.write(`ocf-sync: could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 70;
});
