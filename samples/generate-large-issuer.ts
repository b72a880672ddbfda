/**
 * Generates `samples/api/144361.json`: a large sample issuer (80 RSAs, 70 RSUs) so that paging runs
 * over several pages at the maximum page size of 50. The output is deterministic (a seeded PRNG, no
 * clock, no randomness from the platform), so the committed file can be checked against it:
 *
 *     npx tsx samples/generate-large-issuer.ts          # rewrites samples/api/144361.json
 *
 * The records follow the conventions of `samples/README.md` (vesting status as of 2025-06-30, events
 * summing to the grant, settlements summing to the released totals) and carry the same wire quirks
 * as the hand-written issuers, spread at random: padded decimals, optional booleans left out, both
 * shapes of `currencyCode`, 0, 3 or 6 fractional digits on date-times, and explicit `null`s.
 */
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { daysInMonth } from "../src/dates.js";
import { Dec, formatDecimal } from "../src/decimal.js";
import { createPrng } from "../src/sample-server/faults.js";
import { SAMPLES_AS_OF, type SampleIssuerFile, type WireRecord } from "../src/sample-server/data.js";

/** The id of the generated issuer. */
export const LARGE_ISSUER_ID = "144361";
/** Vesting status in all sample data is as of this day (defined with the sample data loader). */
export { SAMPLES_AS_OF };

const AWARD_COUNT = 80;
const UNIT_COUNT = 70;
const SEED = 144361;

type Decimal = InstanceType<typeof Dec>;

