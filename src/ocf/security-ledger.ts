/**
 * The lineage of securities: what the transactions on one `security_id` may do, in time and quantity,
 * under the two readings an OCF 1.2.0 package can follow. One module for every caller: `validate`
 * streams a package through `SecurityChain`, and `checkLineage` runs the same rules on a list of
 * transactions in memory (for example one grant's, before it goes into a package).
 *
 * **Documents** (OCF `TraversingTransactions.md`, ocf-1.2.0.md §9; consumer-true-ocf.md, reader 1):
 * cancellation, repurchase, transfer, conversion, exercise, reissuance and retraction *end* the
 * security they act on. What is outstanding before such a transaction is the issued quantity less
 * the releases before it (OCF 1.2.0 gives `TX_EQUITY_COMPENSATION_RELEASE` no `balance_security_id`,
 * so a release keeps the unreleased units on its security); a remainder must live on a new issuance
 * named by `balance_security_id`, of exactly that quantity. After the end nothing may act on the
 * security but a `TX_STOCK_PLAN_RETURN_TO_POOL` (the documented exception).
 *
 * **Same security** (OCF #531; reader 2): outstanding = issued − Σ releases − Σ cancellations,
 * repurchases, transfers on the one id; several partial cancellations are fine. The security ends
 * when nothing is outstanding, at a retraction, or when a transaction names a balance security.
 *
 * Either way the transactions of a security are taken in the order date, kind, position (the
 * project's canonical kind order, `TRANSACTION_KIND_ORDER`: issuance, acceptance, vesting start,
 * vesting event, release, cancellation, return to pool), so that a package's file order does not
 * matter. That order is the project's, not OCF's: OCF 1.2.0 orders by date only, and readers take a
 * day in file order, by type (OCF-Tools) or otherwise (consumer-true-ocf.md, "Order within a day"). So
 * nothing may act on a security that another transaction of the same day ends (`SAME_DAY_ORDER`; a
 * return to pool excepted): by the documents, a terminal transaction; on the same security, a
 * retraction or a move to a balance security (an end by consumption comes out the same in every order).
 * A release that takes more than the security's `vestings` have vested by its date is reported
 * (`RELEASED_BEFORE_VESTED`), as a warning: the source settled units before they vested, which is odd
 * but valid OCF. Quantities are exact decimals. Every finding names the
 * transaction and the field.
 */
import { compareDecimalStrings, isPositiveDecimal, normalizeSourceDecimal, plainNumeric, sumDecimalStrings, type DecimalString } from "../decimal.js";
import { dayNumber, isCalendarDate, type CalendarDate } from "../dates.js";
import { describeValue } from "../errors.js";
import { TRANSACTION_KIND_ORDER } from "./order.js";
import { LEGACY_OBJECT_TYPES, OCF_NUMERIC_PATTERN } from "./schemas.js";

/** An OCF object as parsed JSON. */
type OcfJson = Readonly<Record<string, unknown>>;

/**
 * The two readings of a package's lineage (the two conventions a package may be written in).
 *
 * @category OCF
 */
export const LINEAGE_READINGS = ["documents", "same-security"] as const;
/**
 * How a package carries what survives a partial cancellation, and so how a reader reads it:
 * `"documents"` (OCF TraversingTransactions: a balance security issued for what remains) or
 * `"same-security"` (OCF #531: what remains stays on the grant's own security).
 *
 * @category Mapping
 */
export type Lineage = (typeof LINEAGE_READINGS)[number];

/** The prefix of the `Manifest.comments` line that declares a package's lineage. */
export const LINEAGE_COMMENT_PREFIX = "Lineage: ";

/** `Lineage: documents` or `Lineage: same-security`, alone or followed by anything but a word character or hyphen. */
const DECLARATION = /^Lineage: (documents|same-security)(?![A-Za-z0-9_-])/;

/**
 * The reading a manifest declares: the first `comments` line that starts with `Lineage: documents`
 * or `Lineage: same-security`; `undefined` when there is none (readers then take the documents).
 *
 * @category OCF
 */
export function declaredLineage(manifest: Readonly<Record<string, unknown>>): Lineage | undefined {
  const comments = manifest.comments;
  if (!Array.isArray(comments)) return undefined;
  for (const line of comments) {
    const match = typeof line === "string" ? DECLARATION.exec(line) : null;
    if (match !== null) return match[1] as Lineage;
  }
  return undefined;
}

/**
 * The findings of the ledger, with what each means. Codes are stable. Each is a problem (the
 * transactions do not read consistently) except `RELEASED_BEFORE_VESTED`, a warning.
 *
 * @category OCF
 */
export const LEDGER_PROBLEM_CODES = {
  NEGATIVE_QUANTITY: "a quantity is negative",
  VESTING_AMOUNT_NOT_POSITIVE: "a vesting tranche vests zero or a negative amount",
  VESTING_SUM: "the vesting tranches of an issuance add up to more than its quantity",
  WRONG_SECURITY_KIND: "a stock transaction acts on an equity compensation security or the other way round",
  BEFORE_ISSUANCE: "a transaction is dated before the issuance of its security (a vesting start may be: vesting can commence before the grant)",
  OVER_CONSUMED:
    "a transaction takes more of a security than is outstanding (documents reading), or its releases, cancellations, repurchases and transfers add up to more than was issued (same-security reading)",
  AFTER_TERMINAL: "a transaction acts on a security after it ended (cancelled, fully consumed, retracted, or moved to a balance security); only a return to pool may",
  SECOND_TERMINAL: "two terminal transactions (cancellation, repurchase, transfer, retraction, …) on one security: the first one ended it (documents reading)",
  BALANCE_MISSING: "a partial cancellation (or repurchase, transfer, …) leaves shares outstanding but names no balance_security_id (documents reading)",
  BALANCE_MISMATCH: "a cancellation's quantity plus its balance security's quantity differs from what was outstanding",
  BALANCE_IS_SELF: "a transaction names its own security as its balance security",
  RETURN_TO_POOL_EXCEEDS: "more of a security is returned to the pool than was cancelled or repurchased",
  DANGLING_REFERENCE: "a transaction names a security no issuance creates",
  SAME_DAY_ORDER:
    "a transaction acts on a security that another transaction of the same day ends (a cancellation, …; same-security reading: a retraction or a move to a balance security): OCF 1.2.0 does not order a day's transactions, so some reader sees it act on an ended security; only a return to pool may",
  RELEASED_BEFORE_VESTED:
    "a warning (the package stays valid): a release brings what is released of a security to more than its vestings have vested by the release's date, as a source that settled units before they vested does",
} as const;
/**
 * The code of a problem the ledger finds (`BALANCE_MISSING`, `OVER_CONSUMED`, …).
 *
 * @category OCF
 */
