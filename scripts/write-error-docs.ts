/** Writes docs/errors.md from src/error-codes.ts and the CLI's exit statuses (`npm run docs:errors`); see error-docs.ts. */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { ERRORS_PAGE, errorsPage } from "./error-docs.js";

writeFileSync(resolve(import.meta.dirname, "..", ERRORS_PAGE), errorsPage());
