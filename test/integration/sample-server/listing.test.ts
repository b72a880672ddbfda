import { describe, expect, it } from "vitest";
import { parseUtcDateTime, toFilterDateTime, compareIso } from "../../../src/dates.js";
import { startSampleServer } from "../../../src/sample-server/server.js";
import { fetchJson, idsOf, listPages, listPath, useSampleServer } from "./helpers.js";

const COLLECTIONS = [
  ["restrictedStockAwards", "awards"],
  ["restrictedStockUnits", "units"],
] as const;

const ctx = useSampleServer();

function idsInData(issuerId: string, key: "awards" | "units"): string[] {
  return (ctx.server.data.issuers.get(issuerId)?.[key] ?? []).map((r) => r.id as string);
}

describe("list envelopes and paging", () => {
  it("serves the five sample issuers", () => {
    expect([...ctx.server.issuers].sort()).toEqual(["144361", "7", "acme-robotics", "north wind/eu", "zeta%labs"]);
  });

  for (const pageSize of ["50", undefined] as const) {
    it(`returns every record of every issuer exactly once at pageSize ${pageSize ?? "default (25)"}`, async () => {
      for (const issuerId of ctx.server.issuers) {
        for (const [collection, key] of COLLECTIONS) {
          const pages = await listPages(ctx.agent, ctx.server.url, issuerId, collection, pageSize === undefined ? {} : { pageSize });
          const ids = pages.flatMap((p) => idsOf(p, collection));
          expect(ids.length).toBe(new Set(ids).size);
          expect([...ids].sort()).toEqual(idsInData(issuerId, key).sort());
          const limit = pageSize === undefined ? 25 : 50;
          // every page but the last is full; only the last has no token
          pages.forEach((page, i) => {
            const last = i === pages.length - 1;
            expect(page.nextPageToken === undefined).toBe(last);
            if (!last) expect(idsOf(page, collection)).toHaveLength(limit);
            else expect(idsOf(page, collection).length).toBeLessThanOrEqual(limit);
          });
        }
      }
    });
  }

  it("needs several pages for the large issuer at the maximum page size", async () => {
    const awards = await listPages(ctx.agent, ctx.server.url, "144361", "restrictedStockAwards", { pageSize: "50" });
    const units = await listPages(ctx.agent, ctx.server.url, "144361", "restrictedStockUnits", { pageSize: "50" });
    expect(awards.map((p) => idsOf(p, "restrictedStockAwards").length)).toEqual([50, 30]);
    expect(units.map((p) => idsOf(p, "restrictedStockUnits").length)).toEqual([50, 20]);
  });

  it("sends the documented envelope keys and nothing else", async () => {
    const res = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("144361", "restrictedStockUnits")}?pageSize=5`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(Object.keys(res.json as object).sort()).toEqual(["nextPageToken", "restrictedStockUnits"]);
  });

  it("answers an issuer without records with an empty object (no array key, no token)", async () => {
    for (const [collection] of COLLECTIONS) {
      const res = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("zeta%labs", collection)}`);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({});
      expect(res.text).toBe("{}");
    }
  });

  it("coerces a page size above 50 to 50", async () => {
    for (const size of ["51", "500", "2147483647"]) {
      const res = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("144361", "restrictedStockAwards")}?pageSize=${size}`);
      expect(idsOf(res.json as Record<string, unknown>, "restrictedStockAwards")).toHaveLength(50);
    }
  });

  it("uses the default of 25 for a missing, empty, zero or negative page size", async () => {
    for (const suffix of ["", "?pageSize=", "?pageSize=0", "?pageSize=-7"]) {
      const res = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("144361", "restrictedStockAwards")}${suffix}`);
      expect(res.status).toBe(200);
      expect(idsOf(res.json as Record<string, unknown>, "restrictedStockAwards")).toHaveLength(25);
    }
  });

  it("honours small page sizes", async () => {
    const pages = await listPages(ctx.agent, ctx.server.url, "7", "restrictedStockAwards", { pageSize: "3" });
    expect(pages.map((p) => idsOf(p, "restrictedStockAwards").length)).toEqual([3, 1]);
  });

  it("rejects a page size that is not a 32-bit integer with 400 INVALID_ARGUMENT", async () => {
    for (const size of ["abc", "2.5", "1e2", "2147483648", "10x", "1&pageSize=2"]) {
      const res = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("7", "restrictedStockAwards")}?pageSize=${size}`);
      expect(res.status, size).toBe(400);
      expect(res.json).toMatchObject({ code: 3, message: expect.any(String) });
    }
  });

  it("sends records in a fixed order that is neither by id nor by modification time", async () => {
    const first = await listPages(ctx.agent, ctx.server.url, "144361", "restrictedStockAwards", { pageSize: "50" });
    const again = await listPages(ctx.agent, ctx.server.url, "144361", "restrictedStockAwards", { pageSize: "50" });
    const records = first.flatMap((p) => p.restrictedStockAwards as { id: string; lastModifiedDatetime: { value: string } }[]);
    const ids = records.map((r) => r.id);
    expect(again.flatMap((p) => idsOf(p, "restrictedStockAwards"))).toEqual(ids);
    expect(ids).not.toEqual([...ids].sort());
    expect(ids).not.toEqual([...ids].sort((a, b) => a.localeCompare(b, "en", { numeric: true })));
    const times = records.map((r) => parseUtcDateTime(r.lastModifiedDatetime.value));
    expect(times).not.toEqual([...times].sort(compareIso));
    expect(times).not.toEqual([...times].sort(compareIso).reverse());
  });
});

describe("page tokens", () => {
  async function firstToken(query: string): Promise<string> {
    const res = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("144361", "restrictedStockAwards")}?${query}`);
    const token = (res.json as { nextPageToken?: unknown }).nextPageToken;
    expect(typeof token).toBe("string");
    return token as string;
  }

  it("are opaque: not a plain number or base64 of one", async () => {
    const token = await firstToken("pageSize=10");
    expect(token).not.toMatch(/^\d+$/);
    expect(Buffer.from(token, "base64").toString("utf8")).not.toMatch(/^\d+$/);
  });

  it("reject a tampered token with 400", async () => {
    const token = await firstToken("pageSize=10");
    const decoded = Buffer.from(token, "base64url").toString("utf8");
    const forged = Buffer.from(decoded.replace(/\.10\./, ".20."), "utf8").toString("base64url");
    expect(forged).not.toBe(token);
    const flipped = `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`;
    for (const bad of [forged, flipped, "ODMxMw==", "10", "not a token", `${token}x`]) {
      const res = await fetchJson(
        ctx.agent,
        `${ctx.server.url}${listPath("144361", "restrictedStockAwards")}?pageSize=10&pageToken=${encodeURIComponent(bad)}`,
      );
      expect(res.status, bad).toBe(400);
      expect(res.json).toMatchObject({ code: 3 });
    }
  });

  it("reject a token presented with other parameters with 400", async () => {
    const token = encodeURIComponent(await firstToken("pageSize=10&lastModifiedDatetimeAfter=2019-01-01T00:00:00Z"));
    const base = `${ctx.server.url}${listPath("144361", "restrictedStockAwards")}`;
    const mismatches = [
      `${base}?pageToken=${token}&lastModifiedDatetimeAfter=2019-01-01T00:00:00Z`, // page size left out
      `${base}?pageSize=11&pageToken=${token}&lastModifiedDatetimeAfter=2019-01-01T00:00:00Z`,
      `${base}?pageSize=10&pageToken=${token}`, // filter left out
      `${base}?pageSize=10&pageToken=${token}&lastModifiedDatetimeAfter=2019-01-01T00:00:01Z`,
      `${base}?pageSize=10&pageToken=${token}&lastModifiedDatetimeAfter=2019-01-01T00:00:00Z&lastModifiedDatetimeBefore=2030-01-01T00:00:00Z`,
      `${ctx.server.url}${listPath("144361", "restrictedStockUnits")}?pageSize=10&pageToken=${token}&lastModifiedDatetimeAfter=2019-01-01T00:00:00Z`,
      `${ctx.server.url}${listPath("7", "restrictedStockAwards")}?pageSize=10&pageToken=${token}&lastModifiedDatetimeAfter=2019-01-01T00:00:00Z`,
    ];
    for (const url of mismatches) {
      const res = await fetchJson(ctx.agent, url);
      expect(res.status, url).toBe(400);
      expect(res.json).toMatchObject({ code: 3, message: expect.stringMatching(/pageToken/) });
    }
    const ok = await fetchJson(ctx.agent, `${base}?lastModifiedDatetimeAfter=2019-01-01T00:00:00.000Z&pageToken=${token}&pageSize=10`);
    expect(ok.status).toBe(200);
  });

  it("are not valid on another server instance", async () => {
    const token = await firstToken("pageSize=10");
    const other = await startSampleServer();
    try {
      const res = await fetchJson(ctx.agent, `${other.url}${listPath("144361", "restrictedStockAwards")}?pageSize=10&pageToken=${token}`);
      expect(res.status).toBe(400);
    } finally {
      await other.close();
    }
  });
});

