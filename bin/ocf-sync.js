#!/usr/bin/env node
// The published entry point runs the compiled CLI; `npm ci` builds it (the "prepare" script).
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli/bin.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("ocf-sync: dist/ is missing; run `npm run build` (npm ci does it for you)\n");
  process.exit(70);
}
await import(entry.href);
