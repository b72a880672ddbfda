/**
 * The lineage rules (`security-ledger.ts`), in memory (`checkLineage`) and through the streaming
 * validator: the chains of consumer-true-ocf.md read clean by the documents, each broken form gives
 * its code, the same-security reading accepts what OCF #531 allows, and neither the order of a list
 * nor the path through the validator changes a verdict.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mapAward } from "../../../src/mapping/award.js";
import type { OcfTransaction } from "../../../src/ocf/types.js";
import { checkLineage, declaredLineage, type Lineage } from "../../../src/ocf/security-ledger.js";
import { parseRecord } from "../../../src/source/parse.js";
import { validateOcfPackage } from "../../../src/ocf/validate-package.js";
import { example } from "../../helpers/ocf-examples.js";
import { fixtureBytes, loadFiles, validFixture } from "../../helpers/ocf-package-fixture.js";

type Json = Record<string, unknown>;

const rsa = (security: string, quantity: string, date: string, more: Json = {}): Json =>
  example("TX_STOCK_ISSUANCE", { id: `${security}-issuance`, security_id: security, quantity, date, vestings: undefined, ...more });
const rsu = (security: string, quantity: string, date: string, more: Json = {}): Json =>
  example("TX_EQUITY_COMPENSATION_ISSUANCE", { id: `${security}-issuance`, security_id: security, quantity, date, ...more });
const stockCancel = (id: string, security: string, quantity: string, date: string, balance?: string): Json =>
  example("TX_STOCK_CANCELLATION", { id, security_id: security, quantity, date, ...(balance === undefined ? {} : { balance_security_id: balance }) });
const unitCancel = (id: string, security: string, quantity: string, date: string, balance?: string): Json =>
  example("TX_EQUITY_COMPENSATION_CANCELLATION", { id, security_id: security, quantity, date, ...(balance === undefined ? {} : { balance_security_id: balance }) });
const release = (id: string, security: string, quantity: string, date: string): Json =>
  example("TX_EQUITY_COMPENSATION_RELEASE", { id, security_id: security, quantity, date, settlement_date: date, resulting_security_ids: [] });
const toPool = (id: string, security: string, quantity: string, date: string): Json => example("TX_STOCK_PLAN_RETURN_TO_POOL", { id, security_id: security, quantity, date });

const codes = (transactions: Json[], reading: Lineage = "documents") =>
  checkLineage(transactions, { reading }).map((p) => [p.code, p.object.id, p.jsonPath]);

describe("checkLineage of the mapping's typed transactions", () => {
  it("takes OcfTransaction[] as it is (no index signature), and gives each problem its object, typed", () => {
    const sample = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../../samples/api/7.json"), "utf8")) as { restrictedStockAwards: unknown[] };
    const { parsed } = parseRecord("restrictedStockAward", sample.restrictedStockAwards[0], { issuerId: "7" });
    if (parsed.kind !== "restrictedStockAward") throw new Error("the first sample award is not an award");
    const transactions: OcfTransaction[] = mapAward(parsed.record, { issuerId: "7" }).transactions;
    expect(checkLineage(transactions)).toEqual([]);
    // Without its issuance, what follows names a security nothing in the list issues.
    const problems = checkLineage(transactions.filter((tx) => tx.object_type !== "TX_STOCK_ISSUANCE"));
    const objects: OcfTransaction[] = problems.map((problem) => problem.object);
    expect(problems.map((p) => [p.code, p.jsonPath])).toEqual([["DANGLING_REFERENCE", "$.security_id"]]);
    expect(objects.map((tx) => tx.object_type)).toEqual(["TX_STOCK_ACCEPTANCE"]);
  });
});

describe("the chains of consumer-true-ocf.md read clean by the documents", () => {
  it("(a) RSA partly vested, the rest cancelled: the remainder on a balance issuance", () => {
    const chain = [
      rsa("rsa-A", "10000", "2020-01-01", { vestings: [{ date: "2021-01-01", amount: "4000" }] }),
      example("TX_STOCK_ACCEPTANCE", { id: "rsa-A-acceptance", security_id: "rsa-A", date: "2020-01-02" }),
      rsa("rsa-A-b", "4000", "2022-03-01"),
      stockCancel("rsa-A-cancel", "rsa-A", "6000", "2022-03-01", "rsa-A-b"),
      toPool("rsa-A-return", "rsa-A", "4000", "2022-03-01"),
    ];
    expect(codes(chain)).toEqual([]);
    expect(codes(chain, "same-security")).toEqual([]);
  });

  it("(b) RSU released twice, then one cancellation of the whole remainder", () => {
    const chain = [
      rsu("rsu-B", "10000", "2020-01-01"),
      rsa("rsu-B-shares-1", "2500", "2021-01-01"),
      release("rsu-B-release-1", "rsu-B", "2500", "2021-01-01"),
      rsa("rsu-B-shares-2", "500", "2021-07-01"),
      release("rsu-B-release-2", "rsu-B", "500", "2021-07-01"),
      unitCancel("rsu-B-cancel", "rsu-B", "7000", "2022-01-01"),
      toPool("rsu-B-return", "rsu-B", "7000", "2022-01-01"),
    ];
    expect(codes(chain)).toEqual([]);
    expect(codes(chain, "same-security")).toEqual([]);
  });

  it("(c) a cancellation that leaves units outstanding: later transactions act on the balance", () => {
    const chain = [
      rsu("rsu-C", "1000", "2020-01-01"),
      rsu("rsu-C-b", "400", "2021-01-01"),
      unitCancel("rsu-C-cancel", "rsu-C", "600", "2021-01-01", "rsu-C-b"),
      release("rsu-C-b-release", "rsu-C-b", "400", "2021-06-01"),
      unitCancel("rsu-C-b-cancel", "rsu-C-b", "0", "2021-07-01"),
    ];
    expect(codes(chain)).toEqual([]);
  });
});

describe("each broken chain gives its code (documents reading)", () => {
  it("a remainder without a balance security", () => {
    expect(codes([rsa("s", "100", "2020-01-01"), stockCancel("c", "s", "60", "2021-01-01")])).toEqual([["BALANCE_MISSING", "c", "$.balance_security_id"]]);
  });

  it("a balance of the wrong quantity, a balance that is not issued, the security itself as its balance", () => {
    expect(codes([rsa("s", "100", "2020-01-01"), rsa("b", "41", "2021-01-01"), stockCancel("c", "s", "60", "2021-01-01", "b")])).toEqual([["BALANCE_MISMATCH", "c", "$.balance_security_id"]]);
    expect(codes([rsa("s", "100", "2020-01-01"), stockCancel("c", "s", "60", "2021-01-01", "nowhere")])).toEqual([["DANGLING_REFERENCE", "c", "$.balance_security_id"]]);
    expect(codes([rsa("s", "100", "2020-01-01"), stockCancel("c", "s", "60", "2021-01-01", "s")])).toEqual([["BALANCE_IS_SELF", "c", "$.balance_security_id"]]);
  });

  it("two terminal transactions, and anything but a return to pool after the end", () => {
    expect(
      codes([
        rsu("s", "100", "2020-01-01"),
        unitCancel("c1", "s", "100", "2021-01-01"),
        unitCancel("c2", "s", "0", "2021-02-01"),
        example("TX_EQUITY_COMPENSATION_ACCEPTANCE", { id: "late", security_id: "s", date: "2021-03-01" }),
        toPool("back", "s", "100", "2021-04-01"),
      ]),
    ).toEqual([
      ["SECOND_TERMINAL", "c2", "$.date"],
      ["AFTER_TERMINAL", "late", "$.date"],
    ]);
  });

  it("a release does not end the security, but what is cancelled after it cannot exceed what remains", () => {
    const base = [rsu("s", "100", "2020-01-01"), release("r", "s", "30", "2021-01-01")];
    expect(codes([...base, unitCancel("c", "s", "70", "2021-02-01")])).toEqual([]);
    expect(codes([...base, unitCancel("c", "s", "70.0000000001", "2021-02-01")])).toEqual([["OVER_CONSUMED", "c", "$.quantity"]]);
    expect(codes([...base, release("r2", "s", "80", "2021-02-01")])).toEqual([["OVER_CONSUMED", "r2", "$.quantity"]]);
  });

  it("more returned to the pool than cancelled; a transaction before its issuance; vestings over the quantity", () => {
    expect(codes([rsu("s", "100", "2020-01-01"), unitCancel("c", "s", "100", "2021-01-01"), toPool("p", "s", "100.5", "2021-01-01")])).toEqual([["RETURN_TO_POOL_EXCEEDS", "p", "$.quantity"]]);
    expect(codes([rsu("s", "100", "2020-01-01"), unitCancel("c", "s", "100", "2019-12-31")])).toEqual([["BEFORE_ISSUANCE", "c", "$.date"]]);
    expect(codes([rsu("s", "100", "2020-01-01", { vestings: [{ date: "2021-01-01", amount: "60" }, { date: "2022-01-01", amount: "41" }] })])).toEqual([["VESTING_SUM", "s-issuance", "$.vestings"]]);
  });

  it("reads the legacy TX_PLAN_SECURITY_* spellings as the current ones", () => {
    const legacy = [rsu("s", "100", "2020-01-01", { object_type: "TX_PLAN_SECURITY_ISSUANCE" }), { ...unitCancel("c1", "s", "10", "2021-01-01"), object_type: "TX_PLAN_SECURITY_CANCELLATION" }];
    expect(codes(legacy)).toEqual([["BALANCE_MISSING", "c1", "$.balance_security_id"]]);
  });
});

describe("the same-security reading (OCF #531)", () => {
  it("allows partial cancellations on one security, up to what was issued", () => {
    const chain = [rsu("s", "100", "2020-01-01"), release("r", "s", "30", "2021-01-01"), unitCancel("c1", "s", "20", "2021-02-01"), unitCancel("c2", "s", "50", "2021-03-01")];
    expect(codes(chain, "same-security")).toEqual([]);
    expect(codes([...chain, unitCancel("c3", "s", "1", "2021-04-01")], "same-security")).toEqual([["AFTER_TERMINAL", "c3", "$.date"]]);
    expect(codes([...chain.slice(0, 3), unitCancel("c2", "s", "51", "2021-03-01")], "same-security")).toEqual([["OVER_CONSUMED", "c2", "$.quantity"]]);
  });
});

/** The problems the streaming validator finds in a package of `transactions` (in that file order), as `codes` gives them. */
async function streamedCodes(transactions: Json[], reading: Lineage = "documents"): Promise<(string | undefined)[][]> {
  const fixture = validFixture();
  const file = fixture.files[4];
  if (file === undefined) throw new Error("fixture without a transactions file");
  file.items = transactions.map((tx) => ("stakeholder_id" in tx ? { ...tx, stakeholder_id: "sh-7001" } : tx));
  const report = validateOcfPackage(await loadFiles(fixtureBytes(fixture)), { reader: reading });
  // The problems, then the warnings (RELEASED_BEFORE_VESTED): the order of `inMemory` below.
  return [...report.problems, ...report.warnings].map((p) => [p.code, p.itemId, p.jsonPath.replace(/^\$\.items\[\d+\]/, "$")]);
}

