/**
 * A reconciliation as one self-contained HTML file: inline CSS and inline SVG, no script, no external
 * asset, no network. Per issuer: which reading the OCF side was read with, the totals on both sides,
 * every holder's shares and units on both sides, every difference, and a chart of vested shares over
 * time from both sides with the difference between them in a panel of its own (so that a difference
 * too small to see between two curves of millions still shows). Every value from the data is
 * HTML-escaped; every figure is shown exactly as the report holds it, with thousands separators.
 * Chart coordinates are computed with decimals (share counts are never JS numbers); only pixel
 * positions and day offsets are numbers.
 */
import type { DocumentStamp } from "../document-stamp.js";
import { terminalSafe } from "../errors.js";
import { compareIso, parseUtcDateTime, utcDateTimeToEpochMs, type CalendarDate } from "../dates.js";
import { Dec, formatDecimal } from "../decimal.js";
import { FIGURE_LABELS, differingHolders, readingSentence, reportAgrees } from "./render.js";
import { FIGURE_NAMES, type ReconciliationReport, type VestingPoint } from "./types.js";

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  // Control characters and bidirectional overrides of an id or a message, shown rather than obeyed.
  return terminalSafe(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const WIDTH = 760;
const HEIGHT = 300;
const DIFF_HEIGHT = 150;
const PAD = { left: 110, right: 24, top: 16, bottom: 40 };

/**
 * A decimal string with a thousands separator in its whole part: `"1234567.5"` → `"1,234,567.5"`. The
 * digits are the report's, untouched.
 */
export function groupThousands(value: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(value);
  if (m === null) return value;
  return `${m[1] ?? ""}${(m[2] ?? "").replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${m[3] ?? ""}`;
}

const STYLE = `
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:20px}h2{font-size:17px;margin-top:32px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.agree{color:#1a7f37;font-weight:600}.differ{color:#cf222e;font-weight:600}
tr.differ td{background:#ffebe9}
.legend span{display:inline-block;margin-right:16px}.swatch{display:inline-block;width:18px;height:3px;vertical-align:middle;margin-right:4px}
svg text{font:11px system-ui,sans-serif;fill:#57606a}
.stamp{color:#57606a;font-size:12px;margin-top:32px}
`;

/**
 * The HTML report of one or more reconciliations (one section per report). With `stamp`, its footer
 * says which ocf-sync version wrote it and when (`ocf-sync reconcile --html` always gives one).
 *
 * @category Reconcile
 */
export function renderReconciliationHtml(reports: readonly ReconciliationReport[], options: { stamp?: DocumentStamp } = {}): string {
  const total = reports.reduce((n, r) => n + r.differences.length, 0);
  const holders = reports.reduce((n, r) => n + differingHolders(r).length, 0);
  const counted = [
    ...(total === 0 ? [] : [`${total} difference${total === 1 ? "" : "s"}`]),
    ...(holders === 0 ? [] : [`${holders} holder${holders === 1 ? "" : "s"} whose holdings differ`]),
  ];
  const verdict = reports.every(reportAgrees) ? `<p class="agree">Everything agrees.</p>` : `<p class="differ">${counted.join("; ")}.</p>`;
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    // No network: nothing may be fetched, even if a value slipped through escaping.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    "<title>ocf-sync reconciliation</title>",
    `<style>${STYLE}</style></head><body>`,
    "<h1>ocf-sync reconciliation</h1>",
    verdict,
    ...reports.map(section),
    ...(options.stamp === undefined ? [] : [`<footer><p class="stamp">Written by ocf-sync ${escapeHtml(options.stamp.ocfSyncVersion)} at ${escapeHtml(options.stamp.generatedAt)}.</p></footer>`]),
    "</body></html>",
    "",
  ].join("\n");
}

