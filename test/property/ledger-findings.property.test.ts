/**
 * `objectFindings` adds whole-number tranches as BigInts (each distinct text parsed once) and skips
 * the numeric pattern for them; anything else goes through `sumDecimalStrings`. Held here to what the
 * plain reading gives, on every spelling of a tranche OCF allows (a sign, leading zeros: `"+00.6"`
 * once made validation throw): each valid amount tested, the non-positive ones reported in order,
 * the rest summed exactly with decimal.js and compared with the quantity.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Decimal } from "decimal.js";
import { OCF_NUMERIC_PATTERN } from "../../src/ocf/primitives.js";
import { ledgerEntryOf, objectFindings } from "../../src/ocf/security-ledger.js";

const Exact = Decimal.clone({ precision: 200 });

/** The findings read plainly: every tranche on its own, the sum in decimal.js. */
function expectedFindings(quantity: string | undefined, vestings: unknown[]): { code: string; path: string; message?: string }[] {
  const out: { code: string; path: string; message?: string }[] = [];
  if (quantity !== undefined && OCF_NUMERIC_PATTERN.test(quantity) && new Exact(quantity).isNegative() && !new Exact(quantity).isZero()) {
    out.push({ code: "NEGATIVE_QUANTITY", path: ".quantity" });
  }
  let total = new Exact(0);
  vestings.forEach((vesting, k) => {
    if (typeof vesting !== "object" || vesting === null) return;
    const amount = (vesting as { amount?: unknown }).amount;
    if (typeof amount !== "string" || !OCF_NUMERIC_PATTERN.test(amount)) return;
    const value = new Exact(amount);
    if (value.lte(0)) out.push({ code: "VESTING_AMOUNT_NOT_POSITIVE", path: `.vestings[${k}].amount` });
    else total = total.plus(value);
  });
  if (quantity !== undefined && OCF_NUMERIC_PATTERN.test(quantity) && total.gt(new Exact(quantity))) {
    const shown = (v: Decimal.Value): string => new Exact(v).toFixed();
    out.push({ code: "VESTING_SUM", path: ".vestings", message: `vest ${shown(total)} in total, more than the quantity ${shown(quantity)}` });
  }
  return out;
}

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: min, maxLength: max });
/** Tranches as they come: mostly whole and repeated, sometimes fractions, signs, zeros, leading zeros, long numbers, or not numbers at all. */
const amount = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("100", "250", "1", "99999") },
  { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 1, max: 9 }), digits(0, 40)).map(([d, rest]) => `${d}${rest}`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom("", "+", "-"), digits(1, 6), fc.option(digits(1, 11), { nil: undefined })).map(([s, w, f]) => `${s}${w}${f === undefined ? "" : `.${f}`}`) },
  { weight: 1, arbitrary: fc.constantFrom("0", "-0", "0.0", "007", "1e3", "", "12.", ".5", "1.00000000001") },
);
const vesting = fc.oneof({ weight: 12, arbitrary: amount.map((a) => ({ date: "2024-01-01", amount: a })) }, { weight: 1, arbitrary: fc.constantFrom(null, 7, { date: "2024-01-01" }, { amount: 100 }) });

describe("objectFindings on an issuance's vestings", () => {
  it("reports the tranches that are not positive and a sum over the quantity, as the plain reading does", () => {
    fc.assert(
      fc.property(fc.option(amount, { nil: undefined }), fc.array(vesting, { maxLength: 50 }), fc.constantFrom("TX_STOCK_ISSUANCE", "TX_EQUITY_COMPENSATION_ISSUANCE"), (quantity, vestings, type) => {
        const record = { object_type: type, id: "i", security_id: "s", date: "2024-01-01", ...(quantity === undefined ? {} : { quantity }), vestings };
        const actual = objectFindings(record, ledgerEntryOf(record)).map((f) => (f.code === "VESTING_SUM" ? { code: f.code, path: f.path, message: f.message } : { code: f.code, path: f.path }));
        expect(actual).toEqual(expectedFindings(quantity, vestings));
      }),
      { numRuns: 2000 },
    );
  });
});