/** `checkLineage`'s findings as `streamedCodes` lists the validator's: its problems, then its warnings, each in its order. */
const bySeverity = <T extends { severity: string }>(findings: T[]): T[] => [...findings.filter((f) => f.severity === "problem"), ...findings.filter((f) => f.severity === "warning")];

describe("order within a day (issue 24): no transaction may act on a security another of its day ends", () => {
  // consumer-true-ocf.md, "Order within a day": OCF 1.2.0 orders by date only; OCF-Tools sorts a day by type.
  const units = (more: Json = {}) => rsu("s", "1000", "2020-01-01", more);

  it("a release on the cancellation day, written before the cancellation, acts on the cancelled security", async () => {
    const chain = [units(), release("r", "s", "250", "2021-01-01"), unitCancel("c", "s", "750", "2021-01-01"), toPool("p", "s", "750", "2021-01-01")];
    expect(codes(chain)).toEqual([["SAME_DAY_ORDER", "r", "$.date"]]);
    // Streamed in this (date) order, the release is applied before the validator knows of the cancellation.
    expect(await streamedCodes(chain)).toEqual([["SAME_DAY_ORDER", "r", "$.date"]]);
    // Written after it, the same.
    expect(codes([chain[0] as Json, chain[2] as Json, chain[1] as Json, chain[3] as Json])).toEqual([["SAME_DAY_ORDER", "r", "$.date"]]);
    const [problem] = checkLineage(chain);
    expect(problem?.message).toBe(
      'is 2021-01-01, the day TX_EQUITY_COMPENSATION_CANCELLATION "c" ends security "s": OCF 1.2.0 does not order a day\'s transactions, so a reader that takes that one first (OCF-Tools sorts a day by type) sees this one act on an ended security',
    );
  });

  it("the same release on the balance security is fine, in every file order", async () => {
    const chain = [units(), rsu("s-b", "250", "2021-01-01"), unitCancel("c", "s", "750", "2021-01-01", "s-b"), toPool("p", "s", "750", "2021-01-01"), release("r", "s-b", "250", "2021-01-01")];
    expect(codes(chain)).toEqual([]);
    expect(codes([...chain].reverse())).toEqual([]);
    expect(await streamedCodes(chain)).toEqual([]);
  });

  it("a return to pool on the cancelled security the same day is the documented exception", async () => {
    const chain = [units(), toPool("p", "s", "1000", "2021-01-01"), unitCancel("c", "s", "1000", "2021-01-01")];
    expect(codes(chain)).toEqual([]);
    expect(await streamedCodes(chain)).toEqual([]);
  });

  it("an acceptance or a vesting event on the ended security the same day counts too", async () => {
    const acceptance = example("TX_EQUITY_COMPENSATION_ACCEPTANCE", { id: "a", security_id: "s", date: "2021-01-01" });
    const chain = [units(), acceptance, unitCancel("c", "s", "1000", "2021-01-01")];
    expect(codes(chain)).toEqual([["SAME_DAY_ORDER", "a", "$.date"]]);
    expect(await streamedCodes(chain)).toEqual([["SAME_DAY_ORDER", "a", "$.date"]]);
    // The day before is fine.
    expect(codes([units(), { ...acceptance, date: "2020-12-31" }, unitCancel("c", "s", "1000", "2021-01-01")])).toEqual([]);
  });

  it("a second terminal transaction of the day stays SECOND_TERMINAL; what follows the end on a later day AFTER_TERMINAL", () => {
    expect(codes([units(), unitCancel("c1", "s", "1000", "2021-01-01"), unitCancel("c2", "s", "0", "2021-01-01")])).toEqual([["SECOND_TERMINAL", "c2", "$.date"]]);
    expect(codes([units(), unitCancel("c", "s", "1000", "2021-01-01"), release("r", "s", "1", "2021-01-02")])).toEqual([["AFTER_TERMINAL", "r", "$.date"]]);
  });

  it("on the same security, only an end that does not add up the day (a move to a balance, a retraction) depends on the order", async () => {
    // Released and cancelled on one id: outstanding = issued − Σ comes out the same in every order.
    const consumed = [units(), release("r", "s", "250", "2021-01-01"), unitCancel("c", "s", "750", "2021-01-01")];
    expect(codes(consumed, "same-security")).toEqual([]);
    expect(await streamedCodes(consumed, "same-security")).toEqual([]);
    // What a move to a balance security moves depends on whether the release came first.
    const moved = [units(), rsu("s-b", "250", "2021-01-01"), release("r", "s", "250", "2021-01-01"), unitCancel("c", "s", "500", "2021-01-01", "s-b")];
    expect(codes(moved, "same-security")).toEqual([["SAME_DAY_ORDER", "r", "$.date"]]);
    expect(await streamedCodes(moved, "same-security")).toEqual([["SAME_DAY_ORDER", "r", "$.date"]]);
    const retracted = [units(), example("TX_EQUITY_COMPENSATION_ACCEPTANCE", { id: "a", security_id: "s", date: "2021-01-01" }), example("TX_EQUITY_COMPENSATION_RETRACTION", { id: "x", security_id: "s", date: "2021-01-01" })];
    expect(codes(retracted, "same-security")).toEqual([["SAME_DAY_ORDER", "a", "$.date"]]);
  });
});

