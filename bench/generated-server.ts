/**
 * The sample server serving the generated issuer of `generated-issuer.ts`, in its own process (100,000
 * generated records need a larger heap than the benchmark driver's, and the server's work then stays
 * out of the measured processes). Prints `listening on URL` once it serves. Reads commands on stdin:
 * `touch I` changes record I (a new security label and modification time) and answers `touched I`.
 *
 *   node --max-old-space-size=8192 --import tsx bench/generated-server.ts RECORDS
 */
import { createInterface } from "node:readline";
import { startSampleServer } from "../src/sample-server/server.js";
import { GENERATED_ISSUER_ID, generateIssuer } from "./generated-issuer.js";

const records = Number(process.argv[2] ?? "10000");
const issuer = generateIssuer(records);
const server = await startSampleServer({ port: 0, data: { issuers: new Map([[GENERATED_ISSUER_ID, issuer]]) } });
process.stdout.write(`listening on ${server.url}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [command, index] = line.split(" ");
  if (command !== "touch") continue;
  const i = Number(index);
  const record = (i % 2 === 0 ? issuer.awards : issuer.units)[Math.floor(i / 2)];
  if (record === undefined) throw new Error(`no record ${i}`);
  record.securityLabel = `${String(record.securityLabel)}-changed`;
  record.lastModifiedDatetime = { value: "2025-06-29T00:00:00.000000Z" };
  process.stdout.write(`touched ${i}\n`);
}
await server.close();
