import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { issuerObjectsOf } from "../../../src/mapping/accumulator.js";
import type { RecordUses } from "../../../src/mapping/types.js";
import { UsesTally, tallyUses, type IssuerUses } from "../../../src/mapping/uses-tally.js";

const classUse = fc.oneof(
  fc.record({ key: fc.constantFrom("Common", "Preferred"), labels: fc.array(fc.constantFrom("CS-1", "CS-22", "PS-3", "17"), { maxLength: 3 }) }).map((u) => ({ ...u, name: u.key })),
  fc.record({ key: fc.constantFrom("sc-1", "sc-2"), labels: fc.array(fc.constantFrom("CS-4", "X9"), { maxLength: 2 }) }).map((u) => ({ ...u, id: u.key })),
);
const quantity = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 20n }).map(String), fc.tuple(fc.nat(999_999), fc.integer({ min: 1, max: 999 })).map(([w, f]) => `${w}.${String(f).padStart(3, "0").replace(/0+$/, "")}`));
const uses: fc.Arbitrary<RecordUses> = fc.record(
  {
    stakeholderId: fc.constantFrom("sh-1", "sh-2", "sh-3", "\u0000odd \"id\""),
    stockClasses: fc.array(classUse, { maxLength: 2 }),
    plan: fc.record({ name: fc.constantFrom("2021 Plan", "2024 Plan"), quantity, stockClassKey: fc.constantFrom("Common", "sc-1") }, { requiredKeys: ["name", "quantity"] }),
    soldToCover: fc.boolean(),
    earliestDate: fc.constantFrom("2019-02-28", "2020-01-01", "2021-12-31"),
  },
  { requiredKeys: ["stakeholderId", "stockClasses"] },
);

describe("UsesTally", () => {
  it("after records are taken out again, holds what a tally of the records left holds (in any order), so the head objects are the same", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(uses, fc.boolean()), { maxLength: 25 }), (records) => {
        const tally = new UsesTally();
        for (const [u] of records) tally.add(u);
        for (const [u, out] of records) if (out) tally.remove(u);
        const left = records.filter(([, out]) => !out).map(([u]) => u);
        // The same summary, in the same order, as a tally of the records left in any order.
        expect(tally.summary()).toEqual(tallyUses(left));
        expect(tally.summary()).toEqual(tallyUses([...left].reverse()));
        const head = (summary: IssuerUses): unknown => {
          try {
            return issuerObjectsOf("issuer-1", {}, summary, "2025-06-30");
          } catch (error) {
            return (error as Error).message;
          }
        };
        expect(head(tally.summary())).toEqual(head(tallyUses([...left].reverse())));
      }),
      { numRuns: 300 },
    );
  });

  it("sums a plan's grants exactly, whatever their scale, and counts them", () => {
    const tally = new UsesTally();
    const grant = (q: string): RecordUses => ({ stakeholderId: "sh-1", stockClasses: [], plan: { name: "Plan", quantity: q, stockClassKey: "Common" } });
    for (const q of ["0.1", "0.2", "99999999999999999999.7", "3"]) tally.add(grant(q));
    tally.remove(grant("3"));
    expect(tally.summary().plans).toEqual([{ name: "Plan", stockClassKey: "Common", quantity: "100000000000000000000", grants: 3 }]);
  });

  it("refuses to take out what was never put in", () => {
    const tally = new UsesTally();
    expect(() => tally.remove({ stakeholderId: "sh-9", stockClasses: [] })).toThrow(/taken out more often/);
  });
});
