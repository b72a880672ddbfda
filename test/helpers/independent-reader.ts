/**
 * An independent OCF reader, written from `reference/consumer-true-ocf.md` alone (the readers and
 * chains it states) and OCF's own documents, never from ocf-sync's mapping or reconcile code: it
 * imports nothing from `src/`. Tests use it to check that what ocf-sync writes reads right to a
 * reader that did not write it.
 *
 * Readings:
 * - `"documents"` (reader 1, OCF TraversingTransactions): cancellation, repurchase, transfer,
 *   conversion, exercise, reissuance and retraction END the security they act on; what survives is
 *   the issuance named by `balance_security_id`. Nothing may act on an ended security afterwards,
 *   except a return to pool. A release is not in that list (OCF 1.2.0 gives it no balance), so it
 *   takes its units off the security it names.
 * - `"same-security"` (reader 2, OCF #531): outstanding = issued − Σ released − Σ cancelled on one id.
 * Vesting (reader 3): vested as of D = Σ `vestings[].amount` dated ≤ D, else the VestingTerms walked
 * with the security's TX_VESTING_* transactions; with neither, fully vested at issuance.
 *
 * A grant's vested figure follows its chain: what vested on the first security, plus what vested on
 * each balance security after its issuance (a balance's vesting at issuance is carried over, not
 * new). Every `vestings` list is read as it stands, as the reference says readers do: a tranche left
 * on a security after it ended still counts.
 *
 * Order within a day (the reference's "Order within a day"): OCF 1.2.0 orders transactions by date
 * only, so the reader takes a day's transactions in one of several orders (`DayOrder`): the file's,
 * by type as OCF-Tools does, the file's reversed, or a seeded shuffle. A reader cannot act on a
 * security before its issuance, so every order takes a day's issuances first; apart from that every
 * order is fair. Under each order, any transaction (a vesting start or event too) that acts on a
 * security an earlier transaction of the order ended is a problem, as it is across days.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Decimal as DecimalJs } from "decimal.js";

/** Exact enough for any share count (a private clone: the global settings are never touched). */
export const Decimal = DecimalJs.clone({ precision: 200, toExpNeg: -9e15, toExpPos: 9e15 });
export type Decimal = InstanceType<typeof Decimal>;

export type Reading = "documents" | "same-security";

/**
 * The order a reader takes a day's transactions in (after the day's issuances; see the module
 * comment): `"file"` as the package lists them, `"by-type"` as OCF-Tools sorts them, `"reverse"` the
 * file's order reversed, `{ shuffle: seed }` a shuffle drawn from the seed.
 */
export type DayOrder = "file" | "by-type" | "reverse" | { shuffle: number };

/** Every kind of order, with three shuffles: what a package must read the same under. */
export const DAY_ORDERS: readonly DayOrder[] = ["file", "by-type", "reverse", { shuffle: 1 }, { shuffle: 2 }, { shuffle: 3 }];

/** `file`, `by-type`, `reverse`, `shuffle 7`: for messages. */
export function dayOrderName(order: DayOrder): string {
  return typeof order === "string" ? order : `shuffle ${order.shuffle}`;
}

/**
 * OCF-Tools' order of a day's transactions: its validator (ocf_validator/index.ts of
 * Open-Cap-Table-Coalition/OCF-Tools) sorts them by `date`, then by the position of `object_type` in
 * `constants.transaction_types` (ocf_validator/constants/constants.ts), copied here; a type the list
 * lacks (`indexOf` -1: TX_EQUITY_COMPENSATION_ISSUANCE, TX_VESTING_START, TX_VESTING_EVENT, whose
 * list names only the canonical forms) sorts before every listed one, and ties keep the file's order
 * (`Array.prototype.sort` is stable).
 */