/** Pretty JSON that keeps small objects (wrappers, Money, short events) on one line. */
export function formatSampleJson(value: unknown, indent = ""): string {
  const inline = JSON.stringify(value, null, 1)
    .replace(/\n\s*/g, " ")
    .replace(/\[ /g, "[")
    .replace(/ \]/g, "]");
  if (typeof value !== "object" || value === null || indent.length + inline.length <= 420) return inline;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((item) => inner + formatSampleJson(item, inner)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${formatSampleJson(item, inner)}`);
  return `{\n${entries.join(",\n")}\n${indent}}`;
}

/** A UUID-shaped id derived from a label, so that ids are stable across runs. */
export function stableUuid(label: string): string {
  const h = createHash("sha256").update(label).digest("hex");
  const variant = "89ab"[Number.parseInt(h.charAt(16), 16) % 4] ?? "8";
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const pad2 = (n: number): string => String(n).padStart(2, "0");

function splitDate(date: string): [number, number, number] {
  const [y = "0", m = "0", d = "0"] = date.split("-");
  return [Number.parseInt(y, 10), Number.parseInt(m, 10), Number.parseInt(d, 10)];
}

/** `date` moved by whole months; a day past the end of the target month is clamped to its last day. */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = splitDate(date);
  const total = y * 12 + (m - 1) + months;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  return `${year}-${pad2(month)}-${pad2(Math.min(d, daysInMonth(year, month)))}`;
}

/** `date` moved by `days` days (negative moves back), across month and year ends. */
export function addDays(date: string, days: number): string {
  let [y, m, d] = splitDate(date);
  d += days;
  while (d > daysInMonth(y, m)) {
    d -= daysInMonth(y, m);
    [y, m] = m === 12 ? [y + 1, 1] : [y, m + 1];
  }
  while (d < 1) {
    [y, m] = m === 1 ? [y - 1, 12] : [y, m - 1];
    d += daysInMonth(y, m);
  }
  return `${y}-${pad2(m)}-${pad2(d)}`;
}

const minDate = (a: string, b: string): string => (a < b ? a : b);
const maxDate = (...dates: string[]): string => dates.reduce((a, b) => (a > b ? a : b));

interface Shape {
  name: string;
  months: number;
  every: number;
  cliff: number;
}

const MONTHLY_48: Shape = { name: "1/48 monthly, 12-month cliff", months: 48, every: 1, cliff: 12 };
const QUARTERLY_48: Shape = { name: "Quarterly over 4 years, 1-year cliff", months: 48, every: 3, cliff: 12 };
const MONTHLY_36: Shape = { name: "1/36 monthly, no cliff", months: 36, every: 1, cliff: 0 };
const ANNUAL_48: Shape = { name: "Annual over 4 years", months: 48, every: 12, cliff: 0 };
const QUARTERLY_24: Shape = { name: "Quarterly over 2 years", months: 24, every: 3, cliff: 0 };
/** Repeats weight the draw: long monthly schedules are kept rarer so the file stays a reasonable size. */
const SHAPES: readonly Shape[] = [MONTHLY_48, QUARTERLY_48, QUARTERLY_48, QUARTERLY_48, MONTHLY_36, ANNUAL_48, ANNUAL_48, QUARTERLY_24, QUARTERLY_24];

const PLANS = ["2018 Stock Option and Grant Plan", "2022 Equity Incentive Plan"] as const;

class Generator {
  readonly #random = createPrng(SEED);
  readonly #usedTimes = new Set<string>();
  #eventId = 300_000;

  int(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.#random() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  date(fromYear: number, toYear: number): string {
    return `${this.int(fromYear, toYear)}-${pad2(this.int(1, 12))}-${pad2(this.int(1, 28))}`;
  }

  eventId(): string {
    this.#eventId += this.int(1, 9);
    return String(this.#eventId);
  }

  /** A distinct date-time on `day`, with 0, 3 or 6 fractional digits. */
  modifiedAt(day: string): { value: string } {
    for (;;) {
      const base = `${day}T${pad2(this.int(6, 22))}:${pad2(this.int(0, 59))}:${pad2(this.int(0, 59))}`;
      const style = this.int(0, 5);
      const fraction = style === 0 ? "" : style === 1 ? `.${String(this.int(0, 999)).padStart(3, "0")}` : `.${String(this.int(0, 999_999)).padStart(6, "0")}`;
      if (this.#usedTimes.has(base)) continue; // distinct to the second, so whole-second filters separate them
      this.#usedTimes.add(base);
      return { value: `${base}${fraction}Z` };
    }
  }
}

const wrap = (value: string): { value: string } => ({ value });
const PADDING = "00000000000000000000";

/** A quantity as the wire sends it: plain, or zero-padded to 20 places as real data often is. */
function quantity(value: Decimal, padded: boolean): { value: string } {
  const text = formatDecimal(value);
  if (!padded) return wrap(text);
  const [whole, fraction = ""] = text.split(".");
  return wrap(`${whole}.${fraction.padEnd(PADDING.length, "0")}`);
}

function money(g: Generator, amount: string, currency = "USD"): WireRecord {
  const shape = g.int(0, 3);
  const code = shape === 0 ? currency : shape === 1 ? wrap(currency.toLowerCase()) : wrap(currency);
  return { currencyCode: code, amount: wrap(amount) };
}

/** The price of a share in a given year: a smooth curve, two decimals. */
function priceIn(year: number, base: string): string {
  // decimal.js toFixed: exact, and keeps the two places a quoted price has ("2.10").
  return new Dec(base).times(new Dec("1.31").pow(year - 2018)).toDecimalPlaces(2).toFixed(2);
}

interface Tranche {
  date: string;
  amount: Decimal;
}

function tranches(start: string, shape: Shape, total: Decimal): Tranche[] {
  const periods = shape.months / shape.every;
  const per = total.div(periods);
  const out: Tranche[] = [];
  if (shape.cliff > 0) out.push({ date: addMonths(start, shape.cliff), amount: per.times(shape.cliff / shape.every) });
  for (let k = shape.cliff + shape.every; k <= shape.months; k += shape.every) out.push({ date: addMonths(start, k), amount: per });
  return out;
}

interface Vesting {
  events: WireRecord[];
  vested: Decimal;
  vestedTranches: Tranche[];
  scheduleName: string;
  scheduleEnd: string | undefined;
  performance: boolean;
}

function vestingFor(g: Generator, start: string, total: Decimal, cutoff: string, padded: boolean): Vesting {
  const explicitFalse = g.chance(0.4);
  if (g.chance(0.12)) {
    // Milestones: a vested one has a date and a vested quantity; an unvested one has neither.
    const count = g.int(2, 3);
    const target = total.div(count);
    let vested = new Dec(0);
    const vestedTranches: Tranche[] = [];
    const events = Array.from({ length: count }, (_, i): WireRecord => {
      const max = target.times(g.pick(["1", "1.25", "1.5"]));
      const date = addMonths(start, 9 * (i + 1) + g.int(0, 5));
      const event: WireRecord = { id: g.eventId() };
      if (date <= cutoff) {
        vested = vested.plus(target);
        vestedTranches.push({ date, amount: target });
        Object.assign(event, { vestDate: wrap(date), quantity: quantity(target, padded), performanceCondition: true, vested: true });
        Object.assign(event, { maxQuantity: quantity(max, padded), targetQuantity: quantity(target, padded), vestedQuantity: quantity(target, padded) });
      } else {
        Object.assign(event, { quantity: quantity(max, padded), performanceCondition: true });
        if (explicitFalse) event.vested = false;
        Object.assign(event, { maxQuantity: quantity(max, padded), targetQuantity: quantity(target, padded) });
      }
      return event;
    });
    return { events, vested, vestedTranches, scheduleName: "Performance milestones", scheduleEnd: undefined, performance: true };
  }
  const shape = g.pick(SHAPES);
  const all = tranches(start, shape, total);
  let vested = new Dec(0);
  const vestedTranches: Tranche[] = [];
  const events = all.map((t): WireRecord => {
    const isVested = t.date <= cutoff;
    const amount = quantity(t.amount, padded);
    const event: WireRecord = { id: g.eventId(), vestDate: wrap(t.date), quantity: amount };
    if (explicitFalse) event.performanceCondition = false;
    if (isVested) {
      vested = vested.plus(t.amount);
      vestedTranches.push(t);
      event.vested = true;
    } else if (explicitFalse) {
      event.vested = false;
    }
    Object.assign(event, { maxQuantity: amount, targetQuantity: amount });
    if (isVested) event.vestedQuantity = amount;
    return event;
  });
  return { events, vested, vestedTranches, scheduleName: shape.name, scheduleEnd: all.at(-1)?.date, performance: false };
}

interface Common {
  record: WireRecord;
  vesting: Vesting;
  cutoff: string;
  terminated: string | undefined;
  touched: string[];
  padded: boolean;
  total: Decimal;
}

/** The fields RSAs and RSUs share, up to the counters. */
function commonRecord(g: Generator, kind: "rsa" | "rsu", index: number): Common {
  const padded = g.chance(0.2);
  const issueDate = g.date(2018, 2025);
  const clampedIssue = issueDate > "2025-05-28" ? "2025-05-28" : issueDate;
  const vestingStart = addDays(clampedIssue, -g.int(0, 20));
  const start = `${vestingStart.slice(0, 8)}${pad2(Math.min(28, Number.parseInt(vestingStart.slice(8), 10)))}`;
  // 144 is a multiple of every shape's number of tranches (48, 36, 16, 8, 4) and of 2 and 3
  // milestones, so every tranche is a whole number of shares.
  const multiplier = kind === "rsa" ? g.int(2, 1_500) : g.int(1, 150);
  const total = new Dec(multiplier).times(144);
  const terminated = g.chance(0.2) ? addDays(start, g.int(200, 1_400)) : undefined;
  const terminatedBefore = terminated !== undefined && terminated < SAMPLES_AS_OF ? terminated : undefined;
  const cutoff = minDate(SAMPLES_AS_OF, terminatedBefore ?? SAMPLES_AS_OF);
  const vesting = vestingFor(g, start, total, cutoff, padded);
  const id = kind === "rsa" ? String(61_000 + index * 13) : String(73_000 + index * 11);
  const plan = clampedIssue < "2022-01-01" ? PLANS[0] : PLANS[1];
  const record: WireRecord = {
    id,
    securityId: stableUuid(`${LARGE_ISSUER_ID}/${kind}/${id}`),
    shareClassId: g.chance(0.1) ? null : stableUuid(`${LARGE_ISSUER_ID}/class/common`),
  };
  if (!vesting.performance || g.chance(0.5)) {
    record.vestingScheduleTemplateId = vesting.performance ? null : stableUuid(`${LARGE_ISSUER_ID}/tpl/${vesting.scheduleName}`);
  }
  Object.assign(record, {
    issuerId: LARGE_ISSUER_ID,
    stakeholderId: String(9_000 + g.int(1, 120)),
    equityIncentivePlanName: plan,
  });
  if (kind === "rsa") record.shareClassName = "Common";
  Object.assign(record, {
    issueDate: wrap(clampedIssue),
    vestingStartDate: wrap(start),
    boardApprovalDate: wrap(addDays(clampedIssue, -g.int(0, 10))),
  });
  const accepted = addDays(clampedIssue, g.int(0, 30));
  if (accepted <= SAMPLES_AS_OF && g.chance(0.9)) record.stakeholderAcceptanceDate = wrap(accepted);
  const touched = [clampedIssue, accepted > SAMPLES_AS_OF ? clampedIssue : accepted];
  if (terminatedBefore !== undefined) touched.push(terminatedBefore);
  return { record, vesting, cutoff, terminated: terminatedBefore, touched, padded, total };
}

function schedule(c: Common): WireRecord {
  const start = (c.record.vestingStartDate as { value: string }).value;
  const issue = (c.record.issueDate as { value: string }).value;
  const s: WireRecord = { name: c.vesting.scheduleName, lastModifiedDate: wrap(issue), startDate: wrap(start) };
  if (c.vesting.scheduleEnd !== undefined) s.endDate = wrap(c.vesting.scheduleEnd);
  return s;
}

function award(g: Generator, index: number): WireRecord {
  const c = commonRecord(g, "rsa", index);
  const { record, vesting, padded, total } = c;
  const issueYear = Number.parseInt((record.issueDate as { value: string }).value.slice(0, 4), 10);
  const price = g.chance(0.1) ? "1e-05" : priceIn(issueYear, "0.0042");
  Object.assign(record, {
    quantity: quantity(total, padded),
    vestedQuantity: quantity(vesting.vested, padded),
    securityLabel: `RSA-${101 + index}`,
    pricePerShare: money(g, price),
    vestingEvents: vesting.events,
    vestingSchedule: schedule(c),
  });
  if (c.terminated !== undefined) {
    const canceledDate = minDate(SAMPLES_AS_OF, addDays(c.terminated, g.int(0, 30)));
    c.touched.push(canceledDate);
    const canceled = total.minus(vesting.vested);
    const toTreasury = g.chance(0.3) ? canceled.div(4).floor() : new Dec(0);
    Object.assign(record, {
      canceledDate: wrap(canceledDate),
      terminationDate: wrap(c.terminated),
      canceledQuantity: quantity(canceled, padded),
      returnedToPoolQuantity: quantity(canceled.minus(toTreasury), padded),
      returnedToTreasuryQuantity: quantity(toTreasury, padded),
    });
  } else if (g.chance(0.7)) {
    const zero = quantity(new Dec(0), padded);
    Object.assign(record, { canceledQuantity: zero, returnedToPoolQuantity: zero, returnedToTreasuryQuantity: zero });
  }
  record.lastModifiedDatetime = g.modifiedAt(maxDate(...c.touched));
  if (g.chance(0.5)) record.precededBy = { reason: "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_ISSUED_FROM_SHARE_RESERVE" };
  return record;
}

function unit(g: Generator, index: number): WireRecord {
  const c = commonRecord(g, "rsu", index);
  const { record, vesting, padded, total } = c;
  // Vested units settle once a year, after the year's last vesting; the latest year may still wait.
  const byYear = new Map<string, Tranche[]>();
  for (const t of vesting.vestedTranches) byYear.set(t.date.slice(0, 4), [...(byYear.get(t.date.slice(0, 4)) ?? []), t]);
  const settlements: WireRecord[] = [];
  let released = new Dec(0);
  let netSettled = new Dec(0);
  let lastPrice = "";
  const years = [...byYear.keys()];
  years.forEach((year, i) => {
    const batch = byYear.get(year) ?? [];
    const date = addDays(batch.at(-1)?.date ?? `${year}-12-01`, g.int(2, 12));
    if (date > SAMPLES_AS_OF || (i === years.length - 1 && g.chance(0.4))) return;
    const release = batch.reduce((sum, t) => sum.plus(t.amount), new Dec(0));
    const withholding = release.times(new Dec(g.int(30, 45)).div(100)).floor();
    const sale = g.chance(0.25) ? withholding : new Dec(0);
    const withheld = sale.isZero() ? withholding : new Dec(0);
    const net = release.minus(withheld).minus(sale);
    released = released.plus(release);
    netSettled = netSettled.plus(net);
    lastPrice = priceIn(Number.parseInt(year, 10), "1.35");
    const s: WireRecord = {
      settlementDate: wrap(date),
      releaseQuantity: quantity(release, padded),
      saleQuantity: quantity(sale, padded),
      withholdingQuantity: quantity(withheld, padded),
      netSettlementQuantity: quantity(net, padded),
    };
    // Some settlements carry no price: the unit's releasePricePerShare applies.
    if (g.chance(0.85)) s.settlementPrice = money(g, lastPrice);
    const label = `CS-${2_000 + index * 10 + i}`;
    Object.assign(s, { certificateId: stableUuid(`${LARGE_ISSUER_ID}/cert/${label}`), certificateLabel: label });
    settlements.push(s);
    c.touched.push(date);
  });
  Object.assign(record, {
    quantity: quantity(total, padded),
    vestedQuantity: quantity(vesting.vested, padded),
    releasedQuantity: quantity(released, padded),
  });
  if (lastPrice !== "") record.releasePricePerShare = money(g, lastPrice);
  Object.assign(record, {
    netSettledQuantity: quantity(netSettled, padded),
    securityLabel: `RSU-${301 + index}`,
    vestingEvents: vesting.events,
  });
  let forfeited = new Dec(0);
  let expired = new Dec(0);
  if (c.terminated !== undefined) {
    const canceledDate = minDate(SAMPLES_AS_OF, addDays(c.terminated, g.int(0, 30)));
    c.touched.push(canceledDate);
    forfeited = total.minus(vesting.vested);
    const waiting = vesting.vested.minus(released);
    // Every third terminated unit keeps its vested units that were not settled yet: only the unvested
    // ones are forfeited, and the rest is settled a week after the cancellation (when that day has come).
    // The others' unsettled vested units expire.
    if (index % 3 === 0 && waiting.gt(0)) {
      const late = addDays(canceledDate, 7);
      if (late <= SAMPLES_AS_OF) {
        const withholding = waiting.times(35).div(100).floor();
        const net = waiting.minus(withholding);
        released = released.plus(waiting);
        netSettled = netSettled.plus(net);
        const label = `CS-${2_000 + index * 10 + 9}`;
        settlements.push({
          settlementDate: wrap(late),
          releaseQuantity: quantity(waiting, padded),
          saleQuantity: quantity(new Dec(0), padded),
          withholdingQuantity: quantity(withholding, padded),
          netSettlementQuantity: quantity(net, padded),
          settlementPrice: money(g, lastPrice === "" ? priceIn(Number.parseInt(late.slice(0, 4), 10), "1.35") : lastPrice),
          certificateId: stableUuid(`${LARGE_ISSUER_ID}/cert/${label}`),
          certificateLabel: label,
        });
        c.touched.push(late);
        Object.assign(record, { releasedQuantity: quantity(released, padded), netSettledQuantity: quantity(netSettled, padded) });
      }
    } else {
      expired = waiting;
    }
    Object.assign(record, { canceledDate: wrap(canceledDate), terminationDate: wrap(c.terminated) });
  }
  if (settlements.length > 0) record.settlements = settlements;
  // A unit whose settlements delivered shares names their class: the settlement class comes from the
  // source, never from a default (only units without settlements may lack a shareClassId).
  if (settlements.length > 0 && record.shareClassId === null) record.shareClassId = stableUuid(`${LARGE_ISSUER_ID}/class/common`);
  record.vestingSchedule = schedule(c);
  const canceled = forfeited.plus(expired);
  if (c.terminated !== undefined || g.chance(0.7)) {
    Object.assign(record, {
      canceledQuantity: quantity(canceled, padded),
      forfeitedQuantity: quantity(forfeited, padded),
      expiredQuantity: quantity(expired, padded),
      returnedToPoolQuantity: quantity(canceled, padded),
      returnedToTreasuryQuantity: quantity(new Dec(0), padded),
    });
  }
  record.lastModifiedDatetime = g.modifiedAt(maxDate(...c.touched));
  return record;
}

/** The large issuer's file, built afresh (deterministically) on every call. */
export function generateLargeIssuer(): SampleIssuerFile {
  const g = new Generator();
  const restrictedStockAwards = Array.from({ length: AWARD_COUNT }, (_, i) => award(g, i));
  const restrictedStockUnits = Array.from({ length: UNIT_COUNT }, (_, i) => unit(g, i));
  return { issuerId: LARGE_ISSUER_ID, name: "Northbeam Logistics (generated)", restrictedStockAwards, restrictedStockUnits };
}

/** The exact text of `samples/api/144361.json`. */
export function renderLargeIssuer(): string {
  return `${formatSampleJson(generateLargeIssuer())}\n`;
}

/** Where the generated file lives. */
export const LARGE_ISSUER_FILE = fileURLToPath(new URL(`./api/${encodeURIComponent(LARGE_ISSUER_ID)}.json`, import.meta.url));

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await writeFile(LARGE_ISSUER_FILE, renderLargeIssuer());
  process.stdout.write(`wrote ${LARGE_ISSUER_FILE}\n`);
}
