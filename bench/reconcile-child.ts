/**
 * Runs `ocf-sync reconcile --source NDJSON PACKAGE` in a process of its own, so that its peak memory
 * (max RSS) is its own. Only the last line of its report (the text a person reads) is kept. Prints one
 * JSON line: seconds, maxRssMb, agree, grants.
 *
 *   node --import tsx bench/reconcile-child.ts NDJSON PACKAGE_DIR AS_OF
 */
import { Writable } from "node:stream";
import { boundHeapGrowth } from "../src/cli/heap.js";
import { runCli } from "../src/cli/main.js";

// As the CLI runs it (bounded heap growth).
boundHeapGrowth();

const [ndjson = "", pkg = "", asOf = ""] = process.argv.slice(2);
let tail = "";
const stdout = new Writable({
  write(chunk: Buffer, _encoding, done) {
    tail = (tail + chunk.toString("utf8")).slice(-500);
    done();
  },
});
const started = performance.now();
const code = await runCli(["reconcile", "--source", ndjson, pkg, "--as-of", asOf], { stdout, stderr: process.stderr, env: {}, cwd: process.cwd() });
const seconds = (performance.now() - started) / 1000;
const maxRssMb = process.resourceUsage().maxRSS / 1024;
// "AGREE: 10000 grants compared, no difference"
const verdict = /AGREE: (\d+) grants? compared/.exec(tail);
if (code !== 0 || verdict === null) throw new Error(`ocf-sync reconcile exited ${code}: ${tail}`);
process.stdout.write(`${JSON.stringify({ seconds, maxRssMb, agree: true, grants: Number(verdict[1]) })}\n`);
