/**
 * Runs one `validatePackageAt` in its own process, for its time and peak memory alone. Prints one
 * JSON line: seconds (the validation, after the modules are loaded), valid, objects, maxRssMb.
 *
 *   node --import tsx bench/validate-child.ts PACKAGE
 */
import { validatePackageAt } from "../src/ocf/validate-package.js";

const [path = ""] = process.argv.slice(2);
const started = performance.now();
const report = await validatePackageAt(path);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ seconds, valid: report.valid, problems: report.problems.length, objects: report.counts.objects, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
