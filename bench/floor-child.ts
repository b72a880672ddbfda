/**
 * The export benchmark's floor in a process of its own, as the export is measured: the generated
 * issuer's input text and the exported package's objects are made first (not timed), then one
 * `JSON.parse` of the input and one `JSON.stringify` (two-space) of each package file are timed, once,
 * in a heap that has not done them before. Prints one JSON line: seconds, cpuSeconds.
 *
 *   node --import tsx bench/floor-child.ts RECORDS PACKAGE_DIR
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { flat, generatedRecordText } from "./generated-issuer.js";

const [records = "10000", packageDir = ""] = process.argv.slice(2);
const half = Math.floor(Number(records) / 2);
const texts: string[] = [];
for (let i = 0; i < half; i++) texts.push(generatedRecordText("award", i));
const awards = texts.join(",");
texts.length = 0;
for (let i = 0; i < Number(records) - half; i++) texts.push(generatedRecordText("unit", i));
// The same text as the in-process floor's `JSON.stringify` of the records (their keys are in that order),
// one flat string as that is (joined from pieces it would be a rope, which the timed parse would copy flat).
const inputText = flat(`{"restrictedStockAwards":[${awards}],"restrictedStockUnits":[${texts.join(",")}]}`);
texts.length = 0;
const outputs: unknown[] = [];
for (const file of await readdir(packageDir)) outputs.push(JSON.parse(await readFile(join(packageDir, file), "utf8")));
const started = performance.now();
const cpu = process.cpuUsage();
JSON.parse(inputText);
for (const o of outputs) JSON.stringify(o, null, 2);
const used = process.cpuUsage(cpu);
process.stdout.write(`${JSON.stringify({ seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6, bytes: inputText.length })}\n`);
