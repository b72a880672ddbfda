/**
 * OCF against OCF: two packages of one issuer (ours and one exported by another system). Securities
 * are matched by `security_id`, then by `custom_id`, then by stakeholder, issue date and quantity
 * (each later pass only among those still unmatched, and only on a key unique on both sides). For
 * each match the issuance's fields and the replayed figures are compared; securities on one side only
 * are reported; and totals (issued, outstanding) per stock class, stock plan and stakeholder. Each
 * package is read by `ReconcileOptions.reader`, else by what it declares, else by the documents, grant
 * by grant (a chain of securities from its first issuance, with its payouts above target: `replay.ts`).
 * Pure.
 */
import { Dec, formatDecimal } from "../decimal.js";
import { describeValue } from "../errors.js";
import { isRecord, stringAt, type JsonRecord, type PackageObjects } from "./package-objects.js";
import { holdingsAsOf, replayPackage, type ReplayedSecurity } from "./replay.js";
import { holderRows, lineageDifferences, outstandingUnexplained, readingFor, resolveOptions, totalsOf, withinTolerance } from "./source-vs-ocf.js";
import { cumulativeCurve, describeTranches, trancheDifference, vestedBy } from "./tranches.js";
import type { Difference, Figures, FigureName, GrantRow, ReconcileOptions, ReconciliationReport } from "./types.js";

/** Issuance fields compared as text (ids, dates, kinds). */
const TEXT_FIELDS = ["object_type", "custom_id", "stakeholder_id", "stock_class_id", "stock_plan_id", "date", "board_approval_date", "issuance_type", "compensation_type"] as const;
/** Replayed figures compared (issued is the issuance's `quantity`, compared as a field). */
const FIGURES: readonly FigureName[] = ["vested", "released", "netSettled", "soldToCover", "canceled", "returnedToPool", "outstanding"];

/**
 * Reconciles two OCF packages of the same issuer; `asOf` defaults to the first package's `as_of`,
 * labels to the packages' locations.
 *
 * @throws {ReconcileInputError} for an invalid `asOf` or `tolerance`.
 * @example
 * ```ts
 * import { loadPackageObjects, reconcileOcfWithOcf, reportAgrees } from "ocf-sync";
 * const report = reconcileOcfWithOcf(await loadPackageObjects("out/7"), await loadPackageObjects("theirs/7.ocf.zip"));
 * console.log(reportAgrees(report) ? "same figures" : `${report.differences.length} differences`);
 * ```
 *
 * @category Reconcile
 */
