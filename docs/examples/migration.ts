/**
 * A migration as a user writes it: export two issuers (here from the embedded sample API), read each
 * package back as typed OCF objects and total what it holds, reconcile it against the API, and print
 * the report. `npm run check:package` runs this file, unchanged, from the packed tarball.
 *
 * Quantities are OCF Numeric strings with at most 10 decimal places: scaled by 10^10 they are whole
 * numbers, which a bigint adds exactly (never a JS number).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createApiClient,
  exportIssuers,
  isOcfReadError,
  loadPackageObjects,
  readOcfPackage,
  reconcileApiWithOcf,
  renderReconciliationText,
  reportAgrees,
} from "ocf-sync";
import { startSampleServer } from "ocf-sync/testing";

const SCALE = 10n ** 10n;

/** An OCF Numeric ("1500", "+5", "-0.25") as a bigint of ten-billionths. */
function scaled(numeric: string): bigint {
  const [whole = "0", fraction = ""] = numeric.split(".");
  const sign = whole.startsWith("-") ? -1n : 1n;
  return BigInt(whole) * SCALE + sign * BigInt(fraction.padEnd(10, "0"));
}

/** A bigint of ten-billionths as a decimal string ("1000.5"). */
function decimal(value: bigint): string {
  const magnitude = value < 0n ? -value : value;
  const fraction = (magnitude % SCALE).toString().padStart(10, "0").replace(/0+$/, "");
  return `${value < 0n ? "-" : ""}${magnitude / SCALE}${fraction === "" ? "" : `.${fraction}`}`;
}

const server = await startSampleServer({ port: 0 });
const client = createApiClient({ baseUrl: server.url, rateLimit: false });
const outDir = await mkdtemp(join(tmpdir(), "ocf-migration-"));
try {
  // The sample records are a snapshot whose vested counters are as of 2025-06-30 (see `ocf-sync
  // serve-samples --help`): exported as of that day, a package is reconciled like with like.
  for await (const result of exportIssuers(client, ["7", "144361"], { outDir, zip: true, asOf: "2025-06-30" })) {
    if (!result.ok) {
      console.error(`${result.issuerId} failed: ${result.error.code}: ${result.error.message}`);
      process.exitCode = 1;
      continue;
    }
    const { issuerId } = result;
    const path = result.export.zip ?? result.export.folder;

    // Read back typed: each object is checked as it is streamed, and object_type narrows it.
    const pkg = await readOcfPackage(path);
    let objects = 0;
    let transactions = 0;
    let stakeholders = 0;
    let sharesIssued = 0n;
    let unitsGranted = 0n;
    try {
      for await (const object of pkg.objects()) {
        objects += 1;
        if (object.object_type.startsWith("TX_")) transactions += 1;
        switch (object.object_type) {
          case "STAKEHOLDER":
            stakeholders += 1;
            break;
          case "TX_STOCK_ISSUANCE":
            sharesIssued += scaled(object.quantity);
            break;
          case "TX_EQUITY_COMPENSATION_ISSUANCE":
          case "TX_PLAN_SECURITY_ISSUANCE":
            if (object.compensation_type === "RSU") unitsGranted += scaled(object.quantity);
            break;
          // Other kinds, including valid OCF that ocf-sync does not model (a warrant: its fields are `unknown`), are not totalled.
        }
      }
    } catch (error) {
      if (!isOcfReadError(error)) throw error;
      console.error(`${issuerId}: ${error.file} ${error.jsonPath}: ${error.message}`);
      process.exitCode = 1;
      continue;
    }
    console.log(
      `${issuerId}: ${objects} objects, ${transactions} transactions, ${stakeholders} stakeholders of ${pkg.manifest.issuer.legal_name}; ` +
        `${decimal(sharesIssued)} shares issued, ${decimal(unitsGranted)} units granted`,
    );

    // Reconcile the package against the API it came from, and print the text report.
    const report = await reconcileApiWithOcf(client, issuerId, await loadPackageObjects(path));
    console.log(renderReconciliationText(report));
    if (!reportAgrees(report)) process.exitCode = 1;
  }
} finally {
  await client.close();
  await server.close();
  await rm(outDir, { recursive: true, force: true });
}
