/**
 * Runs one `validatePackageAt` in its own process, for its time and peak memory alone. Prints one
 * JSON line: seconds and cpuSeconds (the validation, after the modules are loaded), valid, objects,
 * maxRssMb. With `dist`, the built package's module (`npm run build` first), as the CLI runs it.
 *
 * Like the CLI, it bounds the heap's growth first (`boundHeapGrowth`), unless given `library`.
 *
 *   node --import tsx bench/validate-child.ts PACKAGE [src|dist] [cli|library]
 */
import { boundHeapGrowth } from "../src/cli/heap.js";

const [path = "", from = "src", heap = "cli"] = process.argv.slice(2);
if (heap === "cli") boundHeapGrowth();
const specifier = from === "dist" ? "../dist/ocf/validate-package.js" : "../src/ocf/validate-package.js";
const { validatePackageAt } = (await import(specifier)) as typeof import("../src/ocf/validate-package.js");
const started = performance.now();
const cpu = process.cpuUsage();
const report = await validatePackageAt(path);
const seconds = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
const cpuSeconds = (used.user + used.system) / 1e6;
process.stdout.write(`${JSON.stringify({ seconds, cpuSeconds, valid: report.valid, problems: report.problems.length, objects: report.counts.objects, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
