/**
 * Source against OCF: every award and unit of the source is matched with its grant in the package (the
 * chain from the issuance of `rsa-<id>` / `rsu-<id>`, the mapping's ids; else from the issuance whose
 * `custom_id` is the record's `securityLabel`; with its payouts above target, as the source states
 * them too: `replay.ts`, `source-figures.ts`) and each counter is compared, exactly (up to the
 * tolerance), with the figure a replay of the package's transactions derives under the reading used
 * (`replay.ts`). The package's lineage problems under that reading are differences too, and the
 * holdings of every stakeholder are set side by side. Then the source's own consistency is checked
 * (`checkSourceConsistency`). Pure.
 */
import { isCalendarDate, type CalendarDate } from "../dates.js";
import { Dec, formatDecimal, sameDecimal, sumDecimalStrings, type DecimalString } from "../decimal.js";
import { describeValue } from "../errors.js";
import { SELL_TO_COVER_STAKEHOLDER_ID, securityIdOf } from "../mapping/ids.js";
import type { RecordKind } from "../source/kinds.js";
import type { ParsedRecord } from "../source/records.js";
import { checkRecord, quarantinedDifference } from "./consistency.js";
import { ReconcileInputError, type PackageObjects } from "./package-objects.js";
import { GrantReplay, holdingsAsOf, packageLineage } from "./replay.js";
import type { Lineage } from "../ocf/security-ledger.js";
import { addHoldings, recordHolding, sourceGrant, type RecordHolding } from "./source-figures.js";
import { stringAt } from "./package-objects.js";
import { CurveBuilder, describeTranches, packTranches, trancheDifference, unpackTranches, vestedBy } from "./tranches.js";
import {
  FIGURE_NAMES,
  recordLabel,
  type Difference,
  type FigureName,
  type Figures,
  type GrantRow,
  type HolderRow,
  type ReconcileOptions,
  type QuarantinedSourceRecord,
  type ReconciliationReport,
  type SourceIssuer,
} from "./types.js";

/** Figures compared between source and OCF: a package cannot state forfeited and expired apart. */
const COMPARED: readonly FigureName[] = FIGURE_NAMES.filter((name) => name !== "forfeited" && name !== "expired");

/**
 * Reconciles one issuer's source records with an OCF package of that issuer. Labels default to
 * `"source"` and `"OCF <package location>"`. Records are as `parseRecord` gives them: their decimals
 * normalized, as `DecimalString` says (a record built by hand with `"+0007"` is refused with a
 * `DecimalError` naming the value).
 *
 * @throws {ReconcileInputError} for an invalid `asOf` or `tolerance`.
 * @example
 * ```ts
 * import { createApiClient, loadPackageObjects, loadSourceFromApi, reconcileSourceWithOcf } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * const pkg = await loadPackageObjects("out/7");
 * const report = reconcileSourceWithOcf(await loadSourceFromApi(client, "7"), pkg);
 * await client.close();
 * if (report.differences.length > 0) process.exitCode = 1;
 * ```
 *
 * @category Reconcile
 */
export function reconcileSourceWithOcf(source: SourceIssuer, pkg: PackageObjects, options: ReconcileOptions = {}): ReconciliationReport {
  const run = new SourceReconciliation(source.issuerId, pkg, options);
  for (const record of source.awards) run.add({ kind: "restrictedStockAward", record });
  for (const record of source.units) run.add({ kind: "restrictedStockUnit", record });
  for (const q of source.quarantined ?? []) run.quarantined(q);
  return run.finish();
}

/** What a reconciliation keeps of a source record: its figures, vesting, holdings and own differences. */
interface SourceSummary {
  kind: RecordKind;
  id: string;
  securityLabel: string | undefined;
  /** With `vested` as of the report's date (or as the counter states it). */
  figures: Figures;
  /** Its tranches, packed (`packTranches`): one string instead of an object per tranche. */
  tranches: string;
  holding: RecordHolding | undefined;
  /** Its broken invariants (`checkRecord`). */
  consistency: readonly Difference[];
}

/**
 * Source against OCF one record at a time: `add` takes each source record, in any order of kinds, and
 * keeps only its summary (figures, vesting as one string, holdings, its own differences), not the
 * record; `finish` matches them with the package's grants, one grant at a time, and writes the report
 * (awards before units, each kind in the order added, as `reconcileSourceWithOcf` orders them).
 * `replace` puts a later copy of a record in the place of an earlier one (as a pull's NDJSON read back
 * does). The report is the one `reconcileSourceWithOcf` gives for the same records.
 *
 * @example
 * ```ts
 * import { SourceReconciliation, createApiClient, loadPackageObjects, pullIssuer, reportAgrees } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * const { awards, units } = await pullIssuer(client, "7");
 * await client.close();
 * const run = new SourceReconciliation("7", await loadPackageObjects("out/7"), { asOf: "2025-06-30" });
 * for (const record of awards) run.add({ kind: "restrictedStockAward", record });
 * for (const record of units) run.add({ kind: "restrictedStockUnit", record });
 * const report = run.finish();
 * console.log(reportAgrees(report));
 * ```
 *
 * @category Reconcile
 */
