/**
 * Source against OCF: every award and unit of the source is matched with its grant in the package (the
 * chain from the issuance of `rsa-<id>` / `rsu-<id>`, the mapping's ids; else from the issuance whose
 * `custom_id` is the record's `securityLabel`) and each counter is compared, exactly (up to the
 * tolerance), with the figure a replay of the package's transactions derives under the reading used
 * (`replay.ts`). The package's lineage problems under that reading are differences too, and the
 * holdings of every stakeholder are set side by side. Then the source's own consistency is checked
 * (`checkSourceConsistency`). Pure.
 */
import { isCalendarDate, type CalendarDate } from "../dates.js";
import { Dec, formatDecimal, sameDecimal, sumDecimalStrings, type DecimalString } from "../decimal.js";
import { describeValue } from "../errors.js";
import { SELL_TO_COVER_STAKEHOLDER_ID, securityIdOf } from "../mapping/ids.js";
import type { ParsedRecord } from "../source/records.js";
import { checkSourceConsistency } from "./consistency.js";
import { ReconcileInputError, type PackageObjects } from "./package-objects.js";
import { holdingsAsOf, packageLineage, replayPackage, type ReplayedPackage } from "./replay.js";
import type { Lineage } from "../ocf/security-ledger.js";
import { sourceGrant, sourceHoldings } from "./source-figures.js";
import { stringAt } from "./package-objects.js";
import { cumulativeCurve, describeTranches, trancheDifference, vestedBy } from "./tranches.js";
import {
  FIGURE_NAMES,
  recordLabel,
  type Difference,
  type FigureName,
  type Figures,
  type GrantRow,
  type HolderRow,
  type ReconcileOptions,
  type ReconciliationReport,
  type SourceIssuer,
  type Tranche,
} from "./types.js";

/** Figures compared between source and OCF: a package cannot state forfeited and expired apart. */
const COMPARED: readonly FigureName[] = FIGURE_NAMES.filter((name) => name !== "forfeited" && name !== "expired");

/**
 * Reconciles one issuer's source records with an OCF package of that issuer. Labels default to
 * `"source"` and `"OCF <package location>"`.
 *
 * @throws {ReconcileInputError} for an invalid `asOf` or `tolerance`.
 * @example
 * const pkg = await loadPackageObjects("out/7");
 * const report = reconcileSourceWithOcf(await loadSourceFromApi(client, "7"), pkg);
 * if (report.differences.length > 0) process.exitCode = 1;
 */
