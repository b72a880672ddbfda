/** Plain-text tables for terminal summaries: right-aligned numbers, no colours, no dependencies. */
import { plainTable } from "../text-table.js";

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  align?: "left" | "right";
}

/** A table of `rows`; every cell and header shown terminal-safe (an id or a message may come from the server). */
export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const right = new Set(columns.flatMap((column, i) => (column.align === "right" ? [i] : [])));
  return plainTable(
    rows.map((row) => columns.map((column) => column.value(row))),
    columns.map((column) => column.header),
    right,
  );
}
