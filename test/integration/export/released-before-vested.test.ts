/**
 * A unit settled before its units vested (issue 24): odd data, not invalid OCF. The export writes it
 * (exit 0, even with the default --on-invalid fail), its report carries the mapping's
 * RELEASED_BEFORE_VESTED warning, and `ocf-sync validate` calls the package valid (exit 0) while
 * listing the same release as a RELEASED_BEFORE_VESTED warning; the library's export does the same.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { createApiClient } from "../../../src/client/create-client.js";
import { exportIssuer } from "../../../src/export/export-issuer.js";
import { validatePackageAt, type PackageProblem } from "../../../src/ocf/validate-package.js";
import { loadSampleData, type SampleData } from "../../../src/sample-server/data.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";

const ISSUER = "7";
const UNIT = "8801";
/** Unit 8801 vests 1000 on 2022-07-01 and settles them on 2022-07-06; here five days before they vest. */
const EARLY = "2022-06-26";
const AS_OF = "2025-06-30";
const GENERATED_AT = "2025-07-01T00:00:00Z";

let dir: string;
let server: SampleServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-released-before-vested-"));
  const issuer = (await loadSampleData()).issuers.get(ISSUER);
  if (issuer === undefined) throw new Error("no sample issuer 7");
  const units = structuredClone(issuer.units) as { id?: string; settlements?: { settlementDate?: unknown }[] }[];
  const first = units.find((u) => u.id === UNIT)?.settlements?.[0];
  if (first === undefined) throw new Error(`sample unit ${UNIT} has no settlement`);
  first.settlementDate = { value: EARLY };
  const data: SampleData = { issuers: new Map([[ISSUER, { awards: issuer.awards, units: units as typeof issuer.units }]]) };
  server = await startSampleServer({ port: 0, data });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(dir);
  const code = await runCli(argv, io);
  return { code, out: io.stdout.text, err: io.stderr.text };
}

/** The mapping's warnings of the early settlement, as [code, record id, path]. */
function mappingWarnings(warnings: readonly { code: string; record?: { recordId: string }; path?: string }[]): (string | undefined)[][] {
  return warnings.filter((w) => w.code === "RELEASED_BEFORE_VESTED").map((w) => [w.code, w.record?.recordId, w.path]);
}

const RELEASE_MESSAGE = `releases 1000 of security "rsu-${UNIT}" on ${EARLY}, which brings what is released of it to 1000, but its vestings have vested only 0 by then`;

describe("a unit settled before its units vested", () => {
  it("exports with exit 0 and the mapping's warning in the report; validate exits 0 and prints the warning", async () => {
    const out = join(dir, "cli");
    const exported = await run("export", "--base-url", server.url, "--issuer", ISSUER, "--out", out, "--as-of", AS_OF, "--generated-at", GENERATED_AT, "--log", "plain");
    expect(exported.code, exported.err).toBe(0);
    expect(exported.err).not.toContain("MAPPING_INVALID_LINEAGE");
    const report = JSON.parse(await readFile(join(out, `${ISSUER}.report.json`), "utf8")) as { warnings: { code: string; record?: { recordId: string }; path?: string }[]; quarantined: unknown[] };
    expect(mappingWarnings(report.warnings)).toEqual([["RELEASED_BEFORE_VESTED", UNIT, "settlements[0].releaseQuantity"]]);
    expect(report.quarantined).toEqual([]);
    const transactions = await readFile(join(out, ISSUER, "Transactions.ocf.json"), "utf8");
    expect(transactions).toMatch(new RegExp(`"id": ?"rsu-${UNIT}-release-1",\\s*"date": ?"${EARLY}"`));

    const text = await run("validate", join(out, ISSUER));
    expect(text.code, text.out).toBe(0);
    const line = text.out.split("\n").find((l) => l.includes(`${RELEASE_MESSAGE} [RELEASED_BEFORE_VESTED]`));
    expect(line?.split(/ {2,}/).slice(0, 2)).toEqual(["Transactions.ocf.json", `rsu-${UNIT}-release-1`]);
    expect(text.out).toContain(`valid, 1 warning: ${join(out, ISSUER)}\n`);

    const json = await run("validate", join(out, ISSUER), "--json");
    expect(json.code).toBe(0);
    const document = JSON.parse(json.out) as { valid: boolean; problems: PackageProblem[]; warnings: PackageProblem[] };
    expect(document.valid).toBe(true);
    expect(document.problems).toEqual([]);
    expect(document.warnings.map((w) => [w.code, w.file, w.itemId, w.message])).toEqual([["RELEASED_BEFORE_VESTED", "Transactions.ocf.json", `rsu-${UNIT}-release-1`, RELEASE_MESSAGE]]);
  });

  it("exportIssuer writes it too, with the mapping's warning, and validatePackageAt gives the warning", async () => {
    const api = createApiClient({ baseUrl: server.url, rateLimit: false });
    try {
      const exported = await exportIssuer(api, ISSUER, { outDir: join(dir, "library"), generatedAt: GENERATED_AT, asOf: AS_OF });
      expect(mappingWarnings(exported.warnings)).toEqual([["RELEASED_BEFORE_VESTED", UNIT, "settlements[0].releaseQuantity"]]);
      const report = await validatePackageAt(exported.folder);
      expect(report.valid).toBe(true);
      expect(report.warnings.map((w) => [w.code, w.itemId])).toEqual([["RELEASED_BEFORE_VESTED", `rsu-${UNIT}-release-1`]]);
    } finally {
      await api.close();
    }
  });
});
