/**
 * A reconciliation as one self-contained HTML file: inline CSS and inline SVG, no script, no external
 * asset, no network. Per issuer: the totals on both sides, every difference, and a chart of vested
 * shares over time from both sides. Every value from the data is HTML-escaped; every figure is shown
 * exactly as the report holds it. Chart coordinates are computed with decimals (share counts are never
 * JS numbers); only pixel positions and day offsets are numbers.
 */
import { compareIso, parseUtcDateTime, utcDateTimeToEpochMs, type CalendarDate } from "../dates.js";
import { Dec, formatDecimal } from "../decimal.js";
import { FIGURE_LABELS } from "./render.js";
import { FIGURE_NAMES, type ReconciliationReport, type VestingPoint } from "./types.js";

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const WIDTH = 760;
const HEIGHT = 280;
const PAD = { left: 90, right: 20, top: 16, bottom: 36 };

const STYLE = `
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:20px}h2{font-size:17px;margin-top:32px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.agree{color:#1a7f37;font-weight:600}.differ{color:#cf222e;font-weight:600}
.legend span{display:inline-block;margin-right:16px}.swatch{display:inline-block;width:18px;height:3px;vertical-align:middle;margin-right:4px}
svg text{font:11px system-ui,sans-serif;fill:#57606a}
`;

