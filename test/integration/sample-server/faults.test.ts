import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request, type Agent } from "undici";
import { FAULT_KINDS, startSampleServer, type FaultKind } from "../../../src/sample-server/server.js";
import { fetchJson, listPath, newAgent, postToken, tokenHeaders, withServer } from "./helpers.js";

let agent: Agent;
beforeAll(() => {
  agent = newAgent();
});
afterAll(async () => {
  await agent.close();
});

const PATH = listPath("7", "restrictedStockAwards");

/** What a client sees: the status (and Retry-After), or where the exchange broke. */
async function outcome(url: string): Promise<string> {
  let res;
  try {
    res = await request(url, { dispatcher: agent });
  } catch {
    return "no-response";
  }
  try {
    await res.body.text();
  } catch {
    return `${res.statusCode}-broken-body`;
  }
  return `${res.statusCode}${res.headers["retry-after"] === undefined ? "" : `-retry-after-${String(res.headers["retry-after"])}`}`;
}

function withFault<T>(kind: FaultKind, run: (url: string) => Promise<T>): Promise<T> {
  return withServer({ faults: { rate: 1, kinds: [kind], seed: 7 } }, async (server) => {
    const result = await run(server.url);
    expect(server.stats().faultsByKind[kind]).toBeGreaterThan(0);
    return result;
  });
}

describe("fault injection, one kind at a time", () => {
  it("429 with Retry-After: 1 and the gateway's flat body", async () => {
    const res = await withFault("429", (url) => fetchJson(agent, `${url}${PATH}`));
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.json).toEqual({ message: "API rate limit exceeded" });
    expect(res.headers["x-ratelimit-limit-second"]).toBe("10");
  });

  it("429 without Retry-After", async () => {
    const res = await withFault("429-no-retry-after", (url) => fetchJson(agent, `${url}${PATH}`));
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBeUndefined();
    expect(res.json).toEqual({ message: "API rate limit exceeded" });
  });

  it("500 with a google.rpc.Status body", async () => {
    const res = await withFault("500", (url) => fetchJson(agent, `${url}${PATH}`));
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ code: 13, message: "Internal error" });
  });

  it("502 with an HTML body that is not JSON", async () => {
    const res = await withFault("502", (url) => fetchJson(agent, `${url}${PATH}`));
    expect(res.status).toBe(502);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.json).toBeUndefined();
    expect(res.text).toContain("502 Bad Gateway");
  });

  it("503 with a flat message body", async () => {
    const res = await withFault("503", (url) => fetchJson(agent, `${url}${PATH}`));
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ message: expect.any(String) });
  });

  it("reset: the connection is dropped without a response", async () => {
    const error = await withFault("reset", (url) => request(`${url}${PATH}`, { dispatcher: agent }).then(() => undefined, (e: unknown) => e));
    expect(error).toBeInstanceOf(Error);
    expect(String((error as { code?: unknown }).code)).toMatch(/ECONNRESET|UND_ERR_SOCKET/);
  });

  it("truncated: 200 with the full Content-Length but half the body, then the socket closes", async () => {
    await withFault("truncated", async (url) => {
      const res = await request(`${url}${PATH}`, { dispatcher: agent });
      expect(res.statusCode).toBe(200);
      const announced = Number(res.headers["content-length"]);
      expect(announced).toBeGreaterThan(1000);
      let received = 0;
      const read = (async () => {
        for await (const chunk of res.body) received += (chunk as Buffer).length;
      })();
      await expect(read).rejects.toThrow();
      expect(received).toBeLessThan(announced);
    });
  });

  it("slow-body: headers and part of the body arrive, then it stalls; close() still ends promptly", { timeout: 20_000 }, async () => {
    // The stall (60 s) is longer than this test's timeout: close() must cut it short.
    const server = await startSampleServer({ faults: { rate: 1, kinds: ["slow-body"], seed: 1 } });
    const res = await request(`${server.url}${PATH}`, { dispatcher: agent });
    expect(res.statusCode).toBe(200);
    const announced = Number(res.headers["content-length"]);
    const iterator = res.body[Symbol.asyncIterator]();
    const first = await iterator.next();
    const firstLength = (first.value as Buffer).length;
    expect(firstLength).toBeGreaterThan(0);
    expect(firstLength).toBeLessThan(announced);
    const rest = (async () => {
      for (;;) if ((await iterator.next()).done) return;
    })();
    await server.close();
    await expect(rest).rejects.toThrow();
    expect(server.stats().faultsByKind["slow-body"]).toBe(1);
  });
});

