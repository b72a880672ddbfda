/**
 * The generated issuer of the export and validate benchmarks: half restricted stock awards, half
 * restricted stock units, each with 40 monthly time-based vesting events (vested up to 2025-06-30),
 * the units with one settlement. Deterministic: record `i` is always the same record.
 */
import type { SampleIssuer } from "../src/sample-server/data.js";
import { LABEL_OF, type RecordKind } from "../src/source/kinds.js";
import { parseRecord } from "../src/source/parse.js";
import type { PullItem } from "../src/pull/pull-issuer.js";

export const GENERATED_ISSUER_ID = "bench-issuer";
export const EVENTS = 40;

const pad = (n: number): string => String(n).padStart(2, "0");

/** Month `k` after 2021-01 as a calendar date on day `day` (1..28, so always real). */
function monthDate(k: number, day: number): string {
  return `${2021 + Math.floor(k / 12)}-${pad((k % 12) + 1)}-${pad(day)}`;
}

const wrap = (value: string): string => `{"value":"${value}"}`;
const money = (amount: string): string => `{"currencyCode":{"value":"USD"},"amount":{"value":"${amount}"}}`;

/**
 * The JSON text of record `i` of a kind, written directly (every string in it is plain ASCII that
 * needs no escape): a wire record with 40 monthly time-based events, vested up to 2025-06-30. The one
 * definition of the generated records; `generatedRecord` is this text parsed.
 */
export function generatedRecordText(kind: "award" | "unit", i: number): string {
  const start = i % 24;
  const day = (i % 28) + 1;
  const per = 100 + (i % 50);
  const quantity = wrap(String(per));
  let events = "";
  let vestedCount = 0;
  for (let k = 0; k < EVENTS; k++) {
    const date = monthDate(start + k + 1, day);
    const vested = date <= "2025-06-30";
    if (vested) vestedCount++;
    events += `${k === 0 ? "" : ","}{"id":"${kind}-${i}-e${k}","vestDate":${wrap(date)},"quantity":${quantity},"performanceCondition":false,"vested":${vested},"maxQuantity":${quantity},"targetQuantity":${quantity}${vested ? `,"vestedQuantity":${quantity}` : ""}}`;
  }
  const vestedTotal = vestedCount * per;
  const first = wrap(monthDate(start, day));
  const common =
    `{"id":"${kind}-${i}","issuerId":"${GENERATED_ISSUER_ID}","stakeholderId":"sh-${i % 997}",` +
    // One class for awards and units alike: a unit's settlement shares are issued in it.
    `"shareClassId":"sc-common","equityIncentivePlanName":"2021 Equity Incentive Plan",` +
    `"issueDate":${first},"vestingStartDate":${first},"boardApprovalDate":${first},` +
    `"quantity":${wrap(String(per * EVENTS))},"vestedQuantity":${wrap(String(vestedTotal))},` +
    `"securityLabel":"${kind === "award" ? "RSA" : "RSU"}-${i}","vestingEvents":[${events}],` +
    `"vestingSchedule":{"name":"40 monthly tranches","startDate":${first},"endDate":${wrap(monthDate(start + EVENTS, day))}},` +
    `"lastModifiedDatetime":${wrap(`2025-06-${pad((i % 28) + 1)}T10:00:${pad(i % 60)}.000000Z`)}`;
  if (kind === "award") return flat(`${common},"shareClassName":"Common","pricePerShare":${money("0.0001")}}`);
  const released = Math.min(vestedTotal, per * 6);
  const settlements =
    released === 0
      ? ""
      : `{"settlementDate":${wrap("2025-03-15")},"releaseQuantity":${wrap(String(released))},"withholdingQuantity":${wrap(String(per))},` +
        `"netSettlementQuantity":${wrap(String(released - per))},"settlementPrice":${money("4.25")},"certificateId":"cert-${i}","certificateLabel":"CS-${i}"}`;
  return flat(
    `${common},"releasedQuantity":${wrap(String(released))},"netSettledQuantity":${wrap(String(released - per))},` +
      `"releasePricePerShare":${money("4.25")},"settlements":[${settlements}]}`,
  );
}

/**
 * The text as one flat string, as a page's body decoded from its bytes is. Built piece by piece, it
 * is a V8 rope of its pieces, and the first `JSON.parse` of a rope first copies it flat: measured
 * 1.0-1.2 s of the first parse of 10,000 records' text, against 0.85-1.05 s for the parse itself.
 * No export pays that (the client decodes whole bytes), so neither does the benchmark's.
 */
export function flat(text: string): string {
  return Buffer.from(text, "latin1").toString("latin1");
}

/** Record `i` of a kind as a wire object. */
export function generatedRecord(kind: "award" | "unit", i: number): Record<string, unknown> {
  return JSON.parse(generatedRecordText(kind, i)) as Record<string, unknown>;
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
 * issuer in the same process. Each record is parsed from its JSON text, as a pulled page is; the text
 * is written directly, so the only JSON work here is the parse the floor has too. (Parsing fifty
 * records' text at once, as a page, measured slower here: its objects outlive more young collections.)
 */
export async function* generatedPullItems(records: number): AsyncGenerator<PullItem> {
  for (const [kind, i] of generatedRecordSlots(records)) yield* pullItemsOf(kind, generatedRecordText(LABEL_OF[kind], i));
}

/**
 * The JSON text of every record, made at once: what the timed exports parse, so that making the
 * text (about 0.2 s for 10,000 records, work no export does) is not timed, as the floor's is not.
 * Holds the whole input (97 MB at 10,000 records), as the floor does.
 */
export function generatedRecordTexts(records: number): { kind: RecordKind; text: string }[] {
  return [...generatedRecordSlots(records)].map(([kind, i]) => ({ kind, text: generatedRecordText(LABEL_OF[kind], i) }));
}

/** `generatedRecordTexts`' records as parsed pull items, one at a time, as `generatedPullItems` gives them. */
export async function* pullItemsOfTexts(texts: readonly { kind: RecordKind; text: string }[]): AsyncGenerator<PullItem> {
  for (const { kind, text } of texts) yield* pullItemsOf(kind, text);
}

/** Every record's kind and index: half awards, then units. */
function* generatedRecordSlots(records: number): Generator<[RecordKind, number]> {
  const half = Math.floor(records / 2);
  for (let i = 0; i < half; i++) yield ["restrictedStockAward", i];
  for (let i = 0; i < records - half; i++) yield ["restrictedStockUnit", i];
}

/** One record's text parsed as a pulled page's record is: its warnings, then the record. */
function* pullItemsOf(kind: RecordKind, text: string): Generator<PullItem> {
  const raw: unknown = JSON.parse(text);
  const { parsed, warnings } = parseRecord(kind, raw, { issuerId: GENERATED_ISSUER_ID });
  for (const warning of warnings) yield { type: "warning", warning };
  yield { type: "record", ...parsed, issuerId: GENERATED_ISSUER_ID, raw };
}
