/**
 * One issuer's pull written as NDJSON to files of its own as its records arrive, for `ocf-sync pull`:
 * memory stays at one page per list plus a few dozen bytes per record (its key and modification time,
 * to find a record listed twice), however many records the issuer has. Issuers are pulled at once,
 * each into its own part; a finished part is then appended to the pull's output whole, so that each
 * issuer's lines stay together.
 *
 * The lines are those `issuerPullToNdjson` gives for `pullIssuer`'s result, in its fixed order: valid
 * awards, valid units, quarantined awards, quarantined units, each in the service's order. An issuer's
 * two lists are paged at once and their pages arrive in either order, so each goes to a file of its
 * own and the files are appended in that order: the same data gives the same bytes. A record listed
 * twice in one pass (the service changed while it was paged) keeps its most recently modified copy,
 * with a `DUPLICATE_RECORD` warning, in the place of its first copy (as `pullIssuer` keeps it): the
 * files are append-only, so the part notes where the kept copy's line is, and the append reads it
 * from there into the first copy's place and leaves the other copies out.
 */
import { open, rm, type FileHandle } from "node:fs/promises";
import type { ApiClient } from "../client/create-client.js";
import { fileSystemError } from "../errors.js";
import { BufferedFile, bufferPair } from "../io/buffered-file.js";
import { openToRead } from "../io/lines.js";
import type { SourceWarning } from "../source/errors.js";
import { RECORD_KINDS, type RecordKind } from "../source/kinds.js";
import { quarantinedLine, recordLine } from "./ndjson.js";
import { duplicateRecordWarning, streamIssuerRecords, type PullOptions } from "./pull-issuer.js";

/** Where a line's bytes are in its file. */
export interface LineBytes {
  offset: number;
  length: number;
}

/** One file of a part, with what its append leaves out or moves. */
export interface PartFile {
  path: string;
  /** Lines (0-based) left out: copies of a record that a later copy replaced, or that moved. */
  skip: ReadonlySet<number>;
  /** Lines (0-based) whose place takes the line at these bytes of the file (a later copy of the record). */
  moved: ReadonlyMap<number, LineBytes>;
}

/** What one issuer's part holds. */
export interface IssuerNdjsonPart {
  issuerId: string;
  awards: number;
  units: number;
  quarantined: number;
  warnings: number;
  /** The part's files, in the order they are appended. */
  files: readonly PartFile[];
}

/** The size of the pieces a part is written and read in. */
const PIECE_BYTES = 64 * 1024;

const LINE_FEED = 0x0a;

/**
 * The files of the part `base` (a path without extension), in the order they are appended: per kind
 * its valid records, then per kind its quarantined ones.
 */
export function partFilePaths(base: string): { valid: Record<RecordKind, string>; quarantined: Record<RecordKind, string> } {
  const paths = (suffix: string): Record<RecordKind, string> =>
    Object.fromEntries(RECORD_KINDS.map((kind) => [kind, `${base}.${kind}${suffix}.ndjson`])) as Record<RecordKind, string>;
  return { valid: paths(""), quarantined: paths(".quarantined") };
}

/** A part file being written: its buffered writer, and what its lines so far come to. */
interface WrittenFile {
  path: string;
  file: Awaited<ReturnType<typeof openPartFile>>;
  writer: BufferedFile;
  lines: number;
  bytes: number;
  skip: Set<number>;
  moved: Map<number, LineBytes>;
}

/**
 * Pulls one issuer into the part files of `base` (see `partFilePaths`; created, or emptied);
 * `onWarning` sees each warning as it comes, the duplicates found here included. On failure the files
 * are removed and the error thrown.
 */