export type LedgerProblemCode = keyof typeof LEDGER_PROBLEM_CODES;

/**
 * How much a finding weighs: a `"problem"` makes the transactions inconsistent (a package with one is
 * invalid), a `"warning"` reports a data oddity in transactions that are still valid OCF.
 *
 * @category OCF
 */
export type LedgerSeverity = "problem" | "warning";

/** The codes of `LEDGER_PROBLEM_CODES` whose findings are warnings; every other code is a problem. */
export const LEDGER_WARNING_CODES: ReadonlySet<LedgerProblemCode> = new Set<LedgerProblemCode>(["RELEASED_BEFORE_VESTED"]);

/** The severity of a finding of code `code` (see `LEDGER_WARNING_CODES`). */
export function ledgerSeverity(code: string): LedgerSeverity {
  return LEDGER_WARNING_CODES.has(code as LedgerProblemCode) ? "warning" : "problem";
}

/** Transactions that create a security. Warrants and convertibles are not modelled elsewhere, but create their security_id. */
export const ISSUANCE_TYPES: ReadonlySet<string> = new Set([
  "TX_STOCK_ISSUANCE",
  "TX_EQUITY_COMPENSATION_ISSUANCE",
  "TX_WARRANT_ISSUANCE",
  "TX_CONVERTIBLE_ISSUANCE",
]);

const RELEASE = "TX_EQUITY_COMPENSATION_RELEASE";
const RETURN_TO_POOL = "TX_STOCK_PLAN_RETURN_TO_POOL";
const VESTING_START = "TX_VESTING_START";

/** Transactions that end the security they act on, read by the documents (ocf-1.2.0.md §9), with a verb for messages. */
const TERMINAL_VERB: Readonly<Record<string, string>> = {
  TX_STOCK_CANCELLATION: "cancels",
  TX_EQUITY_COMPENSATION_CANCELLATION: "cancels",
  TX_STOCK_REPURCHASE: "repurchases",
  TX_STOCK_TRANSFER: "transfers",
  TX_EQUITY_COMPENSATION_TRANSFER: "transfers",
  TX_STOCK_CONVERSION: "converts",
  TX_EQUITY_COMPENSATION_EXERCISE: "exercises",
  TX_STOCK_REISSUANCE: "reissues",
  TX_STOCK_RETRACTION: "retracts",
  TX_EQUITY_COMPENSATION_RETRACTION: "retracts",
  TX_WARRANT_CANCELLATION: "cancels",
  TX_WARRANT_EXERCISE: "exercises",
  TX_WARRANT_TRANSFER: "transfers",
  TX_WARRANT_RETRACTION: "retracts",
  TX_CONVERTIBLE_CANCELLATION: "cancels",
  TX_CONVERTIBLE_CONVERSION: "converts",
  TX_CONVERTIBLE_TRANSFER: "transfers",
  TX_CONVERTIBLE_RETRACTION: "retracts",
};

/** The kinds that end the security they act on under the documents reading (ocf-1.2.0.md §9). */
export const TERMINAL_TYPES: ReadonlySet<string> = new Set(Object.keys(TERMINAL_VERB));

/** Terminal transactions whose shares a return to pool may give back. */
const RETURNABLE: ReadonlySet<string> = new Set(["TX_STOCK_CANCELLATION", "TX_EQUITY_COMPENSATION_CANCELLATION", "TX_STOCK_REPURCHASE"]);

/** Retractions void a security outright (no quantity) in both readings. */
const RETRACTIONS: ReadonlySet<string> = new Set([
  "TX_STOCK_RETRACTION",
  "TX_EQUITY_COMPENSATION_RETRACTION",
  "TX_WARRANT_RETRACTION",
  "TX_CONVERTIBLE_RETRACTION",
]);

/** The issuance a transaction of each side needs; vesting and return to pool act on either. */
const ISSUANCE_FOR: Readonly<Record<string, string>> = {
  TX_STOCK_CANCELLATION: "TX_STOCK_ISSUANCE",
  TX_STOCK_REPURCHASE: "TX_STOCK_ISSUANCE",
  TX_STOCK_RETRACTION: "TX_STOCK_ISSUANCE",
  TX_STOCK_ACCEPTANCE: "TX_STOCK_ISSUANCE",
  TX_STOCK_TRANSFER: "TX_STOCK_ISSUANCE",
  TX_STOCK_CONVERSION: "TX_STOCK_ISSUANCE",
  TX_STOCK_REISSUANCE: "TX_STOCK_ISSUANCE",
  TX_EQUITY_COMPENSATION_CANCELLATION: "TX_EQUITY_COMPENSATION_ISSUANCE",
  TX_EQUITY_COMPENSATION_RELEASE: "TX_EQUITY_COMPENSATION_ISSUANCE",
  TX_EQUITY_COMPENSATION_RETRACTION: "TX_EQUITY_COMPENSATION_ISSUANCE",
  TX_EQUITY_COMPENSATION_ACCEPTANCE: "TX_EQUITY_COMPENSATION_ISSUANCE",
  TX_EQUITY_COMPENSATION_TRANSFER: "TX_EQUITY_COMPENSATION_ISSUANCE",
  TX_EQUITY_COMPENSATION_EXERCISE: "TX_EQUITY_COMPENSATION_ISSUANCE",
};

