/** Writes src/ocf/types.ts from the runtime schemas (`npm run ocf-types`); see ocf-types.ts. */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { OCF_TYPES_FILE, ocfTypesSource } from "./ocf-types.js";

writeFileSync(resolve(import.meta.dirname, "..", OCF_TYPES_FILE), ocfTypesSource());