export function reconcileOcfWithOcf(ours: PackageObjects, theirs: PackageObjects, options: ReconcileOptions = {}): ReconciliationReport {
  const { asOf, tolerance } = resolveOptions(options, ours.asOf);
  const issuerId = ours.issuerObjectId ?? theirs.issuerObjectId ?? "";
  // Each package as it declares: a documents package and a same-security one of the same cap table
  // hold the same figures, and reading one by the other's convention would report differences that are not.
  const reading = readingFor(options, [ours]);
  const otherReading = readingFor(options, [theirs]);
  const left = replayPackage(ours, reading.reading);
  const right = replayPackage(theirs, otherReading.reading);
  const pairs = matchSecurities([...left.securities.values()], [...right.securities.values()]);
  const differences: Difference[] = [];
  const grants: GrantRow[] = [];
  const figuresOf = (s: ReplayedSecurity): Figures => ({ ...s.figures, vested: vestedBy(s.tranches, asOf) });
  for (const { left: a, right: b, by } of pairs) {
    if (a !== undefined && b === undefined) {
      grants.push({ key: a.securityId, securityId: a.securityId, expected: figuresOf(a), actual: {} });
      differences.push(missing("MISSING_IN_OTHER", issuerId, a.securityId, `security ${describeValue(a.securityId)} (${a.issuanceType}) has no match in the other package`));
      continue;
    }
    if (a === undefined || b === undefined) {
      if (b === undefined) continue;
      grants.push({ key: b.securityId, securityId: b.securityId, expected: {}, actual: figuresOf(b) });
      differences.push(missing("EXTRA_IN_OTHER", issuerId, b.securityId, `the other package's security ${describeValue(b.securityId)} (${b.issuanceType}) has no match in the first package`));
      continue;
    }
    const expected = figuresOf(a);
    const actual = figuresOf(b);
    grants.push({ key: a.securityId, securityId: a.securityId, expected, actual });
    const label = a.securityId === b.securityId ? describeValue(a.securityId) : `${describeValue(a.securityId)} (matched by ${by} with ${describeValue(b.securityId)})`;
    const field = (name: string, x: string | null, y: string | null): void => {
      differences.push({
        section: "ocf-vs-ocf",
        code: "FIELD_MISMATCH",
        issuerId,
        securityId: a.securityId,
        field: name,
        expected: x,
        actual: y,
        message: `security ${label}: ${name} is ${x ?? "absent"} in the first package but ${y ?? "absent"} in the other`,
      });
    };
    for (const name of TEXT_FIELDS) {
      const x = stringAt(a.issuance, name) ?? null;
      const y = stringAt(b.issuance, name) ?? null;
      if (x !== y) field(name, x, y);
    }
    const x = expected.issued ?? "0";
    const y = actual.issued ?? "0";
    if (!withinTolerance(x, y, tolerance)) field("quantity", x, y);
    const priceA = priceOf(a.issuance);
    const priceB = priceOf(b.issuance);
    if (priceA !== priceB && (priceA === null || priceB === null || !samePrice(a.issuance, b.issuance))) field("share_price", priceA, priceB);
    for (const name of FIGURES) {
      if (name === "outstanding" && !outstandingUnexplained(expected) && !outstandingUnexplained(actual)) continue;
      const fx = expected[name] ?? "0";
      const fy = actual[name] ?? "0";
      if (!withinTolerance(fx, fy, tolerance)) field(name === "vested" ? `vested as of ${asOf}` : name, fx, fy);
    }
    const dates = trancheDifference(a.tranches, b.tranches);
    if (dates.expected.length > 0 || dates.actual.length > 0) {
      differences.push({
        section: "ocf-vs-ocf",
        code: "VESTING_DATES",
        issuerId,
        securityId: a.securityId,
        field: "vesting",
        expected: describeTranches(dates.expected),
        actual: describeTranches(dates.actual),
        message: `security ${label}: the first package vests ${describeTranches(dates.expected)} where the other vests ${describeTranches(dates.actual)}`,
      });
    }
  }
  differences.push(...compareTotals(issuerId, [...left.securities.values()], [...right.securities.values()], tolerance));
  differences.push(...lineageDifferences(issuerId, left, "ocf-vs-ocf", "the first package, "), ...lineageDifferences(issuerId, right, "ocf-vs-ocf", "the other package, "));
  const asOfHoldings = (pkg: PackageObjects, used: ReconciliationReport["reading"]) => holdingsAsOf(pkg, asOf, used.reading);
  return {
    mode: "ocf-vs-ocf",
    issuerId,
    asOf,
    tolerance: formatDecimal(tolerance),
    labels: options.labels ?? { expected: ours.location, actual: theirs.location },
    totals: { expected: totalsOf(grants.map((g) => g.expected)), actual: totalsOf(grants.map((g) => g.actual)) },
    grants,
    holders: holderRows(asOfHoldings(ours, reading), asOfHoldings(theirs, otherReading)),
    reading,
    ...(otherReading.reading === reading.reading ? {} : { otherReading }),
    differences,
    vestingCurves: {
      expected: cumulativeCurve([...left.securities.values()].map((s) => s.tranches)),
      actual: cumulativeCurve([...right.securities.values()].map((s) => s.tranches)),
    },
    notes: [...left.notes, ...right.notes.map((n) => `other package: ${n}`)],
  };
}

/** A pair of matched securities, or one side alone. */
interface Pair {
  left?: ReplayedSecurity;
  right?: ReplayedSecurity;
  by?: "security_id" | "custom_id" | "stakeholder, date and quantity";
}

