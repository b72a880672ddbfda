import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, createApiClient } from "../../../src/client/create-client.js";
import { getRecord, listRecordsPage } from "../../../src/client/endpoints.js";
import { isApiError, isClientConfigError, isInvalidIdentifierError } from "../../../src/client/errors.js";
import { type LoopbackServer, reply, startLoopbackServer } from "../../helpers/loopback-server.js";

let server: LoopbackServer;
let client: ApiClient;

beforeAll(async () => {
  server = await startLoopbackServer((request, res, index) =>
    request.url.endsWith("/missing")
      ? reply(404, { code: 5, message: "Resource not found" })(request, res, index)
      : reply(200, { restrictedStockAwards: [] })(request, res, index),
  );
  client = createApiClient({ baseUrl: `${server.url}/api`, rateLimit: false });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

function lastUrl(): string | undefined {
  return server.requests.at(-1)?.url;
}

describe("listRecordsPage", () => {
  it("lists awards and units under the base prefix, sending only the given parameters", async () => {
    await listRecordsPage(client, "restrictedStockAward", "7", {});
    expect(lastUrl()).toBe("/api/v1alpha1/issuers/7/restrictedStockAwards");
    await listRecordsPage(client, "restrictedStockUnit", "144361", {
      pageSize: 50,
      pageToken: "ODMxMw==",
      lastModifiedDatetimeAfter: "2024-07-30T09:31:57Z",
      lastModifiedDatetimeBefore: "2024-08-01T00:00:00Z",
    });
    expect(lastUrl()).toBe(
      "/api/v1alpha1/issuers/144361/restrictedStockUnits?pageSize=50&pageToken=ODMxMw%3D%3D&lastModifiedDatetimeAfter=2024-07-30T09%3A31%3A57Z&lastModifiedDatetimeBefore=2024-08-01T00%3A00%3A00Z",
    );
  });

  it("escapes the issuer id and rejects dot segments", async () => {
    await listRecordsPage(client, "restrictedStockAward", "../7");
    expect(lastUrl()).toBe("/api/v1alpha1/issuers/..%2F7/restrictedStockAwards");
    const count = server.requests.length;
    const error = await listRecordsPage(client, "restrictedStockAward", "..").catch((e: unknown) => e);
    expect(isInvalidIdentifierError(error)).toBe(true);
    expect(server.requests).toHaveLength(count);
  });

  it.each([0, -1, 2.5, Number.NaN])("rejects pageSize %d without sending", async (pageSize) => {
    const count = server.requests.length;
    const error = await listRecordsPage(client, "restrictedStockAward", "7", { pageSize }).catch((e: unknown) => e);
    expect(isClientConfigError(error)).toBe(true);
    expect(server.requests).toHaveLength(count);
  });
});

describe("getRecord", () => {
  it("gets one record by escaped id", async () => {
    const response = await getRecord(client, "restrictedStockUnit", "7", "a/b c");
    expect(response.status).toBe(200);
    expect(lastUrl()).toBe("/api/v1alpha1/issuers/7/restrictedStockUnits/a%2Fb%20c");
  });

  it("throws API_NOT_FOUND for a 404, leaving the decision to the caller", async () => {
    const error = await getRecord(client, "restrictedStockAward", "7", "missing").catch((e: unknown) => e);
    expect(isApiError(error) && error.code === "API_NOT_FOUND" && error.grpcCode === 5).toBe(true);
  });

  it("rejects an empty id", async () => {
    expect(isInvalidIdentifierError(await getRecord(client, "restrictedStockAward", "7", "").catch((e: unknown) => e))).toBe(true);
  });
});
