/**
 * Records an export cannot map yet (a unit whose share class id no award has named so far: the
 * award may still come; a unit that names no class, whose class is chosen once every record has
 * been seen: see `mapping/share-classes.ts`) wait on disk, one JSON line each, so that
 * memory does not grow with their number; they are read back once every award has been seen. The
 * file lives in a private temporary folder, removed by `dispose` whatever happened.
 */
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** A spool of JSON values, written in order and read back in the same order. */
export class DeferredRecords<T> {
  private folder: string | undefined;
  private handle: FileHandle | undefined;
  private buffered: string[] = [];
  private bufferedBytes = 0;
  /** How many values were deferred. */
  count = 0;

  /** Adds one value (JSON-serializable: parsed records are plain data). */
  async push(value: T): Promise<void> {
    const line = `${JSON.stringify(value)}\n`;
    this.buffered.push(line);
    this.bufferedBytes += line.length;
    this.count += 1;
    if (this.bufferedBytes >= 1 << 20) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.buffered.length === 0) return;
    if (this.handle === undefined) {
      this.folder = await mkdtemp(join(tmpdir(), "ocf-sync-deferred-"));
      this.handle = await open(join(this.folder, "records.ndjson"), "w");
    }
    const text = this.buffered.join("");
    this.buffered = [];
    this.bufferedBytes = 0;
    await this.handle.writeFile(text, "utf8");
  }

  /** Every value pushed, in order. Reads from disk what did not stay in the last buffer. */
  async *drain(): AsyncGenerator<T, void, undefined> {
    if (this.handle !== undefined) {
      await this.flush();
      await this.handle.close();
      this.handle = undefined;
      const lines = createInterface({ input: createReadStream(join(this.folder as string, "records.ndjson"), "utf8"), crlfDelay: Infinity });
      for await (const line of lines) if (line !== "") yield JSON.parse(line) as T;
      return;
    }
    const lines = this.buffered;
    this.buffered = [];
    for (const line of lines) yield JSON.parse(line) as T;
  }

  /** Removes the spool file and its folder. */
  async dispose(): Promise<void> {
    await this.handle?.close().catch(() => {});
    this.handle = undefined;
    if (this.folder !== undefined) await rm(this.folder, { recursive: true, force: true });
    this.folder = undefined;
  }
}