const OCF_TOOLS_TYPES = [
  "TX_STOCK_ISSUANCE",
  "TX_STOCK_RETRACTION",
  "TX_STOCK_ACCEPTANCE",
  "TX_STOCK_CANCELLATION",
  "TX_STOCK_CONVERSION",
  "TX_STOCK_REISSUANCE",
  "TX_STOCK_REPURCHASE",
  "TX_STOCK_TRANSFER",
  "TX_CONVERTIBLE_ISSUANCE",
  "TX_CONVERTIBLE_RETRACTION",
  "TX_CONVERTIBLE_ACCEPTANCE",
  "TX_CONVERTIBLE_CANCELLATION",
  "TX_CONVERTIBLE_TRANSFER",
  "TX_CONVERTIBLE_CONVERSION",
  "TX_WARRANT_ISSUANCE",
  "TX_WARRANT_RETRACTION",
  "TX_WARRANT_ACCEPTANCE",
  "TX_WARRANT_CANCELLATION",
  "TX_WARRANT_TRANSFER",
  "TX_WARRANT_EXERCISE",
  "TX_CANONICAL_EQUITY_COMPENSATION_ISSUANCE",
  "TX_EQUITY_COMPENSATION_RETRACTION",
  "TX_EQUITY_COMPENSATION_ACCEPTANCE",
  "TX_EQUITY_COMPENSATION_CANCELLATION",
  "TX_EQUITY_COMPENSATION_RELEASE",
  "TX_EQUITY_COMPENSATION_TRANSFER",
  "TX_EQUITY_COMPENSATION_EXERCISE",
  "TX_PLAN_SECURITY_ISSUANCE",
  "TX_PLAN_SECURITY_RETRACTION",
  "TX_PLAN_SECURITY_ACCEPTANCE",
  "TX_PLAN_SECURITY_CANCELLATION",
  "TX_PLAN_SECURITY_RELEASE",
  "TX_PLAN_SECURITY_TRANSFER",
  "TX_PLAN_SECURITY_EXERCISE",
  "TX_STOCK_CLASS_CONVERSION_RATIO_ADJUSTMENT",
  "TX_STOCK_CLASS_AUTHORIZED_SHARES_ADJUSTMENT",
  "TX_STOCK_CLASS_SPLIT",
  "TX_STOCK_PLAN_POOL_ADJUSTMENT",
  "TX_STOCK_PLAN_RETURN_TO_POOL",
  "TX_VESTING_ACCELERATION",
  "TX_CANONICAL_VESTING_START",
  "TX_CANONICAL_VESTING_EVENT",
];

type Json = Record<string, unknown>;

/** The objects of a package, as a reader loads them. */
export interface ReaderPackage {
  manifest: Json;
  transactions: Json[];
  stakeholders: Json[];
  vestingTerms: Json[];
}

/** Loads a package folder: the manifest and every file its `*_files` lists name. */
export async function loadPackageFolder(folder: string): Promise<ReaderPackage> {
  return packageOf((path) => readFile(join(folder, path), "utf8"));
}

/** A package given as file texts by path (`Manifest.ocf.json` and the files it lists). */
export async function packageFromTexts(files: readonly { path: string; content: string }[]): Promise<ReaderPackage> {
  const byPath = new Map(files.map((f) => [f.path, f.content]));
  return packageOf(async (path) => {
    const text = byPath.get(path);
    if (text === undefined) throw new Error(`the package has no file ${path}`);
    return text;
  });
}

async function packageOf(read: (path: string) => Promise<string>): Promise<ReaderPackage> {
  const manifest = JSON.parse(await read("Manifest.ocf.json")) as Json;
  const itemsOf = async (key: string): Promise<Json[]> => {
    const out: Json[] = [];
    for (const ref of (manifest[key] as { filepath: string }[] | undefined) ?? []) {
      const file = JSON.parse(await read(ref.filepath)) as { items: Json[] };
      out.push(...file.items);
    }
    return out;
  };
  return {
    manifest,
    transactions: await itemsOf("transactions_files"),
    stakeholders: await itemsOf("stakeholders_files"),
    vestingTerms: await itemsOf("vesting_terms_files"),
  };
}

