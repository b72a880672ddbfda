/**
 * Runs one export in its own process, so that its peak memory (max RSS) is its own and not the sample
 * server's or the benchmark driver's. Prints one JSON line: seconds, cpuSeconds, records, transactions,
 * maxRssMb.
 *
 *   node --import tsx bench/export-child.ts --url URL OUT_DIR auto|always|never [cli|library] [REPEAT]
 *   node --import tsx bench/export-child.ts --generated RECORDS OUT_DIR auto|always|never [cli|library] [REPEAT]
 *   node --import tsx bench/export-child.ts --generated-text RECORDS OUT_DIR auto|always|never [cli|library] [REPEAT]
 *
 * `cli` (the default) bounds the heap's growth as the CLI does (`boundHeapGrowth`); `library` runs with
 * node's own heap settings, as a program that calls `exportIssuer` does unless it sets the flag.
 *
 * With REPEAT > 1 the export is done again that many times in the same process (to `OUT_DIR-again-N`),
 * each timed apart (`again`), as the later issuers of a batch are exported: the figures above stay the
 * first export's.
 *
 * `--generated` feeds the generated issuer's records from this process (parsed from JSON text one
 * at a time, as pages are), so that the export is measured without HTTP and without a server. Each
 * record's text is made as it is needed, so the peak memory is the export's own.
 *
 * `--generated-text` makes every record's text first, before the clock starts, and the export parses
 * them one at a time as with `--generated`: the timed runs use it, so that making the text (the
 * benchmark's work, about 0.2 s at 10,000 records) is left out as it is from the floor. It holds the
 * whole input text, as the floor does, so its peak memory is not the export's alone.
 */
import { boundHeapGrowth } from "../src/cli/heap.js";
import { createApiClient } from "../src/client/create-client.js";
import { exportIssuer } from "../src/export/export-issuer.js";
import { GENERATED_ISSUER_ID, generatedPullItems, generatedRecordTexts, pullItemsOfTexts } from "./generated-issuer.js";

const [mode = "", source = "", outDir = "", validate = "auto", heap = "cli", repeat = "1"] = process.argv.slice(2);
// As the CLI runs it (bounded heap growth), unless told to run with node's defaults ("library").
if (heap === "cli") boundHeapGrowth();
// Made before any export is timed, and used by each.
const texts = mode === "--generated-text" ? generatedRecordTexts(Number(source)) : undefined;
const client = createApiClient({ baseUrl: mode === "--url" ? source : "http://127.0.0.1:9", rateLimit: false });
const exportOnce = async (folder: string) => {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const result = await exportIssuer(client, GENERATED_ISSUER_ID, {
    outDir: folder,
    generatedAt: "2025-06-30T00:00:00Z",
    validate: validate === "auto" ? "auto" : validate === "always",
    ...(texts !== undefined ? { records: pullItemsOfTexts(texts) } : mode === "--generated" ? { records: generatedPullItems(Number(source)) } : {}),
  });
  const cpu = process.cpuUsage(cpuStarted);
  return { result, seconds: (performance.now() - started) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
};
const { result, seconds, cpuSeconds } = await exportOnce(outDir);
// Again in the same process, as the second issuer of a batch is: a heap and JIT that have done it before.
const again: { seconds: number; cpuSeconds: number }[] = [];
for (let i = 1; i < Number(repeat); i++) {
  const { seconds: s, cpuSeconds: c } = await exportOnce(`${outDir}-again-${i}`);
  again.push({ seconds: s, cpuSeconds: c });
}
await client.close();
process.stdout.write(
  `${JSON.stringify({
    seconds,
    // CPU of every thread of the process (user and system) over the export, module loading left out:
    // steadier than wall time on a machine whose cores other work shares.
    cpuSeconds,
    records: result.awards + result.units,
    transactions: result.transactions,
    files: result.files.length,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    validated: result.validated,
    again,
  })}\n`,
);
