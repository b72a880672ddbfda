/**
 * Options of the wrong kind, as a JavaScript caller can pass them: each entry point refuses them with a
 * TypeError naming the function, the option and the value, before any request and before any file is
 * written, rather than using them as something else (an `onInvalid` typo quarantined, an empty
 * `outDir` wrote into the working folder, a negative `overlapSeconds` skipped records).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createApiClient,
  exportIssuer,
  exportIssuers,
  pullIssuer,
  pullIssuers,
  streamIssuerRecords,
  sync,
  validatePackageAt,
} from "../../../src/index.js";
import { startSampleServer } from "../../../src/testing.js";
import { sampleApi } from "../../helpers/sample-api.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

const folder = temporaryFolder("ocf-sync-option-values-");
const api = sampleApi();

async function drain(iterable: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of iterable) {
    // every item
  }
}

/** Options a JavaScript caller could pass: any value. */
type AnyOptions = Record<string, unknown>;

describe("option values the types rule out", () => {
  const exportCases: [string, (out: string) => AnyOptions, string][] = [
    ["an empty outDir (the working folder)", () => ({ outDir: "" }), 'options.outDir must be a path (a non-empty string), got ""'],
    ["no outDir", () => ({}), "options.outDir must be a path (a non-empty string), got none"],
    ["an onInvalid typo", (out) => ({ outDir: out, onInvalid: "quarantined" }), 'options.onInvalid must be "fail" or "quarantine", got "quarantined"'],
    ["a validate of another kind", (out) => ({ outDir: out, validate: "yes" }), 'options.validate must be true, false or "auto", got "yes"'],
    ["a NaN validateMaxBytes", (out) => ({ outDir: out, validateMaxBytes: Number.NaN }), "options.validateMaxBytes must be a number of at least 0, got NaN"],
    ["a negative maxFileBytes", (out) => ({ outDir: out, maxFileBytes: -1 }), "options.maxFileBytes must be a whole number of at least 1, got -1"],
    ["a zip of another kind", (out) => ({ outDir: out, zip: "false" }), 'options.zip must be true or false, got "false"'],
    [
      "a generatedAt that is no date-time (it was reported as options.asOf)",
      (out) => ({ outDir: out, generatedAt: "yesterday" }),
      'options.generatedAt must be an RFC 3339 date-time with a zone (such as 2026-01-31T12:00:00Z), got "yesterday"',
    ],
  ];

  it.each(exportCases)("exportIssuers and exportIssuer refuse %s, before any request or file", async (_, options, message) => {
    const out = join(folder(), "export");
    const before = api.server().stats().requests;
    await expect(drain(exportIssuers(api.client(), ["7"], options(out) as never))).rejects.toThrow(new TypeError(`exportIssuers: ${message}`));
    await expect(exportIssuer(api.client(), "7", options(out) as never)).rejects.toThrow(new TypeError(`exportIssuer: ${message}`));
    expect(api.server().stats().requests).toBe(before);
    expect(await readdir(folder())).toEqual([]);
  });

  it.each(exportCases)("sync refuses %s, before any request or file", async (_, options, message) => {
    const out = join(folder(), "sync");
    const before = api.server().stats().requests;
    await expect(drain(sync(api.client(), ["7"], { stateFile: join(out, "state.json"), ...options(out) } as never))).rejects.toThrow(new TypeError(`sync: ${message}`));
    expect(api.server().stats().requests).toBe(before);
    expect(await readdir(folder())).toEqual([]);
  });

  it.each([
    ["a negative overlapSeconds (records modified after the cursor would be skipped)", { overlapSeconds: -3600 }, "options.overlapSeconds must be a number of at least 0, got -3600"],
    ["a NaN overlapSeconds", { overlapSeconds: Number.NaN }, "options.overlapSeconds must be a number of at least 0, got NaN"],
    ["a fractional fullEvery", { fullEvery: 2.5 }, "options.fullEvery must be a whole number of at least 0, got 2.5"],
    ["a negative fullEvery", { fullEvery: -1 }, "options.fullEvery must be a whole number of at least 0, got -1"],
  ])("sync refuses %s", async (_, options, message) => {
    const out = join(folder(), "sync");
    await expect(drain(sync(api.client(), ["7"], { stateFile: join(out, "state.json"), outDir: out, ...options }))).rejects.toThrow(new TypeError(`sync: ${message}`));
    expect(await readdir(folder())).toEqual([]);
  });

  it.each([
    ["an onInvalid typo", { onInvalid: "skip" }, 'options.onInvalid must be "fail" or "quarantine", got "skip"'],
    ["a kind that is not one", { kinds: ["restrictedStockAwards"] }, 'options.kinds[] must be "restrictedStockAward" or "restrictedStockUnit", got "restrictedStockAwards"'],
    ["kinds that are no array", { kinds: "restrictedStockAward" }, 'options.kinds must be an array of record kinds, got "restrictedStockAward"'],
  ])("pullIssuers, pullIssuer and streamIssuerRecords refuse %s, before any request", async (_, options, message) => {
    const before = api.server().stats().requests;
    await expect(drain(pullIssuers(api.client(), ["7"], options as never))).rejects.toThrow(new TypeError(`pullIssuers: ${message}`));
    await expect(pullIssuer(api.client(), "7", options as never)).rejects.toThrow(new TypeError(`pullIssuer: ${message}`));
    await expect(drain(streamIssuerRecords(api.client(), "7", options as never))).rejects.toThrow(new TypeError(`streamIssuerRecords: ${message}`));
    expect(api.server().stats().requests).toBe(before);
  });

  it.each([
    ["a reader that is not a lineage reading", { reader: "document" }, 'options.reader must be "documents" or "same-security", got "document"'],
    ["a maxValueBytes of 0", { maxValueBytes: 0 }, "options.maxValueBytes must be a number of at least 1, got 0"],
    ["a NaN maxFileBytes", { maxFileBytes: Number.NaN }, "options.maxFileBytes must be a number of at least 1, got NaN"],
  ])("validatePackageAt refuses %s", async (_, options, message) => {
    await expect(validatePackageAt(join(folder(), "no-package"), options as never)).rejects.toThrow(new TypeError(`validatePackageAt: ${message}`));
  });

  it("the job entry points refuse an option they do not know (a misspelt one was ignored), naming the one it resembles", async () => {
    const out = join(folder(), "unknown");
    const before = api.server().stats().requests;
    await expect(drain(exportIssuers(api.client(), ["7"], { outDir: out, concurency: 8 } as never))).rejects.toThrow(new TypeError('exportIssuers: unknown option "concurency"'));
    await expect(drain(exportIssuers(api.client(), ["7"], { outDir: out, oninvalid: "quarantine" } as never))).rejects.toThrow(
      new TypeError('exportIssuers: unknown option "oninvalid" (did you mean "onInvalid"?)'),
    );
    await expect(exportIssuer(api.client(), "7", { outDir: out, concurrency: 2 } as never)).rejects.toThrow(new TypeError('exportIssuer: unknown option "concurrency"'));
    await expect(drain(sync(api.client(), ["7"], { outDir: out, stateFile: join(out, "state.json"), onEvent: () => {} } as never))).rejects.toThrow(
      new TypeError('sync: unknown option "onEvent"'),
    );
    await expect(drain(pullIssuers(api.client(), ["7"], { pagesize: 10 } as never))).rejects.toThrow(new TypeError('pullIssuers: unknown option "pagesize" (did you mean "pageSize"?)'));
    await expect(pullIssuer(api.client(), "7", { concurrency: 2 } as never)).rejects.toThrow(new TypeError('pullIssuer: unknown option "concurrency"'));
    await expect(drain(streamIssuerRecords(api.client(), "7", { modifiedAfter: "2025-01-01T00:00:00Z" } as never))).rejects.toThrow(
      new TypeError('streamIssuerRecords: unknown option "modifiedAfter"'),
    );
    expect(api.server().stats().requests).toBe(before);
    expect(await readdir(folder())).toEqual([]);
  });

  it("createApiClient and validatePackageAt refuse an option they do not know too", async () => {
    expect(() => createApiClient({ baseUrl: "http://127.0.0.1:9", ratelimit: false } as never)).toThrow(new TypeError('createApiClient: unknown option "ratelimit" (did you mean "rateLimit"?)'));
    expect(() => createApiClient({ baseUrl: "http://127.0.0.1:9", token: "x" } as never)).toThrow(new TypeError('createApiClient: unknown option "token"'));
    await expect(validatePackageAt(join(folder(), "none"), { Reader: "same-security" } as never)).rejects.toThrow(
      new TypeError('validatePackageAt: unknown option "Reader" (did you mean "reader"?)'),
    );
    // The worker threads it once had did not pay on two cores and were removed before the first release.
    await expect(validatePackageAt(join(folder(), "none"), { workers: 2 } as never)).rejects.toThrow(new TypeError('validatePackageAt: unknown option "workers"'));
  });

  it("takes every documented value", async () => {
    const out = join(folder(), "fine");
    const result = await exportIssuer(api.client(), "7", { outDir: out, onInvalid: "quarantine", zip: false, validate: "auto", validateMaxBytes: Number.POSITIVE_INFINITY, maxFileBytes: 1024, generatedAt: "2026-01-31T12:00:00+01:00" });
    const report = await validatePackageAt(result.folder, { reader: "documents", maxValueBytes: Number.POSITIVE_INFINITY });
    expect(report.valid).toBe(true);
    expect((await pullIssuer(api.client(), "7", { onInvalid: "fail", kinds: ["restrictedStockUnit"] })).units.length).toBeGreaterThan(0);
  });
});
