/**
 * A full export (pull over HTTP from the sample server, parse, map, write, and optionally validate) of a
 * generated issuer whose awards and units carry 40 vesting events each, in a child process so that its
 * peak memory is measured alone. Beside it, the mapping baseline of the mapping benchmark measured in
 * the same run on the same data: `JSON.parse` of the input plus `JSON.stringify` of the output package.
 * Peak memory at 1,000 and at 10,000 records shows whether it grows with the record count.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { SampleIssuer } from "../src/sample-server/data.js";
import { startSampleServer } from "../src/sample-server/server.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "..");
const ISSUER = "bench-issuer";
const EVENTS = 40;

const pad = (n: number): string => String(n).padStart(2, "0");

/** Month `k` after 2021-01 as a calendar date on day `day` (1..28, so always real). */
function monthDate(k: number, day: number): string {
  return `${2021 + Math.floor(k / 12)}-${pad((k % 12) + 1)}-${pad(day)}`;
}

/** A wire record with 40 monthly time-based events; vested up to 2025-06-30. */
function generated(kind: "award" | "unit", i: number): Record<string, unknown> {
  const start = i % 24;
  const day = (i % 28) + 1;
  const per = 100 + (i % 50);
  const events = Array.from({ length: EVENTS }, (_, k) => {
    const date = monthDate(start + k + 1, day);
    const vested = date <= "2025-06-30";
    return {
      id: `${kind}-${i}-e${k}`,
      vestDate: { value: date },
      quantity: { value: String(per) },
      performanceCondition: false,
      vested,
      maxQuantity: { value: String(per) },
      targetQuantity: { value: String(per) },
      ...(vested ? { vestedQuantity: { value: String(per) } } : {}),
    };
  });
  const vestedTotal = events.filter((e) => e.vested).length * per;
  const common = {
    id: `${kind}-${i}`,
    issuerId: ISSUER,
    stakeholderId: `sh-${i % 997}`,
    equityIncentivePlanName: "2021 Equity Incentive Plan",
    issueDate: { value: monthDate(start, day) },
    vestingStartDate: { value: monthDate(start, day) },
    boardApprovalDate: { value: monthDate(start, day) },
    quantity: { value: String(per * EVENTS) },
    vestedQuantity: { value: String(vestedTotal) },
    securityLabel: `${kind === "award" ? "RSA" : "RSU"}-${i}`,
    vestingEvents: events,
    vestingSchedule: { name: "40 monthly tranches", startDate: { value: monthDate(start, day) }, endDate: { value: monthDate(start + EVENTS, day) } },
    lastModifiedDatetime: { value: `2025-06-${pad((i % 28) + 1)}T10:00:${pad(i % 60)}.000000Z` },
  };
  if (kind === "award") {
    return { ...common, shareClassName: "Common", pricePerShare: { currencyCode: { value: "USD" }, amount: { value: "0.0001" } } };
  }
  const released = Math.min(vestedTotal, per * 6);
  return {
    ...common,
    releasedQuantity: { value: String(released) },
    netSettledQuantity: { value: String(released - per) },
    releasePricePerShare: { currencyCode: { value: "USD" }, amount: { value: "4.25" } },
    settlements:
      released === 0
        ? []
        : [
            {
              settlementDate: { value: "2025-03-15" },
              releaseQuantity: { value: String(released) },
              withholdingQuantity: { value: String(per) },
              netSettlementQuantity: { value: String(released - per) },
              settlementPrice: { currencyCode: { value: "USD" }, amount: { value: "4.25" } },
              certificateId: `cert-${i}`,
              certificateLabel: `CS-${i}`,
            },
          ],
  };
}

function generateIssuer(records: number): SampleIssuer {
  const half = Math.floor(records / 2);
  return {
    awards: Array.from({ length: half }, (_, i) => generated("award", i)),
    units: Array.from({ length: records - half }, (_, i) => generated("unit", i)),
  };
}

interface ChildResult {
  validated: boolean;
  seconds: number;
  records: number;
  transactions: number;
  maxRssMb: number;
}

async function exportInChild(url: string, outDir: string, validate: "auto" | "always"): Promise<ChildResult> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", join(ROOT, "bench/export-child.ts"), url, ISSUER, outDir, validate], {
    cwd: ROOT,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as ChildResult;
}

/** The mapping benchmark's baseline on this data: parse the input text, stringify the output files. */
async function baselineSeconds(inputText: string, packageDir: string): Promise<number> {
  const outputs: unknown[] = [];
  for (const file of await readdir(packageDir)) outputs.push(JSON.parse(await readFile(join(packageDir, file), "utf8")));
  const once = (): void => {
    JSON.parse(inputText);
    for (const o of outputs) JSON.stringify(o, null, 2);
  };
  once();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    once();
    times.push((performance.now() - t) / 1000);
  }
  return times.sort((a, b) => a - b)[2] ?? 0;
}

export async function benchExport(): Promise<string> {
  const rows: string[] = [];
  let baselineLine = "";
  for (const size of [1_000, 10_000]) {
    const data = generateIssuer(size);
    const server = await startSampleServer({ port: 0, data: { issuers: new Map([[ISSUER, data]]) } });
    const out = await mkdtemp(join(tmpdir(), "ocf-sync-bench-export-"));
    try {
      const streaming = await exportInChild(server.url, out, "auto");
      const validated = await exportInChild(server.url, out, "always");
      rows.push(
        `| ${size.toLocaleString("en-US")} | ${streaming.transactions} | ${(streaming.records / streaming.seconds).toFixed(0)} | ${streaming.maxRssMb.toFixed(0)} MB (${streaming.validated ? "re-read" : "not re-read"}) | ${(validated.records / validated.seconds).toFixed(0)} | ${validated.maxRssMb.toFixed(0)} MB |`,
      );
      if (size === 10_000) {
        const inputText = JSON.stringify({ restrictedStockAwards: data.awards, restrictedStockUnits: data.units });
        const base = await baselineSeconds(inputText, join(out, ISSUER));
        const baseRate = size / base;
        baselineLine = [
          "",
          `At 10,000 records: baseline (JSON.parse of the ${(inputText.length / 1e6).toFixed(1)} MB input + JSON.stringify of the output package) ${baseRate.toFixed(0)} records/s;`,
          `the full export runs at ${((streaming.records / streaming.seconds / baseRate) * 100).toFixed(1)}% of it (ratio ${(streaming.records / streaming.seconds / baseRate).toFixed(3)}), HTTP paging included.`,
        ].join("\n");
      }
    } finally {
      await server.close();
      await rm(out, { recursive: true, force: true });
    }
  }
  return [
    `generated issuer, half awards and half units, ${EVENTS} vesting events each; each export in its own process`,
    "",
    "| records | transactions | export records/s (default --validate auto) | peak RSS | --validate always records/s | peak RSS |",
    "|---:|---:|---:|---:|---:|---:|",
    ...rows,
    baselineLine,
  ].join("\n");
}
