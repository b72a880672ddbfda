import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { startSampleServer } from "../../sample-server/server.js";
import { parseCommandArgs } from "../args.js";
import { writeLine, type CliIo } from "../io.js";
import { pullCommand } from "./pull.js";

export const DEMO_HELP = `Usage: ocf-sync demo [--out DIR]

Starts the embedded sample API in-process on a free port of 127.0.0.1, pulls every sample issuer from it
over real HTTP (pages, rate limiter and all) into DIR/pull.ndjson and prints the summary. No configuration
and no network beyond loopback.

Options:
  --out DIR                where to write (default ./out)

Example:
  npm run demo`;

export async function demoCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs("demo", {
    args: [...argv],
    options: { out: { type: "string" }, help: { type: "boolean", short: "h" } },
    strict: true,
  });
  if (values.help === true) {
    writeLine(io.stdout, DEMO_HELP);
    return 0;
  }
  const outDir = join(io.cwd, values.out ?? "out");
  await mkdir(outDir, { recursive: true });
  const server = await startSampleServer({ port: 0 });
  try {
    writeLine(io.stderr, `sample API listening on ${server.url} with issuers ${server.issuers.map((id) => JSON.stringify(id)).join(", ")}`);
    const issuerFlags = server.issuers.flatMap((id) => ["--issuer", id]);
    return await pullCommand(
      ["--base-url", server.url, ...issuerFlags, "--out", join(outDir, "pull.ndjson"), "--on-invalid", "quarantine"],
      io,
    );
  } finally {
    await server.close();
  }
}
