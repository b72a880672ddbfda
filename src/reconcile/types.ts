/**
 * The vocabulary of a reconciliation: the figures compared per grant, a difference, and the report.
 * Figures travel as normalized decimal strings (`DecimalString`); nothing here is a JS number.
 */
import type { CalendarDate } from "../dates.js";
import type { DecimalString } from "../decimal.js";
import { describeValue } from "../errors.js";
import { LABEL_OF, type RecordKind } from "../source/kinds.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../source/records.js";
import type { Lineage } from "../ocf/security-ledger.js";
import type { LineageUsed } from "../ocf/validate-package.js";

/**
 * The figures of one grant, as the source's counters state them or as a replay of OCF transactions
 * derives them. `outstanding` is what the grant's live security holds: under the documents reading a
 * package can lose shares (a remainder left on no security) without any other figure changing, so it
 * is compared too. `forfeited` and `expired` have no OCF transaction of their own: a package cannot
 * state them, so they are shown for the source only.
 *
 * @category Reconcile
 */
export const FIGURE_NAMES = [
  "issued",
  "vested",
  "released",
  "netSettled",
  "soldToCover",
  "canceled",
  "forfeited",
  "expired",
  "returnedToPool",
  "returnedToTreasury",
  "outstanding",
] as const;
/**
 * One of `FIGURE_NAMES`.
 *
 * @category Reconcile
 */
export type FigureName = (typeof FIGURE_NAMES)[number];
/**
 * Figures by name; a figure is absent when that side has nothing to say about it.
 *
 * @category Reconcile
 */
export type Figures = Partial<Record<FigureName, DecimalString>>;

/**
 * Every difference code a reconciliation reports, with what it means. Codes are stable.
 *
 * @category Reconcile
 */
export const DIFFERENCE_CODES = {
  MISSING_IN_OCF: "a source record has no security in the OCF package",
  EXTRA_IN_OCF: "the OCF package has a security that no source record accounts for",
  FIGURE_MISMATCH: "a figure of a grant differs between the two sides",
  VESTING_DATES: "the two sides vest a grant on different dates or in different amounts",
  MISSING_IN_OTHER: "a security of the first package has no match in the other package",
  EXTRA_IN_OTHER: "the other package has a security with no match in the first package",
  FIELD_MISMATCH: "a field of a matched security's issuance differs between the two packages",
  TOTAL_MISMATCH: "a total per stock class, stock plan or stakeholder differs between the two packages",
  SOURCE_INCONSISTENT: "the source's own figures of a record disagree with each other",
  RELEASED_BEFORE_VESTED: "a unit's settlements release more by a date than its vesting events have vested by then",
  SOURCE_RECORD_INVALID: "a source record could not be parsed (it was quarantined by the pull)",
  OCF_LINEAGE: "a transaction of the package cannot be read under the reading used (an act on an ended security, a remainder left on no security, a balance that does not add up)",
} as const;
/**
 * A stable difference code; see `DIFFERENCE_CODES`.
 *
 * @category Reconcile
 */
export type DifferenceCode = keyof typeof DIFFERENCE_CODES;

/**
 * Which comparison found a difference.
 *
 * @category Reconcile
 */
export type DifferenceSection = "source-vs-ocf" | "ocf-vs-ocf" | "source";

/**
 * One difference. `expected` is the first side (the source, or the first package), `actual` the other.
 *
 * @category Reconcile
 */
export interface Difference {
  section: DifferenceSection;
  code: DifferenceCode;
  issuerId: string;
  /** The source record concerned, when there is one. */
  kind?: RecordKind;
  recordId?: string;
  /** The OCF security concerned, when there is one. */
  securityId?: string;
  /** What differs: a figure name, an issuance field, an invariant, or `"security"` for a missing one. */
  field: string;
  /** The first side's value, exactly as a string; null when that side has none. */
  expected: string | null;
  /** The other side's value, exactly as a string; null when that side has none. */
  actual: string | null;
  /** The difference in words, naming record and figures. */
  message: string;
}

/**
 * One dated amount that vests.
 *
 * @category Reconcile
 */
export interface Tranche {
  date: CalendarDate;
  amount: DecimalString;
}

/**
 * A point of a cumulative vesting curve: what has vested by `date` (inclusive).
 *
 * @category Reconcile
 */
export interface VestingPoint {
  date: CalendarDate;
  vested: DecimalString;
}

