/**
 * Every machine-readable document the CLI writes (each command's --json, the run record, the export's
 * <name>.report.json) opens with the version and the time it was made, and is valid by the JSON
 * Schema the package ships for it (schemas/*.schema.json, read by an independent validator, ajv) and by
 * the zod schema it is generated from; the shipped files are what `npm run schemas` writes.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { jsonSchemaOf, OUTPUT_SCHEMAS } from "../../../src/cli/output-schemas.js";
import { startSampleServer, type SampleServer } from "../../../src/sample-server/server.js";
import { ocfSyncVersion } from "../../../src/version.js";
import { captureIo } from "../../helpers/capture.js";

const SCHEMAS = new URL("../../../schemas/", import.meta.url);
const PACKAGE_VERSION = (JSON.parse(await readFile(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version;

type SchemaFile = (typeof OUTPUT_SCHEMAS)[number]["file"];

let server: SampleServer;
let dir: string;
beforeAll(async () => {
  server = await startSampleServer({ port: 0 });
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-output-schemas-"));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const run = async (argv: string[], now?: () => number): Promise<{ code: number; out: string; err: string }> => {
  const io = { ...captureIo(dir, {}), ...(now === undefined ? {} : { now }) };
  const code = await runCli(argv, io);
  return { code, out: io.stdout.text, err: io.stderr.text };
};

const validators = new Map<SchemaFile, (data: unknown) => void>();

/** Checks `document` against the shipped JSON Schema `file` (ajv) and its zod source; returns it. */
async function checked(file: SchemaFile, document: unknown): Promise<Record<string, unknown>> {
  let validate = validators.get(file);
  if (validate === undefined) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    const compiled = ajv.compile(JSON.parse(await readFile(new URL(file, SCHEMAS), "utf8")) as Record<string, unknown>);
    validate = (data) => {
      if (!compiled(data)) throw new Error(`${file}: ${JSON.stringify(compiled.errors, null, 2)}`);
    };
    validators.set(file, validate);
  }
  validate(document);
  const entry = OUTPUT_SCHEMAS.find((e) => e.file === file);
  const parsed = entry?.schema.safeParse(document);
  expect(parsed?.error, `${file} (zod)`).toBeUndefined();
  const stamp = document as Record<string, unknown>;
  expect(Object.keys(stamp).slice(0, 2)).toEqual(["ocfSyncVersion", "generatedAt"]);
  expect(stamp.ocfSyncVersion).toBe(PACKAGE_VERSION);
  expect(Number.isNaN(Date.parse(String(stamp.generatedAt)))).toBe(false);
  return stamp;
}

const jsonOf = (out: string): unknown => JSON.parse(out);
const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(join(dir, path), "utf8"));

describe("the JSON Schemas the package ships", () => {
  it("are the files `npm run schemas` writes, one per document, and nothing else", async () => {
    const shipped = (await readdir(SCHEMAS)).filter((name) => name.endsWith(".schema.json")).sort();
    expect(shipped).toEqual(OUTPUT_SCHEMAS.map((e) => e.file).sort());
    for (const entry of OUTPUT_SCHEMAS) {
      expect(JSON.parse(await readFile(new URL(entry.file, SCHEMAS), "utf8")), `schemas/${entry.file} is out of date: run npm run schemas`).toEqual(jsonSchemaOf(entry));
    }
  });

  it("the stamp's version is the package's", () => {
    expect(ocfSyncVersion()).toBe(PACKAGE_VERSION);
  });
});

