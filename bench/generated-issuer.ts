/**
 * The generated issuer of the export and validate benchmarks: half restricted stock awards, half
 * restricted stock units, each with 40 monthly time-based vesting events (vested up to 2025-06-30),
 * the units with one settlement. Deterministic: record `i` is always the same record.
 */
import type { SampleIssuer } from "../src/sample-server/data.js";
import { parseRecord } from "../src/source/parse.js";
import type { PullItem } from "../src/pull/pull-issuer.js";

export const GENERATED_ISSUER_ID = "bench-issuer";
export const EVENTS = 40;

const pad = (n: number): string => String(n).padStart(2, "0");

/** Month `k` after 2021-01 as a calendar date on day `day` (1..28, so always real). */
function monthDate(k: number, day: number): string {
  return `${2021 + Math.floor(k / 12)}-${pad((k % 12) + 1)}-${pad(day)}`;
}

/** A wire record with 40 monthly time-based events; vested up to 2025-06-30. */
export function generatedRecord(kind: "award" | "unit", i: number): Record<string, unknown> {
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
    issuerId: GENERATED_ISSUER_ID,
    stakeholderId: `sh-${i % 997}`,
    // One class for awards and units alike: a unit's settlement shares are issued in it.
    shareClassId: "sc-common",
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

/** The whole issuer in memory, for the sample server. */
export function generateIssuer(records: number): SampleIssuer {
  const half = Math.floor(records / 2);
  return {
    awards: Array.from({ length: half }, (_, i) => generatedRecord("award", i)),
    units: Array.from({ length: records - half }, (_, i) => generatedRecord("unit", i)),
  };
}

/**
 * The same records as a stream of parsed pull items, generated one at a time (as `exportIssuer`'s
 * `records` option takes them): the export's memory can be measured without a server or the whole
 * issuer in the same process. Each record goes through a JSON text round trip, as a pulled page does.
 */
export async function* generatedPullItems(records: number): AsyncGenerator<PullItem> {
  const half = Math.floor(records / 2);
  const kinds = [
    ["restrictedStockAward", "award", half],
    ["restrictedStockUnit", "unit", records - half],
  ] as const;
  for (const [kind, short, count] of kinds) {
    for (let i = 0; i < count; i++) {
      const raw: unknown = JSON.parse(JSON.stringify(generatedRecord(short, i)));
      const { parsed, warnings } = parseRecord(kind, raw, { issuerId: GENERATED_ISSUER_ID });
      for (const warning of warnings) yield { type: "warning", warning };
      yield { type: "record", ...parsed, issuerId: GENERATED_ISSUER_ID, raw };
    }
  }
}
