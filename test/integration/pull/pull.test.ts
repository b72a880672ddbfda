import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiClient } from "../../../src/client/create-client.js";
import { isOcfSyncError } from "../../../src/errors.js";
import { PaginationError, listPages, type ListPage } from "../../../src/pull/paginate.js";
import { getAward, getUnit, pullIssuer } from "../../../src/pull/pull-issuer.js";
import { pullIssuers, type IssuerPullResult } from "../../../src/pull/pull-issuers.js";
import type { PullEvent } from "../../../src/pull/events.js";
import { SourceRecordError } from "../../../src/source/errors.js";
import { loadSampleData, startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";

/** The ids the sample files hold, per issuer and kind: what a complete pull must return, each once. */
async function expectedIds(): Promise<Map<string, { awards: string[]; units: string[] }>> {
  const data = await loadSampleData();
  const out = new Map<string, { awards: string[]; units: string[] }>();
  for (const [issuerId, records] of data.issuers) {
    const ids = (list: unknown[]): string[] => list.map((r) => String((r as { id: unknown }).id)).sort();
    out.set(issuerId, { awards: ids(records.awards), units: ids(records.units) });
  }
  return out;
}

async function collect(results: AsyncIterable<IssuerPullResult>): Promise<Map<string, IssuerPullResult>> {
  const out = new Map<string, IssuerPullResult>();
  for await (const result of results) {
    expect(out.has(result.issuerId)).toBe(false);
    out.set(result.issuerId, result);
  }
  return out;
}

function assertComplete(results: Map<string, IssuerPullResult>, expected: Map<string, { awards: string[]; units: string[] }>): void {
  expect([...results.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [issuerId, want] of expected) {
    const result = results.get(issuerId);
    if (result === undefined || !result.ok) throw new Error(`issuer ${issuerId} failed: ${String(result && !result.ok ? result.error : "missing")}`);
    const awardIds = result.pull.awards.map((a) => a.id ?? "").sort();
    const unitIds = result.pull.units.map((u) => u.id ?? "").sort();
    // every record exactly once: same multiset of ids as the source
    expect(awardIds).toEqual(want.awards);
    expect(unitIds).toEqual(want.units);
    expect(result.pull.warnings.filter((w) => w.code === "DUPLICATE_RECORD")).toEqual([]);
  }
}

describe("pulling the sample issuers over real sockets", () => {
  let expected: Map<string, { awards: string[]; units: string[] }>;
  beforeAll(async () => {
    expected = await expectedIds();
    expect(expected.size).toBeGreaterThanOrEqual(3);
    const largest = Math.max(...[...expected.values()].map((e) => e.awards.length + e.units.length));
    expect(largest).toBeGreaterThan(120);
  });

  it("pulls every record of every issuer exactly once", async () => {
    const server = await startSampleServer({ port: 0 });
    try {
      const client = createApiClient({ baseUrl: server.url, rateLimit: false });
      const events: PullEvent[] = [];
      const results = await collect(pullIssuers(client, server.issuers, { concurrency: 3, onInvalid: "quarantine", onEvent: (e) => events.push(e) }));
      assertComplete(results, expected);
      expect(events.filter((e) => e.type === "issuer-started")).toHaveLength(server.issuers.length);
      expect(events.filter((e) => e.type === "issuer-done")).toHaveLength(server.issuers.length);
      expect(events.some((e) => e.type === "page-fetched" && e.page > 1)).toBe(true);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it("still gets every record exactly once with 30% injected faults", async () => {
    const server = await startSampleServer({
      port: 0,
      faults: { rate: 0.3, kinds: ["429", "429-no-retry-after", "500", "502", "503", "reset", "truncated", "slow-body"], seed: 7 },
    });
    try {
      const client = createApiClient({
        baseUrl: server.url,
        rateLimit: false,
        retry: { maxAttempts: 12, baseDelayMs: 5, maxDelayMs: 40 },
        timeouts: { connectMs: 2_000, headersMs: 2_000, bodyMs: 400 },
      });
      const results = await collect(pullIssuers(client, server.issuers, { concurrency: 2, onInvalid: "quarantine" }));
      assertComplete(results, expected);
      expect(server.stats().faults).toBeGreaterThan(0);
      expect(client.stats().retries).toBeGreaterThan(0);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it("gets every record exactly once with 50 ms latency", async () => {
    const server = await startSampleServer({ port: 0, latencyMs: 50 });
    try {
      const client = createApiClient({ baseUrl: server.url, rateLimit: false });
      assertComplete(await collect(pullIssuers(client, server.issuers, { concurrency: 4, onInvalid: "quarantine" })), expected);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it("isolates a failing issuer: the others still finish", async () => {
    const server = await startSampleServer({ port: 0 });
    try {
      const client = createApiClient({ baseUrl: server.url, rateLimit: false });
      const ids = [...server.issuers, "no-such-issuer"];
      const results = await collect(pullIssuers(client, ids, { concurrency: 2, onInvalid: "quarantine" }));
      const failed = results.get("no-such-issuer");
      expect(failed?.ok).toBe(false);
      if (failed !== undefined && !failed.ok) {
        expect(isOcfSyncError(failed.error) && failed.error.code).toBe("API_NOT_FOUND");
      }
      results.delete("no-such-issuer");
      assertComplete(results, expected);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it("passes the lastModified filters through", async () => {
    const server = await startSampleServer({ port: 0 });
    try {
      const client = createApiClient({ baseUrl: server.url, rateLimit: false });
      const issuerId = server.issuers[0] ?? "";
      const all = await pullIssuer(client, issuerId, { onInvalid: "quarantine" });
      const stamps = [...all.awards, ...all.units].map((r) => r.lastModifiedDatetime ?? "").filter((s) => s !== "").sort();
      expect(stamps.length).toBeGreaterThan(2);
      const middle = stamps[Math.floor(stamps.length / 2)] ?? "";
      const after = `${middle.slice(0, 19)}Z`;
      const filtered = await pullIssuer(client, issuerId, { onInvalid: "quarantine", lastModifiedDatetimeAfter: after });
      const want = stamps.filter((s) => s.slice(0, 19) >= middle.slice(0, 19)).length;
      expect(filtered.awards.length + filtered.units.length).toBe(want);
      await client.close();
    } finally {
      await server.close();
    }
  });
});

describe("invalid records", () => {
  const bad = {
    id: "bad-1",
    issuerId: "t1",
    quantity: { value: "12,5" },
    issueDate: { value: "2023-02-30" },
  };
  const good = { id: "good-1", issuerId: "t1", quantity: { value: "100" } };
  let server: SampleServer;
  beforeAll(async () => {
    server = await startSampleServer({
      port: 0,
      data: { issuers: new Map([["t1", { awards: [good, bad], units: [] }]]) },
    });
  });
  afterAll(async () => server.close());

  it("fail the issuer by default, naming issuer, kind, record, path and value", async () => {
    const client = createApiClient({ baseUrl: server.url, rateLimit: false });
    const error = await pullIssuer(client, "t1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceRecordError);
    const e = error as SourceRecordError;
    expect(e.issuerId).toBe("t1");
    expect(e.kind).toBe("restrictedStockAward");
    expect(e.recordId).toBe("bad-1");
    expect(e.issues.map((i) => i.pathText).sort()).toEqual(["issueDate.value", "quantity.value"]);
    expect(e.message).toContain('"12,5"');
    expect(e.message).toContain('"2023-02-30"');
    await client.close();
  });

  it("are quarantined with their raw JSON when asked, and the rest is pulled", async () => {
    const client = createApiClient({ baseUrl: server.url, rateLimit: false });
    const pulled = await pullIssuer(client, "t1", { onInvalid: "quarantine" });
    expect(pulled.awards.map((a) => a.id)).toEqual(["good-1"]);
    expect(pulled.quarantined).toHaveLength(1);
    expect(pulled.quarantined[0]?.recordId).toBe("bad-1");
    expect(pulled.quarantined[0]?.raw).toEqual(bad);
    await client.close();
  });
});

describe("get one record", () => {
  it("fetches by id, escaping it, and answers undefined for 404", async () => {
    const weird = "a/b ../%x";
    const server = await startSampleServer({
      port: 0,
      data: {
        issuers: new Map([
          ["i/1", { awards: [{ id: weird, issuerId: "i/1", quantity: { value: "5" } }], units: [{ id: "u1", issuerId: "i/1" }] }],
        ]),
      },
    });
    try {
      const client = createApiClient({ baseUrl: server.url, rateLimit: false });
      const award = await getAward(client, "i/1", weird);
      expect(award?.record.id).toBe(weird);
      expect(award?.record.quantity).toBe("5");
      expect((await getUnit(client, "i/1", "u1"))?.record.id).toBe("u1");
      expect(await getUnit(client, "i/1", "nope")).toBeUndefined();
      await client.close();
    } finally {
      await server.close();
    }
  });
});

describe("paging rules against a misbehaving server", () => {
  let url = "";
  let handler: (req: IncomingMessage, res: ServerResponse) => void = () => {};
  const server = createServer((req, res) => handler(req, res));
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((r) => server.close(() => r())));
  const json = (res: ServerResponse, body: unknown): void => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  it("stops with an error when a page token repeats", async () => {
    handler = (_req, res) => json(res, { restrictedStockAwards: [{ id: "x", issuerId: "s" }], nextPageToken: "same" });
    const client = createApiClient({ baseUrl: url, rateLimit: false });
    const pages: number[] = [];
    const error = await (async () => {
      for await (const page of listPages(client, "restrictedStockAward", "s")) pages.push(page.page);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationError);
    expect((error as PaginationError).code).toBe("PAGINATION_TOKEN_REPEATED");
    expect(pages).toEqual([1, 2]);
    await client.close();
  });

  it("does not stop at a short or empty page; only a missing token ends the list", async () => {
    const requests: string[] = [];
    handler = (req, res) => {
      const u = new URL(req.url ?? "/", url);
      requests.push(u.search);
      const token = u.searchParams.get("pageToken");
      expect(u.searchParams.get("pageSize")).toBe("50");
      expect(u.searchParams.get("lastModifiedDatetimeAfter")).toBe("2024-01-01T00:00:00Z");
      if (token === null) json(res, { restrictedStockUnits: [{ id: "1", issuerId: "s" }], nextPageToken: "t1" });
      else if (token === "t1") json(res, { nextPageToken: "t2" }); // empty page, array key left out
      else if (token === "t2") json(res, { restrictedStockUnits: [{ id: "2", issuerId: "s" }], nextPageToken: "" });
      else json(res, { restrictedStockUnits: [{ id: "never" }] });
    };
    const client = createApiClient({ baseUrl: url, rateLimit: false });
    const pulled = await pullIssuer(client, "s", { kinds: ["restrictedStockUnit"], lastModifiedDatetimeAfter: "2024-01-01T00:00:00Z" });
    expect(pulled.units.map((u) => u.id)).toEqual(["1", "2"]);
    expect(requests).toHaveLength(3);
    await client.close();
  });

  it("with known pages: leaves a page unparsed only when its request and bytes are those of a known one, and follows its token", async () => {
    let first = '{"restrictedStockUnits":[{"id":"1","issuerId":"s"}],"nextPageToken":"t1"}';
    const requests: string[] = [];
    handler = (req, res) => {
      const token = new URL(req.url ?? "/", url).searchParams.get("pageToken");
      requests.push(token ?? "");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(token === null ? first : '{"restrictedStockUnits":[{"id":"2","issuerId":"s"}]}');
    };
    const client = createApiClient({ baseUrl: url, rateLimit: false });
    const list = async (options: Parameters<typeof listPages>[3]): Promise<ListPage[]> => {
      const pages: ListPage[] = [];
      for await (const page of listPages(client, "restrictedStockUnit", "s", options)) pages.push(page);
      return pages;
    };
    const plain = await list({});
    expect(plain.map((p) => p.digest)).toEqual([undefined, undefined]);
    const seen = await list({ knownPages: new Map() });
    expect(seen.map((p) => [p.items.length, p.known, typeof p.digest])).toEqual([
      [1, undefined, "string"],
      [1, undefined, "string"],
    ]);
    const [one, two] = seen.map((p) => p.digest as string);
    expect(one).not.toBe(two);
    const knownPages = new Map([[one as string, { records: 1, nextPageToken: "t1" }]]);
    requests.length = 0;
    const again = await list({ knownPages });
    expect(again.map((p) => [p.items.length, p.known, p.nextPageToken, p.digest])).toEqual([
      [0, { records: 1, nextPageToken: "t1" }, "t1", one],
      [1, undefined, undefined, two],
    ]);
    expect(requests).toEqual(["", "t1"]);
    // Other bytes (the same record, spaced otherwise), or the same bytes for another request: parsed.
    expect((await list({ knownPages, lastModifiedDatetimeAfter: "2024-01-01T00:00:00Z" }))[0]?.known).toBeUndefined();
    first = '{"restrictedStockUnits":[{"id":"1", "issuerId":"s"}],"nextPageToken":"t1"}';
    const spaced = await list({ knownPages });
    expect(spaced[0]?.known).toBeUndefined();
    expect(spaced[0]?.items).toEqual([{ id: "1", issuerId: "s" }]);
    await client.close();
  });

  it("pages the awards and the units of one issuer at the same time, through one rate limiter", async () => {
    // Each list's first page is answered only once the other list's first request is in: a pull that
    // paged one list after the other would never get its first page.
    const waiting = new Map<string, () => void>();
    const seen: string[] = [];
    handler = (req, res) => {
      const u = new URL(req.url ?? "/", url);
      const collection = u.pathname.split("/")[4] ?? "";
      const token = u.searchParams.get("pageToken");
      seen.push(`${collection}:${token ?? "first"}`);
      const answer = (): void =>
        json(res, token === null ? { [collection]: [{ id: `${collection}-1`, issuerId: "s" }], nextPageToken: "p2" } : { [collection]: [{ id: `${collection}-2`, issuerId: "s" }] });
      if (token !== null) return answer();
      const other = [...waiting.entries()].find(([name]) => name !== collection);
      if (other === undefined) {
        waiting.set(collection, answer);
        return;
      }
      waiting.delete(other[0]);
      other[1]();
      answer();
    };
    const client = createApiClient({ baseUrl: url, rateLimit: { perSecond: 1000, perMinute: 100_000 } });
    try {
      const pulled = await pullIssuer(client, "s", { onInvalid: "quarantine" });
      const ids = [...pulled.awards.map((r) => r.id), ...pulled.units.map((r) => r.id), ...pulled.quarantined.map((q) => q.recordId)];
      expect(ids.sort()).toEqual(["restrictedStockAwards-1", "restrictedStockAwards-2", "restrictedStockUnits-1", "restrictedStockUnits-2"]);
      expect(seen.slice(0, 2).sort()).toEqual(["restrictedStockAwards:first", "restrictedStockUnits:first"]);
      expect(client.stats().requests).toBe(4);
    } finally {
      await client.close();
    }
  });

  it("stops the other list, with nothing left in flight, when one list fails", async () => {
    let pendingUnits: ServerResponse | undefined;
    let unitsClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      unitsClosed = resolve;
    });
    handler = (req, res) => {
      const u = new URL(req.url ?? "/", url);
      if (u.pathname.endsWith("/restrictedStockUnits")) {
        // held until the awards list has failed; the client must give up on it
        pendingUnits = res;
        res.on("close", () => unitsClosed());
        return;
      }
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: 5, message: "Resource not found" }));
    };
    const client = createApiClient({ baseUrl: url, rateLimit: false });
    try {
      const error = await pullIssuer(client, "s").catch((e: unknown) => e);
      expect(isOcfSyncError(error) && error.code).toBe("API_NOT_FOUND");
      await closed; // the held units request was aborted by the client, not left running
      expect(pendingUnits?.writableEnded).toBe(false);
    } finally {
      await client.close();
    }
  });
});
