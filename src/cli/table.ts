/** Plain-text tables for terminal summaries: right-aligned numbers, no colours, no dependencies. */
import { terminalSafe } from "../errors.js";

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  align?: "left" | "right";
}

/** A table of `rows`; every cell and header shown terminal-safe (an id or a message may come from the server). */
export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const cells = rows.map((row) => columns.map((column) => terminalSafe(column.value(row))));
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (values: readonly string[]): string =>
    values
      .map((value, i) => {
        const width = widths[i] ?? 0;
        return columns[i]?.align === "right" ? value.padStart(width) : value.padEnd(width);
      })
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => terminalSafe(c.header))), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}
