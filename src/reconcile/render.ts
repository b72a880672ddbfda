/**
 * Reconciliation reports as text for a terminal, CSV (one row per difference) and JSON. Pure. Every
 * figure is printed exactly as the report holds it (a decimal string), never re-formatted.
 */
import { terminalSafe } from "../errors.js";
import { sourceIssuerIdOf } from "../mapping/ids.js";
import { plainTable } from "../text-table.js";
import { Dec, formatDecimal } from "../decimal.js";
import { withinTolerance } from "./source-vs-ocf.js";
import { FIGURE_NAMES, type Difference, type FigureName, type HolderRow, type ReconciliationReport } from "./types.js";

/** The headings of `FIGURE_NAMES` for people. */
export const FIGURE_LABELS: Readonly<Record<FigureName, string>> = {
  issued: "issued",
  vested: "vested",
  released: "released (gross)",
  netSettled: "net settled",
  soldToCover: "sold to cover",
  canceled: "canceled",
  forfeited: "forfeited",
  expired: "expired",
  returnedToPool: "returned to pool",
  returnedToTreasury: "returned to treasury",
  outstanding: "outstanding",
};

/** The columns of `reconciliationCsv`, in order. */
export const CSV_COLUMNS = ["issuer_id", "section", "code", "kind", "record_id", "security_id", "field", "expected", "actual", "message"] as const;

/**
 * Every difference of every report as CSV (RFC 4180: every field quoted, CRLF line ends), with a header row:
 * per report, its differences, then a row per figure of each holder that differs (section `holders`), then
 * a row per note of the report (section `note`, the note in `message`, the other cells empty).
 * A cell a spreadsheet would run as a formula (one starting with `=`, `+`, `-`, `@`, a tab or a carriage
 * return, as an id or a name from another system may) starts with `'` (OWASP, CSV injection); a number
 * such as `-2500` is left as it is.
 *
 * @category Reconcile
 */
export function reconciliationCsv(reports: readonly ReconciliationReport[]): string {
  const rows: string[][] = [[...CSV_COLUMNS]];
  for (const report of reports) {
    for (const d of report.differences) {
      rows.push([d.issuerId, d.section, d.code, d.kind ?? "", d.recordId ?? "", d.securityId ?? "", d.field, d.expected ?? "", d.actual ?? "", d.message]);
    }
    for (const { holder, field, expected, actual } of holderMismatches(report)) {
      const message = `stakeholder ${JSON.stringify(holder.stakeholderId)}: ${field} as of ${report.asOf} are ${expected} in ${SIDES[report.mode].expected} but ${actual} in ${SIDES[report.mode].actual}`;
      rows.push([report.issuerId, "holders", "", "", "", "", `stakeholder_id ${holder.stakeholderId} ${field}`, expected, actual, message]);
    }
    // Not differences, but what the figures above leave out (a split, an acceleration): a spreadsheet
    // user reads no other output.
    for (const note of report.notes) rows.push([report.issuerId, "note", "", "", "", "", "", "", "", note]);
  }
  return rows.map((row) => row.map((cell) => `"${inertCell(cell).replaceAll('"', '""')}"`).join(",")).join("\r\n") + "\r\n";
}

/** What the two sides of a report are called in a sentence. */
const SIDES = {
  "source-vs-ocf": { expected: "the source", actual: "the OCF package" },
  "ocf-vs-ocf": { expected: "the first package", actual: "the other package" },
} as const satisfies Record<ReconciliationReport["mode"], { expected: string; actual: string }>;

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?[0-9]+(\.[0-9]+)?$/;

