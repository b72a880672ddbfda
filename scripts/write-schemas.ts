/** Writes schemas/run-record.schema.json from its one source, src/cli/run-record-schema.ts (`npm run schemas`). */
import { writeFileSync } from "node:fs";
import { runRecordJsonSchema } from "../src/cli/run-record-schema.js";

writeFileSync(new URL("../schemas/run-record.schema.json", import.meta.url), `${JSON.stringify(runRecordJsonSchema(), null, 2)}\n`);