function section(report: ReconciliationReport, index: number): string {
  const { labels } = report;
  const e = escapeHtml;
  const totals = FIGURE_NAMES.flatMap((name) => {
    const x = report.totals.expected[name];
    const y = report.totals.actual[name];
    if (x === undefined && y === undefined) return [];
    const diff = x === undefined || y === undefined ? "" : formatDecimal(new Dec(y).minus(x));
    return [`<tr><th scope="row">${e(FIGURE_LABELS[name])}</th><td class="num">${e(groupThousands(x ?? "-"))}</td><td class="num">${e(groupThousands(y ?? "-"))}</td><td class="num">${e(groupThousands(diff))}</td></tr>`];
  });
  const differing = new Set(differingHolders(report));
  const holders = report.holders.map((h) => {
    const differs = differing.has(h);
    const d = (a: string, b: string): string => groupThousands(formatDecimal(new Dec(b).minus(a)));
    return (
      `<tr${differs ? ' class="differ"' : ""} data-stakeholder="${e(h.stakeholderId)}"><th scope="row">${e(h.stakeholderId)}</th>` +
      `<td class="num">${e(groupThousands(h.expected.shares))}</td><td class="num">${e(groupThousands(h.actual.shares))}</td><td class="num">${e(d(h.expected.shares, h.actual.shares))}</td>` +
      `<td class="num">${e(groupThousands(h.expected.units))}</td><td class="num">${e(groupThousands(h.actual.units))}</td><td class="num">${e(d(h.expected.units, h.actual.units))}</td></tr>`
    );
  });
  const rows = report.differences.map(
    (d) =>
      `<tr><td>${e(d.section)}</td><td>${e(d.code)}</td><td>${e(d.recordId ?? "")}</td><td>${e(d.securityId ?? "")}</td><td>${e(d.field)}</td>` +
      `<td class="num">${e(groupThousands(d.expected ?? ""))}</td><td class="num">${e(groupThousands(d.actual ?? ""))}</td><td>${e(d.message)}</td></tr>`,
  );
  return [
    `<section data-issuer="${e(report.issuerId)}">`,
    `<h2>Issuer ${e(report.issuerId)}</h2>`,
    `<p>${e(report.mode === "source-vs-ocf" ? "Source against OCF" : "OCF against OCF")}: <strong>${e(labels.expected)}</strong> against <strong>${e(labels.actual)}</strong>; vested as of ${e(report.asOf)}; tolerance ${e(report.tolerance)}; ${report.grants.length} grants compared.</p>`,
    `<p class="reading" data-reading="${e(report.reading.reading)}">${e(readingSentence(report))}</p>`,
    "<h3>Totals</h3>",
    `<table class="totals"><thead><tr><th>figure</th><th>${e(labels.expected)}</th><th>${e(labels.actual)}</th><th>difference</th></tr></thead><tbody>`,
    ...totals,
    "</tbody></table>",
    `<h3>Holders as of ${e(report.asOf)} (${report.holders.length}; ${differing.size} differ${differing.size === 1 ? "s" : ""})</h3>`,
    report.holders.length === 0
      ? "<p>No holder on either side.</p>"
      : `<table class="holders"><thead><tr><th>stakeholder</th><th>shares: ${e(labels.expected)}</th><th>shares: ${e(labels.actual)}</th><th>difference</th><th>units: ${e(labels.expected)}</th><th>units: ${e(labels.actual)}</th><th>difference</th></tr></thead><tbody>\n${holders.join("\n")}\n</tbody></table>`,
    `<h3>Differences (${report.differences.length})</h3>`,
    report.differences.length === 0
      ? `<p class="agree">No difference.</p>`
      : `<table class="differences"><thead><tr><th>section</th><th>code</th><th>record</th><th>security</th><th>field</th><th>${e(labels.expected)}</th><th>${e(labels.actual)}</th><th>message</th></tr></thead><tbody>\n${rows.join("\n")}\n</tbody></table>`,
    "<h3>Vested shares over time</h3>",
    chart(report, index),
    ...report.notes.map((n) => `<p class="note">Note: ${e(n)}</p>`),
    "</section>",
  ].join("\n");
}

/** Days since 1970-01-01 of a calendar date, for the x axis (through dates.ts, never a local `Date`). */
function dayOf(date: CalendarDate): number {
  return utcDateTimeToEpochMs(parseUtcDateTime(`${date}T00:00:00Z`)) / 86_400_000;
}

