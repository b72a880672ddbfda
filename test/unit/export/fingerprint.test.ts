/**
 * The mapping digest: its value is the digest of its parts (so stored syncs stay valid across the way
 * it is computed), and a directory memoized for a job digests the same as one serialized afresh.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MappingOptions, StakeholderEntry } from "../../../src/mapping/types.js";
import { digestOf, directoryJson, directoryJsonOnce, mappingDigest } from "../../../src/export/fingerprint.js";

const entry = fc.record({ legalName: fc.string(), firstName: fc.option(fc.string(), { nil: undefined }) }, { requiredKeys: ["legalName"] }) as fc.Arbitrary<StakeholderEntry>;
const options: fc.Arbitrary<MappingOptions> = fc.record(
  {
    settlementStockClassName: fc.string(),
    lineage: fc.constantFrom("documents" as const, "same-security" as const),
    issuerProfile: fc.record({ legalName: fc.string() }),
    stakeholders: fc.array(fc.tuple(fc.string(), entry)).map((entries) => new Map(entries)),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<MappingOptions>;

describe("mappingDigest", () => {
  it("is digestOf its five parts, the directory's entries sorted by key, however the directory is serialized", () => {
    fc.assert(
      fc.property(fc.string(), options, (code, opts) => {
        const entries = opts.stakeholders === undefined ? null : [...opts.stakeholders.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        const expected = digestOf([code, opts.settlementStockClassName ?? null, opts.lineage ?? null, opts.issuerProfile ?? null, entries]);
        expect(mappingDigest(code, opts)).toBe(expected);
        expect(mappingDigest(code, opts, directoryJsonOnce())).toBe(expected);
      }),
    );
  });

  it("serializes each directory once per memo, and a new memo sees the directory as it is now", () => {
    const directory = new Map<string, StakeholderEntry>([["b", { legalName: "B" }], ["a", { legalName: "A" }]]);
    const once = directoryJsonOnce();
    const first = once(directory);
    expect(first).toBe(directoryJson(directory));
    directory.set("c", { legalName: "C" });
    // The memo is for one job, in which the directory does not change.
    expect(once(directory)).toBe(first);
    expect(directoryJsonOnce()(directory)).toBe(directoryJson(directory));
    expect(directoryJson(directory)).not.toBe(first);
  });
});