describe("fault injection with a seed", () => {
  function run(seed: number, count: number): Promise<{ outcomes: string[]; byKind: Partial<Record<FaultKind, number>> }> {
    return withServer({ faults: { rate: 0.75, kinds: FAULT_KINDS, seed }, slowBodyStallMs: 20 }, async (server) => {
      const outcomes: string[] = [];
      for (let i = 0; i < count; i += 1) outcomes.push(await outcome(`${server.url}${PATH}`));
      return { outcomes, byKind: server.stats().faultsByKind };
    });
  }

  it("injects every kind, and the same seed gives the same sequence", async () => {
    const first = await run(2024, 80);
    const second = await run(2024, 80);
    expect(second.outcomes).toEqual(first.outcomes);
    expect(Object.keys(first.byKind).sort()).toEqual([...FAULT_KINDS].sort());
    const seen = new Set(first.outcomes);
    for (const expected of ["200", "429-retry-after-1", "429", "500", "502", "503", "no-response", "200-broken-body"]) {
      expect(seen).toContain(expected);
    }
    const faults = Object.values(first.byKind).reduce((a, b) => a + b, 0);
    expect(first.outcomes.filter((o) => o === "200")).toHaveLength(80 - faults);
    const other = await run(99, 80);
    expect(other.outcomes).not.toEqual(first.outcomes);
  });

  it("injects nothing at rate 0 and does not touch the token endpoint", async () => {
    const oauth = { clientId: "c", clientSecret: "s" };
    const grant = "grant_type=client_credentials&scope=read_issuer_securities";
    await withServer({ faults: { rate: 0, kinds: FAULT_KINDS }, oauth }, async (server) => {
      const token = await postToken(agent, server.url, tokenHeaders("c", "s"), grant);
      const auth = { authorization: `Bearer ${(token.json as { access_token: string }).access_token}` };
      for (let i = 0; i < 20; i += 1) expect((await fetchJson(agent, `${server.url}${PATH}`, { headers: auth })).status).toBe(200);
      expect(server.stats().faults).toBe(0);
    });
    await withServer({ faults: { rate: 1, kinds: ["500"] }, oauth }, async (server) => {
      expect((await postToken(agent, server.url, tokenHeaders("c", "s"), grant)).status).toBe(200);
      expect((await fetchJson(agent, `${server.url}${PATH}`)).status).toBe(500);
    });
  });

  it("rejects impossible fault settings", async () => {
    await expect(startSampleServer({ faults: { rate: 1.5, kinds: ["500"] } })).rejects.toMatchObject({ code: "SAMPLE_SERVER_OPTIONS" });
    await expect(startSampleServer({ faults: { rate: 0.5, kinds: [] } })).rejects.toMatchObject({ code: "SAMPLE_SERVER_OPTIONS" });
    await expect(
      startSampleServer({ faults: { rate: 0.5, kinds: ["418" as FaultKind] } }),
    ).rejects.toMatchObject({ code: "SAMPLE_SERVER_OPTIONS", message: expect.stringContaining("418") });
  });
});

describe("latency and shutdown", () => {
  it("answers normally with added latency, and close() ends requests still waiting", { timeout: 20_000 }, async () => {
    await withServer({ latencyMs: 30 }, async (server) => {
      expect((await fetchJson(agent, `${server.url}${PATH}`)).status).toBe(200);
    });
    const slow = await startSampleServer({ latencyMs: 120_000 });
    const pending = request(`${slow.url}${PATH}`, { dispatcher: agent });
    while (slow.stats().requests === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await slow.close();
    await expect(pending).rejects.toThrow();
    await slow.close(); // idempotent
  });

  it("closes when its signal aborts", async () => {
    const controller = new AbortController();
    const server = await startSampleServer({ signal: controller.signal });
    expect((await fetchJson(agent, `${server.url}${PATH}`)).status).toBe(200);
    controller.abort();
    await server.close();
    await expect(request(`${server.url}${PATH}`, { dispatcher: agent })).rejects.toThrow();
    await expect(startSampleServer({ signal: AbortSignal.abort() })).rejects.toThrow();
  });
});
