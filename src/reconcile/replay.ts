/**
 * Replays the transactions of an OCF package the way a reader that follows a stated convention does
 * (reference: consumer-true-ocf.md, "The readers"), and derives per grant the figures a source record
 * states. Nothing here reads ocf-sync's comments or `reason_text`: figures come from the transactions,
 * their quantities and the chains `balance_security_id` forms. The one link OCF has no field for is
 * read from the ids: a payout above target (`<security>-payout-<event key>`, mappings/README.md), an
 * issuance to the grant's holder of what a performance event paid above its target, is part of the
 * grant whose first security is `<security>` when both are issuances of one kind to one stakeholder.
 * Pure, exact decimals.
 *
 * Readings:
 * - `"documents"` (OCF TraversingTransactions): cancellation, repurchase, transfer, conversion,
 *   exercise, reissuance and retraction end the security they act on; what survives is the issuance
 *   their `balance_security_id` names, and the grant's later figures are that security's. A release
 *   takes units off its security without ending it (OCF 1.2.0 gives it no balance). Anything but a
 *   return to pool acting on an ended security, a second terminal transaction, or a remainder left on
 *   no security is a lineage problem (`problems`).
 * - `"same-security"` (OCF #531): outstanding = issued − released − cancelled on one id; a transaction
 *   that names a balance security moves what is left there (as validate's ledger reads it).
 *
 * A grant is a chain of securities from its first issuance (an issuance no transaction names as a
 * balance), and the chain of each of its payouts. Its figures: issued (the first issuances'
 * quantities), released, net settled (what its releases issued to the grant's holder) and sold to
 * cover (what they issued to anyone else), canceled and returned to pool (over the chains), returned
 * to treasury (canceled − returned to pool), outstanding (of their live securities). Vesting: each
 * security's `vestings`, else its VestingTerms walked with its TX_VESTING_* transactions, else fully
 * vested at issuance; over a chain, what vests on the first security, plus what vests on each balance
 * security after its issuance (its vesting on its issue date carries over what had vested, so it is
 * not counted again). A `vestings` list is read as it stands: a tranche left on a security after it
 * ended still counts, as it does for any reader.
 */
import { compareIso, isCalendarDate, type CalendarDate } from "../dates.js";
import { Dec, formatDecimal, plainNumeric, type DecimalString } from "../decimal.js";
import { OCF_NUMERIC_PATTERN } from "../ocf/schemas.js";
import { canonicalObjectType, declaredLineage, ledgerEntryOf, sameDayRank, TERMINAL_TYPES, type Lineage } from "../ocf/security-ledger.js";
import { payoutOwnerOf } from "../mapping/payout.js";
import { isRecord, stringAt, type JsonRecord, type PackageObjects } from "./package-objects.js";
import { mergeTranches } from "./tranches.js";
import { allocate, relativeDates, type WalkedTranche } from "./vesting-terms.js";
import type { Figures, Tranche } from "./types.js";

/** How a package's partial cancellations are read; see the module comment. */
/** The reading a package declares in its manifest comments (`Lineage: documents|same-security`), if any. */
export function packageLineage(pkg: Pick<PackageObjects, "manifestComments">): Lineage | undefined {
  return declaredLineage({ comments: pkg.manifestComments ?? [] });
}

/**
 * One grant of a package, replayed: its chain of securities from its first issuance.
 *
 * @category Reconcile
 */
export interface ReplayedSecurity {
  /** The first issuance's security id. */
  securityId: string;
  /** The first issuance. */
  issuance: JsonRecord;
  /** `TX_STOCK_ISSUANCE`, `TX_EQUITY_COMPENSATION_ISSUANCE`, … */
  issuanceType: string;
  /** The security ids of the chain, first to live. */
  chain: string[];
  /** The security ids of the chains of its payouts above target, each first to live (see the module comment). */
  payouts: string[];
  /** Every figure except `vested` (which depends on a date: see `tranches`). */
  figures: Figures;
  /** What vests when over the chain (see the module comment). */
  tranches: Tranche[];
  /** Securities issued by the releases of the chain and its payouts (a unit's delivered and sold shares). */
  resultingSecurityIds: string[];
}

