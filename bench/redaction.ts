/**
 * Micro-benchmark of redaction (issue 25, item 3) on normal data, where no secret appears: what it adds
 * to the work it rides on. Pages: parsing a page's JSON (as the client does) against parsing it and
 * looking for a credential in its bytes (as the client does when one is in play; a walk of the parsed
 * page follows only when it holds one). Documents: writing a page as JSON text against writing it
 * and redacting the text (standard error). Values: redacting every string of a parsed page (a
 * `--json` document, a page that held a credential) against writing it as JSON text.
 *
 *   npx tsx bench/redaction.ts [RECORDS]
 *
 * Prints one JSON line: the ratios (with redaction / without), and the milliseconds behind them.
 */
import { createRedactor } from "../src/redaction.js";
import { generatedRecordTexts } from "./generated-issuer.js";

const records = Number(process.argv[2] ?? 2000);
const pages: string[] = [];
const texts = generatedRecordTexts(records);
for (let at = 0; at < texts.length; at += 100) pages.push(`{"restrictedStockAwards":[${texts.slice(at, at + 100).map((t) => t.text).join(",")}]}`);
const redactor = createRedactor(["eyJhbGciOiJSUzI1NiJ9.Tok-9f2A/c+e41Bz-QQrrX_1234567890abcdef", "cs-Abc/9+x y=Z~q-secret"]);

function best(run: () => void, rounds = 7): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round += 1) {
    const started = process.hrtime.bigint();
    run();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - started) / 1e6);
  }
  return fastest;
}

let sink = 0;
const parsed = pages.map((page) => JSON.parse(page) as unknown);
// A page's bytes arrive in pieces of 64 KiB or so.
const chunked = pages.map((page) => {
  const bytes = Buffer.from(page);
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 65_536) pieces.push(bytes.subarray(at, at + 65_536));
  return pieces;
});
const parseMs = best(() => chunked.forEach((pieces) => (sink += JSON.parse(Buffer.concat(pieces).toString("utf8")) === null ? 1 : 0)));
const parseRedactMs = best(() =>
  chunked.forEach((pieces) => {
    const page: unknown = JSON.parse(Buffer.concat(pieces).toString("utf8"));
    sink += (redactor.holdsIn(pieces) ? redactor.redactValue(page) : page) === null ? 1 : 0;
  }),
);
const writeMs = best(() => parsed.forEach((page) => (sink += JSON.stringify(page, null, 2).length)));
const writeRedactMs = best(() => parsed.forEach((page) => (sink += redactor.redact(JSON.stringify(page, null, 2)).length)));
const walkMs = best(() => parsed.forEach((page) => (sink += redactor.redactValue(page) === null ? 1 : 0)));
const round = (n: number): number => Math.round(n * 100) / 100;
console.log(
  JSON.stringify({
    records,
    bytes: pages.reduce((sum, page) => sum + page.length, 0),
    pages: { ratio: round(parseRedactMs / parseMs), parseMs: round(parseMs), parseRedactMs: round(parseRedactMs) },
    documents: { ratio: round(writeRedactMs / writeMs), writeMs: round(writeMs), writeRedactMs: round(writeRedactMs) },
    values: { ratio: round((writeMs + walkMs) / writeMs), walkMs: round(walkMs) },
    sink: sink > 0,
  }),
);
