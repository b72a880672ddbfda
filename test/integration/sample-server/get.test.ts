import { describe, expect, it } from "vitest";
import { fetchJson, getPath, listPath, useSampleServer } from "./helpers.js";

const ctx = useSampleServer();

const NOT_FOUND = { code: 5, message: "Resource not found" };

describe("get by id", () => {
  it("returns every record of every issuer in its envelope, ids escaped", async () => {
    let count = 0;
    for (const [issuerId, issuer] of ctx.server.data.issuers) {
      for (const [collection, key, records] of [
        ["restrictedStockAwards", "restrictedStockAward", issuer.awards],
        ["restrictedStockUnits", "restrictedStockUnit", issuer.units],
      ] as const) {
        for (const record of records) {
          const res = await fetchJson(ctx.agent, `${ctx.server.url}${getPath(issuerId, collection, record.id as string)}`);
          expect(res.status).toBe(200);
          expect(res.json).toEqual({ [key]: record });
          count += 1;
        }
      }
    }
    expect(count).toBeGreaterThan(160);
  });

  it("decodes escaped '/', '%' and spaces in ids exactly once", async () => {
    const unit = await fetchJson(ctx.agent, `${ctx.server.url}/v1alpha1/issuers/north%20wind%2Feu/restrictedStockUnits/rsu%252024-01`);
    expect(unit.status).toBe(200);
    expect((unit.json as { restrictedStockUnit: { id: string } }).restrictedStockUnit.id).toBe("rsu%2024-01");
    const award = await fetchJson(ctx.agent, `${ctx.server.url}/v1alpha1/issuers/north%20wind%2Feu/restrictedStockAwards/NW%2FRSA%2F2023%2F001`);
    expect(award.status).toBe(200);
    // Unescaped, the same ids are other paths, which do not exist.
    for (const path of [
      "/v1alpha1/issuers/north wind/eu/restrictedStockAwards",
      "/v1alpha1/issuers/north%20wind%2Feu/restrictedStockAwards/NW/RSA/2023/001",
      "/v1alpha1/issuers/north%20wind%2Feu/restrictedStockUnits/rsu%2024-01",
    ]) {
      const res = await fetchJson(ctx.agent, `${ctx.server.url}${path.replace(/ /g, "%20")}`);
      expect(res.status, path).toBe(404);
    }
    const empty = await fetchJson(ctx.agent, `${ctx.server.url}${listPath("zeta%labs", "restrictedStockUnits")}`);
    expect(empty.status).toBe(200);
  });

  it("answers 404 with the documented body for an unknown record, issuer or route", async () => {
    for (const path of [
      getPath("7", "restrictedStockAwards", "8801"), // a unit id asked as an award
      getPath("7", "restrictedStockUnits", "no-such-unit"),
      getPath("acme-robotics", "restrictedStockAwards", "rsa-0001"), // ids are case-sensitive
      listPath("8", "restrictedStockAwards"),
      getPath("unknown", "restrictedStockUnits", "8801"),
      "/v1alpha1/issuers/7/optionGrants",
      "/v1alpha1/issuers/7",
      "/v1alpha1/issuers/7/restrictedStockAwards/2207/extra",
      "/v1alpha1/issuers/7/restrictedStockAwards/",
      "/v1alpha2/issuers/7/restrictedStockAwards",
      "/",
    ]) {
      const res = await fetchJson(ctx.agent, `${ctx.server.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.json, path).toEqual(NOT_FOUND);
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
    }
  });

  it("answers 400 for malformed percent-encoding in the path", async () => {
    const res = await fetchJson(ctx.agent, `${ctx.server.url}/v1alpha1/issuers/7/restrictedStockAwards/%E0%A4%A`);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 3 });
  });

  it("answers 405 for methods other than GET", async () => {
    for (const method of ["POST", "PUT", "DELETE"] as const) {
      const res = await fetchJson(ctx.agent, `${ctx.server.url}${getPath("7", "restrictedStockAwards", "2207")}`, { method, body: "{}" });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe("GET");
      expect(res.json).toMatchObject({ code: 12 });
    }
    // The connection stays usable after a request whose body the server did not want.
    const after = await fetchJson(ctx.agent, `${ctx.server.url}${getPath("7", "restrictedStockAwards", "2207")}`);
    expect(after.status).toBe(200);
  });

  it("counts requests by raw path", async () => {
    const before = ctx.server.stats().byPath["/v1alpha1/issuers/north%20wind%2Feu/restrictedStockUnits/nw%2Frsu%2F0002"] ?? 0;
    await fetchJson(ctx.agent, `${ctx.server.url}${getPath("north wind/eu", "restrictedStockUnits", "nw/rsu/0002")}`);
    expect(ctx.server.stats().byPath["/v1alpha1/issuers/north%20wind%2Feu/restrictedStockUnits/nw%2Frsu%2F0002"]).toBe(before + 1);
  });
});