/**
 * One stakeholder's holdings on both sides, as of the report's date.
 *
 * @category Reconcile
 */
export interface HolderRow {
  /** The OCF stakeholder id (the source's `stakeholderId` as ocf-sync maps it: `stakeholder-<id>`). */
  stakeholderId: string;
  expected: { shares: DecimalString; units: DecimalString };
  actual: { shares: DecimalString; units: DecimalString };
}

/**
 * The figures of one grant on both sides.
 *
 * @category Reconcile
 */
export interface GrantRow {
  /** The source record id, or the first package's security id. */
  key: string;
  kind?: RecordKind;
  securityId?: string;
  expected: Figures;
  actual: Figures;
}

/**
 * What a reconciliation found, for one issuer.
 *
 * @category Reconcile
 */
export interface ReconciliationReport {
  mode: "source-vs-ocf" | "ocf-vs-ocf";
  issuerId: string;
  /** The date vested figures are taken at. */
  asOf: CalendarDate;
  /** Differences at or under this absolute amount are not reported. */
  tolerance: DecimalString;
  /** What each side is, for people: e.g. `"source (NDJSON run.ndjson)"`, `"OCF out/7"`. */
  labels: { expected: string; actual: string };
  /** Sums of each figure over every grant, per side. */
  totals: { expected: Figures; actual: Figures };
  grants: GrantRow[];
  /** Shares and units per stakeholder on both sides, as of `asOf`, sorted by stakeholder id. */
  holders: HolderRow[];
  /**
   * How the OCF packages were read: `"documents"` (a cancellation ends its security; what remains is
   * the balance security) or `"same-security"` (OCF #531), and why that reading.
   */
  reading: LineageUsed;
  /**
   * OCF against OCF: how the other package was read, when not as the first. Without `--reader` each
   * package is read as it declares (else by the documents), so two packages of one cap table written in
   * the two conventions agree; `reading` is then the first package's.
   */
  otherReading?: LineageUsed;
  /** Every difference, source-vs-OCF or OCF-vs-OCF first, then the source's own consistency. */
  differences: Difference[];
  /** Cumulative vested shares of the issuer over time, per side (for the chart). */
  vestingCurves: { expected: VestingPoint[]; actual: VestingPoint[] };
  /** Notes on what could not be replayed (an unsupported vesting trigger, …); not differences. */
  notes: string[];
}

/**
 * Options every reconciliation takes.
 *
 * @category Reconcile
 */
export interface ReconcileOptions {
  /**
   * The date vested figures are taken at (`YYYY-MM-DD`). Without it the source's `vestedQuantity`
   * counter is compared with the package as of its manifest `as_of`; with it, both sides' vesting
   * events are replayed to that date.
   * @default the OCF package's manifest `as_of`
   */
  asOf?: CalendarDate;
  /**
   * The largest absolute difference of two figures still counted as agreement, as a decimal string.
   * @default "0" (exact)
   */
  tolerance?: DecimalString;
  /** What to call the two sides in the report. @default "source" and the package's location, or the two locations */
  labels?: { expected: string; actual: string };
  /**
   * How to read the OCF packages: `"documents"` (OCF's TraversingTransactions: a cancellation ends its
   * security and what remains lives on the issuance its `balance_security_id` names) or
   * `"same-security"` (OCF #531: outstanding = issued − released − cancelled on one security).
   * @default what the package declares in its manifest comments (`Lineage: …`), else `"documents"`
   */
  reader?: Lineage;
}

/**
 * One issuer's source records, as pulled from the API or read from a pull's NDJSON.
 *
 * @category Reconcile
 */
export interface SourceIssuer {
  issuerId: string;
  awards: readonly RestrictedStockAward[];
  units: readonly RestrictedStockUnit[];
  /** Records that failed validation when pulled; each is reported. */
  quarantined?: readonly QuarantinedSourceRecord[];
}

/**
 * A source record that could not be parsed.
 *
 * @category Reconcile
 */
export interface QuarantinedSourceRecord {
  kind: RecordKind;
  recordId: string | undefined;
  /** Why, e.g. the parse error's message. */
  message: string;
}

/** `award "2207"`, `unit "RSU-1001"`: a record in messages. */
export function recordLabel(kind: RecordKind, recordId: string): string {
  return `${LABEL_OF[kind]} ${describeValue(recordId)}`;
}