/** The reading a package declares in its manifest comments (`Lineage: …`), documents by default. */
export function declaredReading(pkg: ReaderPackage): Reading {
  const comments = (pkg.manifest.comments as string[] | undefined) ?? [];
  return comments.some((c) => c.startsWith("Lineage: same-security")) ? "same-security" : "documents";
}

const ENDS = new Set([
  "TX_STOCK_CANCELLATION",
  "TX_EQUITY_COMPENSATION_CANCELLATION",
  "TX_PLAN_SECURITY_CANCELLATION",
  "TX_STOCK_REPURCHASE",
  "TX_STOCK_TRANSFER",
  "TX_EQUITY_COMPENSATION_TRANSFER",
  "TX_STOCK_CONVERSION",
  "TX_EQUITY_COMPENSATION_EXERCISE",
  "TX_STOCK_REISSUANCE",
  "TX_STOCK_RETRACTION",
  "TX_EQUITY_COMPENSATION_RETRACTION",
]);
const RELEASES = new Set(["TX_EQUITY_COMPENSATION_RELEASE", "TX_PLAN_SECURITY_RELEASE"]);

interface Security {
  id: string;
  stock: boolean;
  stakeholderId: string;
  stockClassId: string | undefined;
  quantity: Decimal;
  issued: string;
  vestings: { date: string; amount: string }[] | undefined;
  termsId: string | undefined;
  /** Vesting transactions: condition id → date. */
  fired: Map<string, string>;
  outstanding: Decimal;
  endedOn: string | undefined;
  balanceId: string | undefined;
}

/** What a reader computes from a package, as of a date (every transaction dated up to it). */
export interface Reader {
  reading: Reading;
  /** Shares and units held per stakeholder id (live securities only). */
  holdings: Map<string, { shares: Decimal; units: Decimal }>;
  /** Outstanding shares of the issuer. */
  totalShares: Decimal;
  /** The chain of securities of a grant, from its first issuance. */
  chainOf(rootSecurityId: string): string[];
  /** Every security issued, in the order of their issuances. */
  securityIds: string[];
  /** The grant's vested figure as of `date` (see the module comment). */
  grantVested(rootSecurityId: string, date: string): Decimal;
  /** Transactions this reading cannot accept (an act on an ended security, a balance that does not add up, …). */
  problems: string[];
}

/**
 * Reads `pkg` with every transaction dated on or before `asOf` (all of them when absent), each day's
 * transactions taken in `order` (see `DayOrder`).
 */
export function readPackage(pkg: ReaderPackage, reading: Reading, asOf?: string, order: DayOrder = "file"): Reader {
  return replay(pkg, reading, asOf, order, [], new Map());
}

/** What a reader holds as of one date: shares and units per stakeholder, and the issuer's outstanding shares. */
export interface HoldingsAsOf {
  holdings: Map<string, { shares: Decimal; units: Decimal }>;
  totalShares: Decimal;
}

/**
 * The holdings as of each of `dates` (sorted), from one pass over the package: the same figures as
 * `readPackage(pkg, reading, date, order)` gives for each date, without a pass per date.
 */
export function readHoldingsAsOf(pkg: ReaderPackage, reading: Reading, dates: readonly string[], order: DayOrder = "file"): Map<string, HoldingsAsOf> {
  const out = new Map<string, HoldingsAsOf>();
  replay(pkg, reading, undefined, order, [...dates].sort(), out);
  return out;
}

