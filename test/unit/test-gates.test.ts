/**
 * The gates of the test run (test/helpers/gates.ts): when a gated suite runs, is skipped, or fails the
 * run; and that nothing but the conformance helper knows where the third-party folder is.
 */
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumGate, conformanceGate, gateFailure, redisGate, s3Gate } from "../helpers/gates.js";

const ROOT = resolve(import.meta.dirname, "../..");

describe("the conformance gate", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-gates-"));
    await mkdir(join(dir, "with", "shared"), { recursive: true });
    await mkdir(join(dir, "with", "project"));
    await mkdir(join(dir, "lone", "project"), { recursive: true });
    await writeFile(join(dir, "a-file"), "");
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("finds ../shared beside the project by default", () => {
    const gate = conformanceGate({}, join(dir, "with", "project"));
    expect(gate.found).toBe(join(dir, "with", "shared"));
    expect(gateFailure(gate)).toBeUndefined();
  });

  it("skips on a lone clone, saying why and how to run the suites", () => {
    const gate = conformanceGate({}, join(dir, "lone", "project"));
    expect(gate.found).toBeUndefined();
    expect(gate.missing).toBe(`OCF_SYNC_SHARED_DIR is unset and there is none at ${join(dir, "lone", "shared")}`);
    expect(gate.howToRun).toBe("Run them with OCF_SYNC_SHARED_DIR=/path/to/shared npm test");
    expect(gateFailure(gate)).toBeUndefined();
  });

  it("takes OCF_SYNC_SHARED_DIR over the default", () => {
    const gate = conformanceGate({ OCF_SYNC_SHARED_DIR: join(dir, "with", "shared") }, join(dir, "lone", "project"));
    expect(gate.found).toBe(join(dir, "with", "shared"));
  });

  it("fails the run when OCF_SYNC_REQUIRE_CONFORMANCE=1 and the folder is absent", () => {
    const failure = gateFailure(conformanceGate({ OCF_SYNC_REQUIRE_CONFORMANCE: "1" }, join(dir, "lone", "project")));
    expect(failure).toContain("OCF_SYNC_REQUIRE_CONFORMANCE=1 demands the conformance suites, but OCF_SYNC_SHARED_DIR is unset");
    expect(gateFailure(conformanceGate({ OCF_SYNC_REQUIRE_CONFORMANCE: "0" }, join(dir, "lone", "project")))).toBeUndefined();
    expect(gateFailure(conformanceGate({ OCF_SYNC_REQUIRE_CONFORMANCE: "1" }, join(dir, "with", "project")))).toBeUndefined();
  });

  it.each([["a missing path", "nowhere"], ["a file", "a-file"]])("fails the run when OCF_SYNC_SHARED_DIR names %s", (_label, name) => {
    const failure = gateFailure(conformanceGate({ OCF_SYNC_SHARED_DIR: join(dir, name) }, join(dir, "with", "project")));
    expect(failure).toContain(`OCF_SYNC_SHARED_DIR=${join(dir, name)} is not a folder`);
  });
});

describe("the Chromium gate", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-gates-"));
    await writeFile(join(dir, "chromium"), "#!/bin/sh\n");
    await chmod(join(dir, "chromium"), 0o755);
    await writeFile(join(dir, "not-executable"), "");
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("takes the first usual path that is an executable file", () => {
    const gate = chromiumGate({}, [join(dir, "missing"), join(dir, "not-executable"), dir, join(dir, "chromium")]);
    expect(gate.found).toBe(join(dir, "chromium"));
  });

  it("skips without one, and fails with OCF_SYNC_REQUIRE_BROWSER=1", () => {
    const candidates = [join(dir, "missing")];
    const gate = chromiumGate({}, candidates);
    expect(gate.found).toBeUndefined();
    expect(gateFailure(gate)).toBeUndefined();
    expect(gate.missing).toBe(`OCF_SYNC_CHROMIUM is unset and there is none at ${join(dir, "missing")}`);
    expect(gateFailure(chromiumGate({ OCF_SYNC_REQUIRE_BROWSER: "1" }, candidates))).toContain("OCF_SYNC_REQUIRE_BROWSER=1 demands the chromium suites");
  });

  it("takes OCF_SYNC_CHROMIUM, and fails the run when it names no executable", () => {
    expect(chromiumGate({ OCF_SYNC_CHROMIUM: join(dir, "chromium") }, []).found).toBe(join(dir, "chromium"));
    expect(gateFailure(chromiumGate({ OCF_SYNC_CHROMIUM: join(dir, "not-executable") }, []))).toContain("is not an executable file");
  });
});

