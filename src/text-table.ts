/** Plain-text tables: columns padded to their widest cell, two spaces apart, a rule under the headers. */
import { terminalSafe } from "./errors.js";

/**
 * A table of rows of cells under `headers`, the columns whose index is in `rightAligned` aligned right
 * (numbers); every cell and header shown terminal-safe (an id or a message may come from a server).
 */
export function plainTable(rows: readonly (readonly string[])[], headers: readonly string[], rightAligned: ReadonlySet<number> = new Set()): string {
  const cells = rows.map((row) => headers.map((_, i) => terminalSafe(row[i] ?? "")));
  const safeHeaders = headers.map((header) => terminalSafe(header));
  const widths = safeHeaders.map((header, i) => Math.max(header.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (values: readonly string[]): string =>
    values
      .map((value, i) => {
        const width = widths[i] ?? 0;
        return rightAligned.has(i) ? value.padStart(width) : value.padEnd(width);
      })
      .join("  ")
      .trimEnd();
  return [line(safeHeaders), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}