function replay(pkg: ReaderPackage, reading: Reading, asOf: string | undefined, order: DayOrder, snapshotDates: readonly string[], snapshots: Map<string, HoldingsAsOf>): Reader {
  const problems: string[] = [];
  const securities = new Map<string, Security>();
  const terminalCount = new Map<string, number>();
  /** Vesting starts read before their security's issuance (a commencement may precede the grant, OCF §7.3). */
  const early = new Map<string, Map<string, string>>();
  let nextSnapshot = 0;
  const snapshotBefore = (date: string | undefined): void => {
    for (; nextSnapshot < snapshotDates.length && (date === undefined || (snapshotDates[nextSnapshot] as string) < date); nextSnapshot++) {
      snapshots.set(snapshotDates[nextSnapshot] as string, holdingsOf(securities));
    }
  };
  for (const tx of inOrder(pkg, order)) {
    const date = tx.date as string;
    if (asOf !== undefined && date > asOf) break;
    snapshotBefore(date);
    const type = tx.object_type as string;
    const id = tx.security_id as string;
    if (type === "TX_STOCK_ISSUANCE" || type === "TX_EQUITY_COMPENSATION_ISSUANCE" || type === "TX_PLAN_SECURITY_ISSUANCE") {
      const quantity = new Decimal(tx.quantity as string);
      const vestings = tx.vestings as { date: string; amount: string }[] | undefined;
      securities.set(id, {
        id,
        stock: type === "TX_STOCK_ISSUANCE",
        stakeholderId: tx.stakeholder_id as string,
        stockClassId: tx.stock_class_id as string | undefined,
        quantity,
        issued: date,
        vestings,
        termsId: tx.vesting_terms_id as string | undefined,
        fired: early.get(id) ?? new Map(),
        outstanding: quantity,
        endedOn: undefined,
        balanceId: undefined,
      });
      early.delete(id);
      continue;
    }
    const security = securities.get(id);
    if (security === undefined) {
      if (type === "TX_VESTING_START") {
        const fired = early.get(id) ?? new Map<string, string>();
        if (!fired.has(tx.vesting_condition_id as string)) fired.set(tx.vesting_condition_id as string, date);
        early.set(id, fired);
      } else {
        problems.push(`${tx.id as string}: acts on ${id}, which is not issued by ${date}`);
      }
      continue;
    }
    if (type === "TX_STOCK_PLAN_RETURN_TO_POOL") continue; // allowed on an ended security
    if (reading === "documents" && security.endedOn !== undefined) {
      problems.push(`${tx.id as string}: ${type} on ${id}, which ended on ${security.endedOn}`);
    }
    if (type === "TX_VESTING_START" || type === "TX_VESTING_EVENT") {
      const condition = tx.vesting_condition_id as string;
      if (!security.fired.has(condition)) security.fired.set(condition, date);
      continue;
    }
    const quantity = tx.quantity === undefined ? undefined : new Decimal(tx.quantity as string);
    if (RELEASES.has(type)) {
      security.outstanding = security.outstanding.minus(quantity ?? 0);
      if (security.outstanding.isNegative()) problems.push(`${tx.id as string}: releases more than ${id} holds`);
      continue;
    }
    if (!ENDS.has(type)) continue; // acceptance and the like take nothing
    terminalCount.set(id, (terminalCount.get(id) ?? 0) + 1);
    if (reading === "same-security") {
      // Retraction voids the rest; anything with a quantity takes that much.
      security.outstanding = quantity === undefined ? new Decimal(0) : security.outstanding.minus(quantity);
      if (security.outstanding.isNegative()) problems.push(`${tx.id as string}: takes more than ${id} holds`);
      if (security.outstanding.isZero() && security.endedOn === undefined) security.endedOn = date;
      continue;
    }
    if ((terminalCount.get(id) ?? 0) > 1) problems.push(`${tx.id as string}: a second terminal transaction on ${id}`);
    const before = security.outstanding;
    const remainder = quantity === undefined ? new Decimal(0) : before.minus(quantity);
    security.outstanding = new Decimal(0);
    security.endedOn = date;
    const balanceId = tx.balance_security_id as string | undefined;
    security.balanceId = balanceId;
    if (balanceId === undefined) {
      if (!remainder.isZero()) problems.push(`${tx.id as string}: leaves ${remainder.toString()} of ${id} on no security (no balance_security_id)`);
    } else {
      const balance = securities.get(balanceId);
      if (balance === undefined) problems.push(`${tx.id as string}: its balance ${balanceId} is not issued by ${date}`);
      else if (!balance.quantity.equals(remainder)) problems.push(`${tx.id as string}: its balance ${balanceId} holds ${balance.quantity.toString()}, not the ${remainder.toString()} left`);
    }
  }
  snapshotBefore(undefined);
  if (asOf === undefined) for (const id of early.keys()) problems.push(`a vesting start of ${id}, which is never issued`);

  const { holdings, totalShares } = holdingsOf(securities);

  const terms = new Map(pkg.vestingTerms.map((t) => [t.id as string, t]));
  const vestedOn = (s: Security, date: string): Decimal => {
    if (s.issued > date) return new Decimal(0);
    if (s.vestings !== undefined) return s.vestings.reduce((sum, v) => (v.date <= date ? sum.plus(new Decimal(v.amount)) : sum), new Decimal(0));
    if (s.termsId !== undefined) return walkTerms(terms.get(s.termsId), s, date);
    return s.quantity;
  };
  const chainOf = (root: string): string[] => {
    const chain: string[] = [];
    let at = securities.get(root);
    while (at !== undefined && !chain.includes(at.id)) {
      chain.push(at.id);
      at = reading === "documents" && at.balanceId !== undefined ? securities.get(at.balanceId) : undefined;
    }
    return chain;
  };
  const grantVested = (root: string, date: string): Decimal => {
    let total = new Decimal(0);
    chainOf(root).forEach((id, k) => {
      const s = securities.get(id) as Security;
      if (s.issued > date) return;
      // Each list is read as it stands (no cut at the security's end): a tranche never earned counts.
      total = total.plus(vestedOn(s, date));
      if (k > 0) total = total.minus(vestedOn(s, s.issued));
    });
    return total;
  };
  return { reading, holdings, totalShares, chainOf, securityIds: [...securities.keys()], grantVested, problems };
}

