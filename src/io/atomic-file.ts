/**
 * Files that appear whole or not at all: written under a temporary name in the same folder, flushed to
 * disk, then renamed over the target (rename is atomic within one file system). A crash leaves at most
 * a stray `.tmp-*` file, never a half-written target.
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { finished } from "node:stream/promises";

function temporaryNameFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
}

/** Writes `data` to `target` atomically. */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  const temporary = temporaryNameFor(target);
  try {
    const handle = await open(temporary, "w");
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** A stream to a file that becomes visible under its real name only on `commit()`. */
export interface AtomicWriteStream {
  write(chunk: string | Uint8Array): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export function createAtomicWriteStream(target: string): AtomicWriteStream {
  const temporary = temporaryNameFor(target);
  const stream = createWriteStream(temporary, { flags: "w" });
  let failure: unknown;
  stream.on("error", (error) => {
    failure = error;
  });
  return {
    async write(chunk) {
      if (failure !== undefined) throw failure;
      if (!stream.write(chunk)) {
        await once(stream, "drain"); // rejects on "error", and removes its listeners either way
      }
    },
    async commit() {
      stream.end();
      await finished(stream);
      if (failure !== undefined) throw failure;
      const handle = await open(temporary, "r+");
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
    },
    async abort() {
      stream.destroy();
      await rm(temporary, { force: true });
    },
  };
}
