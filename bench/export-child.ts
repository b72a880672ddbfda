/**
 * Runs one export in its own process, so that its peak memory (max RSS) is its own and not the sample
 * server's or the benchmark driver's. Prints one JSON line: seconds, records, maxRssMb.
 *
 *   node --import tsx bench/export-child.ts URL ISSUER OUT_DIR auto|always|never
 */
import { createApiClient } from "../src/client/create-client.js";
import { exportIssuer } from "../src/export/export-issuer.js";

const [url = "", issuerId = "", outDir = "", validate = "auto"] = process.argv.slice(2);
const client = createApiClient({ baseUrl: url, rateLimit: false });
const started = performance.now();
const result = await exportIssuer(client, issuerId, {
  outDir,
  generatedAt: "2025-06-30T00:00:00Z",
  validate: validate === "auto" ? "auto" : validate === "always",
});
const seconds = (performance.now() - started) / 1000;
await client.close();
process.stdout.write(
  `${JSON.stringify({
    seconds,
    records: result.awards + result.units,
    transactions: result.transactions,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    validated: result.validated,
  })}\n`,
);
