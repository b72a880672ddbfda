import { resolve } from "node:path";
import { validatePackageAt } from "../../ocf/validate-package.js";
import { SAMPLES_AS_OF } from "../../sample-server/data.js";
import { startSampleServer } from "../../sample-server/server.js";
import { parseCommandArgs } from "../args.js";
import { COMMAND_OPTIONS } from "../command-options.js";
import { writeLine, type CliIo } from "../io.js";
import { prepareOutputFolder } from "../job-flags.js";
import { exportSummaryText, runExport } from "./export.js";

export const DEMO_HELP = `Usage: ocf-sync demo [--out DIR]

The whole job on the embedded sample API, with no configuration and no network beyond loopback:
starts the sample API in-process on a free port of 127.0.0.1, exports every sample issuer over real
HTTP (pages, rate limiter, retries) to DIR as package folders and .ocf.zip files, validates every zip
with 'ocf-sync validate', and prints the summary.

Options:
  --out DIR                where to write (default ./out)

The summary and the validation results go to standard output, progress to standard error.

Exit status: 0 every sample issuer exported and valid, 1 an issuer failed or a package is invalid, 2 a
usage error or an unusable DIR (a file, or a place where no folder can be made), 130 or 143 when
stopped by SIGINT or SIGTERM.

Examples:
  ocf-sync demo                          # in a clone: npm run demo
  ocf-sync validate out/acme-robotics.ocf.zip
  ocf-sync demo --out demo-out`;

export async function demoCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs("demo", {
    args: [...argv],
    options: COMMAND_OPTIONS.demo,
    strict: true,
  });
  if (values.help === true) {
    writeLine(io.stdout, DEMO_HELP);
    return 0;
  }
  const outDir = resolve(io.cwd, values.out ?? "out");
  await prepareOutputFolder("out", outDir, io.signal);
  const server = await startSampleServer({ port: 0 });
  let run;
  try {
    writeLine(io.stderr, `sample API listening on ${server.url}; issuers ${server.issuers.map((id) => JSON.stringify(id)).join(", ")}`);
    run = await runExport(io, {
      clientOptions: { baseUrl: server.url },
      issuers: server.issuers,
      outDir,
      logMode: "plain",
      // The sample records are a snapshot: their vested counters are as of SAMPLES_AS_OF, so the
      // packages say so too (a real export defaults to the day of the pull).
      exportOptions: { zip: true, concurrency: 4, onInvalid: "quarantine", validate: "auto", asOf: SAMPLES_AS_OF },
    });
  } finally {
    await server.close();
  }
  writeLine(io.stdout, "");
  writeLine(io.stdout, exportSummaryText(run));
  writeLine(io.stdout, "\nvalidating every .ocf.zip (as 'ocf-sync validate' does):");
  let invalid = 0;
  for (const result of run.results) {
    if (!result.ok || result.export.zip === undefined) continue;
    // Read as the package declares its lineage, as any reader of it would.
    const report = await validatePackageAt(result.export.zip);
    if (!report.valid) invalid += 1;
    writeLine(
      io.stdout,
      `  ${report.valid ? "valid  " : "INVALID"} ${result.export.zip}  (${report.counts.objects} objects, ${report.problems.length} problems)`,
    );
  }
  const failed = run.results.filter((r) => !r.ok).length;
  writeLine(io.stdout, `\nNext: open ${outDir}, or try 'npx ocf-sync export --help' against your own API.`);
  return failed > 0 || invalid > 0 ? 1 : 0;
}
