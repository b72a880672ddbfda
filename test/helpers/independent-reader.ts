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
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Decimal as DecimalJs } from "decimal.js";

/** Exact enough for any share count (a private clone: the global settings are never touched). */
export const Decimal = DecimalJs.clone({ precision: 200, toExpNeg: -9e15, toExpPos: 9e15 });
export type Decimal = InstanceType<typeof Decimal>;

export type Reading = "documents" | "same-security";

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

/** Reads `pkg` with every transaction dated on or before `asOf` (all of them when absent). */
export function readPackage(pkg: ReaderPackage, reading: Reading, asOf?: string): Reader {
  const problems: string[] = [];
  const securities = new Map<string, Security>();
  const ordered = inDateOrder(pkg);
  const terminalCount = new Map<string, number>();
  const vestingTransactions: Json[] = [];
  for (const { tx } of ordered) {
    const date = tx.date as string;
    if (asOf !== undefined && date > asOf) break;
    const type = tx.object_type as string;
    const id = tx.security_id as string;
    // Read after the others: a vesting start may precede its grant (the commencement date, OCF §7.3).
    if (type === "TX_VESTING_START" || type === "TX_VESTING_EVENT") {
      vestingTransactions.push(tx);
      continue;
    }
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
        fired: new Map(),
        outstanding: quantity,
        endedOn: undefined,
        balanceId: undefined,
      });
      continue;
    }
    const security = securities.get(id);
    if (security === undefined) {
      problems.push(`${tx.id as string}: acts on ${id}, which is not issued by ${date}`);
      continue;
    }
    if (type === "TX_STOCK_PLAN_RETURN_TO_POOL") continue; // allowed on an ended security
    if (reading === "documents" && security.endedOn !== undefined) {
      problems.push(`${tx.id as string}: ${type} on ${id}, which ended on ${security.endedOn}`);
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

  for (const tx of vestingTransactions) {
    const id = tx.security_id as string;
    const date = tx.date as string;
    const security = securities.get(id);
    if (security === undefined) problems.push(`${tx.id as string}: vests ${id}, which is never issued`);
    else if (reading === "documents" && tx.object_type === "TX_VESTING_EVENT" && security.endedOn !== undefined && date > security.endedOn) {
      problems.push(`${tx.id as string}: vests ${id} on ${date}, after it ended on ${security.endedOn}`);
    } else {
      const condition = tx.vesting_condition_id as string;
      if (!security.fired.has(condition)) security.fired.set(condition, date);
    }
  }

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

const sorted = new WeakMap<ReaderPackage, { tx: Json; index: number }[]>();

/** Date order; within a date, the order the package lists them in (computed once per package). */
function inDateOrder(pkg: ReaderPackage): { tx: Json; index: number }[] {
  let ordered = sorted.get(pkg);
  if (ordered === undefined) {
    ordered = pkg.transactions.map((tx, index) => ({ tx, index })).sort((a, b) => (a.tx.date as string).localeCompare(b.tx.date as string) || a.index - b.index);
    sorted.set(pkg, ordered);
  }
  return ordered;
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