describe("lastModifiedDatetime filters", () => {
  type Timed = { id: string; lastModifiedDatetime: { value: string } };

  function expectedIds(issuerId: string, key: "awards" | "units", after?: string, before?: string): string[] {
    return (ctx.server.data.issuers.get(issuerId)?.[key] as Timed[])
      .filter((r) => {
        const at = parseUtcDateTime(r.lastModifiedDatetime.value);
        return (after === undefined || at >= parseUtcDateTime(after)) && (before === undefined || at <= parseUtcDateTime(before));
      })
      .map((r) => r.id)
      .sort();
  }

  async function filteredIds(issuerId: string, collection: "restrictedStockAwards" | "restrictedStockUnits", params: Record<string, string>) {
    const pages = await listPages(ctx.agent, ctx.server.url, issuerId, collection, params);
    return pages.flatMap((p) => idsOf(p, collection)).sort();
  }

  it("are inclusive at both ends, compared as instants", async () => {
    for (const issuerId of ["7", "acme-robotics", "144361"]) {
      for (const [collection, key] of COLLECTIONS) {
        const records = ctx.server.data.issuers.get(issuerId)?.[key] as Timed[];
        const sorted = records.map((r) => r.lastModifiedDatetime.value).sort((a, b) => compareIso(parseUtcDateTime(a), parseUtcDateTime(b)));
        const low = sorted[Math.floor(sorted.length / 4)] as string;
        const high = sorted[Math.floor((sorted.length * 3) / 4)] as string;
        // Exact instants as sent on the wire (any number of fractional digits): both bounds included.
        const both = await filteredIds(issuerId, collection, { lastModifiedDatetimeAfter: low, lastModifiedDatetimeBefore: high, pageSize: "7" });
        expect(both).toEqual(expectedIds(issuerId, key, low, high));
        const lowId = records.find((r) => r.lastModifiedDatetime.value === low)?.id;
        const highId = records.find((r) => r.lastModifiedDatetime.value === high)?.id;
        expect(both).toContain(lowId);
        expect(both).toContain(highId);
        // The documented whole-second form, truncated down, still includes the boundary record.
        const after = toFilterDateTime(parseUtcDateTime(low));
        const fromSecond = await filteredIds(issuerId, collection, { lastModifiedDatetimeAfter: after, pageSize: "50" });
        expect(fromSecond).toEqual(expectedIds(issuerId, key, after));
        expect(fromSecond).toContain(lowId);
      }
    }
  });

  it("exclude a record one microsecond outside either bound", async () => {
    const record = ctx.server.data.issuers.get("7")?.awards.find((r) => r.id === "2207") as Timed;
    const at = parseUtcDateTime(record.lastModifiedDatetime.value); // 2023-03-01T06:00:12.118934Z
    expect(at).toBe("2023-03-01T06:00:12.118934Z");
    const ids = (params: Record<string, string>) => filteredIds("7", "restrictedStockAwards", params);
    expect(await ids({ lastModifiedDatetimeAfter: "2023-03-01T06:00:12.118935Z" })).not.toContain("2207");
    expect(await ids({ lastModifiedDatetimeBefore: "2023-03-01T06:00:12.118933Z" })).not.toContain("2207");
    expect(await ids({ lastModifiedDatetimeAfter: at, lastModifiedDatetimeBefore: at })).toEqual(["2207"]);
    expect(await ids({ lastModifiedDatetimeAfter: "2023-03-01T06:00:12Z", lastModifiedDatetimeBefore: "2023-03-01T06:00:12.118934+00:00" })).toEqual(["2207"]);
  });

  it("give an empty object when nothing matches", async () => {
    const res = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("7", "restrictedStockUnits")}?lastModifiedDatetimeAfter=2099-01-01T00:00:00Z`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({});
  });

  it("reject values that are not UTC date-times with 400", async () => {
    for (const [name, value] of [
      ["lastModifiedDatetimeAfter", "2024-01-01"],
      ["lastModifiedDatetimeAfter", "yesterday"],
      ["lastModifiedDatetimeBefore", "2024-13-01T00:00:00Z"],
      ["lastModifiedDatetimeBefore", "2024-01-01T00:00:00+02:00"],
      ["lastModifiedDatetimeAfter", "2023-02-29T00:00:00Z"],
    ] as const) {
      const res = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("7", "restrictedStockAwards")}?${name}=${encodeURIComponent(value)}`);
      expect(res.status, value).toBe(400);
      expect(res.json).toMatchObject({ code: 3, message: expect.stringContaining(name) });
    }
  });

  it("see records edited in place, replaced or renamed between listings (the index notices)", async () => {
    const awards = ctx.server.data.issuers.get("7")?.awards as Timed[];
    const saved = awards.map((r) => ({ record: r, id: r.id, stamp: r.lastModifiedDatetime, value: r.lastModifiedDatetime.value }));
    const future = { lastModifiedDatetimeAfter: "2031-01-01T00:00:00Z" };
    try {
      expect(await filteredIds("7", "restrictedStockAwards", future)).toEqual([]);
      const [first, second, third] = awards as [Timed, Timed, Timed];
      // the wrapper replaced, and the wrapper's value edited in place
      first.lastModifiedDatetime = { value: "2031-02-01T00:00:00Z" };
      second.lastModifiedDatetime.value = "2031-03-01T00:00:00Z";
      expect(await filteredIds("7", "restrictedStockAwards", future)).toEqual([first.id, second.id].sort());
      // an element replaced (same length) and an id renamed
      const replacement = { ...third, id: "replacement", lastModifiedDatetime: { value: "2031-04-01T00:00:00Z" } };
      awards[2] = replacement;
      first.id = "renamed";
      expect(await filteredIds("7", "restrictedStockAwards", future)).toEqual(["renamed", second.id, "replacement"].sort());
      expect((await fetchJson(ctx.agent, `${ctx.server.url}${listPath("7", "restrictedStockAwards")}/renamed`)).status).toBe(200);
      expect((await fetchJson(ctx.agent, `${ctx.server.url}${listPath("7", "restrictedStockAwards")}/${saved[0]?.id}`)).status).toBe(404);
      expect(((await fetchJson(ctx.agent, `${ctx.server.url}${listPath("7", "restrictedStockAwards")}/replacement`)).json as { restrictedStockAward: { id: string } }).restrictedStockAward.id).toBe("replacement");
    } finally {
      saved.forEach(({ record, id, stamp, value }, i) => {
        record.id = id;
        stamp.value = value;
        record.lastModifiedDatetime = stamp;
        awards[i] = record;
      });
    }
    expect(await filteredIds("7", "restrictedStockAwards", future)).toEqual([]);
    expect((await filteredIds("7", "restrictedStockAwards", {})).sort()).toEqual(saved.map((s) => s.id).sort());
  });

  it("serve a record edited on the page being served as it is now, even mid-listing", async () => {
    const issuer = ctx.server.data.issuers.get("144361");
    if (issuer === undefined) throw new Error("missing issuer");
    const first = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("144361", "restrictedStockAwards")}?pageSize=5`);
    const token = (first.json as { nextPageToken: string }).nextPageToken;
    const all = await listPages(ctx.agent, ctx.server.url, "144361", "restrictedStockAwards", { pageSize: "5" });
    const secondPageIds = idsOf(all[1] ?? {}, "restrictedStockAwards");
    const target = issuer.awards.find((r) => r.id === secondPageIds[0]) as Timed & { securityLabel?: unknown };
    const label = target.securityLabel;
    const stamp = target.lastModifiedDatetime;
    try {
      target.securityLabel = "edited";
      target.lastModifiedDatetime = { value: "2031-01-01T00:00:00Z" };
      const second = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("144361", "restrictedStockAwards")}?pageSize=5&pageToken=${token}`);
      const served = (second.json as { restrictedStockAwards: { id: string; securityLabel: string }[] }).restrictedStockAwards;
      expect(served.find((r) => r.id === target.id)?.securityLabel).toBe("edited");
    } finally {
      target.securityLabel = label;
      target.lastModifiedDatetime = stamp;
    }
  });

  it("see records changed between requests (the data is read live)", async () => {
    const issuer = ctx.server.data.issuers.get("north wind/eu");
    if (issuer === undefined) throw new Error("missing issuer");
    const added = { id: "NW/RSA/live", issuerId: "north wind/eu", lastModifiedDatetime: { value: "2030-01-01T00:00:00Z" } };
    issuer.awards.push(added);
    try {
      expect(await filteredIds("north wind/eu", "restrictedStockAwards", { lastModifiedDatetimeAfter: "2029-12-31T23:59:59Z" })).toEqual([
        "NW/RSA/live",
      ]);
    } finally {
      issuer.awards.pop();
    }
    expect(await filteredIds("north wind/eu", "restrictedStockAwards", { lastModifiedDatetimeAfter: "2029-12-31T23:59:59Z" })).toEqual([]);
  });
});
