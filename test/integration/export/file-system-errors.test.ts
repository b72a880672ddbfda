/**
 * A file-system failure inside an issuer's write (issue 25, item 9) is a FILE_SYSTEM_ERROR naming the
 * path, and the issuer fails alone: it was `ENOSPC: no space left on device, write [UNEXPECTED]`, with
 * no path. Real faults: the temporary package folder removed while records are written into it (the
 * records come from the API through a generator that removes it between two records: a state, not a
 * delay), and a real full disk for export, sync and pull (a tmpfs of a few KiB, where this machine lets the tests mount one).
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiClient, type ApiClient } from "../../../src/client/create-client.js";
import { isFileSystemError } from "../../../src/errors.js";
import { exportIssuer } from "../../../src/export/export-issuer.js";
import { streamIssuerRecords } from "../../../src/pull/pull-issuer.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { runCliProcess } from "../../helpers/cli-process.js";

let dir: string;
let samples: SampleServer;
let client: ApiClient;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-fs-errors-"));
  samples = await startSampleServer({ port: 0 });
  client = createApiClient({ baseUrl: samples.url });
});
afterAll(async () => {
  await client.close();
  await samples.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the temporary package folder removed while the issuer is written", () => {
  it("fails the issuer with FILE_SYSTEM_ERROR naming a path in the output folder; the next issuer exports", async () => {
    const outDir = join(dir, "vanished");
    await mkdir(outDir);
    async function* recordsThenRemove(): AsyncGenerator<Awaited<ReturnType<typeof streamIssuerRecords> extends AsyncIterable<infer T> ? T : never>> {
      let n = 0;
      for await (const item of streamIssuerRecords(client, "acme-robotics")) {
        yield item;
        n += 1;
        // After the second item, the writer has the folder open: remove it, as a cleaner or a person would.
        if (n === 2) {
          const temporary = (await readdir(outDir)).filter((name) => name.startsWith(".acme-robotics.tmp-"));
          expect(temporary).toHaveLength(1);
          await rm(join(outDir, temporary[0]!), { recursive: true, force: true });
        }
      }
    }
    const failure = await exportIssuer(client, "acme-robotics", { outDir, records: recordsThenRemove(), asOf: "2025-06-30" }).catch((error: unknown) => error);
    expect(isFileSystemError(failure)).toBe(true);
    expect(failure).toMatchObject({ code: "FILE_SYSTEM_ERROR", errno: "ENOENT" });
    expect((failure as { path: string }).path.startsWith(`${outDir}/`)).toBe(true);
    expect((failure as Error).message).toMatch(new RegExp(`^cannot [a-z ]+ ${outDir}/`));
    // The issuer failed alone: the output folder takes the next one.
    const next = await exportIssuer(client, "7", { outDir, asOf: "2025-06-30" });
    expect(next.folder).toBe(join(outDir, "7"));
  });
});

/** Mounts a tmpfs of `size` at `path`; false where the machine does not let the tests mount one (not root, no CAP_SYS_ADMIN). */
function mountTmpfs(path: string, size: string): boolean {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", path], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("a full disk", () => {
  const disk = join(tmpdir(), `ocf-sync-full-disk-${process.pid}`);
  let mounted = false;
  beforeAll(async () => {
    await mkdir(disk, { recursive: true });
  });
  afterAll(async () => {
    if (mounted) execFileSync("umount", [disk]);
    await rm(disk, { recursive: true, force: true });
  });

  // Sizes at which the writes of export and sync run out of space at different places: the package's
  // files, its zip, the sync's snapshots and state.
  for (const size of ["40k", "100k", "150k", "200k"]) {
    it(`export, sync and pull on a disk of ${size}: every failed issuer is FILE_SYSTEM_ERROR naming a path on that disk, never UNEXPECTED`, async (context) => {
      if (!mounted) mounted = mountTmpfs(disk, size);
      else execFileSync("mount", ["-o", `remount,size=${size}`, disk]);
      if (!mounted) return context.skip("this machine does not let the tests mount a tmpfs (not root, or no CAP_SYS_ADMIN)");
      for (const command of ["export", "sync", "pull"]) {
        await rm(join(disk, "out"), { recursive: true, force: true });
        await rm(join(disk, "state.json"), { force: true });
        await rm(join(disk, "state.json.snapshots"), { recursive: true, force: true });
        const extra = { export: ["--out", join(disk, "out"), "--zip"], sync: ["--out", join(disk, "out"), "--state", join(disk, "state.json")], pull: ["--out", join(disk, "pulled.ndjson")] }[command] ?? [];
        const result = await runCliProcess([command, "--base-url", samples.url, "--issuer", "acme-robotics", "--issuer", "7", ...extra], { cwd: dir });
        expect(result.stderr).not.toMatch(/UNEXPECTED/);
        // An issuer's failure, or the whole job's (pull's --out, written last): each names the file.
        const failures = result.stderr.split("\n").filter((line) => /ENOSPC/.test(line));
        for (const line of failures) expect(line).toMatch(new RegExp(`^(error: issuer "[^"]+" failed[^:]*|ocf-sync ${command}): cannot [a-z ]+ ${disk}/\\S+: the disk is full \\(ENOSPC\\) \\[FILE_SYSTEM_ERROR\\]$`));
        expect(result.code, result.stderr).toBe(failures.length > 0 ? 1 : 0);
      }
    });
  }
});