/** Round "nice" tick values from 0 to at least `max`: 1, 2 or 5 times a power of ten apart, 4 to 6 of them. */
function niceTicks(max: Dec): Dec[] {
  if (max.lte(0)) return [new Dec(0)];
  const raw = max.dividedBy(5);
  const power = new Dec(10).pow(raw.abs().log(10).floor());
  const step = [1, 2, 5, 10].map((m) => power.times(m)).find((candidate) => candidate.gte(raw)) ?? power.times(10);
  const ticks: Dec[] = [];
  for (let v = new Dec(0); ticks.length < 12; v = v.plus(step)) {
    ticks.push(v);
    if (v.gte(max)) break;
  }
  return ticks;
}

/** The first day of each year (every `k`-th year, so that at most 8 show) between two dates. */
function yearTicks(first: CalendarDate, last: CalendarDate): CalendarDate[] {
  const from = Number.parseInt(first.slice(0, 4), 10) + 1;
  const to = Number.parseInt(last.slice(0, 4), 10);
  const k = Math.max(1, Math.ceil((to - from + 1) / 8));
  const out: CalendarDate[] = [];
  for (let year = from; year <= to; year += k) out.push(`${String(year).padStart(4, "0")}-01-01` as CalendarDate);
  return out;
}

/** Both cumulative curves at every date either changes on: what the first side, the other and their difference say. */
function alignedCurves(expected: readonly VestingPoint[], actual: readonly VestingPoint[]): { date: CalendarDate; expected: Dec; actual: Dec }[] {
  const dates = [...new Set([...expected, ...actual].map((p) => p.date))].sort(compareIso);
  let i = 0;
  let j = 0;
  let e = new Dec(0);
  let a = new Dec(0);
  return dates.map((date) => {
    while (i < expected.length && compareIso((expected[i] as VestingPoint).date, date) <= 0) e = new Dec((expected[i++] as VestingPoint).vested);
    while (j < actual.length && compareIso((actual[j] as VestingPoint).date, date) <= 0) a = new Dec((actual[j++] as VestingPoint).vested);
    return { date, expected: e, actual: a };
  });
}

