/**
 * Compares what the independent reader computes from a package with what the source says
 * (`source-truth.ts`): every holder's shares and units, the sell-to-cover holder, the issuer's total
 * shares, and every grant's vested figure, as of each of `dates`, each day's transactions read in
 * `order` (the reader's `DayOrder`; every problem the reader finds under it is a disagreement too).
 * Returns the disagreements in words
 * (none: the package reads right). The only link between the two sides is the id scheme documented
 * in mappings/README.md: `stakeholder-<id>`, `rsa-<id>`, `rsu-<id>`, `market-sell-to-cover`, and a
 * grant's payouts above target `<rsa-or-rsu>-<id>-payout-<event>` (issued to the same holder, so a
 * holder's figures need no link at all): a grant's vested figure is that of its chain plus its payouts.
 */
import type { Decimal } from "./independent-reader.js";
import { dayOrderName, readHoldingsAsOf, readPackage, type DayOrder, type HoldingsAsOf, type Reader, type ReaderPackage, type Reading } from "./independent-reader.js";
import { sourceHoldings, sourceVested, type SourceRecords } from "./source-truth.js";

const MARKET = "market-sell-to-cover";

export function disagreements(source: SourceRecords, pkg: ReaderPackage, reading: Reading, dates: readonly string[], order: DayOrder = "file"): string[] {
  const out: string[] = [];
  const full = readPackage(pkg, reading, undefined, order);
  for (const p of full.problems) out.push(`reader ${reading}, ${dayOrderName(order)} order: ${p}`);
  const asOf = readHoldingsAsOf(pkg, reading, dates, order);
  for (const date of dates) compareHoldings(source, asOf.get(date) as HoldingsAsOf, date, out);
  // Each grant on `dates` that fall within its own life, and on the dates its own figures change.
  const grants = [...source.awards.map((r) => ({ record: r, root: `rsa-${r.id}` })), ...source.units.map((r) => ({ record: r, root: `rsu-${r.id}` }))];
  const everyVestedDate = dates.filter((_, i) => i % 17 === 0);
  for (const { record, root } of grants) {
    const payouts = full.securityIds.filter((id) => id.startsWith(`${root}-payout-`));
    for (const date of [...new Set([...grantDates(record), ...everyVestedDate])].sort()) {
      compareVested(full, root, payouts, sourceVested(record, date), date, out);
    }
  }
  return out;
}

/** The dates a grant's figures change on, and the day before each. */
export function grantDates(record: SourceRecords["awards"][number] | SourceRecords["units"][number]): string[] {
  const dates = new Set<string>();
  const add = (date: string | undefined) => {
    if (date === undefined) return;
    dates.add(date);
    dates.add(dayBefore(date));
  };
  add(record.issueDate);
  add(record.canceledDate);
  add(record.terminationDate);
  add(record.stakeholderAcceptanceDate);
  for (const e of record.vestingEvents) add(e.vestDate);
  for (const s of "settlements" in record ? record.settlements : []) add(s.settlementDate);
  return [...dates];
}

/** The calendar day before `date` (YYYY-MM-DD). */
export function dayBefore(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() - 1);
  return day.toISOString().slice(0, 10);
}

/** The source's holdings per date, kept per source so that reading one package in many orders states them once. */
const truths = new WeakMap<SourceRecords, Map<string, ReturnType<typeof sourceHoldings>>>();

function sourceHoldingsOn(source: SourceRecords, date: string): ReturnType<typeof sourceHoldings> {
  let byDate = truths.get(source);
  if (byDate === undefined) truths.set(source, (byDate = new Map()));
  let truth = byDate.get(date);
  if (truth === undefined) byDate.set(date, (truth = sourceHoldings(source, date)));
  return truth;
}

function compareHoldings(source: SourceRecords, reader: HoldingsAsOf, date: string, out: string[]): void {
  const truth = sourceHoldingsOn(source, date);
  const seen = new Set<string>();
  for (const [holder, { shares, units }] of truth.holders) {
    const id = `stakeholder-${holder}`;
    seen.add(id);
    const read = reader.holdings.get(id);
    differs(out, `${date} ${id} shares`, shares, read?.shares);
    differs(out, `${date} ${id} units`, units, read?.units);
  }
  differs(out, `${date} ${MARKET} shares`, truth.market, reader.holdings.get(MARKET)?.shares);
  seen.add(MARKET);
  for (const [id, { shares, units }] of reader.holdings) {
    if (seen.has(id)) continue;
    if (!shares.isZero() || !units.isZero()) out.push(`${date} ${id}: holds ${shares.toString()} shares and ${units.toString()} units the source does not know`);
  }
  differs(out, `${date} total shares`, truth.totalShares, reader.totalShares);
}

function compareVested(reader: Reader, root: string, payouts: readonly string[], expected: Decimal, date: string, out: string[]): void {
  let vested = reader.grantVested(root, date);
  for (const payout of payouts) vested = vested.plus(reader.grantVested(payout, date));
  differs(out, `${date} ${root} vested`, expected, vested);
}

function differs(out: string[], what: string, expected: Decimal, actual: Decimal | undefined): void {
  if (actual === undefined) {
    if (!expected.isZero()) out.push(`${what}: source ${expected.toString()}, package nothing`);
    return;
  }
  if (!expected.equals(actual)) out.push(`${what}: source ${expected.toString()}, package ${actual.toString()}`);
}
