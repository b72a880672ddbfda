/** The README's library example, run against the sample API: it must stay true. */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApiClient, exportIssuers, isOcfSyncError, type Logger } from "../../../src/index.js";
import { startSampleServer } from "../../../src/testing.js";

describe("the README's migration-job example", () => {
  it("exports a list of issuers from code with its own logger and progress callback", async () => {
    const server = await startSampleServer({ port: 0 });
    const outDir = await mkdtemp(join(tmpdir(), "ocf-sync-library-"));
    const lines: { level: string; msg: string | undefined; fields: Record<string, unknown> }[] = [];
    const logger: Logger = {
      debug: (fields, msg) => lines.push({ level: "debug", msg, fields }),
      info: (fields, msg) => lines.push({ level: "info", msg, fields }),
      warn: (fields, msg) => lines.push({ level: "warn", msg, fields }),
      error: (fields, msg) => lines.push({ level: "error", msg, fields }),
    };
    const client = createApiClient({ baseUrl: server.url, auth: { type: "bearer", token: "not-checked-here" }, logger });
    const issuers = ["144361", "7", "no-such-issuer"];
    const progress: string[] = [];
    let done = 0;
    try {
      for await (const result of exportIssuers(client, issuers, {
        outDir,
        zip: true,
        concurrency: 2,
        onInvalid: "quarantine",
        issuerProfileOf: (issuerId) => (issuerId === "7" ? { legalName: "Seven Robotics, Inc.", formationDate: "2014-03-01", countryOfFormation: "US" } : undefined),
        logger,
        onEvent: (event) => {
          if (event.type === "page-fetched") logger.debug({ issuerId: event.issuerId, page: event.page }, "page");
        },
      })) {
        done += 1;
        progress.push(result.ok ? `${result.issuerId} ok ${result.export.transactions}` : `${result.issuerId} failed ${isOcfSyncError(result.error) ? result.error.code : "?"}`);
      }
    } finally {
      await client.close();
      await server.close();
    }
    expect(done).toBe(3);
    expect(progress.sort()).toEqual(["144361 ok 700", "7 ok 31", "no-such-issuer failed API_NOT_FOUND"]);
    expect(lines.some((l) => l.level === "info" && l.msg === "package written" && l.fields.issuerId === "7")).toBe(true);
    expect(lines.some((l) => l.level === "error" && l.fields.issuerId === "no-such-issuer")).toBe(true);
    expect(lines.some((l) => l.level === "debug" && l.msg === "page")).toBe(true);
    // the logger never sees the token
    expect(JSON.stringify(lines)).not.toContain("not-checked-here");
    const manifest = JSON.parse(await readFile(join(outDir, "7", "Manifest.ocf.json"), "utf8")) as { issuer: { legal_name: string } };
    expect(manifest.issuer.legal_name).toBe("Seven Robotics, Inc.");
  });
});