describe("a release before the units it releases have vested (RELEASED_BEFORE_VESTED)", () => {
  const vesting = { vestings: [{ date: "2021-01-01", amount: "250" }, { date: "2022-01-01", amount: "250" }, { date: "2023-01-01", amount: "500" }] };

  it("is a warning when what is released by a date exceeds what the vestings have vested by then", async () => {
    const early = [rsu("s", "1000", "2020-01-01", vesting), release("r1", "s", "250", "2021-01-01"), release("r2", "s", "250", "2021-12-31")];
    for (const reading of ["documents", "same-security"] as const) {
      expect(codes(early, reading)).toEqual([["RELEASED_BEFORE_VESTED", "r2", "$.quantity"]]);
      expect(await streamedCodes(early, reading)).toEqual([["RELEASED_BEFORE_VESTED", "r2", "$.quantity"]]);
    }
    expect(checkLineage(early)[0]?.message).toBe('releases 250 of security "s" on 2021-12-31, which brings what is released of it to 500, but its vestings have vested only 250 by then');
    // Odd data, but valid OCF: a warning of checkLineage, and of the validator, which keeps the package valid.
    expect(checkLineage(early).map((p) => p.severity)).toEqual(["warning"]);
    const fixture = validFixture();
    const file = fixture.files[4];
    if (file === undefined) throw new Error("fixture without a transactions file");
    file.items = early;
    const report = validateOcfPackage(await loadFiles(fixtureBytes(fixture)));
    expect(report.valid).toBe(true);
    expect(report.problems).toEqual([]);
    expect(report.warnings.map((w) => [w.code, w.itemId, w.jsonPath])).toEqual([["RELEASED_BEFORE_VESTED", "r2", "$.items[2].quantity"]]);
  });

  it("is a warning beside the problems of the same transactions, which stay problems", () => {
    // r2 is early (a warning); the cancellation takes more than the 500 left (a problem).
    const both = [rsu("s", "1000", "2020-01-01", vesting), release("r1", "s", "250", "2021-01-01"), release("r2", "s", "250", "2021-12-31"), unitCancel("c", "s", "600", "2022-06-01")];
    expect(checkLineage(both).map((p) => [p.code, p.severity, p.object.id])).toEqual([
      ["RELEASED_BEFORE_VESTED", "warning", "r2"],
      ["OVER_CONSUMED", "problem", "c"],
    ]);
  });

  it("is none on or after the vesting date, with tranches in any order in the list", async () => {
    const unordered = { vestings: [...vesting.vestings].reverse() };
    const onTime = [rsu("s", "1000", "2020-01-01", unordered), release("r1", "s", "250", "2021-01-01"), release("r2", "s", "250", "2022-01-01"), release("r3", "s", "400", "2023-06-01")];
    expect(codes(onTime)).toEqual([]);
    expect(await streamedCodes(onTime)).toEqual([]);
  });

  it("is the same when the validator follows the security again after walking part of its vestings", async () => {
    // The acceptance, out of date order in the file, comes after a release has walked the first tranche.
    const chain = [
      rsu("s", "1000", "2020-01-01", vesting),
      release("r1", "s", "250", "2021-01-01"),
      example("TX_EQUITY_COMPENSATION_ACCEPTANCE", { id: "a", security_id: "s", date: "2020-06-01" }),
      release("r2", "s", "250", "2021-12-31"),
    ];
    expect(codes(chain)).toEqual([["RELEASED_BEFORE_VESTED", "r2", "$.quantity"]]);
    expect(await streamedCodes(chain)).toEqual([["RELEASED_BEFORE_VESTED", "r2", "$.quantity"]]);
  });

  it("reports exactly the releases a plain sum of the tranches dated up to each release finds early", () => {
    const day = (n: number) => `2021-${String(Math.floor(n / 28) + 1).padStart(2, "0")}-${String((n % 28) + 1).padStart(2, "0")}`;
    const amount = fc.oneof(fc.integer({ min: 1, max: 500 }).map(String), fc.integer({ min: 1, max: 50_000 }).map((n) => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, "0")}`));
    fc.assert(
      fc.property(
        fc.array(fc.record({ day: fc.integer({ min: 0, max: 335 }), amount: fc.oneof(fc.constantFrom("100", "250"), amount) }), { minLength: 1, maxLength: 12 }),
        fc.uniqueArray(fc.record({ day: fc.integer({ min: 0, max: 335 }), amount }), { selector: (r) => r.day, maxLength: 8 }),
        fc.constantFrom<Lineage>("documents", "same-security"),
        (tranches, releases, reading) => {
          const ordered = [...releases].sort((a, b) => a.day - b.day);
          const transactions = [
            rsu("s", "1000000", "2020-01-01", { vestings: tranches.map((t) => ({ date: day(t.day), amount: t.amount })) }),
            ...ordered.map((r, i) => release(`r${i}`, "s", r.amount, day(r.day))),
          ];
          // Whole cents, exact as integers: the amounts have at most two places.
          const cents = (text: string) => {
            const [whole = "0", fraction = ""] = text.split(".");
            return Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
          };
          let released = 0;
          const early = ordered.flatMap((r, i) => {
            released += cents(r.amount);
            const vested = tranches.filter((t) => t.day <= r.day).reduce((sum, t) => sum + cents(t.amount), 0);
            return released > vested ? [`r${i}`] : [];
          });
          expect(checkLineage(transactions, { reading }).map((p) => `${p.code} ${String(p.object.id)}`)).toEqual(early.map((id) => `RELEASED_BEFORE_VESTED ${id}`));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is not checked without a vestings list: no list and no terms is fully vested, terms are not walked here", () => {
    expect(codes([rsu("s", "1000", "2020-01-01"), release("r", "s", "1000", "2020-01-01")])).toEqual([]);
    expect(codes([rsu("s", "1000", "2020-01-01", { vesting_terms_id: "4yr-1yr-cliff" }), release("r", "s", "1000", "2020-01-01")])).toEqual([]);
  });
});

describe("declaredLineage", () => {
  it("reads the first Lineage line of Manifest.comments", () => {
    expect(declaredLineage({ comments: ["x", "Lineage: same-security (OCF #531): releases keep the rest"] })).toBe("same-security");
    expect(declaredLineage({ comments: ["Lineage: documents", "Lineage: same-security"] })).toBe("documents");
    expect(declaredLineage({ comments: ["Lineage: documentsX", "lineage: documents", "Lineage: same-security-ish"] })).toBeUndefined();
    expect(declaredLineage({})).toBeUndefined();
  });
});

/**
 * One RSU grant's transactions: releases, maybe a cancellation with a balance, returns to pool,
 * acceptances; on distinct days, or (`sharedDays`) several a day, and then with `vestings` on some.
 */
const grantOf = (sharedDays: boolean) =>
  fc
    .record({
      issued: fc.integer({ min: 1, max: 10_000 }),
      events: fc.array(
        fc.record({
          kind: fc.constantFrom("release", "cancel", "cancel-with-balance", "return", "acceptance"),
          quantity: fc.integer({ min: 0, max: 6_000 }),
          balanceDelta: fc.integer({ min: -2, max: 2 }),
          nextDay: sharedDays ? fc.boolean() : fc.constant(true),
        }),
        { maxLength: 6 },
      ),
      vestings: fc.array(fc.record({ day: fc.integer({ min: 1, max: 7 }), amount: fc.integer({ min: 1, max: 3_000 }) }), { maxLength: sharedDays ? 4 : 0 }),
    })
    .map(({ issued, events, vestings }) => {
      const schedule = vestings.map(({ day, amount }) => ({ date: `2020-02-0${day}`, amount: String(amount) }));
      const transactions: Json[] = [rsu("g", String(issued), "2020-01-01", schedule.length === 0 ? {} : { vestings: schedule })];
      let outstanding = issued;
      let day = 0;
      events.forEach((event, i) => {
        if (event.nextDay || day === 0) day += 1;
        const date = `2020-02-${String(day).padStart(2, "0")}`;
        const id = `e${i}`;
        const q = String(event.quantity);
        if (event.kind === "release") transactions.push(release(id, "g", q, date));
        else if (event.kind === "cancel") transactions.push(unitCancel(id, "g", q, date));
        else if (event.kind === "cancel-with-balance") {
          const remainder = Math.max(outstanding - event.quantity, 0) + event.balanceDelta;
          transactions.push(rsu(`g-b${i}`, String(Math.max(remainder, 0)), date), unitCancel(id, "g", q, date, `g-b${i}`));
        } else if (event.kind === "return") transactions.push(toPool(id, "g", q, date));
        else transactions.push(example("TX_EQUITY_COMPENSATION_ACCEPTANCE", { id, security_id: "g", date }));
        if (event.kind === "release") outstanding -= event.quantity;
      });
      return transactions;
    });
const grant = grantOf(false);

describe("properties", () => {
  it("a verdict does not depend on the order of the list", () => {
    fc.assert(
      fc.property(grant, fc.constantFrom<Lineage>("documents", "same-security"), fc.infiniteStream(fc.nat()), (transactions, reading, seeds) => {
        const shuffled = [...transactions].map((tx) => ({ tx, key: seeds.next().value as number })).sort((a, b) => a.key - b.key).map((s) => s.tx);
        const verdict = (list: Json[]) => checkLineage(list, { reading }).map((p) => `${p.code} ${String(p.object.id)} ${p.jsonPath}`).sort();
        expect(verdict(shuffled)).toEqual(verdict(transactions));
      }),
      { numRuns: 200 },
    );
  });

  it("the streaming validator finds what checkLineage finds, whatever the order of the transactions file", async () => {
    await fc.assert(
      fc.asyncProperty(grant, fc.constantFrom<Lineage>("documents", "same-security"), fc.boolean(), async (transactions, reading, reverse) => {
        const fixture = validFixture();
        const [stakeholders, , , , file] = fixture.files;
        if (file === undefined || stakeholders === undefined) throw new Error("fixture without files");
        // The grant alone, with the fixture's holders, class, plan and terms around it.
        const grantTransactions: Json[] = transactions.map((tx) => ("stakeholder_id" in tx ? { ...tx, stakeholder_id: "sh-7001" } : tx));
        file.items = reverse ? [...grantTransactions].reverse() : grantTransactions;
        const report = validateOcfPackage(await loadFiles(fixtureBytes(fixture)), { reader: reading });
        const inMemory = checkLineage(grantTransactions, { reading });
        const ofReport = [...report.problems, ...report.warnings].map((p) => `${p.code} ${p.itemId ?? ""} ${p.jsonPath.replace(/^\$\.items\[\d+\]/, "$")}`).sort();
        expect(ofReport).toEqual(inMemory.map((p) => `${p.code} ${String(p.object.id)} ${p.jsonPath}`).sort());
      }),
      { numRuns: 120 },
    );
  });

  it("with several transactions a day and vestings, the streaming validator finds what checkLineage finds", async () => {
    // In list order: ties of one day and kind are taken by position, the same position on both paths.
    await fc.assert(
      fc.asyncProperty(grantOf(true), fc.constantFrom<Lineage>("documents", "same-security"), async (transactions, reading) => {
        const inMemory = bySeverity(checkLineage(transactions, { reading })).map((p) => [p.code, p.object.id, p.jsonPath]);
        expect(await streamedCodes(transactions, reading)).toEqual(inMemory);
      }),
      { numRuns: 150 },
    );
  });
});

