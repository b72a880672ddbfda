/**
 * Reads the text file an option names, as UTF-8 and only UTF-8: a byte that is not (a Latin-1 or
 * Windows-1252 export, a UTF-16 file) would otherwise become U+FFFD silently, and an issuer id or a
 * legal name be sent or written with it. Such a file is a usage error naming the option, the file and
 * the offset of the first bad byte.
 *
 * The file must be a regular file of at most {@link MAX_OPTION_FILE_BYTES} (a FIFO, a device such as
 * `/dev/zero`, a folder or a larger file is a usage error naming the option and the file), so that
 * reading it neither waits for a writer nor fills the memory.
 */
import { readRegularFile } from "../io/input-file.js";
import { UsageError, asArgumentError } from "./io.js";

/** The most an option file (issuer list, profiles, stakeholder directory) may hold: 64 MiB, a million issuer ids many times over. */
export const MAX_OPTION_FILE_BYTES = 64 * 1024 * 1024;

export async function readUtf8File(option: string, path: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await readRegularFile(path, MAX_OPTION_FILE_BYTES);
  } catch (error) {
    throw asArgumentError(option, error);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw new UsageError(
      `--${option} ${path} is not UTF-8: byte ${at} (from 0) is 0x${(bytes[at] ?? 0).toString(16).toUpperCase().padStart(2, "0")}; save the file as UTF-8`,
    );
  }
}

/** The offset of the first byte that does not begin a well-formed UTF-8 sequence (the length if all are). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    // The length of the sequence, and the range of its second byte (no overlong forms, no surrogates, nothing past U+10FFFF).
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k += 1) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return bytes.length;
}