/** The three matching passes; the result lists the first package's order, then the other's leftovers. */
export function matchSecurities(left: readonly ReplayedSecurity[], right: readonly ReplayedSecurity[]): Pair[] {
  const matched = new Map<ReplayedSecurity, Pair>();
  const taken = new Set<ReplayedSecurity>();
  const pass = (by: NonNullable<Pair["by"]>, keyOf: (s: ReplayedSecurity) => string | undefined): void => {
    const index = (side: readonly ReplayedSecurity[], skip: (s: ReplayedSecurity) => boolean): Map<string, ReplayedSecurity | null> => {
      const map = new Map<string, ReplayedSecurity | null>();
      for (const s of side) {
        if (skip(s)) continue;
        const key = keyOf(s);
        if (key === undefined) continue;
        // null marks a key held twice: ambiguous, so not used for matching.
        map.set(key, map.has(key) ? null : s);
      }
      return map;
    };
    const rights = index(right, (s) => taken.has(s));
    for (const [key, a] of index(left, (s) => matched.has(s))) {
      const b = rights.get(key);
      if (a === null || b === null || b === undefined) continue;
      matched.set(a, { left: a, right: b, by });
      taken.add(b);
    }
  };
  pass("security_id", (s) => s.securityId);
  pass("custom_id", (s) => stringAt(s.issuance, "custom_id"));
  pass("stakeholder, date and quantity", (s) => {
    const stakeholder = stringAt(s.issuance, "stakeholder_id");
    const date = stringAt(s.issuance, "date");
    return stakeholder === undefined || date === undefined ? undefined : JSON.stringify([stakeholder, date, s.figures.issued ?? ""]);
  });
  return [...left.map((a) => matched.get(a) ?? { left: a }), ...right.filter((b) => !taken.has(b)).map((b) => ({ right: b }))];
}

function missing(code: "MISSING_IN_OTHER" | "EXTRA_IN_OTHER", issuerId: string, securityId: string, message: string): Difference {
  const here = code === "MISSING_IN_OTHER";
  return { section: "ocf-vs-ocf", code, issuerId, securityId, field: "security", expected: here ? securityId : null, actual: here ? null : securityId, message };
}

/** `"0.25 USD"`, or null without a price. */
function priceOf(issuance: JsonRecord): string | null {
  const price = issuance.share_price;
  if (!isRecord(price)) return null;
  return `${String(price.amount)} ${String(price.currency)}`;
}

function samePrice(a: JsonRecord, b: JsonRecord): boolean {
  const pa = a.share_price as JsonRecord;
  const pb = b.share_price as JsonRecord;
  const amountA = stringAt(pa, "amount");
  const amountB = stringAt(pb, "amount");
  return pa.currency === pb.currency && amountA !== undefined && amountB !== undefined && new Dec(amountA).equals(amountB);
}

/** Issued and outstanding per stock class, plan and stakeholder id; one difference per group and figure that differ. */
function compareTotals(issuerId: string, left: readonly ReplayedSecurity[], right: readonly ReplayedSecurity[], tolerance: Dec): Difference[] {
  const out: Difference[] = [];
  for (const [group, key] of [["stock class", "stock_class_id"], ["stock plan", "stock_plan_id"], ["stakeholder", "stakeholder_id"]] as const) {
    const sums = (side: readonly ReplayedSecurity[]): Map<string, { issued: Dec; outstanding: Dec }> => {
      const map = new Map<string, { issued: Dec; outstanding: Dec }>();
      for (const s of side) {
        const id = stringAt(s.issuance, key);
        if (id === undefined) continue;
        const entry = map.get(id) ?? { issued: new Dec(0), outstanding: new Dec(0) };
        map.set(id, { issued: entry.issued.plus(s.figures.issued ?? "0"), outstanding: entry.outstanding.plus(s.figures.outstanding ?? "0") });
      }
      return map;
    };
    const a = sums(left);
    const b = sums(right);
    const ids = [...new Set([...a.keys(), ...b.keys()])].sort();
    for (const id of ids) {
      for (const figure of ["issued", "outstanding"] as const) {
        const x = formatDecimal(a.get(id)?.[figure] ?? new Dec(0));
        const y = formatDecimal(b.get(id)?.[figure] ?? new Dec(0));
        if (withinTolerance(x, y, tolerance)) continue;
        out.push({
          section: "ocf-vs-ocf",
          code: "TOTAL_MISMATCH",
          issuerId,
          field: `${key} ${id} ${figure}`,
          expected: x,
          actual: y,
          message: `${group} ${describeValue(id)}: ${figure} totals ${x} in the first package but ${y} in the other`,
        });
      }
    }
  }
  return out;
}
