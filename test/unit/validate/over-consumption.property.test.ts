/**
 * Properties of the quantity check, read on the same security (OCF #531, where several partial
 * cancellations are fine): whatever the amounts (up to 10 decimal places), the kinds and the order of
 * the transactions in the file, a security is over-consumed exactly when its releases and
 * cancellations add up to more than its quantity, and the problem is reported once, at the
 * transaction (in date order) that crosses the line. (The documents reading has its own properties in
 * lineage.property.test.ts.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Dec, formatDecimal } from "../../../src/decimal.js";
import { validateOcfPackage } from "../../../src/ocf/validate-package.js";
import { example } from "../../helpers/ocf-examples.js";
import { fixtureBytes, loadFiles, validFixture } from "../../helpers/ocf-package-fixture.js";

/** A positive decimal with at most 10 decimal places and at most 15 digits. */
const positiveDecimal = fc
  .tuple(fc.bigInt({ min: 1n, max: 10n ** 15n - 1n }), fc.integer({ min: 0, max: 10 }))
  .map(([units, scale]) => formatDecimal(new Dec(units.toString()).div(new Dec(10).pow(scale))));

interface Part {
  kind: "release" | "cancellation";
  quantity: string;
}

const parts = fc.array(fc.record({ kind: fc.constantFrom("release" as const, "cancellation" as const), quantity: positiveDecimal }), {
  minLength: 1,
  maxLength: 6,
});

/** The valid fixture with rsu-8550 issued `issued` units and consumed by `consumed` (in date order), file order shuffled by `order`. */
async function check(issued: string, consumed: readonly Part[], order: readonly number[]) {
  const fixture = validFixture();
  const transactions = fixture.files[4];
  if (transactions === undefined) throw new Error("fixture without transactions");
  const rsu = transactions.items.find((item) => item.id === "rsu-8550-issuance");
  const keep = transactions.items.filter((item) => item.security_id !== "rsu-8550" && item.security_id !== "rsu-8550-shares-1");
  const generated = consumed.map((part, i) => {
    const date = `2016-0${(i % 9) + 1}-${String(10 + Math.floor(i / 9)).padStart(2, "0")}`;
    return part.kind === "release"
      ? example("TX_EQUITY_COMPENSATION_RELEASE", { id: `part-${i}`, date, settlement_date: date, quantity: part.quantity, resulting_security_ids: [] })
      : example("TX_EQUITY_COMPENSATION_CANCELLATION", { id: `part-${i}`, date, quantity: part.quantity });
  });
  const shuffled = order.map((i) => generated[i]).filter((item) => item !== undefined);
  transactions.items = [...keep, { ...rsu, quantity: issued }, ...shuffled];
  return validateOcfPackage(await loadFiles(fixtureBytes(fixture)), { reader: "same-security" }).problems;
}

const scenario = parts.chain((consumed) =>
  fc.record({
    consumed: fc.constant(consumed),
    order: fc.shuffledSubarray([...consumed.keys()], { minLength: consumed.length, maxLength: consumed.length }),
    crossing: fc.integer({ min: 0, max: consumed.length - 1 }),
    smallestStep: fc.boolean(),
    slack: fc.option(positiveDecimal, { nil: undefined }),
  }),
);

describe("over-consumption, as a property", () => {
  it("is never reported while the sum stays within the quantity", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ consumed, order, slack }) => {
        const total = consumed.reduce((sum, part) => sum.plus(part.quantity), new Dec(0));
        const issued = formatDecimal(slack === undefined ? total : total.plus(slack));
        expect(await check(issued, consumed, order)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it("is reported once, at the transaction that crosses the quantity, when the sum exceeds it", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ consumed, order, crossing, smallestStep }) => {
        const through = consumed.slice(0, crossing + 1).reduce((sum, part) => sum.plus(part.quantity), new Dec(0));
        const step = new Dec(consumed[crossing]?.quantity ?? "0");
        const tick = new Dec("0.0000000001");
        fc.pre(step.gt(tick));
        // Issued strictly between the running totals before and at `crossing`: just below either end.
        const issued = through.minus(smallestStep ? tick : step.minus(tick));
        const problems = await check(formatDecimal(issued), consumed, order);
        expect(problems.map((p) => [p.code, p.itemId, p.jsonPath.endsWith(".quantity")])).toEqual([["OVER_CONSUMED", `part-${crossing}`, true]]);
      }),
      { numRuns: 60 },
    );
  });

  it("ends the security when the quantity is used up exactly: every later transaction is AFTER_TERMINAL", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ consumed, order, crossing }) => {
        const issued = consumed.slice(0, crossing + 1).reduce((sum, part) => sum.plus(part.quantity), new Dec(0));
        const problems = await check(formatDecimal(issued), consumed, order);
        const later = consumed.flatMap((_, i) => (i > crossing ? [`part-${i}`] : []));
        expect(problems.map((p) => `${p.code} ${p.itemId ?? ""}`).sort()).toEqual(later.map((id) => `AFTER_TERMINAL ${id}`).sort());
      }),
      { numRuns: 60 },
    );
  });
});
