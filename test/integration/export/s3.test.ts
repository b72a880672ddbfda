/**
 * `export --out s3://bucket/prefix` (issue 26, item 5) against a real S3-compatible server (moto's,
 * started on loopback by the test): the packages validate when downloaded; the commit marker lists
 * every object with the ETag it has; an upload cut short leaves no marker, so the package does not
 * count; of two writers of one package exactly one commits (conditional writes).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ListObjectsV2Command, GetObjectCommand } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import type { IssuerExport } from "../../../src/export/export-issuer.js";
import { COMPLETE_MARKER, committedPackage, downloadPackage, uploadPackage, type S3Target } from "../../../src/export/s3-package.js";
import { createS3Client, parseS3Url, s3Key } from "../../../src/io/s3.js";
import { packageNameFor } from "../../../src/ocf/package-folder.js";
import { validatePackageAt } from "../../../src/ocf/validate-package.js";
import { startSampleServer } from "../../../src/sample-server/server.js";
import { runCliProcess } from "../../helpers/cli-process.js";
import { describeGated } from "../../helpers/gate.js";
import { s3Gate } from "../../helpers/gates.js";
import { s3TestServers, type S3Proxy } from "../../helpers/s3-servers.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

const BUCKET = "ocf-packages";
const gate = s3Gate();

describeGated(gate, "export --out s3://", () => {
  const folder = temporaryFolder("ocf-sync-s3-");
  const servers = s3TestServers(gate.found ?? "moto_server", BUCKET, () => startSampleServer());
  const steer = (decide: S3Proxy["steer"]): void => {
    servers().proxy.steer = decide;
  };

  const target = (prefix: string): S3Target => ({ ...servers().s3, location: parseS3Url(`s3://${BUCKET}/${prefix}`) });
  const keysUnder = async (prefix: string): Promise<string[]> => {
    const listed = await servers().s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/` }));
    return (listed.Contents ?? []).map((object) => object.Key ?? "").sort();
  };
  const exportTo = (out: string, issuers: string[], env: Record<string, string> = servers().moto.env) =>
    runCliProcess(["export", "--base-url", servers().api.url, ...issuers.flatMap((id) => ["--issuer", id]), "--out", out, "--zip", "--json", "--log", "plain"], { cwd: folder(), env });

  it("uploads each package whole, marks it complete last, and it validates when downloaded", { timeout: 120_000 }, async () => {
    const issuers = servers().api.issuers.slice(0, 2);
    // Through the proxy, which records the order of the writes.
    const writes: string[] = [];
    steer((method, path) => {
      if (method === "PUT") writes.push(path.replace(`/${BUCKET}/`, ""));
      return "pass";
    });
    const run = await exportTo(`s3://${BUCKET}/runs/one/`, issuers, { ...servers().moto.env, AWS_ENDPOINT_URL_S3: servers().proxy.url });
    steer(() => "pass");
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { outDir: string; issuers: { issuerId: string; package: { folder: string } | null; status: string }[] };
    expect(summary.outDir).toBe(`s3://${BUCKET}/runs/one/`);
    for (const issuerId of issuers) {
      const name = packageNameFor(issuerId);
      expect(summary.issuers.find((i) => i.issuerId === issuerId)?.package?.folder).toBe(`s3://${BUCKET}/runs/one/${name}`);
      const marker = await committedPackage(target("runs/one"), name);
      expect(marker?.issuerId).toBe(issuerId);
      // Every object of the package is in the marker (and nothing else is under its keys), the marker last of all.
      const keys = (await keysUnder("runs/one")).filter((key) => key.startsWith(`runs/one/${name}/`) || key.startsWith(`runs/one/${name}.`));
      expect([...(marker?.objects.map((o) => `runs/one/${o.path}`) ?? []), `runs/one/${name}/${COMPLETE_MARKER}`].sort()).toEqual(keys);
      expect(marker?.objects.map((o) => o.path)).toEqual(expect.arrayContaining([`${name}/Manifest.ocf.json`, `${name}.ocf.zip`, `${name}.report.json`]));
      const own = writes.filter((key) => key.startsWith(`runs/one/${name}/`) || key.startsWith(`runs/one/${name}.`));
      expect(own.at(-1)).toBe(`runs/one/${name}/${COMPLETE_MARKER}`);
      expect(own.slice(0, -1).sort()).toEqual(marker?.objects.map((o) => `runs/one/${o.path}`).sort());
      const local = join(folder(), "downloaded-one");
      expect(await downloadPackage(target("runs/one"), name, local)).toEqual(marker);
      const report = await validatePackageAt(join(local, name));
      expect(report.problems).toEqual([]);
      expect(await readdir(local)).toEqual(expect.arrayContaining([name, `${name}.ocf.zip`, `${name}.report.json`]));
      const validated = await runCliProcess(["validate", `s3://${BUCKET}/runs/one/${name}`, "--json"], { cwd: folder(), env: servers().moto.env });
      expect(validated.code, validated.stderr).toBe(0);
      expect(JSON.parse(validated.stdout)).toMatchObject({ path: `s3://${BUCKET}/runs/one/${name}`, valid: true });
    }
  });

  it("an upload that fails part way leaves no marker: the package does not count until a later run commits it", { timeout: 120_000 }, async () => {
    // Every upload of the report fails (the SDK's retries too): the package's folder is uploaded, the marker never.
    steer((method, path) => (method === "PUT" && path.includes(".report.json") ? "fail" : "pass"));
    const failed = await exportTo(`s3://${BUCKET}/runs/cut`, ["7"], { ...servers().moto.env, AWS_ENDPOINT_URL_S3: servers().proxy.url, AWS_MAX_ATTEMPTS: "1" });
    steer(() => "pass");
    // Object storage failing (5xx) says nothing of the data: "retry it".
    expect(failed.code, failed.stderr).toBe(75);
    expect((JSON.parse(failed.stdout) as { issuers: { error: { code: string } }[] }).issuers[0]?.error.code).toBe("S3_REQUEST_FAILED");
    const keys = await keysUnder("runs/cut");
    expect(keys).toContain("runs/cut/7/Manifest.ocf.json");
    expect(keys).not.toContain(`runs/cut/7/${COMPLETE_MARKER}`);
    expect(await committedPackage(target("runs/cut"), "7")).toBeUndefined();
    expect(await downloadPackage(target("runs/cut"), "7", join(folder(), "downloaded-cut"))).toBeUndefined();
    const refused = await runCliProcess(["validate", `s3://${BUCKET}/runs/cut/7`], { cwd: folder(), env: servers().moto.env });
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain("is not a complete package");
    // The same command again commits it.
    const again = await exportTo(`s3://${BUCKET}/runs/cut`, ["7"]);
    expect(again.code, again.stderr).toBe(0);
    expect((await committedPackage(target("runs/cut"), "7"))?.name).toBe("7");
  });

  it("a package being replaced does not count while its objects no longer match its marker; the replacement commits with If-Match", { timeout: 120_000 }, async () => {
    expect((await exportTo(`s3://${BUCKET}/runs/replace`, ["7"])).code).toBe(0);
    const first = await committedPackage(target("runs/replace"), "7");
    expect(first).toBeDefined();
    // A new run of another generated_at, cut before its marker: the old marker no longer matches the objects.
    steer((method, path) => (method === "PUT" && path.endsWith(COMPLETE_MARKER) ? "fail" : "pass"));
    const cut = await runCliProcess(
      ["export", "--base-url", servers().api.url, "--issuer", "7", "--out", `s3://${BUCKET}/runs/replace`, "--zip", "--generated-at", "2030-01-02T03:04:05Z"],
      { cwd: folder(), env: { ...servers().moto.env, AWS_ENDPOINT_URL_S3: servers().proxy.url, AWS_MAX_ATTEMPTS: "1" } },
    );
    steer(() => "pass");
    expect(cut.code, cut.stderr).toBe(75);
    expect(await committedPackage(target("runs/replace"), "7")).toBeUndefined();
    const again = await exportTo(`s3://${BUCKET}/runs/replace`, ["7"]);
    expect(again.code, again.stderr).toBe(0);
    const marker = await committedPackage(target("runs/replace"), "7");
    expect(marker).toBeDefined();
    const got = await servers().s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: s3Key(target("runs/replace").location, `7/${COMPLETE_MARKER}`) }));
    expect(JSON.parse((await got.Body?.transformToString()) ?? "")).toEqual(marker);
  });

  it("of two writers of one package exactly one commits: the other gets S3_COMMIT_CONFLICT", { timeout: 120_000 }, async () => {
    const local = await runCliProcess(["export", "--base-url", servers().api.url, "--issuer", "7", "--out", "local", "--zip"], { cwd: folder() });
    expect(local.code, local.stderr).toBe(0);
    const exported = { issuerId: "7", name: "7", folder: join(folder(), "local", "7"), zip: join(folder(), "local", "7.ocf.zip"), report: join(folder(), "local", "7.report.json") } as IssuerExport;
    // Both writers read "no marker" and upload; their markers are held until both are under way.
    const viaProxy = await createS3Client({ ...servers().moto.env, AWS_ENDPOINT_URL_S3: servers().proxy.url });
    // One request at a time reaches moto: the two writers send the same keys, which moto may refuse
    // (500) when they come at the same moment.
    servers().proxy.serial = true;
    let markers = 0;
    let ended = 0;
    steer((method, path) => {
      if (!(method === "PUT" && path.endsWith(COMPLETE_MARKER))) return "pass";
      markers += 1;
      // Only the first marker waits, until the second arrives, and only while the other writer runs;
      // any later one (an SDK retry of a slow answer on a loaded machine) passes at once.
      if (markers === 1 && ended === 0) return "hold";
      setImmediate(() => servers().proxy.held.splice(0).forEach((go) => go()));
      return "pass";
    });
    try {
      const where: S3Target = { ...viaProxy, location: parseS3Url(`s3://${BUCKET}/runs/race`) };
      // A writer that ends before the other's marker (a failure) lets it go rather than hold it for ever.
      const write = (): Promise<unknown> =>
        uploadPackage(where, exported).finally(() => {
          ended += 1;
          servers().proxy.held.splice(0).forEach((go) => go());
        });
      const outcomes = await Promise.allSettled([write(), write()]);
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
      expect((rejected?.reason as { code?: string } | undefined)?.code).toBe("S3_COMMIT_CONFLICT");
    } finally {
      steer(() => "pass");
      servers().proxy.serial = false;
      viaProxy.client.destroy();
    }
    expect(await committedPackage(target("runs/race"), "7")).toBeDefined();
  });
});
