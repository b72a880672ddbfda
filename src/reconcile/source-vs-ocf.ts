/**
 * Source against OCF: every award and unit of the source is matched with its security in the package
 * (`rsa-<id>` / `rsu-<id>`, the mapping's ids) and each counter is compared, exactly (up to the
 * tolerance), with the figure a replay of the package's transactions derives. Then the source's own
 * consistency is checked (`checkSourceConsistency`). Pure.
 */
import { isCalendarDate, type CalendarDate } from "../dates.js";
import { Dec, formatDecimal, type DecimalString } from "../decimal.js";
import { describeValue } from "../errors.js";
import { securityIdOf } from "../mapping/ids.js";
import type { ParsedRecord } from "../source/records.js";
import { checkSourceConsistency } from "./consistency.js";
import { ReconcileInputError, type PackageObjects } from "./package-objects.js";
import { replayPackage } from "./replay.js";
import { sourceGrant } from "./source-figures.js";
import { cumulativeCurve, describeTranches, trancheDifference, vestedBy } from "./tranches.js";
import { FIGURE_NAMES, recordLabel, type Difference, type SourceIssuer, type FigureName, type Figures, type GrantRow, type ReconcileOptions, type ReconciliationReport, type Tranche } from "./types.js";

/** Figures compared between source and OCF; `outstanding` follows from the others and is not. */
const COMPARED: readonly FigureName[] = FIGURE_NAMES.filter((name) => name !== "outstanding");

/**
 * Reconciles one issuer's source records with an OCF package of that issuer. Labels default to
 * `"source"` and `"OCF <package location>"`.
 *
 * @throws {ReconcileInputError} for an invalid `asOf` or `tolerance`.
 * @example
 * const pkg = packageObjects(await readOcfPackage("out/7"));
 * const report = reconcileSourceWithOcf({ issuerId: "7", awards, units }, pkg);
 * if (report.differences.length > 0) process.exitCode = 1;
 */
export function reconcileSourceWithOcf(source: SourceIssuer, pkg: PackageObjects, options: ReconcileOptions = {}): ReconciliationReport {
  const { asOf, tolerance, counterVested } = resolveOptions(options, pkg.asOf);
  const { issuerId } = source;
  const replayed = replayPackage(pkg);
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
    const securityId = securityIdOf(kind, record.id);
    const grant = sourceGrant(parsed);
    if (!counterVested) grant.figures.vested = formatDecimal(vestedBy(grant.tranches, asOf));
    sourceCurves.push(grant.tranches);
    const security = replayed.securities.get(securityId);
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
    accounted.add(securityId);
    for (const id of security.resultingSecurityIds) accounted.add(id);
    // Only the figures the source states, so that totals add up the same grants on both sides.
    const replayedFigures: Figures = { ...security.figures, vested: formatDecimal(vestedBy(security.tranches, asOf)) };
    const actual: Figures = {};
    for (const name of FIGURE_NAMES) if (grant.figures[name] !== undefined && replayedFigures[name] !== undefined) actual[name] = replayedFigures[name];
    ocfCurves.push(security.tranches);
    grants.push({ key: record.id, kind, securityId, expected: grant.figures, actual });
    for (const figure of COMPARED) {
      const expected = grant.figures[figure];
      const found = actual[figure];
      // Figures only a unit has, and counters the source did not break down, are not compared.
      if (expected === undefined || found === undefined) continue;
      if (kind === "restrictedStockAward" && (figure === "forfeited" || figure === "expired")) continue;
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
  differences.push(...checkSourceConsistency(source));
  return {
    mode: "source-vs-ocf",
    issuerId,
    asOf,
    tolerance: formatDecimal(tolerance),
    labels: options.labels ?? { expected: "source", actual: `OCF ${pkg.location}` },
    totals: { expected: totalsOf(grants.map((g) => g.expected)), actual: totalsOf(grants.map((g) => g.actual)) },
    grants,
    differences,
    vestingCurves: { expected: cumulativeCurve(sourceCurves), actual: cumulativeCurve(ocfCurves) },
    notes: replayed.notes,
  };
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

/** `|a − b| ≤ tolerance`, exactly. */
export function withinTolerance(a: DecimalString, b: DecimalString, tolerance: Dec): boolean {
  return new Dec(a).minus(b).abs().lte(tolerance);
}

/** The sum of each figure over the rows that state it. */
export function totalsOf(rows: readonly Figures[]): Figures {
  const totals: Figures = {};
  for (const name of FIGURE_NAMES) {
    const values = rows.flatMap((row) => (row[name] === undefined ? [] : [row[name]]));
    if (values.length > 0) totals[name] = formatDecimal(values.reduce((sum, v) => sum.plus(v), new Dec(0)));
  }
  return totals;
}

function figureLabel(figure: FigureName, asOf: CalendarDate): string {
  return figure === "vested" ? `vested as of ${asOf}` : figure;
}