/** The cell, with `'` before it when a spreadsheet would read it as a formula. */
function inertCell(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

/**
 * Draws a plain-text table from its rows of cells, its headers and the columns to align right.
 *
 * @category Reconcile
 */
export type TableRenderer = (rows: readonly string[][], headers: readonly string[], rightAligned: ReadonlySet<number>) => string;

/** A label longer than this names its column by the side's short name instead (a path is often longer). */
const LONGEST_COLUMN_LABEL = 24;

/**
 * The column headers of the two sides: their labels where short (a caller's own, such as "prod"),
 * else `source` and `OCF`, or `first` and `second` for two packages. The header line names them whole.
 */
export function columnNames(report: ReconciliationReport): { expected: string; actual: string } {
  const { labels } = report;
  if (labels.expected.length <= LONGEST_COLUMN_LABEL && labels.actual.length <= LONGEST_COLUMN_LABEL && labels.expected !== labels.actual) return labels;
  return report.mode === "source-vs-ocf" ? { expected: "source", actual: "OCF" } : { expected: "first", actual: "second" };
}

/**
 * A readable summary of one report: the totals per figure on both sides, then every difference.
 * `table` draws the tables (by default plain columns, as the CLI prints them); text from the data is
 * made terminal-safe.
 *
 * @example
 * ```ts
 * import { loadPackageObjects, reconcileOcfWithOcf, renderReconciliationText } from "ocf-sync";
 * const report = reconcileOcfWithOcf(await loadPackageObjects("out/7"), await loadPackageObjects("theirs/7.ocf.zip"));
 * console.log(renderReconciliationText(report));
 * ```
 *
 * @category Reconcile
 */
export function renderReconciliationText(report: ReconciliationReport, table: TableRenderer = plainTable): string {
  const labels = columnNames(report);
  const lines: string[] = [];
  lines.push(
    `${report.mode === "source-vs-ocf" ? "Source against OCF" : "OCF against OCF"} for ${issuerNamed(report)}: ` +
      `${sideNamed(labels.expected, report.labels.expected)} vs ${sideNamed(labels.actual, report.labels.actual)}; vested as of ${report.asOf}; tolerance ${report.tolerance}`,
  );
  lines.push(readingSentence(report));
  lines.push("");
  const totals = FIGURE_NAMES.flatMap((name) => {
    const expected = report.totals.expected[name];
    const actual = report.totals.actual[name];
    if (expected === undefined && actual === undefined) return [];
    const difference = expected === undefined || actual === undefined ? "" : formatDecimal(new Dec(actual).minus(expected));
    return [[FIGURE_LABELS[name], expected ?? "-", actual ?? "-", difference]];
  });
  lines.push(table(totals, ["total", terminalSafe(labels.expected), terminalSafe(labels.actual), "difference"], new Set([1, 2, 3])));
  lines.push("");
  const differing = differingHolders(report);
  if (differing.length > 0) {
    const rows = differing.map((h) => [cell(h.stakeholderId), h.expected.shares, h.actual.shares, h.expected.units, h.actual.units]);
    lines.push(`Holders that differ (${differing.length} of ${report.holders.length}), as of ${report.asOf}:`);
    lines.push(table(rows, ["stakeholder", `shares ${terminalSafe(labels.expected)}`, `shares ${terminalSafe(labels.actual)}`, `units ${terminalSafe(labels.expected)}`, `units ${terminalSafe(labels.actual)}`], new Set([1, 2, 3, 4])));
    lines.push("");
  }
  if (reportAgrees(report)) {
    lines.push(`AGREE: ${report.grants.length} grant${report.grants.length === 1 ? "" : "s"} compared, no difference`);
  } else if (report.differences.length === 0) {
    lines.push(`DIFFERENCES: ${differing.length} holder${differing.length === 1 ? "" : "s"} (every grant agrees, but not who holds it)`);
  } else {
    // Long values (a list of vesting dates) are cut in the table; the lines below it give them whole.
    const rows = report.differences.map((d) => [
      d.section,
      cell(d.recordId ?? d.securityId ?? "-"),
      cell(d.field),
      cell(d.expected ?? "-"),
      cell(d.actual ?? "-"),
      d.code,
    ]);
    lines.push(table(rows, ["section", "record", "field", terminalSafe(labels.expected), terminalSafe(labels.actual), "code"], new Set()));
    lines.push("");
    for (const d of report.differences) lines.push(`- ${terminalSafe(d.message)}`);
    lines.push("");
    lines.push(`DIFFERENCES: ${countBy(report.differences)}${differing.length === 0 ? "" : `; ${differing.length} holder${differing.length === 1 ? "" : "s"}`}`);
  }
  for (const note of report.notes) lines.push(`note: ${terminalSafe(note)}`);
  return lines.join("\n");
}

/**
 * The issuer in the header line: the source's id; for two packages, the source id ocf-sync wrote
 * into their issuer id (`issuer-7` is issuer "7"), else that OCF id.
 */
function issuerNamed(report: ReconciliationReport): string {
  const id = report.issuerId;
  const sourceId = report.mode === "source-vs-ocf" ? undefined : sourceIssuerIdOf(id);
  if (sourceId === undefined) return `issuer ${terminalSafe(JSON.stringify(id))}`;
  return `issuer ${terminalSafe(JSON.stringify(sourceId))} (OCF issuer id ${terminalSafe(JSON.stringify(id))})`;
}

/** A side in the header line: its column's name, then its whole label where that says more. */
function sideNamed(column: string, label: string): string {
  if (column === label) return terminalSafe(label);
  return label.startsWith(`${column} (`) ? terminalSafe(label) : `${column} ${terminalSafe(label)}`;
}

/** Which reading the OCF side was read with, and why, in one sentence (both packages' when they were read apart). */
export function readingSentence(report: ReconciliationReport): string {
  const described = (used: ReconciliationReport["reading"]): string => {
    const why = { option: "chosen with --reader", declared: "declared by the package", default: "the default: the package declares none" }[used.from];
    const what =
      used.reading === "documents"
        ? "documents reading (a cancellation ends its security; what remains lives on its balance security)"
        : "same-security reading (OCF #531: outstanding = issued - released - cancelled on one security)";
    return `${what}; ${why}`;
  };
  if (report.otherReading === undefined) return `OCF read by the ${described(report.reading)}.`;
  return `The first package read by the ${described(report.reading)}. The other package read by the ${described(report.otherReading)}.`;
}

/** Each holder's shares and units that differ between the two sides by more than the report's tolerance. */
function holderMismatches(report: ReconciliationReport): { holder: HolderRow; field: "shares" | "units"; expected: string; actual: string }[] {
  const tolerance = new Dec(report.tolerance);
  return report.holders.flatMap((holder) =>
    (["shares", "units"] as const).flatMap((field) => {
      const [expected, actual] = [holder.expected[field], holder.actual[field]];
      return withinTolerance(expected, actual, tolerance) ? [] : [{ holder, field, expected, actual }];
    }),
  );
}

/** The holders whose shares or units differ between the two sides by more than the report's tolerance. */
export function differingHolders(report: ReconciliationReport): HolderRow[] {
  return [...new Set(holderMismatches(report).map((m) => m.holder))];
}

/**
 * Whether the two sides of a report agree: no difference, and no holder whose shares or units differ
 * (a grant can agree figure for figure while the two sides give it to different stakeholders). The
 * command line's exit status and `--json`'s `agree` are this.
 *
 * @category Reconcile
 */
export function reportAgrees(report: ReconciliationReport): boolean {
  return report.differences.length === 0 && differingHolders(report).length === 0;
}

/** Widest table cell, in characters. */
const CELL_WIDTH = 48;

function cell(text: string): string {
  const safe = terminalSafe(text);
  return safe.length <= CELL_WIDTH ? safe : `${safe.slice(0, CELL_WIDTH - 1)}…`;
}

/** `"3 (2 source-vs-ocf, 1 source)"`. */
function countBy(differences: readonly Difference[]): string {
  const counts = new Map<string, number>();
  for (const d of differences) counts.set(d.section, (counts.get(d.section) ?? 0) + 1);
  return `${differences.length} (${[...counts].map(([section, n]) => `${n} ${section}`).join(", ")})`;
}