describe("the third-party folder", () => {
  it("is located only by test/helpers/gates.ts: no other code of the project names it", async () => {
    const naming = /\.\.\/shared|shared\/(ocf-schema|ocf-samples|carta-openapi|spec|reference)\b/;
    const found: string[] = [];
    for (const top of ["src", "test", "bench", "samples", "bin"]) {
      for (const entry of await readdir(join(ROOT, top), { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !/\.(ts|js|cjs|mjs)$/.test(entry.name)) continue;
        const path = join(entry.parentPath, entry.name);
        if (path === import.meta.filename) continue;
        if (naming.test(await readFile(path, "utf8"))) found.push(relative(ROOT, path));
      }
    }
    expect(found).toEqual([join("test", "helpers", "gates.ts")]);
  });
});

describe("the Redis gate", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-gates-"));
    await mkdir(join(dir, "bin"));
    await writeFile(join(dir, "bin", "redis-server"), "#!/bin/sh\n");
    await chmod(join(dir, "bin", "redis-server"), 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("finds redis-server on the PATH", () => {
    expect(redisGate({ PATH: `${join(dir, "nothing")}:${join(dir, "bin")}` }).found).toBe(join(dir, "bin", "redis-server"));
  });

  it("skips without one, saying so in one line, and fails with OCF_SYNC_REQUIRE_REDIS=1", () => {
    const gate = redisGate({ PATH: join(dir, "nothing") });
    expect(gate.found).toBeUndefined();
    expect(gate.missing).toBe("OCF_SYNC_REDIS_SERVER is unset and there is none on the PATH");
    expect(gateFailure(gate)).toBeUndefined();
    expect(gateFailure(redisGate({ PATH: join(dir, "nothing"), OCF_SYNC_REQUIRE_REDIS: "1" }))).toContain("OCF_SYNC_REQUIRE_REDIS=1 demands the redis suites");
  });

  it("takes OCF_SYNC_REDIS_SERVER, and fails the run when it names no executable", () => {
    expect(redisGate({ OCF_SYNC_REDIS_SERVER: join(dir, "bin", "redis-server") }).found).toBe(join(dir, "bin", "redis-server"));
    expect(gateFailure(redisGate({ OCF_SYNC_REDIS_SERVER: join(dir, "missing") }))).toContain("is not an executable file");
  });
});

describe("the S3 gate", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-gates-"));
    await mkdir(join(dir, "bin"));
    await writeFile(join(dir, "bin", "moto_server"), "#!/bin/sh\n");
    await chmod(join(dir, "bin", "moto_server"), 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("finds moto_server on the PATH, skips without one in one line, and fails with OCF_SYNC_REQUIRE_S3=1", () => {
    expect(s3Gate({ PATH: `${join(dir, "nothing")}:${join(dir, "bin")}` }).found).toBe(join(dir, "bin", "moto_server"));
    const gate = s3Gate({ PATH: join(dir, "nothing") });
    expect(gate.missing).toBe("OCF_SYNC_MOTO_SERVER is unset and there is none on the PATH");
    expect(gateFailure(gate)).toBeUndefined();
    expect(gateFailure(s3Gate({ PATH: join(dir, "nothing"), OCF_SYNC_REQUIRE_S3: "1" }))).toContain("OCF_SYNC_REQUIRE_S3=1 demands the s3 suites");
    expect(gateFailure(s3Gate({ OCF_SYNC_MOTO_SERVER: join(dir, "missing") }))).toContain("is not an executable file");
  });
});