/** Legacy spellings the ledger knows beyond those ocf-sync models (`LEGACY_OBJECT_TYPES`). */
const MORE_LEGACY: Readonly<Record<string, string>> = { TX_PLAN_SECURITY_EXERCISE: "TX_EQUITY_COMPENSATION_EXERCISE" };

/** The kinds this module knows by name, each mapped to one shared copy of its name. */
const KNOWN_TYPES: ReadonlyMap<string, string> = new Map(
  [...ISSUANCE_TYPES, ...Object.keys(TERMINAL_VERB), ...Object.keys(ISSUANCE_FOR), ...TRANSACTION_KIND_ORDER, "TX_VESTING_ACCELERATION"].map((type) => [type, type]),
);

/**
 * The current spelling of an `object_type` (`TX_PLAN_SECURITY_CANCELLATION` →
 * `TX_EQUITY_COMPENSATION_CANCELLATION`); a kind the ledger knows comes back as one shared string,
 * not the copy a parsed file holds.
 */
export function canonicalObjectType(objectType: string): string {
  const current = (LEGACY_OBJECT_TYPES as Readonly<Record<string, string>>)[objectType] ?? MORE_LEGACY[objectType] ?? objectType;
  return KNOWN_TYPES.get(current) ?? current;
}

const KIND_RANK: ReadonlyMap<string, number> = new Map(TRANSACTION_KIND_ORDER.map((kind, rank) => [kind, rank]));
const RANK_OF_VESTING_EVENT = KIND_RANK.get("TX_VESTING_EVENT") ?? 0;
const RANK_OF_CANCELLATION = KIND_RANK.get("TX_EQUITY_COMPENSATION_CANCELLATION") ?? 0;

/**
 * The same-day rank of a transaction kind: the canonical order, with the kinds ocf-sync does not
 * write slotted beside their kin (an acceleration with vesting events, every other kind with the
 * cancellations), so that a return to pool always comes last on its day.
 */
export function sameDayRank(type: string): number {
  return KIND_RANK.get(type) ?? (type === "TX_VESTING_ACCELERATION" ? RANK_OF_VESTING_EVENT : RANK_OF_CANCELLATION);
}

/** What the ledger reads of one transaction (from its JSON, fields that are malformed left out: the schemas report them). */
export interface LedgerEntry {
  /** `object_type`, legacy spellings mapped to the current ones. */
  type: string;
  id?: string;
  securityId?: string;
  date?: CalendarDate;
  /** The transaction's quantity (`quantity_converted` for a stock conversion), when a valid OCF Numeric. */
  quantity?: DecimalString;
  /** The key the quantity is at, for problem paths. */
  quantityKey?: "quantity" | "quantity_converted";
  balanceSecurityId?: string;
}

/** Reads the fields the ledger needs from a transaction's JSON. */
export function ledgerEntryOf(value: Readonly<Record<string, unknown>>): LedgerEntry {
  const rawType = value.object_type;
  const type = typeof rawType === "string" ? canonicalObjectType(rawType) : "";
  const entry: LedgerEntry = { type };
  const { id, security_id: securityId, date, balance_security_id: balance } = value;
  if (typeof id === "string") entry.id = id;
  if (typeof securityId === "string") entry.securityId = securityId;
  if (typeof date === "string" && isCalendarDate(date)) entry.date = date;
  if (typeof balance === "string") entry.balanceSecurityId = balance;
  const quantityKey = type === "TX_STOCK_CONVERSION" ? "quantity_converted" : "quantity";
  const quantity = value[quantityKey];
  if (typeof quantity === "string" && OCF_NUMERIC_PATTERN.test(quantity)) {
    entry.quantity = plainNumeric(quantity);
    entry.quantityKey = quantityKey;
  }
  return entry;
}

/** What an issuance gives its security. */
export interface LedgerIssuance {
  readonly securityId: string;
  readonly type: string;
  readonly date?: CalendarDate | undefined;
  readonly quantity?: DecimalString | undefined;
  /** Of an equity compensation issuance with a `vestings` list: its tranches, packed by `vestingSchedule`. */
  readonly vestings?: string | undefined;
}

/**
 * The `vestings` of an equity compensation issuance (what its releases may take, and when) as one
 * short string: its valid tranches (a date, a positive OCF Numeric in plain form) in date order, each
 * `<day>[ <amount>]` joined by `;`, where the first day is a `dayNumber` (`20210101`) and each later one
 * what is added to the one before (`100` a month on), and an amount is left out when it is the one
 * before: `"20210101 250;100;100;8900 300"`. About 4 bytes a tranche, since a streaming check keeps it
 * for every grant until its releases have walked it. `undefined` for any other transaction, and for an
 * issuance without such a list (its VestingTerms are not walked here; with neither, everything is
 * vested at issuance).
 */
export function vestingSchedule(value: Readonly<Record<string, unknown>>, entry: LedgerEntry): string | undefined {
  if (entry.type !== "TX_EQUITY_COMPENSATION_ISSUANCE") return undefined;
  const vestings = value.vestings;
  if (!Array.isArray(vestings) || vestings.length === 0) return undefined;
  const tranches: { day: number; amount: DecimalString }[] = [];
  let sorted = true;
  for (const vesting of vestings as unknown[]) {
    if (typeof vesting !== "object" || vesting === null) continue;
    const { date, amount } = vesting as { date?: unknown; amount?: unknown };
    if (typeof date !== "string" || !isCalendarDate(date) || typeof amount !== "string") continue;
    const plain = isPositiveWhole(amount) ? amount : OCF_NUMERIC_PATTERN.test(amount) ? plainNumeric(amount) : undefined;
    if (plain === undefined || !isPositiveDecimal(plain)) continue;
    const day = dayNumber(date);
    if (tranches.length > 0 && day < (tranches[tranches.length - 1] as { day: number }).day) sorted = false;
    tranches.push({ day, amount: plain });
  }
  if (tranches.length === 0) return undefined;
  if (!sorted) tranches.sort((a, b) => a.day - b.day);
  let previous = { day: 0, amount: "" };
  const parts = tranches.map((t) => {
    const part = t.amount === previous.amount ? String(t.day - previous.day) : `${t.day - previous.day} ${t.amount}`;
    previous = t;
    return part;
  });
  return parts.join(";");
}

