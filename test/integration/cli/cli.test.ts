import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { captureIo } from "../../helpers/capture.js";

describe("ocf-sync CLI, in-process", () => {
  let dir: string;
  let server: SampleServer;
  const TOKEN = "tok-SECRET-4f2a9c";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-cli-"));
    server = await startSampleServer({ port: 0, token: TOKEN });
  });
  afterAll(async () => server.close());

  it("prints help with examples for the program and each command", async () => {
    const io = captureIo(dir);
    expect(await runCli(["--help"], io)).toBe(0);
    expect(io.stdout.text).toContain("Commands:");
    for (const command of ["pull", "serve-samples", "demo"]) {
      const cio = captureIo(dir);
      expect(await runCli([command, "--help"], cio)).toBe(0);
      expect(cio.stdout.text).toContain(`Usage: ocf-sync ${command}`);
      expect(cio.stdout.text).toContain("Example");
    }
  });

  it("answers usage mistakes with exit 2 and a pointer to --help", async () => {
    const io = captureIo(dir);
    expect(await runCli(["pull", "--issuer", "7"], io)).toBe(2);
    expect(io.stderr.text).toContain("--base-url is required");
    const io2 = captureIo(dir);
    expect(await runCli(["pull", "--base-url", server.url, "--issuer", "7", "--bogus"], io2)).toBe(2);
    expect(io2.stderr.text).toContain("ocf-sync pull --help");
    const io3 = captureIo(dir);
    expect(await runCli(["frobnicate"], io3)).toBe(2);
    expect(io3.stderr.text).toContain("unknown command");
  });

  it("pulls issuers to NDJSON with the token from OCF_SYNC_TOKEN", async () => {
    const out = join(dir, "pull.ndjson");
    const io = captureIo(dir, { OCF_SYNC_TOKEN: TOKEN });
    const issuerFlags = server.issuers.flatMap((id) => ["--issuer", id]);
    const code = await runCli(["pull", "--base-url", server.url, ...issuerFlags, "--out", out, "--on-invalid", "quarantine", "--log", "plain"], io);
    expect(io.stderr.text).toContain("issuers pulled");
    expect(code).toBe(0);
    const lines = (await readFile(out, "utf8")).trim().split("\n").map((l) => JSON.parse(l) as { kind: string; issuerId: string; id: string; record: unknown });
    let expected = 0;
    for (const records of server.data.issuers.values()) expected += records.awards.length + records.units.length;
    expect(lines).toHaveLength(expected);
    expect(new Set(lines.map((l) => `${l.issuerId}/${l.kind}/${l.id}`)).size).toBe(expected);
    // written atomically: no temporary file is left behind
    expect((await readdir(dir)).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });

  it("reports a rejected token without ever printing it, and exits 1", async () => {
    const wrong = "WRONG-token-77e1";
    const io = captureIo(dir, { OCF_SYNC_TOKEN: wrong });
    const code = await runCli(["pull", "--base-url", server.url, "--issuer", server.issuers[0] ?? "", "--log", "json", "--out", join(dir, "x.ndjson")], io);
    expect(code).toBe(1);
    expect(io.stderr.text).toContain("API_UNAUTHORIZED");
    expect(io.stderr.text + io.stdout.text).not.toContain(wrong);
    expect(io.stderr.text + io.stdout.text).not.toContain(TOKEN);
  });

  it("serve-samples prints its address and issuers as its first two lines", async () => {
    const controller = new AbortController();
    const io = captureIo(dir, {}, controller.signal);
    const running = runCli(["serve-samples", "--port", "0"], io);
    while (!io.stdout.text.includes("issuers:")) await new Promise((r) => setTimeout(r, 10));
    const [first, second] = io.stdout.text.split("\n");
    expect(first).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(second).toMatch(/^issuers: .+/);
    const url = (first ?? "").replace("listening on ", "");
    const response = await fetch(`${url}/v1alpha1/issuers/${encodeURIComponent(second?.slice("issuers: ".length).split(",")[0] ?? "")}/restrictedStockAwards`);
    expect(response.status).toBe(200);
    controller.abort();
    expect(await running).toBe(0);
  });
});