/**
 * A replayed package.
 *
 * @category Reconcile
 */
export interface ReplayedPackage {
  reading: Lineage;
  /** Grants by the security id of their first issuance, in package order (a payout above target is part of its grant's). */
  securities: Map<string, ReplayedSecurity>;
  /** Lineage problems under the reading (an act on an ended security, a balance that does not add up, …). */
  problems: string[];
  /** Outstanding shares (stock issuances) and units (equity compensation) per stakeholder id. */
  holdings: Map<string, { shares: DecimalString; units: DecimalString }>;
  /** What could not be replayed, in words. */
  notes: string[];
}

const ISSUANCES: ReadonlySet<string> = new Set(["TX_STOCK_ISSUANCE", "TX_EQUITY_COMPENSATION_ISSUANCE", "TX_WARRANT_ISSUANCE", "TX_CONVERTIBLE_ISSUANCE"]);
const CANCELLATIONS: ReadonlySet<string> = new Set(["TX_STOCK_CANCELLATION", "TX_EQUITY_COMPENSATION_CANCELLATION", "TX_WARRANT_CANCELLATION", "TX_CONVERTIBLE_CANCELLATION"]);
const VESTING: ReadonlySet<string> = new Set(["TX_VESTING_START", "TX_VESTING_EVENT"]);
/**
 * Kinds that change no figure a reconciliation computes (quantities, vesting, holdings): acceptances,
 * pool and authorized-share adjustments, repricings, conversion-ratio adjustments.
 */
const INERT: ReadonlySet<string> = new Set([
  "TX_STOCK_ACCEPTANCE",
  "TX_EQUITY_COMPENSATION_ACCEPTANCE",
  "TX_WARRANT_ACCEPTANCE",
  "TX_CONVERTIBLE_ACCEPTANCE",
  "TX_STOCK_PLAN_POOL_ADJUSTMENT",
  "TX_STOCK_CLASS_AUTHORIZED_SHARES_ADJUSTMENT",
  "TX_ISSUER_AUTHORIZED_SHARES_ADJUSTMENT",
  "TX_STOCK_CLASS_CONVERSION_RATIO_ADJUSTMENT",
  "TX_EQUITY_COMPENSATION_REPRICING",
]);
/** What a kind that changes figures, and that the replay does not model, would change. */
const UNMODELLED_EFFECT: Readonly<Record<string, string>> = {
  TX_STOCK_CLASS_SPLIT: "the share counts of its stock class",
  TX_STOCK_CONSOLIDATION: "the securities it consolidates",
  TX_VESTING_ACCELERATION: "the vested figures of its security (OCF does not say which tranches it pulls forward, OCF #538)",
};

/** One zero for every security's state (a `Dec` is never changed in place): a package of many securities holds one, not three each. */
const ZERO = new Dec(0);

/** One security's state while replaying. */
interface SecurityState {
  id: string;
  issuance: JsonRecord;
  stakeholderId: string | undefined;
  quantity: Dec;
  issuedOn: CalendarDate | undefined;
  outstanding: Dec;
  endedOn: CalendarDate | undefined;
  balanceId: string | undefined;
  released: Dec;
  canceled: Dec;
  returnedToPool: Dec;
  resulting: string[];
  vestingTransactions: JsonRecord[];
  terminals: number;
}

/**
 * Replays every grant of `pkg` under `reading` (default: what the package declares, else the
 * documents). Malformed values (not OCF Numeric, not a date) count as absent.
 *
 * @category Reconcile
 */
export function replayPackage(pkg: PackageObjects, reading: Lineage = packageLineage(pkg) ?? "documents"): ReplayedPackage {
  const replay = new GrantReplay(pkg, reading);
  const securities = new Map<string, ReplayedSecurity>();
  for (const id of replay.roots) securities.set(id, replay.grant(id) as ReplayedSecurity);
  return { reading, securities, problems: [...replay.problems], holdings: replay.holdings(), notes: replay.notes() };
}

