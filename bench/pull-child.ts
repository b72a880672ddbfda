/**
 * Runs `ocf-sync pull` in a process of its own, so that its peak memory (max RSS) is its own and not
 * the sample server's or the benchmark driver's. Prints one JSON line: seconds, maxRssMb.
 *
 *   node --import tsx bench/pull-child.ts URL ISSUER OUT_FILE
 */
import { boundHeapGrowth } from "../src/cli/heap.js";
import { runCli } from "../src/cli/main.js";

// As the CLI runs it (bounded heap growth).
boundHeapGrowth();

const [url = "", issuer = "", out = ""] = process.argv.slice(2);
const started = performance.now();
const code = await runCli(
  ["pull", "--base-url", url, "--issuer", issuer, "--out", out, "--log", "plain", "--rate-per-second", "10000", "--rate-per-minute", "600000"],
  { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() },
);
if (code !== 0) throw new Error(`ocf-sync pull exited ${code}`);
process.stdout.write(`${JSON.stringify({ seconds: (performance.now() - started) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
