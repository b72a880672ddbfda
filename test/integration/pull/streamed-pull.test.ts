/**
 * `ocf-sync pull` writes each issuer through part files of its own as the records arrive (memory does
 * not grow with an issuer's records), then appends the part whole: the NDJSON is the one
 * `issuerPullToNdjson` gives for `pullIssuer`'s result, a record listed twice keeps its most recently
 * modified copy, and no part file outlives the pull, whether it succeeds or fails.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { createApiClient } from "../../../src/client/create-client.js";
import { issuerPullToNdjson } from "../../../src/pull/ndjson.js";
import { appendPart, pullIssuerToPart } from "../../../src/pull/ndjson-part.js";
import { pullIssuer } from "../../../src/pull/pull-issuer.js";
import { loadSampleData } from "../../../src/sample-server/data.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";
import { startLoopbackServer } from "../../helpers/loopback-server.js";
import { issuerRuns, linesOf } from "../../helpers/pull-lines.js";

let dir: string;
let samples: SampleServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-streamed-pull-"));
  // One invalid award, so that quarantined lines are written and compared too.
  const data = await loadSampleData();
  const seven = data.issuers.get("7");
  const [first, ...rest] = seven?.awards ?? [];
  if (seven === undefined || first === undefined) throw new Error("no sample issuer 7");
  data.issuers.set("7", { ...seven, awards: [{ ...first, quantity: { value: "twelve" } } as unknown as typeof first, ...rest] });
  samples = await startSampleServer({ port: 0, data });
});
afterAll(async () => {
  await samples.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(dir);
  const code = await runCli(argv, io);
  return { code, out: io.stdout.text, err: io.stderr.text };
}

interface Line {
  kind: string;
  issuerId: string;
  id: string;
  quarantined?: true;
}

describe("ocf-sync pull, each issuer through a part file", () => {
  it("writes what pullIssuer gives, each issuer's lines together, to --out and to standard output", async () => {
    const out = join(dir, "all.ndjson");
    const issuerFlags = samples.issuers.flatMap((id) => ["--issuer", id]);
    const toFile = await run(["pull", "--base-url", samples.url, ...issuerFlags, "--on-invalid", "quarantine", "--out", out, "--log", "plain"]);
    expect(toFile.code).toBe(0);
    const toStdout = await run(["pull", "--base-url", samples.url, ...issuerFlags, "--on-invalid", "quarantine", "--concurrency", "1", "--log", "plain"]);
    expect(toStdout.code).toBe(0);
    const client = createApiClient({ baseUrl: samples.url, rateLimit: false });
    try {
      const expected = new Map<string, string[]>();
      for (const issuerId of samples.issuers) expected.set(issuerId, [...issuerPullToNdjson(await pullIssuer(client, issuerId, { onInvalid: "quarantine" }))]);
      const withRecords = [...expected].filter(([, lines]) => lines.length > 0).map(([id]) => id);
      for (const written of [await readFile(out, "utf8"), toStdout.out]) {
        // Each issuer's lines are one run (issuers in the order they finished).
        const runs = issuerRuns(written);
        expect(runs.map((run) => run.issuerId).sort()).toEqual(withRecords.sort());
        for (const [issuerId, lines] of expected) expect(runs.find((run) => run.issuerId === issuerId)).toEqual(issuerRuns(lines.join(""))[0]);
      }
      // The invalid award's quarantined line is compared too.
      expect([...expected.values()].flat().filter((t) => (JSON.parse(t) as Line).quarantined === true).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    expect((await readdir(dir)).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });

  it("writes an issuer's two lists in the order their pages arrive: each list whole, in the service's order, no page twice", async () => {
    // 144361 has two pages of awards and two of units. Its first page of units is held until the
    // second page of awards has been taken, so the part gets awards 1, awards 2, units 1, units 2,
    // not the alternation a pull mostly gets: what a loaded machine did once, which the signal
    // tests read as a page written twice when they compared two pulls byte for byte.
    let release = (): void => {};
    const awardsTaken = new Promise<void>((resolve) => (release = resolve));
    const proxy = await startLoopbackServer(async (request, res) => {
      const response = await fetch(`${samples.url}${request.url}`);
      const body = Buffer.from(await response.arrayBuffer());
      if (request.url.includes("/restrictedStockUnits?") && !request.url.includes("pageToken=")) await awardsTaken;
      res.writeHead(response.status, { "content-type": "application/json", "content-length": body.length });
      res.end(body);
    });
    const client = createApiClient({ baseUrl: proxy.url, rateLimit: false });
    try {
      const partDir = await mkdtemp(join(dir, "arrival-"));
      const part = await pullIssuerToPart(client, "144361", [join(partDir, "1.ndjson"), join(partDir, "1.quarantined.ndjson")], {
        onEvent: (event) => {
          if (event.type === "page-fetched" && event.kind === "restrictedStockAward" && event.page === 2) release();
        },
      });
      const chunks: Buffer[] = [];
      await appendPart(part, async (chunk) => void chunks.push(Buffer.from(chunk)));
      const awardsFirst = Buffer.concat(chunks).toString("utf8");
      const kinds = linesOf(awardsFirst).map((t) => (JSON.parse(t) as Line).kind);
      expect(kinds).toEqual([...Array<string>(part.awards).fill("restrictedStockAward"), ...Array<string>(part.units).fill("restrictedStockUnit")]);
      expect([part.awards, part.units]).toEqual([80, 70]);
      // The same lines as a pull through the CLI, whose pages mostly alternate (and may not).
      const cli = await run(["pull", "--base-url", samples.url, "--issuer", "144361", "--log", "plain"]);
      expect(cli.code).toBe(0);
      expect(issuerRuns(awardsFirst)).toEqual(issuerRuns(cli.out));
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it("leaves no part file and no output when an issuer fails", async () => {
    const out = join(dir, "failed.ndjson");
    const result = await run(["pull", "--base-url", samples.url, "--issuer", "7", "--issuer", "no-such-issuer", "--out", out, "--log", "plain"]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("was not written");
    const left = await readdir(dir);
    expect(left.filter((f) => f.includes("failed.ndjson"))).toEqual([]);
  });
});

describe("a record listed twice in one pass", () => {
  it("keeps its most recently modified copy, with a DUPLICATE_RECORD warning, as pullIssuer does", async () => {
    const issuer = (await loadSampleData()).issuers.get("7");
    const [a, b] = issuer?.awards ?? [];
    const [c] = issuer?.units ?? [];
    if (a === undefined || b === undefined || c === undefined) throw new Error("sample issuer 7 has too few records");
    const modified = (record: object, value: string, label: string): object => ({ ...record, lastModifiedDatetime: { value }, securityLabel: label });
    const awards = [modified(a, "2025-01-01T00:00:00Z", "OLD"), b, modified(a, "2025-02-01T00:00:00Z", "NEW")];
    const units = [modified(c, "2025-03-01T00:00:00Z", "NEWER"), modified(c, "2025-01-01T00:00:00Z", "OLDER")];
    const server = await startLoopbackServer((request, res) => {
      const body = JSON.stringify(request.url.includes("restrictedStockAwards") ? { restrictedStockAwards: awards } : { restrictedStockUnits: units });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
    try {
      const out = join(dir, "duplicates.ndjson");
      const result = await run(["pull", "--base-url", server.url, "--issuer", "7", "--out", out, "--log", "plain"]);
      expect(result.code).toBe(0);
      expect(result.err.match(/was listed twice in one pass; keeping the most recently modified copy/g)).toHaveLength(2);
      const lines = linesOf(await readFile(out, "utf8")).map((t) => JSON.parse(t) as Line & { record: { securityLabel?: string } });
      // Each list in the service's order (the two lists arrive interleaved); the copy kept stands where it came.
      const ofKind = (kind: string): unknown[][] => lines.filter((l) => l.kind === kind).map((l) => [l.id, l.record.securityLabel]);
      expect(ofKind("restrictedStockAward")).toEqual([
        [(b as { id: string }).id, (b as { securityLabel?: string }).securityLabel],
        [(a as { id: string }).id, "NEW"],
      ]);
      expect(ofKind("restrictedStockUnit")).toEqual([[(c as { id: string }).id, "NEWER"]]);
      // The same records as pullIssuer keeps (it puts a record at the place of its first copy).
      const client = createApiClient({ baseUrl: server.url, rateLimit: false });
      try {
        const expected = [...issuerPullToNdjson(await pullIssuer(client, "7"))].map((t) => JSON.parse(t) as unknown);
        expect(lines).toEqual(expect.arrayContaining(expected));
        expect(lines).toHaveLength(expected.length);
      } finally {
        await client.close();
      }
    } finally {
      await server.close();
    }
  });
});

describe("appendPart", () => {
  it("copies every line but those superseded, whatever their length against the pieces it reads", async () => {
    const partDir = await mkdtemp(join(dir, "parts-"));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.oneof(fc.nat(40), fc.nat(70_000), fc.constantFrom(65_535, 65_536, 65_537, 131_071)), fc.boolean()), { maxLength: 12 }),
        fc.array(fc.nat(100), { maxLength: 3 }),
        async (specs, quarantinedLengths) => {
          n += 1;
          const text = (length: number, i: number): string => `${String(i % 10).repeat(length)}é\n`;
          const lines = specs.map(([length], i) => text(length, i));
          const quarantinedLines = quarantinedLengths.map((length, i) => text(length, i + 3));
          const files = [join(partDir, `${n}.ndjson`), join(partDir, `${n}.q.ndjson`)] as const;
          await writeFile(files[0], lines.join(""));
          await writeFile(files[1], quarantinedLines.join(""));
          const superseded = new Set(specs.flatMap(([, skip], i) => (skip ? [i] : [])));
          const chunks: Buffer[] = [];
          await appendPart({ issuerId: "7", awards: 0, units: 0, quarantined: 0, warnings: 0, files, superseded }, async (chunk) => {
            chunks.push(Buffer.from(chunk));
          });
          const kept = lines.filter((_, i) => !superseded.has(i));
          expect(Buffer.concat(chunks).toString("utf8")).toBe([...kept, ...quarantinedLines].join(""));
          // The part's files are removed once appended.
          expect(await readdir(partDir)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