/** A problem about one object, relative to it: `path` is `".quantity"`, `".vestings[2].amount"`, … */
export interface LedgerFinding {
  code: LedgerProblemCode;
  path: string;
  message: string;
}

/**
 * A whole number above zero written plainly (`"100"`): the common case of a tranche, told by its
 * characters alone; anything else (a fraction, a sign, leading zeros) is left to `isPositiveDecimal`.
 */
function isPositiveWhole(text: string): boolean {
  const first = text.charCodeAt(0);
  // Written so that "" (NaN) is not one.
  if (!(first >= 0x31 && first <= 0x39)) return false;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

function isNegative(value: DecimalString): boolean {
  return compareDecimalStrings(value, "0") < 0;
}

function minus(a: DecimalString, b: DecimalString): DecimalString {
  return sumDecimalStrings([a, b.startsWith("-") ? b.slice(1) : `-${b}`]);
}

/** A decimal for a message: normalized (`"1500.00"` → `"1500"`). */
function shown(value: DecimalString): string {
  return normalizeSourceDecimal(value.startsWith("+") ? value.slice(1) : value);
}

/**
 * The checks of one transaction alone: a negative quantity, and for an issuance its `vestings`
 * (each tranche positive, together at most the quantity). In the order they are reported.
 */
export function objectFindings(value: Readonly<Record<string, unknown>>, entry: LedgerEntry): LedgerFinding[] {
  const findings: LedgerFinding[] = [];
  if (entry.quantity !== undefined && isNegative(entry.quantity)) {
    const key = entry.quantityKey ?? "quantity";
    findings.push({ code: "NEGATIVE_QUANTITY", path: `.${key}`, message: `is ${describeValue(value[key])}; a quantity cannot be negative` });
  }
  if (!ISSUANCE_TYPES.has(entry.type)) return findings;
  const vestings = value.vestings;
  if (!Array.isArray(vestings)) return findings;
  const amounts: DecimalString[] = [];
  for (let k = 0; k < vestings.length; k++) {
    const vesting: unknown = vestings[k];
    if (typeof vesting !== "object" || vesting === null) continue;
    const amount = (vesting as { amount?: unknown }).amount;
    if (typeof amount !== "string") continue;
    // A plain whole number above zero is an OCF Numeric and positive: no pattern to test.
    if (isPositiveWhole(amount)) {
      amounts.push(amount);
      continue;
    }
    if (!OCF_NUMERIC_PATTERN.test(amount)) continue;
    const plain = plainNumeric(amount);
    if (!isPositiveDecimal(plain)) {
      findings.push({ code: "VESTING_AMOUNT_NOT_POSITIVE", path: `.vestings[${k}].amount`, message: `is ${describeValue(amount)}; a vesting tranche must vest a positive amount` });
    } else {
      amounts.push(plain);
    }
  }
  // Whole tranches (nearly all) are added exactly by sumDecimalStrings' integer fast path.
  const total = sumDecimalStrings(amounts);
  if (entry.quantity !== undefined && compareDecimalStrings(total, entry.quantity) > 0) {
    findings.push({ code: "VESTING_SUM", path: ".vestings", message: `vest ${shown(total)} in total, more than the quantity ${shown(entry.quantity)}` });
  }
  return findings;
}

/** `WRONG_SECURITY_KIND` when a transaction cannot act on a security created by `issuanceType`. */
export function kindFinding(entry: LedgerEntry, issuanceType: string): LedgerFinding | undefined {
  const needed = ISSUANCE_FOR[entry.type];
  if (needed === undefined || needed === issuanceType) return undefined;
  return {
    code: "WRONG_SECURITY_KIND",
    path: ".security_id",
    message: `names security ${describeValue(entry.securityId ?? "?")}, created by a ${issuanceType}; a ${entry.type} acts on a security created by a ${needed}`,
  };
}

/** Where the chain of a security reports to. */
export interface ChainSink {
  /** A problem of the transaction just applied. */
  problem(finding: LedgerFinding): void;
  /**
   * The transaction just applied names `balanceSecurityId` as the balance of its security, which
   * should then be issued `remainder`: the caller checks it (`balanceFinding`) once it knows that
   * issuance (it may come later in a package).
   */
  balance(balanceSecurityId: string, remainder: DecimalString): void;
  /**
   * The transaction just applied ends the security, and another of its day was applied before it
   * without knowing (`apply` without `dayEnder`): that one's `SAME_DAY_ORDER` is missing. A caller
   * that applies a chain as it streams follows the security again with `applyChain`.
   */
  sameDayUnsettled?(): void;
}

/**
 * The tranches of `schedule` (`vestingSchedule`'s form) from offset `at` on, the first one's day made
 * whole again (`day`: that of the tranche before it) and its amount said (`amount`: the one before).
 */
function rest(schedule: string, at: number, day: number, amount: DecimalString): string {
  if (at >= schedule.length) return "";
  const first = trancheAt(schedule, at);
  return `${day + first.delta} ${first.amount ?? amount}${schedule.slice(first.stop)}`;
}

/** The tranche of `schedule` at offset `at`: where it stops, what its day adds to the one before, its amount when said. */
function trancheAt(schedule: string, at: number): { stop: number; delta: number; amount: DecimalString | undefined } {
  const next = schedule.indexOf(";", at);
  const stop = next === -1 ? schedule.length : next;
  const space = schedule.indexOf(" ", at);
  const explicit = space !== -1 && space < stop;
  return { stop, delta: Number(schedule.slice(at, explicit ? space : stop)), amount: explicit ? schedule.slice(space + 1, stop) : undefined };
}

/** A sink that hears nothing (a trial run). */
const SILENT: ChainSink = { problem: () => undefined, balance: () => undefined };

/**
 * Whether `entry`, acting on a live security, ends it whatever else its day holds: by the documents a
 * terminal transaction; on the same security a retraction, or a transaction that moves what is left to
 * a balance security (what it moves depends on what the day took before it). An end by consumption
 * is not: outstanding = issued − Σ on one id comes out the same in every order.
 */
function endsItsDay(entry: LedgerEntry, reading: Lineage): boolean {
  const { type } = entry;
  if (reading === "documents") return TERMINAL_VERB[type] !== undefined;
  if (RETRACTIONS.has(type)) return true;
  const { balanceSecurityId: balance, quantity } = entry;
  return (type === RELEASE || TERMINAL_VERB[type] !== undefined) && balance !== undefined && balance !== entry.securityId && quantity !== undefined && !isNegative(quantity);
}

/** `BALANCE_MISMATCH` when the balance security's issued quantity is not the remainder. */
export function balanceFinding(balanceSecurityId: string, remainder: DecimalString, balanceQuantity: DecimalString | undefined, of: string): LedgerFinding | undefined {
  if (balanceQuantity === undefined || compareDecimalStrings(balanceQuantity, remainder) === 0) return undefined;
  return {
    code: "BALANCE_MISMATCH",
    path: ".balance_security_id",
    message: `names balance security ${describeValue(balanceSecurityId)}, issued ${shown(balanceQuantity)}, but ${shown(remainder)} of ${of} remain after this transaction`,
  };
}

/** The transaction that ends a security on a day, for messages. */
export interface DayEnder {
  type: string;
  id?: string | undefined;
}

/** How a security ended, for messages. */
export interface ChainEnd extends DayEnder {
  date: CalendarDate;
  how: "terminal" | "consumed" | "balance" | "retracted";
  balance?: string;
}

/**
 * What a chain remembers between transactions: the last date and kind applied, three decimals and
 * how the security ended. Plain data, so that a caller following many securities at once can keep
 * it in any compact form and hand it back.
 */
export interface ChainState {
  lastDate: string;
  lastRank: number;
  /** Documents: released so far. Same security: released, cancelled, repurchased, transferred so far. */
  used: DecimalString;
  returnable: DecimalString;
  returned: DecimalString;
  overConsumed: boolean;
  overReturned: boolean;
  end: ChainEnd | undefined;
  /** Whether a transaction acted on the live security on `lastDate` without ending it (`SAME_DAY_ORDER`). */
  dayActed: boolean;
  /** Whether a transaction that ends the security whatever the order of its day did so on `lastDate`. */
  dayEnded: boolean;
  /**
   * With `vestings`: released so far, what the tranches walked have vested, and the tranches still to
   * walk (`vestingSchedule`'s form, its first day a `dayNumber`); `undefined` before the first release
   * (the issuance's `vestings`), `""` once every tranche is walked.
   */
  released: DecimalString;
  vested: DecimalString;
  toVest: string | undefined;
}

/** The state of a security before any transaction on it. */
export function freshChainState(): ChainState {
  return {
    lastDate: "",
    lastRank: -1,
    used: "0",
    returnable: "0",
    returned: "0",
    overConsumed: false,
    overReturned: false,
    end: undefined,
    dayActed: false,
    dayEnded: false,
    released: "0",
    vested: "0",
    toVest: undefined,
  };
}

/**
 * The rules of one security, applied to its transactions in order (date, kind, position). Its
 * state is `state` (a fresh one by default), so that a package's securities can all be followed at
 * once with a few fields each.
 */
export class SecurityChain {
  constructor(
    private readonly issuance: LedgerIssuance,
    private readonly reading: Lineage,
    readonly state: ChainState = freshChainState(),
  ) {}

  /** Whether `entry` comes at or after every transaction applied so far, in (date, kind) order. */
  inOrder(entry: LedgerEntry): boolean {
    if (entry.date === undefined) return true;
    const { lastDate, lastRank } = this.state;
    return entry.date > lastDate || (entry.date === lastDate && sameDayRank(entry.type) >= lastRank);
  }

  /**
   * Applies the next transaction of the security (undated ones are skipped: the schemas report them).
   * `dayEnder`: a later transaction of the same day that ends the security (`applyChain` looks ahead;
   * a caller that does not is told by `sink.sameDayUnsettled` when it should have).
   */
  apply(entry: LedgerEntry, sink: ChainSink, dayEnder?: DayEnder): void {
    const { date, type } = entry;
    if (date === undefined) return;
    const state = this.state;
    if (date !== state.lastDate) {
      state.dayActed = false;
      state.dayEnded = false;
    }
    state.lastDate = date;
    state.lastRank = sameDayRank(type);
    const issuedOn = this.issuance.date;
    // The vesting commencement date may precede the grant (ocf-1.2.0.md §7.3): a vesting start is exempt.
    if (issuedOn !== undefined && date < issuedOn && type !== VESTING_START) {
      sink.problem({ code: "BEFORE_ISSUANCE", path: ".date", message: `is ${date}, before the issuance of ${this.of()} on ${issuedOn}` });
    }
    const quantity = entry.quantity !== undefined && !isNegative(entry.quantity) ? entry.quantity : undefined;
    if (type === RETURN_TO_POOL) {
      // A return to pool refers to an ended security by design: it gives back what a cancellation took.
      if (quantity !== undefined) this.giveBack(quantity, date, sink);
      return;
    }
    const live = state.end === undefined;
    const ends = live && endsItsDay(entry, this.reading);
    // After the end on its day, by the documents: this, not AFTER_TERMINAL, is what is wrong.
    if (!ends && this.sameDayOrder(entry, date, live ? dayEnder : undefined, sink) && !live && this.reading === "documents") return;
    if (this.reading === "documents") this.applyDocuments(entry, date, quantity, sink);
    else this.applySameSecurity(entry, date, quantity, sink);
    if (ends && state.end !== undefined) {
      if (state.dayActed) sink.sameDayUnsettled?.();
      state.dayEnded = true;
    } else if (live && state.end === undefined) state.dayActed = true;
  }

  /**
   * `SAME_DAY_ORDER` when `entry` acts on the security the day a transaction ends it (before it in
   * the chain's order: `dayEnder`; after it: the end already applied). A second terminal transaction is
   * `SECOND_TERMINAL`'s, by the documents. Returns whether it reported.
   */
  private sameDayOrder(entry: LedgerEntry, date: CalendarDate, dayEnder: DayEnder | undefined, sink: ChainSink): boolean {
    const ender = this.state.dayEnded ? this.state.end : dayEnder;
    if (ender === undefined || (this.reading === "documents" && TERMINAL_VERB[entry.type] !== undefined)) return false;
    sink.problem({
      code: "SAME_DAY_ORDER",
      path: ".date",
      message: `is ${date}, the day ${ender.type} ${describeValue(ender.id ?? "?")} ends ${this.of()}: OCF 1.2.0 does not order a day's transactions, so a reader that takes that one first (OCF-Tools sorts a day by type) sees this one act on an ended security`,
    });
    return true;
  }

  /**
   * Which of `ordered[start..end)` (one day's transactions, in chain order) ends the security
   * whatever the order of the day, found by applying them to a copy of the state; -1 for none.
   */
  dayEnderAmong(ordered: readonly LedgerEntry[], start: number, end: number): number {
    const trial = new SecurityChain(this.issuance, this.reading, { ...this.state });
    for (let k = start; k < end; k++) {
      trial.apply(ordered[k] as LedgerEntry, SILENT);
      if (trial.state.dayEnded) return k;
    }
    return -1;
  }

  /**
   * `RELEASED_BEFORE_VESTED` when a release brings what is released of a security with `vestings` to
   * more than its tranches dated up to the release have vested. The tranches are walked once over the
   * chain (its releases come in date order).
   */
  private checkVested(entry: LedgerEntry, date: CalendarDate, quantity: DecimalString, sink: ChainSink): void {
    const state = this.state;
    const schedule = state.toVest ?? this.issuance.vestings;
    if (schedule === undefined) return;
    state.released = sumDecimalStrings([state.released, quantity]);
    const until = dayNumber(date);
    const amounts: DecimalString[] = [state.vested];
    let at = 0;
    let day = 0;
    let amount = "";
    while (at < schedule.length) {
      const tranche = trancheAt(schedule, at);
      if (day + tranche.delta > until) break;
      day += tranche.delta;
      amount = tranche.amount ?? amount;
      amounts.push(amount);
      at = tranche.stop + 1;
    }
    if (amounts.length > 1) {
      state.vested = sumDecimalStrings(amounts);
      state.toVest = rest(schedule, at, day, amount);
    }
    if (state.overConsumed || compareDecimalStrings(state.released, state.vested) <= 0) return;
    sink.problem({
      code: "RELEASED_BEFORE_VESTED",
      path: `.${entry.quantityKey ?? "quantity"}`,
      message: `releases ${shown(quantity)} of ${this.of()} on ${date}, which brings what is released of it to ${shown(state.released)}, but its vestings have vested only ${shown(state.vested)} by then`,
    });
  }

  /** `security "<id>"`, for messages (built only when there is one to write). */
  private of(): string {
    return `security ${describeValue(this.issuance.securityId)}`;
  }

  private applyDocuments(entry: LedgerEntry, date: CalendarDate, quantity: DecimalString | undefined, sink: ChainSink): void {
    const { type } = entry;
    const state = this.state;
    const verb = TERMINAL_VERB[type];
    if (state.end !== undefined) {
      const end = state.end;
      const ended = `${this.of()} ended on ${end.date} (${why(end)})`;
      if (verb !== undefined) sink.problem({ code: "SECOND_TERMINAL", path: ".date", message: `is a second terminal transaction: ${ended}` });
      else sink.problem({ code: "AFTER_TERMINAL", path: ".date", message: date === end.date ? `acts on ${this.of()} after it ended the same day (${why(end)})` : `is ${date}, after ${ended}` });
      return;
    }
    const issued = this.issuance.quantity;
    if (type === RELEASE) {
      if (quantity === undefined) return;
      if (issued !== undefined && !state.overConsumed) {
        const outstanding = minus(issued, state.used);
        if (compareDecimalStrings(quantity, outstanding) > 0) {
          state.overConsumed = true;
          sink.problem({ code: "OVER_CONSUMED", path: `.${entry.quantityKey ?? "quantity"}`, message: `releases ${shown(quantity)} of ${this.of()}, more than the ${shown(outstanding)} outstanding${this.issuedNote(issued)}` });
        }
      }
      state.used = sumDecimalStrings([state.used, quantity]);
      this.checkVested(entry, date, quantity, sink);
      return;
    }
    if (verb === undefined) return;
    state.end = { date, type, id: entry.id, how: RETRACTIONS.has(type) ? "retracted" : "terminal" };
    if (RETURNABLE.has(type) && quantity !== undefined) state.returnable = sumDecimalStrings([state.returnable, quantity]);
    const balance = entry.balanceSecurityId;
    if (balance !== undefined && balance === entry.securityId) {
      sink.problem({ code: "BALANCE_IS_SELF", path: ".balance_security_id", message: `names ${this.of()} itself; the balance of a partial ${verb.replace(/s$/, "")} is a new security with its own issuance` });
      return;
    }
    // Over-consumed already by releases: reported once, at the release that crossed the line.
    if (quantity === undefined || issued === undefined || RETRACTIONS.has(type) || state.overConsumed) return;
    const outstanding = minus(issued, state.used);
    if (compareDecimalStrings(quantity, outstanding) > 0) {
      sink.problem({ code: "OVER_CONSUMED", path: `.${entry.quantityKey ?? "quantity"}`, message: `${verb} ${shown(quantity)} of ${this.of()}, more than the ${shown(outstanding)} outstanding${this.issuedNote(issued)}` });
      return;
    }
    const remainder = minus(outstanding, quantity);
    if (balance !== undefined) sink.balance(balance, remainder);
    else if (compareDecimalStrings(remainder, "0") > 0) {
      sink.problem({
        code: "BALANCE_MISSING",
        path: ".balance_security_id",
        message: `${verb} ${shown(quantity)} of the ${shown(outstanding)} outstanding of ${this.of()} and names no balance security for the other ${shown(remainder)}: read by the OCF documents, this transaction ends ${this.of()}, so what remains must be a new issuance named by balance_security_id`,
      });
    }
  }

  private applySameSecurity(entry: LedgerEntry, date: CalendarDate, quantity: DecimalString | undefined, sink: ChainSink): void {
    const { type } = entry;
    const state = this.state;
    if (state.end !== undefined && date > state.end.date) {
      sink.problem({ code: "AFTER_TERMINAL", path: ".date", message: `is ${date}, after ${this.of()} ended on ${state.end.date} (${why(state.end)})` });
      return;
    }
    const issued = this.issuance.quantity;
    const verb = TERMINAL_VERB[type];
    if ((type === RELEASE || verb !== undefined) && quantity !== undefined && !RETRACTIONS.has(type)) {
      state.used = sumDecimalStrings([state.used, quantity]);
      if (RETURNABLE.has(type)) state.returnable = sumDecimalStrings([state.returnable, quantity]);
      // Reported once, at the transaction that crosses the line; an over-consumed security does not
      // "end", so what follows is not reported again as AFTER_TERMINAL.
      if (issued !== undefined && compareDecimalStrings(state.used, issued) > 0 && !state.overConsumed) {
        state.overConsumed = true;
        sink.problem({
          code: "OVER_CONSUMED",
          path: `.${entry.quantityKey ?? "quantity"}`,
          message: `brings what is released, cancelled, repurchased or transferred of ${this.of()} to ${shown(state.used)}, more than the ${shown(issued)} issued`,
        });
      }
      if (type === RELEASE) this.checkVested(entry, date, quantity, sink);
      if (issued !== undefined && compareDecimalStrings(state.used, issued) === 0) state.end ??= { date, type, id: entry.id, how: "consumed" };
      const balance = entry.balanceSecurityId;
      if (balance !== undefined) {
        if (balance === entry.securityId) {
          sink.problem({ code: "BALANCE_IS_SELF", path: ".balance_security_id", message: `names ${this.of()} itself; a balance security is a new security with its own issuance` });
        } else {
          if (issued !== undefined && !state.overConsumed) sink.balance(balance, minus(issued, state.used));
          state.end ??= { date, type, id: entry.id, how: "balance", balance };
        }
      }
    } else if (RETRACTIONS.has(type)) {
      state.end ??= { date, type, id: entry.id, how: "retracted" };
    }
  }

  private giveBack(quantity: DecimalString, date: CalendarDate, sink: ChainSink): void {
    const state = this.state;
    state.returned = sumDecimalStrings([state.returned, quantity]);
    if (compareDecimalStrings(state.returned, state.returnable) > 0 && !state.overReturned) {
      state.overReturned = true;
      sink.problem({
        code: "RETURN_TO_POOL_EXCEEDS",
        path: ".quantity",
        message: `brings what ${this.of()} returns to the pool to ${shown(state.returned)}, more than the ${shown(state.returnable)} cancelled or repurchased by ${date}`,
      });
    }
  }

  private issuedNote(issued: DecimalString): string {
    const used = this.state.used;
    return used === "0" ? ` (issued ${shown(issued)})` : ` (issued ${shown(issued)}, ${shown(used)} released before)`;
  }
}

/** How a security ended, in words. */
function why(end: ChainEnd): string {
  const what = `${end.type} ${describeValue(end.id ?? "?")}`;
  switch (end.how) {
    case "consumed":
      return `fully consumed by ${what}`;
    case "balance":
      return `${what} moved the balance to ${describeValue(end.balance ?? "?")}`;
    case "retracted":
      return `retracted by ${what}`;
    case "terminal":
      return `ended by ${what}`;
  }
}

/**
 * One problem (or warning) `checkLineage` found.
 *
 * @category OCF
 */
export interface LineageProblem<T> {
  code: LedgerProblemCode;
  /**
   * `"problem"`: the transactions do not read consistently; `"warning"`: they do, but the data is odd
   * (`RELEASED_BEFORE_VESTED`, a release before its units vested).
   */
  severity: LedgerSeverity;
  /** The transaction concerned, and its index in the list given. */
  object: T;
  index: number;
  /** Where in the transaction, e.g. `"$.quantity"`, `"$.vestings[2].amount"`. */
  jsonPath: string;
  message: string;
}

/**
 * Options of `checkLineage`.
 *
 * @category OCF
 */
export interface CheckLineageOptions {
  /** The reading to apply. @default "documents" */
  reading?: Lineage;
}

/**
 * Checks the lineage of a list of transactions in memory (OCF objects, as parsed JSON or as the
 * mapping's typed `OcfTransaction`s; e.g. one grant's, or a whole package's): every rule of this module, plus that each transaction's security, balance
 * security and resulting securities are issued within the list. Returns every finding, ordered by
 * transaction and then as found, each with its `severity`: the transactions read consistently when
 * none is a `"problem"` (a `"warning"`, such as `RELEASED_BEFORE_VESTED`, does not make them invalid).
 *
 * @example
 * ```ts
 * import { checkLineage, loadPackageObjects } from "ocf-sync";
 * const pkg = await loadPackageObjects("out/7");
 * const findings = checkLineage(pkg.transactions, { reading: "documents" });
 * const consistent = findings.every((finding) => finding.severity === "warning");
 * console.log(consistent ? "consistent" : "inconsistent");
 * for (const finding of findings) console.warn(finding.severity, finding.code, finding.message);
 * ```
 *
 * @category OCF
 */
export function checkLineage<T extends object>(transactions: readonly T[], options: CheckLineageOptions = {}): LineageProblem<T>[] {
  const reading = options.reading ?? "documents";
  // Read as JSON: the typed OCF interfaces (`OcfTransaction`, what the mapping gives) have no index
  // signature, so they are taken as `object` and read field by field, as parsed JSON is.
  const records = transactions as readonly object[] as readonly OcfJson[];
  const found: { problem: LineageProblem<T>; order: number }[] = [];
  const report = (index: number, finding: LedgerFinding): void => {
    const object = transactions[index] as T;
    found.push({ problem: { code: finding.code, severity: ledgerSeverity(finding.code), object, index, jsonPath: `$${finding.path}`, message: finding.message }, order: found.length });
  };
  const entries = records.map((value) => ledgerEntryOf(value));
  const issuances = new Map<string, LedgerIssuance>();
  entries.forEach((entry, index) => {
    for (const finding of objectFindings(records[index] as OcfJson, entry)) report(index, finding);
    if (ISSUANCE_TYPES.has(entry.type) && entry.securityId !== undefined && !issuances.has(entry.securityId)) {
      const vestings = vestingSchedule(records[index] as OcfJson, entry);
      issuances.set(entry.securityId, {
        securityId: entry.securityId,
        type: entry.type,
        ...(entry.date === undefined ? {} : { date: entry.date }),
        ...(entry.quantity === undefined ? {} : { quantity: entry.quantity }),
        ...(vestings === undefined ? {} : { vestings }),
      });
    }
  });
  const dangling = (index: number, path: string, what: string, id: string): void =>
    report(index, { code: "DANGLING_REFERENCE", path, message: `names ${what} ${describeValue(id)}, but no issuance in the list creates it` });
  const bySecurity = new Map<string, number[]>();
  entries.forEach((entry, index) => {
    const value = records[index] as OcfJson;
    const resulting = value.resulting_security_ids;
    if (Array.isArray(resulting)) {
      resulting.forEach((id: unknown, j) => {
        if (typeof id === "string" && !issuances.has(id)) dangling(index, `.resulting_security_ids[${j}]`, "as a resulting security", id);
      });
    }
    if (entry.balanceSecurityId !== undefined && !issuances.has(entry.balanceSecurityId)) dangling(index, ".balance_security_id", "as the balance security", entry.balanceSecurityId);
    if (ISSUANCE_TYPES.has(entry.type) || entry.securityId === undefined) return;
    const issuance = issuances.get(entry.securityId);
    if (issuance === undefined) return dangling(index, ".security_id", "security", entry.securityId);
    const kind = kindFinding(entry, issuance.type);
    if (kind !== undefined) report(index, kind);
    let list = bySecurity.get(entry.securityId);
    if (list === undefined) bySecurity.set(entry.securityId, (list = []));
    list.push(index);
  });
  for (const [securityId, indexes] of bySecurity) {
    const issuance = issuances.get(securityId) as LedgerIssuance;
    const chain = new SecurityChain(issuance, reading);
    const of = `security ${describeValue(securityId)}`;
    applyChain(chain, sortChain(indexes, entries), entries, (index) => ({
      problem: (finding) => report(index, finding),
      balance: (balanceId, remainder) => {
        const finding = balanceFinding(balanceId, remainder, issuances.get(balanceId)?.quantity, of);
        if (finding !== undefined) report(index, finding);
      },
    }));
  }
  return found.sort((a, b) => a.problem.index - b.problem.index || a.order - b.order).map((f) => f.problem);
}

/**
 * Applies one security's transactions to `chain`, `positions` (of `entries`) in chain order
 * (`sortChain`), each reported to `sinkAt(position)`. Each day is looked at whole before it is applied,
 * so that what acts on the security before the transaction that ends it that day is reported
 * (`SAME_DAY_ORDER`): the day's transactions are taken twice only when there are several.
 */
export function applyChain(chain: SecurityChain, positions: readonly number[], entries: ArrayLike<LedgerEntry>, sinkAt: (position: number) => ChainSink): void {
  const ordered = positions.map((position) => entries[position] as LedgerEntry);
  for (let start = 0; start < ordered.length; ) {
    const date = (ordered[start] as LedgerEntry).date;
    let end = start + 1;
    while (end < ordered.length && (ordered[end] as LedgerEntry).date === date) end++;
    const ender = end - start > 1 ? chain.dayEnderAmong(ordered, start, end) : -1;
    for (let k = start; k < end; k++) chain.apply(ordered[k] as LedgerEntry, sinkAt(positions[k] as number), k < ender ? ordered[ender] : undefined);
    start = end;
  }
}

/** Positions of one security's transactions in chain order: date, same-day rank, then position. */
export function sortChain(positions: readonly number[], entries: ArrayLike<LedgerEntry>): number[] {
  return positions
    .map((position) => {
      const entry = entries[position] as LedgerEntry;
      return { position, date: entry.date ?? "", rank: sameDayRank(entry.type) };
    })
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) || a.rank - b.rank || a.position - b.position)
    .map((keyed) => keyed.position);
}