describe("every --json document is valid by its schema", () => {
  it("export: the run record, the same document --summary writes; each report.json pinned by --generated-at", async () => {
    const exported = await run(["export", "--base-url", server.url, "--issuer", "7", "--issuer", "no-such-issuer", "--out", "out", "--as-of", "2025-06-30", "--generated-at", "2025-07-01T00:00:00Z", "--json", "--summary", "runs/export.json", "--log", "plain"]);
    expect(exported.code).toBe(1);
    const document = await checked("run-record.schema.json", jsonOf(exported.out));
    expect(await readJson("runs/export.json")).toEqual(document);
    expect(document).toMatchObject({ command: "export", outcome: "issuers-failed", counts: { issuers: 2, ok: 1, failed: 1 }, generatedAt: document.endedAt });
    expect((document.issuers as unknown[])[1]).toMatchObject({
      issuerId: "7",
      status: "ok",
      package: { name: "7", folder: join(dir, "out", "7"), written: true, validated: true },
      counts: { awards: 4 },
    });

    const report = await checked("export-report.schema.json", await readJson("out/7.report.json"));
    expect(report).toMatchObject({ generatedAt: "2025-07-01T00:00:00Z", issuerId: "7", package: "7" });
  });

  it("export: a job that cannot run prints a run record that says why, every issuer failed", async () => {
    const usage = await run(["export", "--issuer", "7", "--issuer", "8", "--out", "out", "--json"]);
    expect(usage.code).toBe(2);
    const document = await checked("run-record.schema.json", jsonOf(usage.out));
    expect(document).toMatchObject({ outcome: "job-failed", exitStatus: 2, error: { code: "USAGE_ERROR" }, counts: { issuers: 2, failed: 2 }, requests: null });
  });

  it("sync: the run record with each issuer's pass, objects and records; a failure of the whole sync too", async () => {
    const first = await run(["sync", "--base-url", server.url, "--issuer", "7", "--out", "sout", "--state", "state.json", "--json", "--log", "plain"]);
    expect(first.code).toBe(0);
    const full = await checked("run-record.schema.json", jsonOf(first.out));
    const [issuer] = full.issuers as { sync: { pass: string; modifiedAfter: string | null; created: number; objects: { created: unknown[] }; records: { pulled: number } }; package: { written: boolean } }[];
    expect(issuer?.sync).toMatchObject({ pass: "full", modifiedAfter: null });
    expect(issuer?.sync.objects.created).toHaveLength(issuer?.sync.created ?? -1);
    expect(issuer?.sync.records.pulled).toBeGreaterThan(0);
    expect(issuer?.package.written).toBe(true);

    const second = await run(["sync", "--base-url", server.url, "--issuer", "7", "--out", "sout", "--state", "state.json", "--json", "--log", "plain"]);
    expect(second.code).toBe(0);
    const incremental = await checked("run-record.schema.json", jsonOf(second.out));
    const [again] = incremental.issuers as { sync: { pass: string; modifiedAfter: string | null }; package: { written: boolean; validated: boolean | null }; counts: unknown }[];
    expect(again?.sync.pass).toBe("incremental");
    expect(again?.sync.modifiedAfter).toEqual(expect.any(String));
    expect(again?.package).toMatchObject({ written: false, validated: null });
    expect(again?.counts).toBeNull();

    const usage = await run(["sync", "--base-url", server.url, "--issuer", "7", "--out", "sout", "--json"]);
    expect(usage.code).toBe(2);
    expect(await checked("run-record.schema.json", jsonOf(usage.out))).toMatchObject({ command: "sync", outcome: "job-failed", error: { code: "USAGE_ERROR" } });
  });

  it("validate: a report, an unusable package, a usage error; stamped with the time of the injected clock", async () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5);
    const ok = await run(["validate", "sout/7", "--json"], () => at);
    expect(ok.code).toBe(0);
    expect(await checked("validate.schema.json", jsonOf(ok.out))).toMatchObject({ generatedAt: "2026-01-02T03:04:05.000Z", valid: true });

    const missing = await run(["validate", "no-such-package", "--json"]);
    expect(missing.code).toBe(2);
    expect(await checked("validate.schema.json", jsonOf(missing.out))).toMatchObject({ valid: false, unusable: { code: expect.any(String) } });

    const usage = await run(["validate", "sout/7", "--reader", "sideways", "--json"]);
    expect(usage.code).toBe(2);
    expect(await checked("validate.schema.json", jsonOf(usage.out))).toMatchObject({ error: { code: "USAGE_ERROR" } });
  });

  it("reconcile: source against OCF, OCF against OCF, unusable input, a usage error; --html says who wrote it and when", async () => {
    const at = Date.UTC(2026, 4, 6, 7, 8, 9);
    const api = await run(["reconcile", "--base-url", server.url, "--issuer", "7", "out/7", "--json", "--html", "r.html"], () => at);
    expect(api.code).toBe(0);
    expect(await checked("reconcile.schema.json", jsonOf(api.out))).toMatchObject({ agree: true, reports: [{ mode: "source-vs-ocf" }] });
    expect(await readFile(join(dir, "r.html"), "utf8")).toContain(`Written by ocf-sync ${PACKAGE_VERSION} at 2026-05-06T07:08:09.000Z.`);

    const pair = await run(["reconcile", "out/7", "--against", "sout/7", "--json"]);
    expect(await checked("reconcile.schema.json", jsonOf(pair.out))).toMatchObject({ reports: [{ mode: "ocf-vs-ocf" }] });

    const missing = await run(["reconcile", "out/7", "--against", "no-such-package", "--json"]);
    expect(missing.code).toBe(2);
    expect(await checked("reconcile.schema.json", jsonOf(missing.out))).toMatchObject({ agree: false, unusable: { code: expect.any(String) } });

    const usage = await run(["reconcile", "out/7", "--against", "sout/7", "--json", "--csv"]);
    expect(usage.code).toBe(2);
    expect(await checked("reconcile.schema.json", jsonOf(usage.out))).toMatchObject({ agree: false, error: { code: "USAGE_ERROR" } });
  });

  it("summarize: the merged records, and a path that holds none", async () => {
    const merged = await run(["summarize", "runs", "--json"]);
    expect(merged.code).toBe(1);
    const document = await checked("summarize.schema.json", jsonOf(merged.out));
    expect(document).toMatchObject({ counts: { issuers: 2, ok: 1, failed: 1 }, runs: [{ command: "export" }] });

    const none = await run(["summarize", "no-such-folder", "--json"]);
    expect(none.code).toBe(2);
    expect(await checked("summarize.schema.json", jsonOf(none.out))).toMatchObject({ error: { code: expect.any(String) } });
  });
});
