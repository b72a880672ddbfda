/**
 * A consumer that leaves `for await` early (`break`) over `exportIssuers` or `pullIssuers`: the issuers
 * under way are stopped (their requests aborted, their temporary package folders removed) before the
 * iteration ends, so nothing goes on writing into the output folder once its lock is released.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApiClient, exportIssuers, pullIssuers, type IssuerExportResult, type IssuerPullResult } from "../../../src/index.js";
import { closedAfterEach, type Handler } from "../../helpers/loopback-server.js";
import { sampleApi } from "../../helpers/sample-api.js";
import { until } from "../../helpers/spawn-cli.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

const folder = temporaryFolder("ocf-sync-early-break-");
const api = sampleApi();
const servers = closedAfterEach();

/** The sample API, except that the requests of issuer "hangs" are never answered; `open` counts those still open. */
async function apiWithAHangingIssuer(): Promise<{ url: string; hanging: () => number; open: () => number }> {
  let hanging = 0;
  let open = 0;
  const handler: Handler = async (request, res) => {
    if (request.url.includes("/issuers/hangs/")) {
      hanging += 1;
      open += 1;
      res.on("close", () => (open -= 1));
      return;
    }
    const answer = await fetch(`${api.server().url}${request.url}`);
    const body = await answer.text();
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(body);
  };
  const server = await servers.serve(handler);
  return { url: server.url, hanging: () => hanging, open: () => open };
}

describe("leaving the loop early", () => {
  it("exportIssuers stops the issuers under way and removes their temporary folders before it ends", async () => {
    const source = await apiWithAHangingIssuer();
    const client = servers.track(createApiClient({ baseUrl: source.url, rateLimit: false }));
    const out = join(folder(), "export");
    let first: IssuerExportResult | undefined;
    for await (const result of exportIssuers(client, ["hangs", "7"], { outDir: out, concurrency: 2 })) {
      first = result;
      await until(() => source.hanging() > 0);
      break;
    }
    expect(first).toMatchObject({ issuerId: "7", ok: true });
    // No `.hangs.tmp-*` folder and no lock: nothing is under way any more.
    expect((await readdir(out)).sort()).toEqual([".ocf-sync-export.json", "7", "7.report.json"]);
    await until(() => source.open() === 0);
  });

  it("pullIssuers aborts the pulls under way before it ends", async () => {
    const source = await apiWithAHangingIssuer();
    const client = servers.track(createApiClient({ baseUrl: source.url, rateLimit: false }));
    let first: IssuerPullResult | undefined;
    const events: string[] = [];
    for await (const result of pullIssuers(client, ["hangs", "7"], { concurrency: 2, onEvent: (event) => events.push(`${event.type} ${event.issuerId}`) })) {
      first = result;
      await until(() => source.hanging() > 0);
      break;
    }
    expect(first).toMatchObject({ issuerId: "7", ok: true });
    // The pull of "hangs" has ended (its requests aborted) by the time the loop is left.
    expect(events).toContain("issuer-failed hangs");
    await until(() => source.open() === 0);
  });
});