export function reconcileSourceWithOcf(source: SourceIssuer, pkg: PackageObjects, options: ReconcileOptions = {}): ReconciliationReport {
  const { asOf, tolerance, counterVested } = resolveOptions(options, pkg.asOf);
  const { issuerId } = source;
  const reading = readingFor(options, [pkg]);
  const replayed = replayPackage(pkg, reading.reading);
  const byLabel = rootsByCustomId(replayed);
  const differences: Difference[] = [];
  const grants: GrantRow[] = [];
  const sourceCurves: Tranche[][] = [];
  const ocfCurves: Tranche[][] = [];
  const accounted = new Set<string>();
  const records: ParsedRecord[] = [
    ...source.awards.map((record) => ({ kind: "restrictedStockAward" as const, record })),
    ...source.units.map((record) => ({ kind: "restrictedStockUnit" as const, record })),
  ];
  for (const parsed of records) {
    const { kind, record } = parsed;
    const grant = sourceGrant(parsed);
    if (!counterVested) grant.figures.vested = vestedBy(grant.tranches, asOf);
    sourceCurves.push(grant.tranches);
    // Ours are found by id; another system's by the record's label as its custom_id.
    const ownId = securityIdOf(kind, record.id);
    const security = replayed.securities.get(ownId) ?? (record.securityLabel === undefined ? undefined : byLabel.get(record.securityLabel));
    const securityId = security?.securityId ?? ownId;
    const about = { issuerId, kind, recordId: record.id, securityId };
    if (security === undefined) {
      grants.push({ key: record.id, kind, securityId, expected: grant.figures, actual: {} });
      differences.push({
        section: "source-vs-ocf",
        code: "MISSING_IN_OCF",
        ...about,
        field: "security",
        expected: securityId,
        actual: null,
        message: `${recordLabel(kind, record.id)} has no security ${describeValue(securityId)} in the OCF package`,
      });
      continue;
    }
    if (accounted.has(securityId)) {
      differences.push({
        section: "source-vs-ocf",
        code: "MISSING_IN_OCF",
        ...about,
        field: "security",
        expected: recordLabel(kind, record.id),
        actual: null,
        message: `${recordLabel(kind, record.id)} matches security ${describeValue(securityId)}, which another record already matched`,
      });
      continue;
    }
    accounted.add(securityId);
    for (const id of security.resultingSecurityIds) accounted.add(id);
    // Only the figures the source states, so that totals add up the same grants on both sides.
    const replayedFigures: Figures = { ...security.figures, vested: vestedBy(security.tranches, asOf) };
    const actual: Figures = {};
    for (const name of FIGURE_NAMES) if (grant.figures[name] !== undefined && replayedFigures[name] !== undefined) actual[name] = replayedFigures[name];
    ocfCurves.push(security.tranches);
    grants.push({ key: record.id, kind, securityId, expected: grant.figures, actual });
    for (const figure of COMPARED) {
      const expected = grant.figures[figure];
      const found = actual[figure];
      // Figures only a unit has, and counters the source did not break down, are not compared.
      if (expected === undefined || found === undefined) continue;
      if (figure === "outstanding" && !outstandingUnexplained(actual)) continue;
      if (withinTolerance(expected, found, tolerance)) continue;
      differences.push({
        section: "source-vs-ocf",
        code: "FIGURE_MISMATCH",
        ...about,
        field: figure,
        expected,
        actual: found,
        message: `${recordLabel(kind, record.id)}: ${figureLabel(figure, asOf)} is ${expected} in the source but ${found} in the OCF package (difference ${formatDecimal(new Dec(found).minus(expected))})`,
      });
    }
    const { expected: onlySource, actual: onlyOcf } = trancheDifference(grant.tranches, security.tranches);
    if (onlySource.length > 0 || onlyOcf.length > 0) {
      differences.push({
        section: "source-vs-ocf",
        code: "VESTING_DATES",
        ...about,
        field: "vesting",
        expected: describeTranches(onlySource),
        actual: describeTranches(onlyOcf),
        message: `${recordLabel(kind, record.id)}: the source vests ${describeTranches(onlySource)} where the OCF package vests ${describeTranches(onlyOcf)}`,
      });
    }
  }
  for (const [securityId, security] of replayed.securities) {
    if (accounted.has(securityId)) continue;
    grants.push({ key: securityId, securityId, expected: {}, actual: security.figures });
    ocfCurves.push(security.tranches);
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
  differences.push(...lineageDifferences(issuerId, replayed, "source-vs-ocf", ""));
  differences.push(...checkSourceConsistency(source));
  return {
    mode: "source-vs-ocf",
    issuerId,
    asOf,
    tolerance: formatDecimal(tolerance),
    labels: options.labels ?? { expected: "source", actual: `OCF ${pkg.location}` },
    totals: { expected: totalsOf(grants.map((g) => g.expected)), actual: totalsOf(grants.map((g) => g.actual)) },
    grants,
    holders: holderRows(sourceHoldings(source, asOf, SELL_TO_COVER_STAKEHOLDER_ID), holdingsAsOf(pkg, asOf, reading.reading)),
    reading,
    differences,
    vestingCurves: { expected: cumulativeCurve(sourceCurves), actual: cumulativeCurve(ocfCurves) },
    notes: replayed.notes,
  };
}

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

/** The grants of a package by the `custom_id` of their first issuance, where it is unique. */
function rootsByCustomId(replayed: ReplayedPackage): Map<string, ReplayedPackage["securities"] extends Map<string, infer S> ? S : never> {
  const byLabel = new Map<string, ReplayedPackage["securities"] extends Map<string, infer S> ? S : never>();
  const twice = new Set<string>();
  for (const security of replayed.securities.values()) {
    const label = stringAt(security.issuance, "custom_id");
    if (label === undefined) continue;
    if (byLabel.has(label)) twice.add(label);
    byLabel.set(label, security);
  }
  for (const label of twice) byLabel.delete(label);
  return byLabel;
}

/** One `OCF_LINEAGE` difference per problem the reading found in a package. */
export function lineageDifferences(issuerId: string, replayed: ReplayedPackage, section: Difference["section"], which: string): Difference[] {
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
