/**
 * One issuer's pull written as NDJSON to files of its own as its records arrive, for `ocf-sync pull`:
 * memory stays at one page per list plus a few dozen bytes per record (its key and modification time,
 * to find a record listed twice), however many records the issuer has. Issuers are pulled at once,
 * each into its own part; a finished part is then appended to the pull's output whole, so that each
 * issuer's lines stay together.
 *
 * The lines are those `issuerPullToNdjson` gives for `pullIssuer`'s result: valid records, then the
 * quarantined ones. A record listed twice in one pass (the service changed while it was paged) keeps
 * its most recently modified copy, with a `DUPLICATE_RECORD` warning; the copy it replaced is left out
 * when the part is appended (its line stays in the part file, which is append-only).
 */
import { open, rm, type FileHandle } from "node:fs/promises";
import type { ApiClient } from "../client/create-client.js";
import { fileSystemError } from "../errors.js";
import { BufferedFile, bufferPair } from "../io/buffered-file.js";
import { openToRead } from "../io/lines.js";
import type { SourceWarning } from "../source/errors.js";
import { quarantinedLine, recordLine } from "./ndjson.js";
import { duplicateRecordWarning, streamIssuerRecords, type PullOptions } from "./pull-issuer.js";

/** What one issuer's part holds. */
export interface IssuerNdjsonPart {
  issuerId: string;
  awards: number;
  units: number;
  quarantined: number;
  warnings: number;
  /** The valid records' lines, and the quarantined records' lines. */
  files: readonly [records: string, quarantined: string];
  /** Lines (0-based) of the records file that a later copy of the same record replaced. */
  superseded: ReadonlySet<number>;
}

/** The size of the pieces a part is written and read in. */
const PIECE_BYTES = 64 * 1024;

const LINE_FEED = 0x0a;

/**
 * Pulls one issuer into the two files named (created, or emptied); `onWarning` sees each warning as
 * it comes, the duplicates found here included. On failure the files are removed and the error thrown.
 */
export async function pullIssuerToPart(
  client: ApiClient,
  issuerId: string,
  files: readonly [records: string, quarantined: string],
  options: PullOptions & { onWarning?: (warning: SourceWarning) => void },
): Promise<IssuerNdjsonPart> {
  const part = { issuerId, awards: 0, units: 0, quarantined: 0, warnings: 0, files, superseded: new Set<number>() };
  const warn = (warning: SourceWarning): void => {
    part.warnings += 1;
    options.onWarning?.(warning);
  };
  /** Per record key, the modification time and line of the copy kept so far. */
  const kept = new Map<string, { modified: string; line: number }>();
  let lines = 0;
  const recordsFile = await openPartFile(files[0]);
  let quarantinedFile;
  try {
    quarantinedFile = await openPartFile(files[1]);
  } catch (error) {
    await recordsFile.close();
    await removePart(files);
    throw error;
  }
  try {
    const records = new BufferedFile(recordsFile.handle, bufferPair(PIECE_BYTES), files[0]);
    const quarantined = new BufferedFile(quarantinedFile.handle, bufferPair(PIECE_BYTES), files[1]);
    const { onWarning: _onWarning, ...pullOptions } = options;
    for await (const item of streamIssuerRecords(client, issuerId, pullOptions)) {
      if (item.type === "warning") {
        warn(item.warning);
        continue;
      }
      if (item.type === "quarantined") {
        part.quarantined += 1;
        await quarantined.write(quarantinedLine(item));
        continue;
      }
      const id = item.record.id;
      const key = `${item.kind}\u0000${id ?? ""}`;
      const modified = item.record.lastModifiedDatetime ?? "";
      const previous = kept.get(key);
      if (previous === undefined) {
        if (item.kind === "restrictedStockAward") part.awards += 1;
        else part.units += 1;
      } else {
        warn(duplicateRecordWarning(issuerId, item.kind, id));
        if (previous.modified > modified) continue;
        part.superseded.add(previous.line);
      }
      kept.set(key, { modified, line: lines });
      lines += 1;
      await records.write(recordLine(item.kind, issuerId, id ?? "", item.raw));
    }
    await Promise.all([records.end(), quarantined.end()]);
    await Promise.all([recordsFile.close(), quarantinedFile.close()]);
    return part;
  } catch (error) {
    await Promise.all([recordsFile.close(), quarantinedFile.close()]);
    await removePart(files);
    throw error;
  }
}

/** A part file opened for writing, with a `close` that may be called twice. */
async function openPartFile(path: string): Promise<{ handle: FileHandle; close: () => Promise<void> }> {
  let handle;
  try {
    handle = await open(path, "w");
  } catch (error) {
    throw fileSystemError("write", path, error);
  }
  let closed = false;
  return {
    handle,
    close: async () => {
      if (closed) return;
      closed = true;
      await handle.close();
    },
  };
}

/** Removes a part's files; never throws. */
async function removePart(files: readonly string[]): Promise<void> {
  await Promise.all(files.map((path) => rm(path, { force: true }).catch(() => {})));
}

/**
 * Appends a finished part to the output through `write` (each chunk a copy of its own): its records'
 * lines but those superseded, then its quarantined lines; then removes the part's files.
 */
export async function appendPart(part: IssuerNdjsonPart, write: (chunk: Uint8Array) => Promise<void>): Promise<void> {
  const [records, quarantined] = part.files;
  await copyLines(records, part.superseded, write);
  await copyLines(quarantined, new Set(), write);
  await removePart(part.files);
}

/** Copies the lines of `path` to `write`, those numbered in `skip` left out, a piece at a time. */
async function copyLines(path: string, skip: ReadonlySet<number>, write: (chunk: Uint8Array) => Promise<void>): Promise<void> {
  const handle = await openToRead(path);
  try {
    let line = 0;
    let keep = !skip.has(0);
    for (;;) {
      const buffer = Buffer.allocUnsafe(PIECE_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, PIECE_BYTES, null);
      if (bytesRead === 0) break;
      const bytes = buffer.subarray(0, bytesRead);
      if (skip.size === 0) {
        await write(bytes);
        continue;
      }
      // The piece goes out in runs of kept lines: a run starts after a line left out and ends
      // before the next one (or at the piece's end). A line's bytes include its `\n`.
      let start = 0;
      for (let end = bytes.indexOf(LINE_FEED); end !== -1; end = bytes.indexOf(LINE_FEED, end + 1)) {
        line += 1;
        const next = !skip.has(line);
        if (!keep) start = end + 1;
        else if (!next) {
          await write(bytes.subarray(start, end + 1));
          start = end + 1;
        }
        keep = next;
      }
      if (keep && start < bytes.length) await write(bytes.subarray(start));
    }
  } finally {
    await handle.close();
  }
}
