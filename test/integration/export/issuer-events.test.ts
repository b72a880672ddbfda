/**
 * The issuer events `ExportEvent` documents: `exportIssuer` sends them as `exportIssuers` does, so that a
 * job that exports issuer by issuer gets its `issuer-done` counts and its `issuer-failed` too.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportIssuer, exportIssuers, type ExportEvent } from "../../../src/index.js";
import { sampleApi } from "../../helpers/sample-api.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

const folder = temporaryFolder("ocf-sync-issuer-events-");
const api = sampleApi();

/** The events other than pages, as `type issuerId`. */
function issuerEvents(events: ExportEvent[]): string[] {
  return events.filter((e) => e.type !== "page-fetched").map((e) => `${e.type} ${e.issuerId}`);
}

describe("the issuer events of an export", () => {
  it("exportIssuer sends issuer-started, package-written and issuer-done, as exportIssuers does", async () => {
    const single: ExportEvent[] = [];
    const result = await exportIssuer(api.client(), "7", { outDir: join(folder(), "single"), onEvent: (e) => single.push(e) });
    const many: ExportEvent[] = [];
    for await (const _ of exportIssuers(api.client(), ["7"], { outDir: join(folder(), "many"), onEvent: (e) => many.push(e) })) {
      // every result
    }
    expect(issuerEvents(single)).toEqual(["issuer-started 7", "package-written 7", "issuer-done 7"]);
    expect(issuerEvents(single)).toEqual(issuerEvents(many));
    expect(single.at(-1)).toMatchObject({ type: "issuer-done", awards: result.awards, units: result.units, quarantined: 0, warnings: result.warnings.length });
  });

  it("exportIssuer sends issuer-failed with the error it throws", async () => {
    const events: ExportEvent[] = [];
    const thrown = await exportIssuer(api.client(), "no-such-issuer", { outDir: join(folder(), "failed"), onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "API_NOT_FOUND" });
    expect(issuerEvents(events)).toEqual(["issuer-started no-such-issuer", "issuer-failed no-such-issuer"]);
    expect(events.at(-1)).toMatchObject({ type: "issuer-failed", error: thrown });
  });
});
