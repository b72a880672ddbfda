import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "undici";
import { startSampleServer } from "../../../src/sample-server/server.js";
import { fetchJson, listPath, newAgent, postToken, tokenHeaders, withServer, type Fetched } from "./helpers.js";

let agent: Agent;
beforeAll(() => {
  agent = newAgent();
});
afterAll(async () => {
  await agent.close();
});

function rateHeaders(res: Fetched): Record<string, string | undefined> {
  const names = [
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "x-ratelimit-limit-second",
    "x-ratelimit-remaining-second",
    "x-ratelimit-limit-minute",
    "x-ratelimit-remaining-minute",
  ];
  return Object.fromEntries(names.map((n) => [n, res.headers[n] as string | undefined]));
}

/** A clock the test moves by hand, so that window boundaries never depend on timing. */
function manualClock(start = Date.UTC(2025, 5, 2, 9, 30, 0, 100)) {
  const clock = { now: start };
  return { clock, now: () => clock.now };
}

describe("rate-limit headers", () => {
  it("come on every response, with the nominal 10/s and 300/min when the quota is not enforced", async () => {
    const { clock, now } = manualClock();
    const server = await startSampleServer({ now, token: "t" });
    try {
      const auth = { authorization: "Bearer t" };
      const responses = [
        await fetchJson(agent, `${server.url}${listPath("7", "restrictedStockAwards")}`, { headers: auth }),
        await fetchJson(agent, `${server.url}${listPath("nope", "restrictedStockAwards")}`, { headers: auth }),
        await fetchJson(agent, `${server.url}${listPath("7", "restrictedStockAwards")}?pageSize=x`, { headers: auth }),
        await fetchJson(agent, `${server.url}${listPath("7", "restrictedStockAwards")}`),
      ];
      expect(responses.map((r) => r.status)).toEqual([200, 404, 400, 401]);
      responses.forEach((res, i) => {
        expect(rateHeaders(res)).toEqual({
          "ratelimit-limit": "10",
          "ratelimit-remaining": String(9 - i),
          "ratelimit-reset": "1",
          "x-ratelimit-limit-second": "10",
          "x-ratelimit-remaining-second": String(9 - i),
          "x-ratelimit-limit-minute": "300",
          "x-ratelimit-remaining-minute": String(299 - i),
        });
      });
      // Over the nominal limit nothing is refused; the counters stop at zero.
      for (let i = 0; i < 8; i += 1) await fetchJson(agent, `${server.url}/`);
      const over = await fetchJson(agent, `${server.url}${listPath("7", "restrictedStockAwards")}`, { headers: auth });
      expect(over.status).toBe(200);
      expect(over.headers["x-ratelimit-remaining-second"]).toBe("0");
      // A new second starts a new window.
      clock.now += 1000;
      const next = await fetchJson(agent, `${server.url}${listPath("7", "restrictedStockAwards")}`, { headers: auth });
      expect(next.headers["x-ratelimit-remaining-second"]).toBe("9");
      expect(next.headers["x-ratelimit-remaining-minute"]).toBe(String(300 - 14));
    } finally {
      await server.close();
    }
  });
});

describe("enforced quota", () => {
  it("refuses the 11th request within one second with 429 and the flat body", async () => {
    const { clock, now } = manualClock();
    const server = await startSampleServer({ now, quota: { perSecond: 10, perMinute: 300 } });
    try {
      const url = `${server.url}${listPath("acme-robotics", "restrictedStockUnits")}`;
      const results: Fetched[] = [];
      for (let i = 0; i < 11; i += 1) results.push(await fetchJson(agent, url));
      expect(results.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(200));
      const refused = results[10] as Fetched;
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({ message: "API rate limit exceeded" });
      expect(refused.headers["retry-after"]).toBe("1");
      expect(rateHeaders(refused)).toMatchObject({
        "ratelimit-remaining": "0",
        "ratelimit-reset": "1",
        "x-ratelimit-remaining-second": "0",
        "x-ratelimit-remaining-minute": "290",
      });
      // A refused request does not use up quota: the minute count is unchanged.
      expect((await fetchJson(agent, url)).headers["x-ratelimit-remaining-minute"]).toBe("290");
      expect(server.stats().rateLimited).toBe(2);
      clock.now += 800; // still within the window (started at .100)
      expect((await fetchJson(agent, url)).status).toBe(429);
      clock.now += 100; // the next second (.000)
      expect((await fetchJson(agent, url)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("refuses requests over the per-minute limit until the minute rolls over", async () => {
    const start = Date.UTC(2025, 5, 2, 9, 30, 0, 0);
    const { clock, now } = manualClock(start);
    const server = await startSampleServer({ now, quota: { perSecond: 5, perMinute: 12 } });
    try {
      const url = `${server.url}${listPath("7", "restrictedStockUnits")}`;
      const statuses: number[] = [];
      for (let second = 0; second < 3; second += 1) {
        for (let i = 0; i < 5; i += 1) statuses.push((await fetchJson(agent, url)).status);
        clock.now += 1000;
      }
      // 5 + 5 + 2 allowed, then the minute is used up.
      expect(statuses).toEqual([...Array(12).fill(200), 429, 429, 429]);
      clock.now = start + 45_250;
      const refused = await fetchJson(agent, url);
      expect(refused.status).toBe(429);
      expect(refused.headers["retry-after"]).toBe("15");
      expect(rateHeaders(refused)).toMatchObject({
        "ratelimit-limit": "12",
        "ratelimit-remaining": "0",
        "ratelimit-reset": "15",
        "x-ratelimit-remaining-second": "5",
        "x-ratelimit-remaining-minute": "0",
      });
      clock.now = start + 60_000;
      const allowed = await fetchJson(agent, url);
      expect(allowed.status).toBe(200);
      expect(allowed.headers["x-ratelimit-remaining-minute"]).toBe("11");
    } finally {
      await server.close();
    }
  });

  it("does not apply to the token endpoint", async () => {
    const { now } = manualClock();
    await withServer({ now, quota: { perSecond: 1, perMinute: 1 }, oauth: { clientId: "c", clientSecret: "s" } }, async (server) => {
      for (let i = 0; i < 3; i += 1) {
        const res = await postToken(agent, server.url, tokenHeaders("c", "s"), "grant_type=client_credentials&scope=read_issuer_securities");
        expect(res.status).toBe(200);
        expect(res.headers["x-ratelimit-limit-second"]).toBeUndefined();
      }
    });
  });
});
