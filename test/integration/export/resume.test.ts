/**
 * Resuming an export of many issuers: what the job already put in place is not exported again, the
 * rest gets the job's time, and anything that changed is exported again.
 */
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CountingDirectory } from "../../helpers/counting-directory.js";
import { describe, expect, it } from "vitest";
import { exportIssuers, type ExportManyOptions, type IssuerExportResult } from "../../../src/export/export-issuers.js";
import { EXPORT_JOB_FILE } from "../../../src/export/resume.js";
import { packageNameFor } from "../../../src/ocf/package-folder.js";
import { sampleApi } from "../../helpers/sample-api.js";

describe("exportIssuers with resume", () => {
  const api = sampleApi();

  const run = async (issuers: readonly string[], options: ExportManyOptions): Promise<Map<string, IssuerExportResult>> => {
    const results = new Map<string, IssuerExportResult>();
    for await (const result of exportIssuers(api.client(), issuers, { concurrency: 2, ...options })) results.set(result.issuerId, result);
    return results;
  };
  /** The folder's inode: a package exported again is a new folder renamed into place. */
  const folderId = async (out: string, issuerId: string): Promise<number> => (await stat(join(out, packageNameFor(issuerId)))).ino;
  const generatedAtOf = async (out: string, issuerId: string): Promise<string> =>
    (JSON.parse(await readFile(join(out, packageNameFor(issuerId), "Manifest.ocf.json"), "utf8")) as { generated_at: string }).generated_at;
  const resumed = (result: IssuerExportResult | undefined): boolean => result?.ok === true && result.resumed === true;
  const jobFileIn = async (out: string): Promise<boolean> => (await readdir(out)).includes(EXPORT_JOB_FILE);

  it("exports again only the issuers that failed, with the job's time, and ends the job once all are exported", async () => {
    const out = await mkdtemp(join(tmpdir(), "ocf-sync-resume-"));
    const issuers = [...api.server().issuers, "no-such-issuer"];
    const first = await run(issuers, { outDir: out, zip: true });
    expect(first.get("no-such-issuer")?.ok).toBe(false);
    expect(await jobFileIn(out)).toBe(true);
    const time = await generatedAtOf(out, "7");
    const before = new Map(await Promise.all(api.server().issuers.map(async (id) => [id, await folderId(out, id)] as const)));

    const second = await run(issuers, { outDir: out, zip: true, resume: true });
    for (const id of api.server().issuers) {
      const result = second.get(id);
      expect(resumed(result), id).toBe(true);
      expect(await folderId(out, id), id).toBe(before.get(id));
      const earlier = first.get(id);
      // Read back from the report: the same figures as when it was exported.
      if (result?.ok && earlier?.ok) {
        expect({ ...result.export }).toEqual({ ...earlier.export });
      }
    }
    expect(second.get("no-such-issuer")?.ok).toBe(false);
    expect(await jobFileIn(out)).toBe(true);

    // The failing issuer leaves the list: the job is done, and says so by removing its file.
    const third = await run(api.server().issuers, { outDir: out, zip: true, resume: true });
    expect([...third.values()].every(resumed)).toBe(true);
    expect(await jobFileIn(out)).toBe(false);
    expect(await generatedAtOf(out, "7")).toBe(time);
  });

  it("continues an interrupted job with the time it started with", async () => {
    const out = await mkdtemp(join(tmpdir(), "ocf-sync-resume-stop-"));
    const controller = new AbortController();
    const done: string[] = [];
    await expect(async () => {
      for await (const result of exportIssuers(api.client(), api.server().issuers, { outDir: out, concurrency: 1, signal: controller.signal })) {
        if (result.ok) done.push(result.issuerId);
        controller.abort();
      }
    }).rejects.toThrow();
    expect(done).toHaveLength(1);
    expect(await jobFileIn(out)).toBe(true);
    const time = await generatedAtOf(out, done[0] as string);

    const again = await run(api.server().issuers, { outDir: out, resume: true });
    expect([...again.values()].filter(resumed).map((r) => r.issuerId)).toEqual(done);
    expect([...again.values()].every((r) => r.ok)).toBe(true);
    for (const id of api.server().issuers) expect(await generatedAtOf(out, id), id).toBe(time);
    expect(await jobFileIn(out)).toBe(false);
  });

  it("exports again what the job's options no longer match, what was changed on disk, and everything without resume", async () => {
    const out = await mkdtemp(join(tmpdir(), "ocf-sync-resume-changed-"));
    const generatedAt = "2025-06-30T00:00:00Z";
    await run(["7", "acme-robotics", "no-such-issuer"], { outDir: out, generatedAt });
    // Other mapping options: nothing of the job holds.
    const otherLineage = await run(["7", "acme-robotics"], { outDir: out, generatedAt, resume: true, lineage: "same-security" });
    expect([...otherLineage.values()].map(resumed)).toEqual([false, false]);
    // A zip asked for now that the packages were written without, or a zip deleted since: exported again.
    await run(["7", "no-such-issuer"], { outDir: out, generatedAt });
    const zipNow = await run(["7", "no-such-issuer"], { outDir: out, generatedAt, resume: true, zip: true });
    expect(resumed(zipNow.get("7"))).toBe(false);
    await rm(join(out, "7.ocf.zip"));
    const zipGone = await run(["7"], { outDir: out, generatedAt, resume: true, zip: true });
    expect(resumed(zipGone.get("7"))).toBe(false);
    expect((await stat(join(out, "7.ocf.zip"))).isFile()).toBe(true);
    // A manifest edited by hand: its MD5 is not the report's.
    await run(["7", "no-such-issuer"], { outDir: out, generatedAt });
    const manifest = join(out, "7", "Manifest.ocf.json");
    await writeFile(manifest, (await readFile(manifest, "utf8")).replace("Issuer 7", "Issuer Seven"));
    const edited = await run(["7"], { outDir: out, generatedAt, resume: true });
    expect(resumed(edited.get("7"))).toBe(false);
    expect(await readFile(manifest, "utf8")).not.toContain("Issuer Seven");
    // Another file of the package cut short or deleted: its size is not the report's.
    await run(["7", "no-such-issuer"], { outDir: out, generatedAt });
    const transactions = join(out, "7", "Transactions.ocf.json");
    const whole = await readFile(transactions);
    await writeFile(transactions, whole.subarray(0, whole.length - 10));
    const cut = await run(["7"], { outDir: out, generatedAt, resume: true });
    expect(resumed(cut.get("7"))).toBe(false);
    expect(await readFile(transactions)).toEqual(whole);
    await run(["7", "no-such-issuer"], { outDir: out, generatedAt });
    await rm(join(out, "7", "Stakeholders.ocf.json"));
    const deleted = await run(["7"], { outDir: out, generatedAt, resume: true });
    expect(resumed(deleted.get("7"))).toBe(false);
    // Without resume, a new job: everything is exported.
    const again = await run(["7", "acme-robotics"], { outDir: out, generatedAt });
    expect([...again.values()].some(resumed)).toBe(false);
  });

  it("serializes a stakeholder directory shared by the job's issuers once, and a directory changed between jobs exports again", async () => {
    const out = await mkdtemp(join(tmpdir(), "ocf-sync-resume-directory-"));
    const directory = new CountingDirectory([["nobody", { legalName: "Nobody Inc." }]]);
    const options: ExportManyOptions = { outDir: out, generatedAt: "2025-06-30T00:00:00Z", stakeholdersOf: () => directory };
    await run([...api.server().issuers, "no-such-issuer"], options);
    expect(directory.reads).toBe(1);
    const again = await run(api.server().issuers, { ...options, resume: true });
    expect([...again.values()].every(resumed)).toBe(true);
    expect(directory.reads).toBe(2);
    // The caller's Map edited between jobs: another digest, so nothing of the job holds.
    directory.set("someone", { legalName: "Someone Ltd." });
    const edited = await run(api.server().issuers, { ...options, resume: true });
    expect([...edited.values()].some(resumed)).toBe(false);
  });
});
