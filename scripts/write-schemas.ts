/** Writes schemas/*.schema.json from their one source, src/cli/output-schemas.ts (`npm run schemas`). */
import { writeFileSync } from "node:fs";
import { jsonSchemaOf, OUTPUT_SCHEMAS } from "../src/cli/output-schemas.js";

for (const entry of OUTPUT_SCHEMAS) {
  writeFileSync(new URL(`../schemas/${entry.file}`, import.meta.url), `${JSON.stringify(jsonSchemaOf(entry), null, 2)}\n`);
}