function chart(report: ReconciliationReport, index: number): string {
  const { expected, actual } = report.vestingCurves;
  const e = escapeHtml;
  const aligned = alignedCurves(expected, actual);
  const first = aligned[0]?.date;
  const last = aligned.at(-1)?.date;
  if (first === undefined || last === undefined) return `<p>Nothing vests on either side.</p>`;
  // One day of margin on each side so that a single date still has a width.
  const x0 = dayOf(first) - 1;
  const span = dayOf(last) + 1 - x0;
  let max = new Dec(0);
  for (const p of aligned) max = Dec.max(max, p.expected, p.actual);
  const ticks = niceTicks(max);
  const top = ticks.at(-1) ?? new Dec(1);
  const scale = top.isZero() ? new Dec(1) : top;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const px = (date: CalendarDate): number => PAD.left + ((dayOf(date) - x0) / span) * plotW;
  const x = (date: CalendarDate): string => px(date).toFixed(1);
  const y = (vested: Dec | string): string => new Dec(PAD.top + plotH).minus(new Dec(vested).dividedBy(scale).times(plotH)).toDecimalPlaces(1).toFixed(1);
  const step = (points: readonly VestingPoint[]): string => {
    let d = `M${PAD.left} ${y("0")}`;
    for (const p of points) d += ` H${x(p.date)} V${y(p.vested)}`;
    return `${d} H${PAD.left + plotW}`;
  };
  const dots = (points: readonly VestingPoint[], side: string, color: string, label: string): string =>
    points.map((p) => `<circle cx="${x(p.date)}" cy="${y(p.vested)}" r="2.5" fill="${color}" data-side="${side}"><title>${e(label)}: ${e(groupThousands(p.vested))} vested by ${e(p.date)}</title></circle>`).join("");
  const yAxis = ticks.map(
    (v) =>
      `<line x1="${PAD.left}" y1="${y(v)}" x2="${PAD.left + plotW}" y2="${y(v)}" stroke="#eaeef2"/>` +
      `<text class="y-tick" x="${PAD.left - 8}" y="${y(v)}" text-anchor="end" dominant-baseline="middle">${e(groupThousands(formatDecimal(v)))}</text>`,
  );
  const xAxis = yearTicks(first, last).map(
    (d) => `<line x1="${x(d)}" y1="${PAD.top + plotH}" x2="${x(d)}" y2="${PAD.top + plotH + 5}" stroke="#8c959f"/><text class="x-tick" x="${x(d)}" y="${PAD.top + plotH + 18}" text-anchor="middle">${e(d.slice(0, 4))}</text>`,
  );
  const axis = `<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${PAD.left + plotW}" y2="${PAD.top + plotH}" stroke="#8c959f"/><line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + plotH}" stroke="#8c959f"/>`;
  const axisTitles = `<text x="${PAD.left}" y="${HEIGHT - 4}">${e(first)}</text><text x="${PAD.left + plotW}" y="${HEIGHT - 4}" text-anchor="end">${e(last)}</text><text x="14" y="${PAD.top + plotH / 2}" transform="rotate(-90 14 ${PAD.top + plotH / 2})" text-anchor="middle">shares vested (cumulative)</text>`;
  const asOf = compareIso(report.asOf, first) >= 0 && compareIso(report.asOf, last) <= 0
    ? `<line x1="${x(report.asOf)}" y1="${PAD.top}" x2="${x(report.asOf)}" y2="${PAD.top + plotH}" stroke="#bf8700" stroke-dasharray="2 3"/><text x="${x(report.asOf)}" y="${PAD.top + 10}" text-anchor="middle">as of ${e(report.asOf)}</text>`
    : "";
  // The source's vestedQuantity counters, summed, where the package's as-of date is: a counter that
  // disagrees with the events shows as a marker off the curves.
  const counter = report.mode === "source-vs-ocf" ? report.totals.expected.vested : undefined;
  const marker =
    counter === undefined || compareIso(report.asOf, first) < 0 || compareIso(report.asOf, last) > 0
      ? ""
      : `<rect class="counter" x="${(px(report.asOf) - 4).toFixed(1)}" y="${new Dec(y(counter)).minus(4).toFixed(1)}" width="8" height="8" fill="#bf8700"><title>${e(report.labels.expected)}: vestedQuantity counters total ${e(groupThousands(counter))} as of ${e(report.asOf)}</title></rect>`;
  return [
    `<p class="legend"><span><span class="swatch" style="background:#0969da"></span>${e(report.labels.expected)}</span><span><span class="swatch" style="background:#d1242f"></span>${e(report.labels.actual)}</span>${report.mode === "source-vs-ocf" ? `<span><span class="swatch" style="background:#bf8700;height:8px;width:8px"></span>source vestedQuantity counters (total) as of ${e(report.asOf)}</span>` : ""}</p>`,
    `<svg class="vesting-chart" id="vesting-chart-${index}" role="img" aria-label="Vested shares over time" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" xmlns="http://www.w3.org/2000/svg">`,
    ...yAxis,
    axis,
    ...xAxis,
    axisTitles,
    asOf,
    `<path class="series" data-side="expected" d="${step(expected)}" fill="none" stroke="#0969da" stroke-width="2.5"/>`,
    `<path class="series" data-side="actual" d="${step(actual)}" fill="none" stroke="#d1242f" stroke-width="1.5" stroke-dasharray="6 4"/>`,
    dots(expected, "expected", "#0969da", report.labels.expected),
    dots(actual, "actual", "#d1242f", report.labels.actual),
    marker,
    "</svg>",
    differenceChart(report, aligned, { x, years: yearTicks(first, last) }, index),
  ].join("\n");
}

/**
 * The difference of the two curves (the other side minus the first) over time, on its own scale
 * around a zero line: flat on zero when the sides agree, a step where they part.
 */
