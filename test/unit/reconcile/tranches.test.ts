/** Tranche arithmetic: exact for every spelling a package or a record may use, as decimal.js computes it. */
import fc from "fast-check";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { Dec, formatDecimal, plainNumeric } from "../../../src/decimal.js";
import { replayPackage } from "../../../src/reconcile/replay.js";
import { cumulativeCurve, mergeTranches, packTranches, unpackTranches, vestedBy } from "../../../src/reconcile/tranches.js";

const DATES = ["2024-01-31", "2024-02-29", "2024-03-31"] as const;

/** Amounts as OCF Numeric allows them (signs, leading zeros, fractions, long integers), read as the replay reads them. */
const amount = fc.oneof(
  fc.integer({ min: -1000, max: 100000 }).map(String),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.tuple(fc.nat(99999), fc.nat(9999999999)).map(([whole, fraction]) => `${whole}.${String(fraction).padStart(10, "0")}`),
  fc.nat(999).map((n) => `00${n}`),
  fc.nat(999).map((n) => `+${n}.50`),
);
const tranche = fc.record({ date: fc.constantFrom(...DATES), amount: amount.map(plainNumeric) });

describe("tranches", () => {
  it("merges, sums and accumulates exactly, whether amounts come as text or as decimals", () => {
    fc.assert(
      fc.property(fc.array(tranche, { maxLength: 30 }), fc.boolean(), (tranches, asDecimals) => {
        const given = asDecimals ? tranches.map((t) => ({ date: t.date, amount: new Dec(t.amount) })) : tranches;
        const merged = mergeTranches(given);
        const expected = DATES.map((date) => ({
          date,
          amount: formatDecimal(tranches.filter((t) => t.date === date).reduce((sum, t) => sum.plus(t.amount), new Dec(0))),
        })).filter((t) => t.amount !== "0");
        expect(merged).toEqual(expected);
        expect(vestedBy(merged, "2024-02-29")).toBe(formatDecimal(tranches.filter((t) => t.date <= "2024-02-29").reduce((sum, t) => sum.plus(t.amount), new Dec(0))));
        let running = new Dec(0);
        expect(cumulativeCurve([merged.slice(0, 1), merged.slice(1)])).toEqual(
          expected.map((t) => {
            running = running.plus(t.amount);
            return { date: t.date, vested: formatDecimal(running) };
          }),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe("packTranches", () => {
  it("gives back what it packed", () => {
    fc.assert(
      fc.property(fc.array(tranche, { maxLength: 30 }), (tranches) => {
        expect(unpackTranches(packTranches(tranches))).toEqual(tranches);
      }),
    );
  });

  it("holds about the packed text's size, not a tree of its pieces (a reconciliation keeps one per source record)", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // 40 monthly tranches a grant, as the benchmark's records vest.
    const grants = Array.from({ length: 5_000 }, (_, g) =>
      Array.from({ length: 40 }, (_, k) => ({ date: `20${20 + Math.floor(k / 12)}-${String((k % 12) + 1).padStart(2, "0")}-01`, amount: String(100 + g) })),
    );
    gc();
    const before = process.memoryUsage().heapUsed;
    const packed = grants.map(packTranches);
    gc();
    const held = process.memoryUsage().heapUsed - before;
    const text = packed.reduce((sum, p) => sum + p.length, 0);
    // A flat one-byte string is its text and a header; `+=` piece by piece left about five times that.
    expect(held / text).toBeLessThan(1.5);
    expect(packed[1]?.startsWith("2020-01-01 101;2020-02-01 101;")).toBe(true);
  });
});

describe("replayPackage", () => {
  it("reads vesting amounts in every spelling OCF Numeric allows", () => {
    const issuance = {
      object_type: "TX_STOCK_ISSUANCE",
      id: "tx-1",
      security_id: "s-1",
      stakeholder_id: "sh-1",
      date: "2024-01-01",
      quantity: "0010.50",
      vestings: [
        { date: "2024-01-31", amount: "007" },
        { date: "2024-01-31", amount: "+0.50" },
        { date: "2024-02-29", amount: "3.0000000000" },
        { date: "2024-03-31", amount: "-0" },
      ],
    };
    const pkg = { location: "(test)", asOf: "2024-12-31", transactions: [issuance], vestingTerms: [], stakeholders: [], stockClasses: [], stockPlans: [] };
    const replayed = replayPackage(pkg, "documents").securities.get("s-1");
    expect(replayed?.tranches).toEqual([
      { date: "2024-01-31", amount: "7.5" },
      { date: "2024-02-29", amount: "3" },
    ]);
    expect(replayed?.figures.issued).toBe("10.5");
  });
});