function holdingsOf(securities: ReadonlyMap<string, Security>): HoldingsAsOf {
  const holdings = new Map<string, { shares: Decimal; units: Decimal }>();
  let totalShares = new Decimal(0);
  for (const s of securities.values()) {
    const entry = holdings.get(s.stakeholderId) ?? { shares: new Decimal(0), units: new Decimal(0) };
    if (s.stock) {
      entry.shares = entry.shares.plus(s.outstanding);
      totalShares = totalShares.plus(s.outstanding);
    } else {
      entry.units = entry.units.plus(s.outstanding);
    }
    holdings.set(s.stakeholderId, entry);
  }
  return { holdings, totalShares };
}

const ISSUANCES = new Set(["TX_STOCK_ISSUANCE", "TX_EQUITY_COMPENSATION_ISSUANCE", "TX_PLAN_SECURITY_ISSUANCE"]);
const sorted = new WeakMap<ReaderPackage, Map<string, Json[]>>();

/** Date order; within a date, the day's issuances, then the rest, each in `order` (computed once per package and order). */
function inOrder(pkg: ReaderPackage, order: DayOrder): Json[] {
  let byOrder = sorted.get(pkg);
  if (byOrder === undefined) sorted.set(pkg, (byOrder = new Map()));
  const key = dayOrderName(order);
  let ordered = byOrder.get(key);
  if (ordered === undefined) {
    const byDate = pkg.transactions.map((tx, index) => ({ tx, index })).sort((a, b) => (a.tx.date as string).localeCompare(b.tx.date as string) || a.index - b.index);
    ordered = [];
    for (let start = 0; start < byDate.length; ) {
      let end = start;
      while (end < byDate.length && byDate[end]?.tx.date === byDate[start]?.tx.date) end++;
      const day = byDate.slice(start, end).map((entry) => entry.tx);
      const issuances = day.filter((tx) => ISSUANCES.has(tx.object_type as string));
      const rest = day.filter((tx) => !ISSUANCES.has(tx.object_type as string));
      ordered.push(...arrange(issuances, order, start), ...arrange(rest, order, start + 1));
      start = end;
    }
    byOrder.set(key, ordered);
  }
  return ordered;
}

