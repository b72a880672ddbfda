/**
 * `ocf-sync/testing`: the embedded sample API that the demo runs on, for tests of code built on
 * ocf-sync. A local HTTP server with the sample issuers (or your own data), OAuth2, the service's rate
 * limit and faults on demand; nothing here is needed to export or sync.
 *
 * @example
 * ```ts
 * import { createApiClient, exportIssuers } from "ocf-sync";
 * import { startSampleServer } from "ocf-sync/testing";
 * const server = await startSampleServer({ port: 0, token: "sample" });
 * const client = createApiClient({ baseUrl: server.url, auth: { type: "bearer", token: "sample" } });
 * for await (const result of exportIssuers(client, ["7"], { outDir: "out" })) console.log(result.ok);
 * await client.close();
 * await server.close();
 * ```
 *
 * @packageDocumentation
 * @module ocf-sync/testing
 */

export { startSampleServer } from "./sample-server/server.js";
export type { SampleServer, SampleServerOptions, SampleServerStats } from "./sample-server/server.js";
export { FAULT_KINDS } from "./sample-server/faults.js";
export type { FaultKind, FaultOptions } from "./sample-server/faults.js";
export type { QuotaLimits } from "./sample-server/quota.js";
export type { OAuthServerOptions } from "./sample-server/oauth.js";
export type { SampleData, SampleIssuer, WireRecord } from "./sample-server/data.js";