/**
 * `replayPackage` one grant at a time: the package's transactions are replayed once, and a grant's
 * figures and tranches are derived when asked for (`grant`) and not kept, so a reconciliation of a
 * large package holds one grant's tranches at a time rather than every grant's. The same figures,
 * problems, holdings and notes as `replayPackage`, which is built on it.
 */
export class GrantReplay {
  /** Lineage problems under the reading. */
  readonly problems: readonly string[];
  /** The first security of each grant (an issuance no transaction names as a balance, and no payout above target), in package order. */
  readonly roots: readonly string[];
  readonly #states: ReadonlyMap<string, SecurityState>;
  readonly #terms = new Map<string, JsonRecord>();
  /** Notes of the transactions, then of each grant once derived (by root). */
  readonly #notes: readonly string[];
  readonly #grantNotes = new Map<string, string[]>();
  readonly #rootSet: ReadonlySet<string>;
  /** The payouts above target of each grant that has any, by its first security. */
  readonly #payouts: ReadonlyMap<string, readonly SecurityState[]>;

  constructor(pkg: PackageObjects, reading: Lineage) {
    const { states, balances, problems, notes } = replayTransactions(pkg.transactions, reading);
    this.#states = states;
    this.problems = problems;
    this.#notes = notes;
    for (const t of pkg.vestingTerms) {
      const id = stringAt(t, "id");
      if (id !== undefined && !this.#terms.has(id)) this.#terms.set(id, t);
    }
    // A balance security is part of another grant's chain, a payout part of its grant.
    const firsts = [...states.keys()].filter((id) => !balances.has(id));
    this.#payouts = payoutsOf(firsts, states);
    const payouts = new Set([...this.#payouts.values()].flat().map((s) => s.id));
    this.roots = payouts.size === 0 ? firsts : firsts.filter((id) => !payouts.has(id));
    this.#rootSet = new Set(this.roots);
  }

  /** The grant whose first security is `id`; undefined when `id` is no grant's first security. */
  grant(id: string): ReplayedSecurity | undefined {
    const root = this.#states.get(id);
    if (root === undefined || !this.#isRoot(id)) return undefined;
    const notes: string[] = [];
    const grant = replayGrant(root, this.#payouts.get(id) ?? [], this.#states, this.#terms, notes);
    if (!this.#grantNotes.has(id)) this.#grantNotes.set(id, notes);
    return grant;
  }

  /** The first issuance of the grant whose first security is `id`. */
  issuance(id: string): JsonRecord | undefined {
    return this.#isRoot(id) ? this.#states.get(id)?.issuance : undefined;
  }

  /** Outstanding shares and units per stakeholder id, after every transaction. */
  holdings(): ReplayedPackage["holdings"] {
    return holdingsOf(this.#states);
  }

  /** What could not be replayed: the transactions' notes, then each grant's in package order (every grant derived for it). */
  notes(): string[] {
    const notes = [...this.#notes];
    for (const id of this.roots) {
      if (!this.#grantNotes.has(id)) this.grant(id);
      notes.push(...(this.#grantNotes.get(id) ?? []));
    }
    return notes;
  }

  #isRoot(id: string): boolean {
    return this.#rootSet.has(id);
  }
}

/**
 * Outstanding shares and units per stakeholder id as of `asOf`: the package's transactions dated on or
 * before it replayed under `reading` (as `replayPackage` replays them all), without the grants' figures.
 */
export function holdingsAsOf(pkg: PackageObjects, asOf: CalendarDate, reading: Lineage): ReplayedPackage["holdings"] {
  return holdingsOf(replayTransactions(pkg.transactions.filter((tx) => (stringAt(tx, "date") ?? "") <= asOf), reading).states);
}

/** Outstanding shares (stock issuances) and units (equity compensation) per stakeholder id. */
function holdingsOf(states: ReadonlyMap<string, SecurityState>): ReplayedPackage["holdings"] {
  const holdings = new Map<string, { shares: Dec; units: Dec }>();
  for (const state of states.values()) {
    const type = typeOf(state.issuance);
    if (state.stakeholderId === undefined || (type !== "TX_STOCK_ISSUANCE" && type !== "TX_EQUITY_COMPENSATION_ISSUANCE")) continue;
    const held = holdings.get(state.stakeholderId) ?? { shares: new Dec(0), units: new Dec(0) };
    if (type === "TX_STOCK_ISSUANCE") held.shares = held.shares.plus(state.outstanding);
    else held.units = held.units.plus(state.outstanding);
    holdings.set(state.stakeholderId, held);
  }
  return new Map([...holdings].map(([id, h]) => [id, { shares: formatDecimal(h.shares), units: formatDecimal(h.units) }]));
}

/** Every security's state after `transactions` under `reading`, with the lineage problems and notes. */
function replayTransactions(
  transactions: readonly JsonRecord[],
  reading: Lineage,
): { states: Map<string, SecurityState>; balances: Set<string>; problems: string[]; notes: string[] } {
  const notes: string[] = [];
  const problems: string[] = [];
  const states = new Map<string, SecurityState>();
  const balances = new Set<string>();
  for (const tx of transactions) {
    const type = typeOf(tx);
    const security = stringAt(tx, "security_id");
    if (security !== undefined && ISSUANCES.has(type) && !states.has(security)) {
      const quantity = decimalAt(tx, "quantity") ?? ZERO;
      states.set(security, {
        id: security,
        issuance: tx,
        stakeholderId: stringAt(tx, "stakeholder_id"),
        quantity,
        issuedOn: dateAt(tx, "date"),
        outstanding: quantity,
        endedOn: undefined,
        balanceId: undefined,
        released: ZERO,
        canceled: ZERO,
        returnedToPool: ZERO,
        resulting: [],
        vestingTransactions: [],
        terminals: 0,
      });
    }
    const balance = stringAt(tx, "balance_security_id");
    if (balance !== undefined && balance !== security) balances.add(balance);
  }
  // Date, then kind (a release before a cancellation on its day, a return to pool last: the order
  // validate's ledger takes), then package order; never the order of the files alone.
  const acting = transactions
    .map((tx, index) => ({ tx, index, type: typeOf(tx), date: dateAt(tx, "date") ?? "" }))
    .filter(({ type }) => !ISSUANCES.has(type))
    .sort((a, b) => compareIso(a.date, b.date) || sameDayRank(a.type) - sameDayRank(b.type) || a.index - b.index);
  notes.push(...unmodelledNotes(acting));
  for (const { tx, type, date } of acting) {
    const id = stringAt(tx, "id") ?? "(no id)";
    const security = states.get(stringAt(tx, "security_id") ?? "");
    if (security === undefined) continue; // a dangling reference is validate's to report
    if (VESTING.has(type)) {
      // A vesting start may precede the grant (the commencement date); milestones after the end are problems.
      if (reading === "documents" && type === "TX_VESTING_EVENT" && security.endedOn !== undefined && date > security.endedOn) {
        problems.push(`${id}: vests ${security.id} on ${date}, after it ended on ${security.endedOn}`);
      }
      security.vestingTransactions.push(tx);
      continue;
    }
    const quantity = quantityOf(tx);
    if (type === "TX_STOCK_PLAN_RETURN_TO_POOL") {
      security.returnedToPool = security.returnedToPool.plus(quantity ?? 0);
      continue;
    }
    if (reading === "documents" && security.endedOn !== undefined) {
      problems.push(
        TERMINAL_TYPES.has(type)
          ? `${id}: a second terminal transaction (${type}) on ${security.id}, which ended on ${security.endedOn}`
          : `${id}: ${type} on ${security.id}, which ended on ${security.endedOn}`,
      );
    }
    if (type === "TX_EQUITY_COMPENSATION_RELEASE") {
      security.released = security.released.plus(quantity ?? 0);
      security.outstanding = security.outstanding.minus(quantity ?? 0);
      const named = tx.resulting_security_ids;
      if (Array.isArray(named)) for (const r of named) if (typeof r === "string" && !security.resulting.includes(r)) security.resulting.push(r);
      continue;
    }
    if (!TERMINAL_TYPES.has(type)) continue; // an acceptance takes nothing
    if (CANCELLATIONS.has(type)) security.canceled = security.canceled.plus(quantity ?? 0);
    security.terminals += 1;
    const before = security.outstanding;
    // A retraction takes what is left; a transaction with a quantity takes that much.
    const remainder = quantity === undefined ? new Dec(0) : before.minus(quantity);
    if (remainder.isNegative()) problems.push(`${id}: takes ${formatDecimal(quantity ?? new Dec(0))} of ${security.id}, which holds ${formatDecimal(before)}`);
    const balanceId = stringAt(tx, "balance_security_id");
    if (reading === "same-security" && balanceId === undefined) {
      security.outstanding = Dec.max(remainder, 0);
      if (security.outstanding.isZero() && security.endedOn === undefined) security.endedOn = date;
      continue;
    }
    // The documents; and in either reading a named balance security, which takes what is left (as
    // validate's ledger reads it): counted there, not on this security too.
    security.outstanding = ZERO;
    security.endedOn ??= date;
    security.balanceId ??= balanceId;
    if (balanceId === undefined) {
      if (remainder.gt(0)) problems.push(`${id}: leaves ${formatDecimal(remainder)} of ${security.id} on no security (it names no balance_security_id)`);
      continue;
    }
    const balance = states.get(balanceId);
    if (balance === undefined) problems.push(`${id}: its balance_security_id ${JSON.stringify(balanceId)} is no issuance of the package`);
    else if (!balance.quantity.equals(Dec.max(remainder, 0))) {
      problems.push(`${id}: its balance ${balanceId} holds ${formatDecimal(balance.quantity)}, not the ${formatDecimal(Dec.max(remainder, 0))} it leaves of ${security.id}`);
    }
  }

  return { states, balances, problems, notes };
}

/**
 * The payouts above target among the first securities of chains (see the module comment), by the
 * first security of their grant, in package order. A payout's grant is the longest prefix of its id
 * that is the first security of an issuance of the same kind to the same stakeholder, and no payout
 * itself (the shortest such prefix never is one).
 */
function payoutsOf(firsts: readonly string[], states: ReadonlyMap<string, SecurityState>): Map<string, SecurityState[]> {
  const byGrant = new Map<string, SecurityState[]>();
  const first = new Set(firsts);
  const ownerOf = (payout: SecurityState, payouts: ReadonlySet<string>): string | undefined =>
    payoutOwnerOf(payout.id, (id) => {
      const owner = states.get(id);
      if (owner === undefined || !first.has(id) || payouts.has(id)) return false;
      return owner.stakeholderId !== undefined && owner.stakeholderId === payout.stakeholderId && typeOf(owner.issuance) === typeOf(payout.issuance);
    });
  const none: ReadonlySet<string> = new Set();
  const payouts = firsts.map((id) => states.get(id) as SecurityState).filter((s) => ownerOf(s, none) !== undefined);
  const ids = new Set(payouts.map((s) => s.id));
  for (const payout of payouts) {
    const owner = ownerOf(payout, ids) as string;
    const list = byGrant.get(owner);
    if (list === undefined) byGrant.set(owner, [payout]);
    else list.push(payout);
  }
  return byGrant;
}

/** The chain of securities from `first`, first to live, leaving out those `seen` (then adding its own). */
function chainFrom(first: SecurityState, states: ReadonlyMap<string, SecurityState>, seen: Set<SecurityState>): SecurityState[] {
  const chain: SecurityState[] = [];
  for (let at: SecurityState | undefined = first; at !== undefined && !seen.has(at); ) {
    seen.add(at);
    chain.push(at);
    at = at.balanceId !== undefined ? states.get(at.balanceId) : undefined;
  }
  return chain;
}

function replayGrant(root: SecurityState, payouts: readonly SecurityState[], states: ReadonlyMap<string, SecurityState>, terms: ReadonlyMap<string, JsonRecord>, notes: string[]): ReplayedSecurity {
  const seen = new Set<SecurityState>();
  const chain = chainFrom(root, states, seen);
  const payoutChains = payouts.map((p) => chainFrom(p, states, seen)).filter((c) => c.length > 0);
  let issued = new Dec(0);
  let outstanding = new Dec(0);
  let released = new Dec(0);
  let canceled = new Dec(0);
  let returnedToPool = new Dec(0);
  let netSettled = new Dec(0);
  let sold = new Dec(0);
  const resulting: string[] = [];
  const tranches: { date: CalendarDate; amount: Dec | DecimalString }[] = [];
  for (const securities of [chain, ...payoutChains]) {
    issued = issued.plus((securities[0] as SecurityState).quantity);
    outstanding = outstanding.plus((securities.at(-1) as SecurityState).outstanding);
    securities.forEach((s, k) => {
      released = released.plus(s.released);
      canceled = canceled.plus(s.canceled);
      returnedToPool = returnedToPool.plus(s.returnedToPool);
      for (const id of s.resulting) {
        if (resulting.includes(id)) continue;
        resulting.push(id);
        const delivered = states.get(id);
        if (delivered === undefined) continue;
        if (delivered.stakeholderId === root.stakeholderId) netSettled = netSettled.plus(delivered.quantity);
        else sold = sold.plus(delivered.quantity);
      }
      // The chain's vesting: the first security's, and each balance's after its issuance (what it
      // vests on its issue date is carried over). Lists are read as they stand, never cut at an end.
      for (const t of scheduleOf(s, terms, notes)) {
        if (k > 0 && s.issuedOn !== undefined && compareIso(t.date, s.issuedOn) <= 0) continue;
        tranches.push(t);
      }
    });
  }
  const figures: Figures = {
    issued: formatDecimal(issued),
    released: formatDecimal(released),
    netSettled: formatDecimal(netSettled),
    soldToCover: formatDecimal(sold),
    canceled: formatDecimal(canceled),
    returnedToPool: formatDecimal(returnedToPool),
    returnedToTreasury: formatDecimal(canceled.minus(returnedToPool)),
    outstanding: formatDecimal(outstanding),
  };
  return {
    securityId: root.id,
    issuance: root.issuance,
    issuanceType: typeOf(root.issuance),
    chain: chain.map((s) => s.id),
    payouts: payoutChains.flat().map((s) => s.id),
    figures,
    tranches: mergeTranches(tranches),
    resultingSecurityIds: resulting,
  };
}

/** One security's vesting as dated amounts: `vestings`, else its VestingTerms, else everything at issuance. */
function scheduleOf(s: SecurityState, terms: ReadonlyMap<string, JsonRecord>, notes: string[]): { date: CalendarDate; amount: Dec | DecimalString }[] {
  const vestings = s.issuance.vestings;
  if (Array.isArray(vestings) && vestings.length > 0) {
    const out: { date: CalendarDate; amount: DecimalString }[] = [];
    for (const v of vestings as unknown[]) {
      if (!isRecord(v)) continue;
      const date = dateAt(v, "date");
      const amount = numericAt(v, "amount");
      if (date !== undefined && amount !== undefined) out.push({ date, amount });
    }
    return out;
  }
  const termsId = stringAt(s.issuance, "vesting_terms_id");
  if (termsId === undefined) return s.issuedOn === undefined ? [] : [{ date: s.issuedOn, amount: s.quantity }];
  const found = terms.get(termsId);
  if (found === undefined) {
    notes.push(`security ${JSON.stringify(s.id)}: its vesting terms ${JSON.stringify(termsId)} are not in the package; nothing of it is counted as vested`);
    return [];
  }
  return walkTerms(s, found, notes);
}

/**
 * A VestingTerms graph walked from the condition its TX_VESTING_START names: a condition fires on its
 * trigger (an absolute date, the date of the TX_VESTING_EVENT naming it, or `occurrences` times a period
 * after the condition a relative trigger names), never before the condition it follows; among several
 * next conditions the first to fire is taken (OCF: one path only). Each firing vests the condition's
 * `quantity`, else its `portion` of the issued quantity (`remainder`: what is left), portions rounded to
 * whole shares as the terms' `allocation_type` says (`vesting-terms.ts`). A trigger it cannot read is
 * named in `notes`.
 */
function walkTerms(s: SecurityState, terms: JsonRecord, notes: string[]): { date: CalendarDate; amount: Dec }[] {
  const conditions = new Map<string, JsonRecord>();
  for (const c of Array.isArray(terms.vesting_conditions) ? terms.vesting_conditions.filter(isRecord) : []) {
    const id = stringAt(c, "id");
    if (id !== undefined && !conditions.has(id)) conditions.set(id, c);
  }
  const firedOn = new Map<string, CalendarDate>();
  for (const tx of s.vestingTransactions) {
    const condition = stringAt(tx, "vesting_condition_id");
    const date = dateAt(tx, "date");
    if (condition === undefined || date === undefined) continue;
    const earlier = firedOn.get(condition);
    if (earlier === undefined || compareIso(date, earlier) < 0) firedOn.set(condition, date);
  }
  const start = [...firedOn.keys()].find((id) => {
    const trigger = conditions.get(id)?.trigger;
    return isRecord(trigger) && trigger.type === "VESTING_START_DATE";
  });
  const out: WalkedTranche[] = [];
  if (start === undefined) {
    notes.push(
      `security ${JSON.stringify(s.id)}: no TX_VESTING_START names a VESTING_START_DATE condition of its vesting terms ${JSON.stringify(stringAt(terms, "id") ?? "")}, so its vesting never starts; nothing of it is counted as vested`,
    );
    return out;
  }
  const vestingStart = firedOn.get(start) as CalendarDate;
  /** The date each walked condition last fired, for the relative triggers after it. */
  const walked = new Map<string, CalendarDate>();
  let vested = new Dec(0);
  let current: { condition: JsonRecord; dates: CalendarDate[] } | undefined = { condition: conditions.get(start) as JsonRecord, dates: [vestingStart] };
  while (current !== undefined && !walked.has(stringAt(current.condition, "id") ?? "")) {
    const { condition, dates } = current;
    for (const date of dates) {
      const amount = conditionAmount(condition, s.quantity, vested);
      if (amount === undefined || amount.isZero()) continue;
      out.push({ date, amount, portion: decimalAt(condition, "quantity") === undefined });
      vested = vested.plus(amount);
    }
    const at = dates.at(-1) as CalendarDate;
    walked.set(stringAt(condition, "id") ?? "", at);
    let next: { condition: JsonRecord; dates: CalendarDate[] } | undefined;
    const nextIds = Array.isArray(condition.next_condition_ids) ? condition.next_condition_ids : [];
    for (const nextId of nextIds) {
      if (typeof nextId !== "string") continue;
      const candidate = conditions.get(nextId);
      if (candidate === undefined) continue;
      const trigger = isRecord(candidate.trigger) ? candidate.trigger : {};
      const type = stringAt(trigger, "type");
      let fires: CalendarDate[] | undefined;
      if (type === "VESTING_SCHEDULE_ABSOLUTE" || type === "VESTING_EVENT" || type === "VESTING_START_DATE") {
        const date = type === "VESTING_SCHEDULE_ABSOLUTE" ? dateAt(trigger, "date") : firedOn.get(nextId);
        if (date === undefined) continue;
        fires = [compareIso(date, at) < 0 ? at : date];
      } else if (type === "VESTING_SCHEDULE_RELATIVE") {
        const relativeTo = stringAt(trigger, "relative_to_condition_id");
        const base = relativeTo === undefined ? undefined : walked.get(relativeTo);
        const period = isRecord(trigger.period) ? trigger.period : undefined;
        fires = base === undefined || period === undefined ? undefined : relativeDates(period, base, vestingStart)?.map((d) => (compareIso(d, at) < 0 ? at : d));
        if (fires === undefined) {
          notes.push(
            `security ${JSON.stringify(s.id)}: vesting condition ${JSON.stringify(nextId)} is relative to ${JSON.stringify(relativeTo ?? null)}, ` +
              `${base === undefined ? "a condition not walked before it" : "with a period reconcile cannot read"}; nothing from it on is counted as vested`,
          );
          continue;
        }
      } else {
        notes.push(`security ${JSON.stringify(s.id)}: vesting condition ${JSON.stringify(nextId)} has a ${String(type)} trigger, which reconcile does not replay`);
        continue;
      }
      if (next === undefined || compareIso(fires[0] as CalendarDate, next.dates[0] as CalendarDate) < 0) next = { condition: candidate, dates: fires };
    }
    current = next;
  }
  return allocate(out, terms.allocation_type).map(({ date, amount }) => ({ date, amount }));
}

/** A condition's `quantity`, else its `portion` of the issued quantity (or of what is left, for `remainder`). */
function conditionAmount(condition: JsonRecord, issued: Dec, vestedSoFar: Dec): Dec | undefined {
  const quantity = decimalAt(condition, "quantity");
  if (quantity !== undefined) return quantity;
  const portion = isRecord(condition.portion) ? condition.portion : undefined;
  if (portion === undefined) return undefined;
  const numerator = decimalAt(portion, "numerator");
  const denominator = decimalAt(portion, "denominator");
  if (numerator === undefined || denominator === undefined || denominator.isZero()) return undefined;
  // Dec has 200 significant digits: a portion such as 1/3 of a share count is exact far beyond any
  // figure it is compared with, and the comparison reports what remains.
  const base = portion.remainder === true ? issued.minus(vestedSoFar) : issued;
  return base.times(numerator).dividedBy(denominator);
}

/**
 * One note per kind the replay neither models nor knows to be without effect on its figures (a split,
 * an acceleration, a kind it does not know): those figures are computed as if it were not there.
 */
function unmodelledNotes(transactions: readonly { tx: JsonRecord; type: string }[]): string[] {
  const byKind = new Map<string, string[]>();
  for (const { tx, type } of transactions) {
    if (VESTING.has(type) || INERT.has(type) || TERMINAL_TYPES.has(type) || type === "TX_EQUITY_COMPENSATION_RELEASE" || type === "TX_STOCK_PLAN_RETURN_TO_POOL") continue;
    const ids = byKind.get(type) ?? [];
    ids.push(stringAt(tx, "id") ?? "(no id)");
    byKind.set(type, ids);
  }
  return [...byKind].map(([type, ids]) => {
    const shown = ids.slice(0, 3).map((id) => JSON.stringify(id)).join(", ") + (ids.length > 3 ? `, and ${ids.length - 3} more` : "");
    const what = UNMODELLED_EFFECT[type] ?? "every figure it would change";
    return `${ids.length} ${type === "" ? "transaction(s) with no object_type" : `${type} transaction(s)`} (${shown}): reconcile does not model this kind and computes ${what} without it`;
  });
}

/** The current spelling of a transaction's kind (legacy `TX_PLAN_SECURITY_*` names mapped), or `""`. */
function typeOf(tx: JsonRecord): string {
  const type = stringAt(tx, "object_type");
  return type === undefined ? "" : canonicalObjectType(type);
}

/** What a transaction takes of its security (`quantity`, `quantity_converted` for a stock conversion), read as validate reads it. */
function quantityOf(tx: JsonRecord): Dec | undefined {
  const { quantity } = ledgerEntryOf(tx);
  return quantity === undefined ? undefined : new Dec(quantity);
}

function decimalAt(value: JsonRecord, key: string): Dec | undefined {
  const found = numericAt(value, key);
  return found === undefined ? undefined : new Dec(found);
}

/** The OCF Numeric at `key` in plain form (no `+`, no leading zeros: `plainNumeric`), if it is one. */
function numericAt(value: JsonRecord, key: string): DecimalString | undefined {
  const found = value[key];
  return typeof found === "string" && OCF_NUMERIC_PATTERN.test(found) ? plainNumeric(found) : undefined;
}

function dateAt(value: JsonRecord, key: string): CalendarDate | undefined {
  const found = value[key];
  return typeof found === "string" && isCalendarDate(found) ? found : undefined;
}
