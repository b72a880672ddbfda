/**
 * The client follows the server's count of the quota on every response (source-api §8): when
 * `RateLimit-Remaining` says a window is spent, nothing is sent before `RateLimit-Reset`, whichever
 * window it describes, so that processes sharing a credential without sharing a limiter wait instead
 * of spending retries on 429s.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ApiClient, createApiClient } from "../../../src/client/create-client.js";
import { type LoopbackServer, reply, startLoopbackServer } from "../../helpers/loopback-server.js";
import { SteppingClock } from "../../helpers/virtual-clock.js";

const open: { servers: LoopbackServer[]; clients: ApiClient[] } = { servers: [], clients: [] };
afterEach(async () => {
  await Promise.all(open.clients.splice(0).map((c) => c.close()));
  await Promise.all(open.servers.splice(0).map((s) => s.close()));
});

async function clientAgainst(headers: Record<string, string>): Promise<{ client: ApiClient; clock: SteppingClock; server: LoopbackServer }> {
  const server = await startLoopbackServer([reply(200, {}, headers), reply(200, {})]);
  open.servers.push(server);
  const clock = new SteppingClock();
  const client = createApiClient({ baseUrl: server.url, clock, rateLimit: {} });
  open.clients.push(client);
  return { client, clock, server };
}

describe("following the server's RateLimit headers", () => {
  it("waits out RateLimit-Reset when RateLimit-Remaining is 0 for the second's window (the minute has room)", async () => {
    const { client, clock, server } = await clientAgainst({
      "ratelimit-limit": "10",
      "ratelimit-remaining": "0",
      "ratelimit-reset": "1",
      "x-ratelimit-remaining-second": "0",
      "x-ratelimit-remaining-minute": "250",
    });
    await client.getJson(["x"]);
    await client.getJson(["x"]);
    expect(clock.sleeps).toEqual([1000]);
    expect(server.requests).toHaveLength(2);
    expect(client.stats().throttledMs).toBe(1000);
  });

  it("waits out a longer reset the same way, whatever window the trio describes", async () => {
    const { client, clock } = await clientAgainst({ "ratelimit-remaining": "0", "ratelimit-reset": "7" });
    await client.getJson(["x"]);
    await client.getJson(["x"]);
    expect(clock.sleeps).toEqual([7000]);
  });

  it("does not wait while the server says requests remain", async () => {
    const { client, clock } = await clientAgainst({ "ratelimit-remaining": "3", "ratelimit-reset": "1", "x-ratelimit-remaining-minute": "3" });
    await client.getJson(["x"]);
    await client.getJson(["x"]);
    expect(clock.sleeps).toEqual([]);
  });
});