export class SourceReconciliation {
  readonly #issuerId: string;
  readonly #pkg: PackageObjects;
  readonly #options: ReconcileOptions;
  readonly #asOf: CalendarDate;
  /** Kept as text: no type of decimal.js reaches the public surface. */
  readonly #tolerance: DecimalString;
  readonly #counterVested: boolean;
  readonly #reading: ReconciliationReport["reading"];
  readonly #awards: SourceSummary[] = [];
  readonly #units: SourceSummary[] = [];
  readonly #invalid: Difference[] = [];

  /** @throws {ReconcileInputError} for an invalid `asOf`, `tolerance` or `reader`. */
  constructor(issuerId: string, pkg: PackageObjects, options: ReconcileOptions = {}) {
    this.#issuerId = issuerId;
    this.#pkg = pkg;
    this.#options = options;
    const { asOf, tolerance, counterVested } = resolveOptions(options, pkg.asOf);
    this.#asOf = asOf;
    this.#tolerance = formatDecimal(tolerance);
    this.#counterVested = counterVested;
    this.#reading = readingFor(options, [pkg]);
  }

  /** Takes the next record; returns its place among the records of its kind (for `replace`). */
  add(parsed: ParsedRecord): number {
    const list = parsed.kind === "restrictedStockAward" ? this.#awards : this.#units;
    return list.push(this.#summaryOf(parsed)) - 1;
  }

  /** Takes `parsed` in the place of the record `add` put at `slot` of its kind. */
  replace(parsed: ParsedRecord, slot: number): void {
    const list = parsed.kind === "restrictedStockAward" ? this.#awards : this.#units;
    if (slot < 0 || slot >= list.length) throw new RangeError(`no ${parsed.kind} at ${slot}`);
    list[slot] = this.#summaryOf(parsed);
  }

  /** Takes a record that could not be parsed (reported after every record's own differences). */
  quarantined(q: QuarantinedSourceRecord): void {
    this.#invalid.push(quarantinedDifference(this.#issuerId, q));
  }

  #summaryOf(parsed: ParsedRecord): SourceSummary {
    const grant = sourceGrant(parsed);
    if (!this.#counterVested) grant.figures.vested = vestedBy(grant.tranches, this.#asOf);
    const consistency = checkRecord(this.#issuerId, parsed);
    return {
      kind: parsed.kind,
      id: parsed.record.id,
      securityLabel: parsed.record.securityLabel,
      figures: grant.figures,
      tranches: packTranches(grant.tranches),
      holding: recordHolding(parsed, this.#asOf),
      consistency: consistency.length === 0 ? NO_DIFFERENCES : consistency,
    };
  }

  /** The report. */
  finish(): ReconciliationReport {
    const issuerId = this.#issuerId;
    const pkg = this.#pkg;
    const asOf = this.#asOf;
    const tolerance = new Dec(this.#tolerance);
    const reading = this.#reading;
    // The holdings replay the package's state as of the date first: that replay's states are gone
    // before the grants' replay builds its own, rather than held beside them.
    const ocfHoldings = holdingsAsOf(pkg, asOf, reading.reading);
    // One grant of the package at a time: its tranches are not held once compared.
    const replay = new GrantReplay(pkg, reading.reading);
    const byLabel = rootsByCustomId(replay);
    const differences: Difference[] = [];
    const grants: GrantRow[] = [];
    const sourceCurve = new CurveBuilder();
    const ocfCurve = new CurveBuilder();
    const accounted = new Set<string>();
    for (const summary of [...this.#awards, ...this.#units]) {
      const { kind, id: recordId, figures: expected } = summary;
      const tranches = unpackTranches(summary.tranches);
      sourceCurve.add(tranches);
      // Ours are found by id; another system's by the record's label as its custom_id.
      const ownId = securityIdOf(kind, recordId);
      const labelled = summary.securityLabel === undefined ? undefined : byLabel.get(summary.securityLabel);
      const security = replay.grant(ownId) ?? (labelled === undefined ? undefined : replay.grant(labelled));
      const securityId = security?.securityId ?? ownId;
      const about = { issuerId, kind, recordId, securityId };
      if (security === undefined) {
        grants.push({ key: recordId, kind, securityId, expected, actual: {} });
        differences.push({
          section: "source-vs-ocf",
          code: "MISSING_IN_OCF",
          ...about,
          field: "security",
          expected: securityId,
          actual: null,
          message: `${recordLabel(kind, recordId)} has no security ${describeValue(securityId)} in the OCF package`,
        });
        continue;
      }
      if (accounted.has(securityId)) {
        differences.push({
          section: "source-vs-ocf",
          code: "MISSING_IN_OCF",
          ...about,
          field: "security",
          expected: recordLabel(kind, recordId),
          actual: null,
          message: `${recordLabel(kind, recordId)} matches security ${describeValue(securityId)}, which another record already matched`,
        });
        continue;
      }
      accounted.add(securityId);
      for (const id of security.resultingSecurityIds) accounted.add(id);
      // Only the figures the source states, so that totals add up the same grants on both sides.
      const replayedFigures: Figures = { ...security.figures, vested: vestedBy(security.tranches, asOf) };
      const actual: Figures = {};
      for (const name of FIGURE_NAMES) if (expected[name] !== undefined && replayedFigures[name] !== undefined) actual[name] = replayedFigures[name];
      ocfCurve.add(security.tranches);
      grants.push({ key: recordId, kind, securityId, expected, actual });
      for (const figure of COMPARED) {
        const stated = expected[figure];
        const found = actual[figure];
        // Figures only a unit has, and counters the source did not break down, are not compared.
        if (stated === undefined || found === undefined) continue;
        if (figure === "outstanding" && !outstandingUnexplained(actual)) continue;
        if (withinTolerance(stated, found, tolerance)) continue;
        differences.push({
          section: "source-vs-ocf",
          code: "FIGURE_MISMATCH",
          ...about,
          field: figure,
          expected: stated,
          actual: found,
          message: `${recordLabel(kind, recordId)}: ${figureLabel(figure, asOf)} is ${stated} in the source but ${found} in the OCF package (difference ${formatDecimal(new Dec(found).minus(stated))})`,
        });
      }
      const { expected: onlySource, actual: onlyOcf } = trancheDifference(tranches, security.tranches);
      if (onlySource.length > 0 || onlyOcf.length > 0) {
        differences.push({
          section: "source-vs-ocf",
          code: "VESTING_DATES",
          ...about,
          field: "vesting",
          expected: describeTranches(onlySource),
          actual: describeTranches(onlyOcf),
          message: `${recordLabel(kind, recordId)}: the source vests ${describeTranches(onlySource)} where the OCF package vests ${describeTranches(onlyOcf)}`,
        });
      }
    }
    for (const securityId of replay.roots) {
      const security = accounted.has(securityId) ? undefined : replay.grant(securityId);
      if (security === undefined) continue;
      grants.push({ key: securityId, securityId, expected: {}, actual: security.figures });
      ocfCurve.add(security.tranches);
      differences.push({
        section: "source-vs-ocf",
        code: "EXTRA_IN_OCF",
        issuerId,
        securityId,
        field: "security",
        expected: null,
        actual: securityId,
        message: `the OCF package has security ${describeValue(securityId)} (${security.issuanceType}), which no source record accounts for`,
      });
    }
    differences.push(...lineageDifferences(issuerId, { reading: reading.reading, problems: replay.problems }, "source-vs-ocf", ""));
    for (const summary of [...this.#awards, ...this.#units]) differences.push(...summary.consistency);
    differences.push(...this.#invalid);
    const holdings = addHoldings([...this.#awards, ...this.#units].map((s) => s.holding), SELL_TO_COVER_STAKEHOLDER_ID);
    return {
      mode: "source-vs-ocf",
      issuerId,
      asOf,
      tolerance: formatDecimal(tolerance),
      labels: this.#options.labels ?? { expected: "source", actual: `OCF ${pkg.location}` },
      totals: { expected: totalsOf(grants.map((g) => g.expected)), actual: totalsOf(grants.map((g) => g.actual)) },
      grants,
      holders: holderRows(holdings, ocfHoldings),
      reading,
      differences,
      vestingCurves: { expected: sourceCurve.points(), actual: ocfCurve.points() },
      notes: replay.notes(),
    };
  }
}

const NO_DIFFERENCES: readonly Difference[] = Object.freeze([]);

/**
 * The reading a package is read by: the option when given, else what the packages declare (all of
 * them must agree), else the documents.
 */
export function readingFor(options: ReconcileOptions, packages: readonly PackageObjects[]): ReconciliationReport["reading"] {
  if (options.reader !== undefined) {
    if (options.reader !== "documents" && options.reader !== "same-security") {
      throw new ReconcileInputError(`reader ${describeValue(options.reader)} is neither "documents" nor "same-security"`);
    }
    return { reading: options.reader, from: "option" };
  }
  const declared = new Set(packages.map((p) => packageLineage(p)).filter((r): r is Lineage => r !== undefined));
  const [only] = declared;
  return declared.size === 1 && only !== undefined ? { reading: only, from: "declared" } : { reading: "documents", from: "default" };
}

/** The first security of each grant of a package by the `custom_id` of its first issuance, where that is unique. */
function rootsByCustomId(replay: GrantReplay): Map<string, string> {
  const byLabel = new Map<string, string>();
  const twice = new Set<string>();
  for (const id of replay.roots) {
    const issuance = replay.issuance(id);
    const label = issuance === undefined ? undefined : stringAt(issuance, "custom_id");
    if (label === undefined) continue;
    if (byLabel.has(label)) twice.add(label);
    byLabel.set(label, id);
  }
  for (const label of twice) byLabel.delete(label);
  return byLabel;
}

/** One `OCF_LINEAGE` difference per problem the reading found in a package. */
export function lineageDifferences(issuerId: string, replayed: { reading: Lineage; problems: readonly string[] }, section: Difference["section"], which: string): Difference[] {
  return replayed.problems.map((problem) => ({
    section,
    code: "OCF_LINEAGE" as const,
    issuerId,
    field: "lineage",
    expected: null,
    actual: problem,
    message: `${which}read by the ${replayed.reading} reading, ${problem}`,
  }));
}

/** Both sides' holdings per stakeholder, sorted by id; a stakeholder with nothing on either side is left out. */
export function holderRows(
  expected: ReadonlyMap<string, { shares: Dec | DecimalString; units: Dec | DecimalString }>,
  actual: ReadonlyMap<string, { shares: Dec | DecimalString; units: Dec | DecimalString }>,
): HolderRow[] {
  const ids = [...new Set([...expected.keys(), ...actual.keys()])].sort();
  const zero = { shares: new Dec(0), units: new Dec(0) };
  const exact = (h: { shares: Dec | DecimalString; units: Dec | DecimalString } | undefined) => (h === undefined ? zero : { shares: new Dec(h.shares), units: new Dec(h.units) });
  const rows: HolderRow[] = [];
  for (const id of ids) {
    const e = exact(expected.get(id));
    const a = exact(actual.get(id));
    if (e.shares.isZero() && e.units.isZero() && a.shares.isZero() && a.units.isZero()) continue;
    rows.push({
      stakeholderId: id,
      expected: { shares: formatDecimal(e.shares), units: formatDecimal(e.units) },
      actual: { shares: formatDecimal(a.shares), units: formatDecimal(a.units) },
    });
  }
  return rows;
}

/** The date and tolerance to use, checked. */
export function resolveOptions(options: ReconcileOptions, packageAsOf: CalendarDate): { asOf: CalendarDate; tolerance: Dec; counterVested: boolean } {
  if (options.asOf !== undefined && !isCalendarDate(options.asOf)) {
    throw new ReconcileInputError(`asOf ${describeValue(options.asOf)} is not a real YYYY-MM-DD date`);
  }
  const text = options.tolerance ?? "0";
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text)) {
    throw new ReconcileInputError(`tolerance ${describeValue(text)} is not a non-negative decimal such as "0" or "0.5"`);
  }
  return { asOf: options.asOf ?? packageAsOf, tolerance: new Dec(text), counterVested: options.asOf === undefined };
}

/**
 * Whether a grant's outstanding figure says something its other figures do not: it is issued −
 * released − canceled unless the package lost (or invented) a remainder, as a cancellation without the
 * balance security the documents require does. Otherwise a difference in outstanding follows from one
 * already reported, and is not reported twice.
 */
export function outstandingUnexplained(figures: Figures): boolean {
  const { issued, released, canceled, outstanding } = figures;
  if (issued === undefined || outstanding === undefined) return false;
  return !new Dec(issued).minus(released ?? "0").minus(canceled ?? "0").equals(outstanding);
}

/** `|a − b| ≤ tolerance`, exactly. */
export function withinTolerance(a: DecimalString, b: DecimalString, tolerance: Dec): boolean {
  if (sameDecimal(a, b)) return true;
  return new Dec(a).minus(b).abs().lte(tolerance);
}

/** The sum of each figure over the rows that state it. */
export function totalsOf(rows: readonly Figures[]): Figures {
  const totals: Figures = {};
  for (const name of FIGURE_NAMES) {
    const values: DecimalString[] = [];
    for (const row of rows) {
      const value = row[name];
      if (value !== undefined) values.push(value);
    }
    if (values.length > 0) totals[name] = sumDecimalStrings(values);
  }
  return totals;
}

function figureLabel(figure: FigureName, asOf: CalendarDate): string {
  return figure === "vested" ? `vested as of ${asOf}` : figure;
}
