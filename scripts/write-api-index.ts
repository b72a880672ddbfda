/** Writes docs/api-index.md, the API reference's landing page, from README.md; see api-index.ts. */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { API_INDEX_PAGE, apiIndexPage } from "./api-index.js";

const root = resolve(import.meta.dirname, "..");
writeFileSync(resolve(root, API_INDEX_PAGE), apiIndexPage(readFileSync(resolve(root, "README.md"), "utf8")));
