/**
 * A temporary folder for the tests of one file: made before they run, removed after. Returns a getter
 * (the folder exists only once `beforeAll` has run).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

export function temporaryFolder(prefix: string): () => string {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === "") throw new Error("the temporary folder is made in beforeAll: ask for it inside a test");
    return dir;
  };
}
