/**
 * The sample API and a client of it (no rate limit) for the tests of one file: started before they
 * run, closed after. Returns getters (both exist only once `beforeAll` has run).
 */
import { afterAll, beforeAll } from "vitest";
import { createApiClient, type ApiClient } from "../../src/client/create-client.js";
import { startSampleServer, type SampleServer } from "../../src/sample-server/server.js";

export function sampleApi(): { server: () => SampleServer; client: () => ApiClient } {
  let server: SampleServer | undefined;
  let client: ApiClient | undefined;
  beforeAll(async () => {
    server = await startSampleServer({ port: 0 });
    client = createApiClient({ baseUrl: server.url, rateLimit: false });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the sample API starts in beforeAll: ask for it inside a test");
    return value;
  };
  return { server: () => started(server), client: () => started(client) };
}