/** The HTML report of one or more reconciliations (one section per report). */
export function renderReconciliationHtml(reports: readonly ReconciliationReport[]): string {
  const total = reports.reduce((n, r) => n + r.differences.length, 0);
  const verdict = total === 0 ? `<p class="agree">Everything agrees.</p>` : `<p class="differ">${total} difference${total === 1 ? "" : "s"}.</p>`;
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
    return [`<tr><th scope="row">${e(FIGURE_LABELS[name])}</th><td class="num">${e(x ?? "-")}</td><td class="num">${e(y ?? "-")}</td><td class="num">${e(diff)}</td></tr>`];
  });
  const rows = report.differences.map(
    (d) =>
      `<tr><td>${e(d.section)}</td><td>${e(d.code)}</td><td>${e(d.recordId ?? "")}</td><td>${e(d.securityId ?? "")}</td><td>${e(d.field)}</td>` +
      `<td class="num">${e(d.expected ?? "")}</td><td class="num">${e(d.actual ?? "")}</td><td>${e(d.message)}</td></tr>`,
  );
  return [
    `<section data-issuer="${e(report.issuerId)}">`,
    `<h2>Issuer ${e(report.issuerId)}</h2>`,
    `<p>${e(report.mode === "source-vs-ocf" ? "Source against OCF" : "OCF against OCF")}: <strong>${e(labels.expected)}</strong> against <strong>${e(labels.actual)}</strong>; vested as of ${e(report.asOf)}; tolerance ${e(report.tolerance)}; ${report.grants.length} grants compared.</p>`,
    "<h3>Totals</h3>",
    `<table class="totals"><thead><tr><th>figure</th><th>${e(labels.expected)}</th><th>${e(labels.actual)}</th><th>difference</th></tr></thead><tbody>`,
    ...totals,
    "</tbody></table>",
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

function chart(report: ReconciliationReport, index: number): string {
  const { expected, actual } = report.vestingCurves;
  const e = escapeHtml;
  const dates = [...expected, ...actual].map((p) => p.date).sort(compareIso);
  const first = dates[0];
  const last = dates[dates.length - 1];
  if (first === undefined || last === undefined) return `<p>Nothing vests on either side.</p>`;
  // One day of margin on each side so that a single date still has a width.
  const x0 = dayOf(first) - 1;
  const span = dayOf(last) + 1 - x0;
  let max = new Dec(0);
  for (const p of [...expected, ...actual]) max = Dec.max(max, p.vested);
  if (max.isZero()) max = new Dec(1);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const px = (date: CalendarDate): number => PAD.left + ((dayOf(date) - x0) / span) * plotW;
  const x = (date: CalendarDate): string => px(date).toFixed(1);
  const y = (vested: Dec | string): string => new Dec(PAD.top + plotH).minus(new Dec(vested).dividedBy(max).times(plotH)).toDecimalPlaces(1).toFixed(1);
  const step = (points: readonly VestingPoint[]): string => {
    let d = `M${PAD.left} ${y("0")}`;
    for (const p of points) d += ` H${x(p.date)} V${y(p.vested)}`;
    return `${d} H${PAD.left + plotW}`;
  };
  const dots = (points: readonly VestingPoint[], side: string, color: string, label: string): string =>
    points.map((p) => `<circle cx="${x(p.date)}" cy="${y(p.vested)}" r="2.5" fill="${color}" data-side="${side}"><title>${e(label)}: ${e(p.vested)} vested by ${e(p.date)}</title></circle>`).join("");
  const ticks = [new Dec(0), max.dividedBy(2), max].map(
    (v) => `<text x="${PAD.left - 6}" y="${y(v)}" text-anchor="end" dominant-baseline="middle">${e(formatDecimal(v.toDecimalPlaces(2)))}</text>`,
  );
  const axis = `<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${PAD.left + plotW}" y2="${PAD.top + plotH}" stroke="#8c959f"/><line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + plotH}" stroke="#8c959f"/>`;
  const dateLabels = `<text x="${PAD.left}" y="${HEIGHT - 12}">${e(first)}</text><text x="${PAD.left + plotW}" y="${HEIGHT - 12}" text-anchor="end">${e(last)}</text>`;
  const asOf = compareIso(report.asOf, first) >= 0 && compareIso(report.asOf, last) <= 0
    ? `<line x1="${x(report.asOf)}" y1="${PAD.top}" x2="${x(report.asOf)}" y2="${PAD.top + plotH}" stroke="#bf8700" stroke-dasharray="2 3"/><text x="${x(report.asOf)}" y="${PAD.top + 10}" text-anchor="middle">as of ${e(report.asOf)}</text>`
    : "";
  // The source's vestedQuantity counters, summed, where the package's as-of date is: a counter that
  // disagrees with the events shows as a marker off the curves.
  const counter = report.mode === "source-vs-ocf" ? report.totals.expected.vested : undefined;
  const marker =
    counter === undefined || compareIso(report.asOf, first) < 0 || compareIso(report.asOf, last) > 0
      ? ""
      : `<rect class="counter" x="${(px(report.asOf) - 4).toFixed(1)}" y="${new Dec(y(counter)).minus(4).toFixed(1)}" width="8" height="8" fill="#bf8700"><title>${e(report.labels.expected)}: vestedQuantity counters total ${e(counter)} as of ${e(report.asOf)}</title></rect>`;
  return [
    `<p class="legend"><span><span class="swatch" style="background:#0969da"></span>${e(report.labels.expected)}</span><span><span class="swatch" style="background:#d1242f"></span>${e(report.labels.actual)}</span>${report.mode === "source-vs-ocf" ? `<span><span class="swatch" style="background:#bf8700;height:8px;width:8px"></span>source vestedQuantity counters (total) as of ${e(report.asOf)}</span>` : ""}</p>`,
    `<svg class="vesting-chart" id="vesting-chart-${index}" role="img" aria-label="Vested shares over time" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" xmlns="http://www.w3.org/2000/svg">`,
    axis,
    ...ticks,
    dateLabels,
    asOf,
    `<path class="series" data-side="expected" d="${step(expected)}" fill="none" stroke="#0969da" stroke-width="2.5"/>`,
    `<path class="series" data-side="actual" d="${step(actual)}" fill="none" stroke="#d1242f" stroke-width="1.5" stroke-dasharray="6 4"/>`,
    dots(expected, "expected", "#0969da", report.labels.expected),
    dots(actual, "actual", "#d1242f", report.labels.actual),
    marker,
    "</svg>",
  ].join("\n");
}