/** One day's transactions (issuances, or the rest) in `order`; `salt` varies a shuffle from one group to the next. */
function arrange(day: Json[], order: DayOrder, salt: number): Json[] {
  if (order === "file") return day;
  if (order === "reverse") return [...day].reverse();
  if (order === "by-type") return [...day].sort((a, b) => OCF_TOOLS_TYPES.indexOf(a.object_type as string) - OCF_TOOLS_TYPES.indexOf(b.object_type as string));
  // Fisher-Yates with mulberry32, seeded by the order's seed and the group: the same shuffle every run.
  let state = (order.shuffle * 0x9e3779b1 + salt * 0x85ebca6b) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...day];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as Json, out[i] as Json];
  }
  return out;
}

/**
 * What a security's VestingTerms have vested by `date`: from the condition its TX_VESTING_START
 * names, follow `next_condition_ids`; a condition fires on its trigger (an absolute date, the date of
 * the TX_VESTING_EVENT naming it) but never before the condition before it; among several next
 * conditions the first to fire is taken. Relative triggers are not read (a test would fail loudly).
 */
function walkTerms(terms: Json | undefined, s: Security, date: string): Decimal {
  if (terms === undefined) throw new Error(`security ${s.id}: its vesting terms ${String(s.termsId)} are not in the package`);
  const conditions = new Map((terms.vesting_conditions as Json[]).map((c) => [c.id as string, c]));
  const startId = [...s.fired.keys()].find((id) => (conditions.get(id)?.trigger as Json | undefined)?.type === "VESTING_START_DATE");
  if (startId === undefined) return new Decimal(0);
  let total = new Decimal(0);
  let current: Json | undefined = conditions.get(startId);
  let firedAt = s.fired.get(startId) as string;
  const seen = new Set<string>();
  while (current !== undefined && firedAt <= date && !seen.has(current.id as string)) {
    seen.add(current.id as string);
    total = total.plus(amountOf(current, s.quantity, total));
    let next: { condition: Json; at: string } | undefined;
    for (const nextId of (current.next_condition_ids as string[]) ?? []) {
      const condition = conditions.get(nextId);
      if (condition === undefined) continue;
      const trigger = condition.trigger as Json;
      let at: string | undefined;
      if (trigger.type === "VESTING_SCHEDULE_ABSOLUTE") at = trigger.date as string;
      else if (trigger.type === "VESTING_EVENT" || trigger.type === "VESTING_START_DATE") at = s.fired.get(nextId);
      else throw new Error(`security ${s.id}: condition ${nextId} has a ${String(trigger.type)} trigger this reader does not walk`);
      if (at === undefined) continue;
      if (at < firedAt) at = firedAt;
      if (next === undefined || at < next.at) next = { condition, at };
    }
    current = next?.condition;
    firedAt = next?.at ?? "9999-12-31";
  }
  return total;
}

function amountOf(condition: Json, issued: Decimal, vestedSoFar: Decimal): Decimal {
  if (condition.quantity !== undefined) return new Decimal(condition.quantity as string);
  const portion = condition.portion as { numerator: string; denominator: string; remainder?: boolean } | undefined;
  if (portion === undefined) return new Decimal(0);
  const base = portion.remainder === true ? issued.minus(vestedSoFar) : issued;
  return base.times(portion.numerator).dividedBy(portion.denominator);
}