function differenceChart(
  report: ReconciliationReport,
  aligned: readonly { date: CalendarDate; expected: Dec; actual: Dec }[],
  axes: { x: (date: CalendarDate) => string; years: readonly CalendarDate[] },
  index: number,
): string {
  const e = escapeHtml;
  const diffs = aligned.map((p) => ({ date: p.date, diff: p.actual.minus(p.expected) }));
  let largest = new Dec(0);
  for (const p of diffs) largest = Dec.max(largest, p.diff.abs());
  const ticks = niceTicks(largest);
  const bound = ticks.at(-1)?.isZero() === false ? (ticks.at(-1) as Dec) : new Dec(1);
  const plotW = WIDTH - PAD.left - PAD.right;
  const top = 12;
  const plotH = DIFF_HEIGHT - top - 28;
  const mid = top + plotH / 2;
  const y = (value: Dec): string => new Dec(mid).minus(value.dividedBy(bound).times(plotH / 2)).toDecimalPlaces(1).toFixed(1);
  let d = `M${PAD.left} ${y(new Dec(0))}`;
  for (const p of diffs) d += ` H${axes.x(p.date)} V${y(p.diff)}`;
  d += ` H${PAD.left + plotW}`;
  const nonZero = diffs.filter((p) => !p.diff.isZero());
  const labels = [bound, new Dec(0), bound.negated()].map(
    (v) => `<text class="y-tick" x="${PAD.left - 8}" y="${y(v)}" text-anchor="end" dominant-baseline="middle">${e(groupThousands(formatDecimal(v)))}</text>`,
  );
  const points = nonZero.map((p) => `<circle cx="${axes.x(p.date)}" cy="${y(p.diff)}" r="2.5" fill="#8250df"><title>${e(p.date)}: ${e(report.labels.actual)} minus ${e(report.labels.expected)} = ${e(groupThousands(formatDecimal(p.diff)))}</title></circle>`);
  const summary = nonZero.length === 0 ? sameCurvesSentence(report) : `The sides differ on ${nonZero.length} of ${diffs.length} dates; largest difference ${groupThousands(formatDecimal(largest))} shares.`;
  return [
    `<p class="difference-summary">Difference (${e(report.labels.actual)} minus ${e(report.labels.expected)}): ${e(summary)}</p>`,
    `<svg class="difference-chart" id="difference-chart-${index}" role="img" aria-label="Difference of vested shares over time" width="${WIDTH}" height="${DIFF_HEIGHT}" viewBox="0 0 ${WIDTH} ${DIFF_HEIGHT}" xmlns="http://www.w3.org/2000/svg">`,
    `<line x1="${PAD.left}" y1="${y(new Dec(0))}" x2="${PAD.left + plotW}" y2="${y(new Dec(0))}" stroke="#8c959f"/>`,
    `<line x1="${PAD.left}" y1="${top}" x2="${PAD.left}" y2="${top + plotH}" stroke="#8c959f"/>`,
    ...labels,
    ...axes.years.map((d) => `<text class="x-tick" x="${axes.x(d)}" y="${DIFF_HEIGHT - 6}" text-anchor="middle">${e(d.slice(0, 4))}</text>`),
    `<path class="series" data-side="difference" d="${d}" fill="none" stroke="#8250df" stroke-width="2"/>`,
    ...points,
    "</svg>",
  ].join("\n");
}

/**
 * What the difference panel says when the two curves agree. The curves are the vesting schedules; a
 * report may still list differences elsewhere (a counter, a holding, a field), and the panel must not
 * read as if nothing differed: it names where those differences are.
 */
function sameCurvesSentence(report: ReconciliationReport): string {
  const n = report.differences.length;
  if (n === 0) return "The two sides vest the same shares on every date.";
  const fields = [...new Set(report.differences.map((d) => d.field))];
  const counter = report.differences.some((d) => d.field === "vestedQuantity" || (d.field === "vested" && d.section === "source-vs-ocf"));
  const where = `${n === 1 ? "the difference listed above is" : `the ${n} differences listed above are`} not in the schedules but in ${fields.join(", ")}`;
  const why = counter ? ": the source's vestedQuantity counters (the square marker) do not match its own vesting events" : "";
  return `The two vesting schedules vest the same shares on every date; ${where}${why}.`;
}
