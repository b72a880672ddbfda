/**
 * `ocf-sync pull` writes each issuer through part files of its own as the records arrive (memory does
 * not grow with an issuer's records), then appends the part whole: the NDJSON is the one
 * `issuerPullToNdjson` gives for `pullIssuer`'s result, issuers in the order listed, whatever order the
 * lists' pages and the issuers' pulls end in (so the same data gives the same bytes); a record listed
 * twice keeps its most recently modified copy; and no part file outlives the pull, whether it succeeds
 * or fails.
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
import type { RecordKind } from "../../../src/source/kinds.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";
import { startLoopbackServer } from "../../helpers/loopback-server.js";

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

/** The lines of `text`, each with its `\n`. */
const linesOf = (text: string): string[] => text.split(/(?<=\n)/).filter((line) => line !== "");

interface Line {
  kind: string;
  issuerId: string;
  id: string;
  quarantined?: true;
}

describe("ocf-sync pull, each issuer through a part file", () => {
  it("writes what pullIssuer gives, issuers in the order listed, to --out and to standard output", async () => {
    const out = join(dir, "all.ndjson");
    const issuerFlags = samples.issuers.flatMap((id) => ["--issuer", id]);
    const toFile = await run(["pull", "--base-url", samples.url, ...issuerFlags, "--on-invalid", "quarantine", "--out", out, "--log", "plain"]);
    expect(toFile.code).toBe(0);
    const toStdout = await run(["pull", "--base-url", samples.url, ...issuerFlags, "--on-invalid", "quarantine", "--concurrency", "1", "--log", "plain"]);
    expect(toStdout.code).toBe(0);
    const client = createApiClient({ baseUrl: samples.url, rateLimit: false });
    try {
      let expected = "";
      for (const issuerId of samples.issuers) expected += [...issuerPullToNdjson(await pullIssuer(client, issuerId, { onInvalid: "quarantine" }))].join("");
      expect(await readFile(out, "utf8")).toBe(expected);
      expect(toStdout.out).toBe(expected);
      // The invalid award's quarantined line is compared too.
      expect(linesOf(expected).filter((t) => (JSON.parse(t) as Line).quarantined === true).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    expect((await readdir(dir)).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });

  it("writes an issuer's lines in one order whichever of its two lists' pages arrive first", async () => {
    // 144361 has two pages of awards and two of units. One pull holds its first page of units until
    // the second page of awards has been taken, the other the reverse: the parts are written in
    // opposite orders (what a loaded machine may do to any pull), and must still be appended the same.
    const pulled = async (first: RecordKind): Promise<{ text: string; pages: string[] }> => {
      const held: RecordKind = first === "restrictedStockAward" ? "restrictedStockUnit" : "restrictedStockAward";
      let release = (): void => {};
      const firstTaken = new Promise<void>((resolve) => (release = resolve));
      const proxy = await startLoopbackServer(async (request, res) => {
        const response = await fetch(`${samples.url}${request.url}`);
        const body = Buffer.from(await response.arrayBuffer());
        if (request.url.includes(`/${held}s?`) && !request.url.includes("pageToken=")) await firstTaken;
        res.writeHead(response.status, { "content-type": "application/json", "content-length": body.length });
        res.end(body);
      });
      const client = createApiClient({ baseUrl: proxy.url, rateLimit: false });
      try {
        const partDir = await mkdtemp(join(dir, "arrival-"));
        const pages: string[] = [];
        const part = await pullIssuerToPart(client, "144361", join(partDir, "1"), {
          onEvent: (event) => {
            if (event.type !== "page-fetched") return;
            pages.push(`${event.kind} ${event.page}`);
            if (event.kind === first && event.page === 2) release();
          },
        });
        expect([part.awards, part.units]).toEqual([80, 70]);
        const chunks: Buffer[] = [];
        await appendPart(part, async (chunk) => void chunks.push(Buffer.from(chunk)));
        expect(await readdir(partDir)).toEqual([]);
        return { text: Buffer.concat(chunks).toString("utf8"), pages };
      } finally {
        await client.close();
        await proxy.close();
      }
    };
    const awardsFirst = await pulled("restrictedStockAward");
    const unitsFirst = await pulled("restrictedStockUnit");
    // The pages did arrive in the two orders.
    expect(awardsFirst.pages).toEqual(["restrictedStockAward 1", "restrictedStockAward 2", "restrictedStockUnit 1", "restrictedStockUnit 2"]);
    expect(unitsFirst.pages).toEqual(["restrictedStockUnit 1", "restrictedStockUnit 2", "restrictedStockAward 1", "restrictedStockAward 2"]);
    expect(unitsFirst.text).toBe(awardsFirst.text);
    const kinds = linesOf(awardsFirst.text).map((t) => (JSON.parse(t) as Line).kind);
    expect(kinds).toEqual([...Array<string>(80).fill("restrictedStockAward"), ...Array<string>(70).fill("restrictedStockUnit")]);
    // The same bytes as pullIssuer's lines and as a pull through the CLI, whose pages mostly alternate.
    const client = createApiClient({ baseUrl: samples.url, rateLimit: false });
    try {
      expect(awardsFirst.text).toBe([...issuerPullToNdjson(await pullIssuer(client, "144361"))].join(""));
    } finally {
      await client.close();
    }
    const cli = await run(["pull", "--base-url", samples.url, "--issuer", "144361", "--log", "plain"]);
    expect(cli.code).toBe(0);
    expect(cli.out).toBe(awardsFirst.text);
  });

  it("writes the issuers in the order listed whichever finishes first", async () => {
    // "7" (one page a list) and "144361" (two) are pulled at once. One pull holds every request of
    // "7" until all four of 144361's have been answered, the other the reverse, so each mostly ends
    // the other issuer first; either way the output is the same, "7" first.
    const PAGES: Record<string, number> = { "7": 2, "144361": 4 };
    const pullWithFirst = async (first: string): Promise<string> => {
      const held = first === "7" ? "144361" : "7";
      let answered = 0;
      let release = (): void => {};
      const firstAnswered = new Promise<void>((resolve) => (release = resolve));
      const proxy = await startLoopbackServer(async (request, res) => {
        if (request.url.includes(`/issuers/${held}/`)) await firstAnswered;
        const response = await fetch(`${samples.url}${request.url}`);
        const body = Buffer.from(await response.arrayBuffer());
        res.writeHead(response.status, { "content-type": "application/json", "content-length": body.length });
        res.end(body, () => {
          if (request.url.includes(`/issuers/${first}/`) && ++answered === PAGES[first]) release();
        });
      });
      try {
        const result = await run(["pull", "--base-url", proxy.url, "--issuer", "7", "--issuer", "144361", "--concurrency", "2", "--on-invalid", "quarantine", "--log", "plain"]);
        expect(result.code, result.err).toBe(0);
        expect(answered).toBe(PAGES[first]);
        return result.out;
      } finally {
        await proxy.close();
      }
    };
    const sevenFirst = await pullWithFirst("7");
    const laterFirst = await pullWithFirst("144361");
    expect(laterFirst).toBe(sevenFirst);
    const issuers = linesOf(sevenFirst).map((t) => (JSON.parse(t) as Line).issuerId);
    expect(issuers).toEqual([...Array<string>(7).fill("7"), ...Array<string>(150).fill("144361")]);
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
      // Awards then units, each in the service's order; the copy kept stands where the first copy came.
      expect(lines.map((l) => [l.kind, l.id, l.record.securityLabel])).toEqual([
        ["restrictedStockAward", (a as { id: string }).id, "NEW"],
        ["restrictedStockAward", (b as { id: string }).id, (b as { securityLabel?: string }).securityLabel],
        ["restrictedStockUnit", (c as { id: string }).id, "NEWER"],
      ]);
      // The same bytes as pullIssuer's lines (it too keeps a record at the place of its first copy).
      const client = createApiClient({ baseUrl: server.url, rateLimit: false });
      try {
        expect(await readFile(out, "utf8")).toBe([...issuerPullToNdjson(await pullIssuer(client, "7"))].join(""));
      } finally {
        await client.close();
      }
    } finally {
      await server.close();
    }
  });
});

describe("appendPart", () => {
  it("copies every line but those left out, with those moved in their place, whatever their length against the pieces it reads", async () => {
    const partDir = await mkdtemp(join(dir, "parts-"));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.oneof(fc.nat(40), fc.nat(70_000), fc.constantFrom(65_535, 65_536, 65_537, 131_071)), fc.boolean()), { maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 3 }),
        fc.array(fc.nat(100), { maxLength: 3 }),
        async (specs, moves, quarantinedLengths) => {
          n += 1;
          const text = (length: number, i: number): string => `${String(i % 10).repeat(length)}é\n`;
          const lines = specs.map(([length], i) => text(length, i));
          const quarantinedLines = quarantinedLengths.map((length, i) => text(length, i + 3));
          const paths = [join(partDir, `${n}.ndjson`), join(partDir, `${n}.q.ndjson`)] as const;
          await writeFile(paths[0], lines.join(""));
          await writeFile(paths[1], quarantinedLines.join(""));
          const skip = new Set(specs.flatMap(([, left], i) => (left ? [i] : [])));
          // A line moved into the place of another, as a record's later copy into its first copy's.
          const moved = new Map<number, { offset: number; length: number }>();
          const into = new Map<number, number>();
          for (const [to, from] of moves) {
            if (lines.length === 0) break;
            const at = from % lines.length;
            into.set(to % lines.length, at);
            const offset = Buffer.byteLength(lines.slice(0, at).join(""));
            moved.set(to % lines.length, { offset, length: Buffer.byteLength(lines[at] as string) });
          }
          const chunks: Buffer[] = [];
          const files = [
            { path: paths[0], skip, moved },
            { path: paths[1], skip: new Set<number>(), moved: new Map() },
          ];
          await appendPart({ issuerId: "7", awards: 0, units: 0, quarantined: 0, warnings: 0, files }, async (chunk) => {
            chunks.push(Buffer.from(chunk));
          });
          const kept = lines.flatMap((line, i) => (into.has(i) ? [lines[into.get(i) as number] as string] : skip.has(i) ? [] : [line]));
          expect(Buffer.concat(chunks).toString("utf8")).toBe([...kept, ...quarantinedLines].join(""));
          // The part's files are removed once appended.
          expect(await readdir(partDir)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
