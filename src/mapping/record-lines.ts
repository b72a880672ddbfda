/**
 * One text line per record, appended and read back by a handle: how the streaming mapper keeps what
 * it must remember of each record until the end of an issuer. In memory for small jobs and library
 * use; in a file for exports (`FileLines`, src/io/file-lines.ts: the mapping does no I/O, so the
 * export hands it one), so that an issuer of 100k+ records does not hold them in the heap.
 */

export interface RecordLines {
  /** Stores a line; returns its handle (0, 1, 2, … in order). */
  append(line: string): number;
  read(handle: number): string;
  /** Lets go of every line (and deletes the file, for `FileLines`). Safe to call twice. */
  dispose(): void;
}

export class MemoryLines implements RecordLines {
  private lines: string[] = [];

  append(line: string): number {
    return this.lines.push(line) - 1;
  }

  read(handle: number): string {
    const line = this.lines[handle];
    if (line === undefined) throw new RangeError(`no record line ${handle}`);
    return line;
  }

  dispose(): void {
    this.lines = [];
  }
}