export async function pullIssuerToPart(
  client: ApiClient,
  issuerId: string,
  base: string,
  options: PullOptions & { onWarning?: (warning: SourceWarning) => void },
): Promise<IssuerNdjsonPart> {
  const paths = partFilePaths(base);
  const order = [...RECORD_KINDS.map((kind) => paths.valid[kind]), ...RECORD_KINDS.map((kind) => paths.quarantined[kind])];
  const opened: WrittenFile[] = [];
  const closeAll = async (): Promise<void> => void (await Promise.all(opened.map((written) => written.file.close())));
  try {
    for (const path of order) {
      const file = await openPartFile(path);
      opened.push({ path, file, writer: new BufferedFile(file.handle, bufferPair(PIECE_BYTES), path), lines: 0, bytes: 0, skip: new Set(), moved: new Map() });
    }
  } catch (error) {
    await closeAll();
    await removePart(order);
    throw error;
  }
  // The files by kind: `order` lists the valid ones first, then the quarantined ones, kind by kind.
  const byKind = (from: number): Record<RecordKind, WrittenFile> =>
    Object.fromEntries(RECORD_KINDS.map((kind, i) => [kind, opened[from + i] as WrittenFile])) as Record<RecordKind, WrittenFile>;
  const validFile = byKind(0);
  const quarantinedFile = byKind(RECORD_KINDS.length);
  const part = { issuerId, awards: 0, units: 0, quarantined: 0, warnings: 0 };
  const warn = (warning: SourceWarning): void => {
    part.warnings += 1;
    options.onWarning?.(warning);
  };
  /** Per record key, the modification time of the copy kept so far and the line of its first copy. */
  const kept = new Map<string, { modified: string; first: number }>();
  /** Writes a line to `file`; returns where it is. */
  const append = async (file: WrittenFile, text: string): Promise<{ line: number } & LineBytes> => {
    const at = { line: file.lines, offset: file.bytes, length: Buffer.byteLength(text) };
    file.lines += 1;
    file.bytes += at.length;
    await file.writer.write(text);
    return at;
  };
  try {
    const { onWarning: _onWarning, ...pullOptions } = options;
    for await (const item of streamIssuerRecords(client, issuerId, pullOptions)) {
      if (item.type === "warning") {
        warn(item.warning);
        continue;
      }
      if (item.type === "quarantined") {
        part.quarantined += 1;
        await append(quarantinedFile[item.kind], quarantinedLine(item));
        continue;
      }
      const id = item.record.id;
      const key = `${item.kind}\u0000${id ?? ""}`;
      const modified = item.record.lastModifiedDatetime ?? "";
      const file = validFile[item.kind];
      const previous = kept.get(key);
      if (previous === undefined) {
        if (item.kind === "restrictedStockAward") part.awards += 1;
        else part.units += 1;
        const { line } = await append(file, recordLine(item.kind, issuerId, id ?? "", item.raw));
        kept.set(key, { modified, first: line });
        continue;
      }
      warn(duplicateRecordWarning(issuerId, item.kind, id));
      if (previous.modified > modified) continue;
      // The copy goes to the first copy's place when appended; its own line is left out.
      const { line, offset, length } = await append(file, recordLine(item.kind, issuerId, id ?? "", item.raw));
      file.skip.add(line);
      file.moved.set(previous.first, { offset, length });
      previous.modified = modified;
    }
    await Promise.all(opened.map((written) => written.writer.end()));
    await closeAll();
    return { ...part, files: opened.map(({ path, skip, moved }) => ({ path, skip, moved })) };
  } catch (error) {
    await closeAll();
    await removePart(order);
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
 * Appends a finished part to the output through `write` (each chunk a copy of its own): its files in
 * order, each without the lines it skips and with those moved in their place; then removes the
 * part's files.
 */
export async function appendPart(part: IssuerNdjsonPart, write: (chunk: Uint8Array) => Promise<void>): Promise<void> {
  for (const file of part.files) await copyLines(file, write);
  await removePart(part.files.map((file) => file.path));
}

/**
 * Copies the lines of `file` to `write`, a piece at a time: a line in `moved` as the bytes it names
 * (read from the same file), one in `skip` not at all.
 */
async function copyLines({ path, skip, moved }: PartFile, write: (chunk: Uint8Array) => Promise<void>): Promise<void> {
  const handle = await openToRead(path);
  try {
    let line = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(PIECE_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, PIECE_BYTES, null);
      if (bytesRead === 0) break;
      const bytes = buffer.subarray(0, bytesRead);
      if (skip.size === 0 && moved.size === 0) {
        await write(bytes);
        continue;
      }
      // The piece goes out in runs of kept lines: a run starts after a line left out (or moved) and
      // ends where the next one starts. A line's bytes include its `\n`; a line may span pieces.
      let runStart = 0;
      let lineStart = 0;
      for (let end = bytes.indexOf(LINE_FEED); end !== -1; end = bytes.indexOf(LINE_FEED, end + 1)) {
        const current = line;
        line += 1;
        if (skip.has(current) || moved.has(current)) {
          if (runStart < lineStart) await write(bytes.subarray(runStart, lineStart));
          const from = moved.get(current);
          if (from !== undefined) await write(await readBytes(handle, path, from));
          runStart = end + 1;
        }
        lineStart = end + 1;
      }
      // The piece's last bytes begin a line that ends in a later piece: out now unless left out.
      const runEnd = skip.has(line) || moved.has(line) ? lineStart : bytes.length;
      if (runStart < runEnd) await write(bytes.subarray(runStart, runEnd));
    }
  } finally {
    await handle.close();
  }
}

/** The bytes `at` names in the file `path`, open as `handle`, read without moving its position. */
async function readBytes(handle: FileHandle, path: string, at: LineBytes): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(at.length);
  let done = 0;
  while (done < at.length) {
    const { bytesRead } = await handle.read(buffer, done, at.length - done, at.offset + done);
    // The part's own file, written by this pull: shorter than it wrote only if something else cut it.
    if (bytesRead === 0) throw new Error(`${path} ended before byte ${at.offset + at.length}, which this pull wrote there`);
    done += bytesRead;
  }
  return buffer;
}
