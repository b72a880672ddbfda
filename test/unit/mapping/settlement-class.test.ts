/**
 * Where the source leaves a fact out, the mapping makes the least surprising choice and says so
 * (issue 24, item 1): the class of the shares a unit without `shareClassId` delivers, strict mode,
 * and the shares a quarantined unit delivered (item 3). mapIssuer and the streaming accumulator must
 * agree on every one of them.
 */
import { describe, expect, it } from "vitest";
import { IssuerMappingAccumulator, type AccumulatedIssuer } from "../../../src/mapping/accumulator.js";
import { mapUnit, ASSUMED_CLASS_COMMENT } from "../../../src/mapping/unit.js";
import { rebindSettlementClass, UNSTATED_SETTLEMENT_CLASS_NAME } from "../../../src/mapping/share-classes.js";
import type { MapIssuerOptions, MappedIssuer, QuarantinedMapping } from "../../../src/mapping/types.js";
import type { OcfStockIssuance, OcfTransaction } from "../../../src/ocf/schemas.js";
import { buildPackageFiles } from "../../../src/ocf/package-files.js";
import type { RestrictedStockAward, RestrictedStockUnit } from "../../../src/source/records.js";
import { packageFromTexts, readPackage } from "../../helpers/independent-reader.js";
import { sourceHoldings } from "../../helpers/source-truth.js";
import { ISSUER_ID, baseAward, baseUnit, mapRecords, mappingErrorOf, termsAward, txOfType } from "./fixtures.js";

const PLACEHOLDER_ID = "stock-class-unstated-settlement-class";

/** baseUnit without a share class: its settlements deliver 775 shares (net 300 + 275 + 125, 75 sold). */
function classless(id = "8550"): RestrictedStockUnit {
  const { shareClassId: _, ...unit } = baseUnit();
  return { ...unit, id };
}

/** An award of another class (same shape as baseAward, another name and id). */
function preferredAward(): RestrictedStockAward {
  return { ...baseAward(), id: "3001", shareClassName: "Series A Preferred", shareClassId: "9b0f2c55-0000-4000-8000-00000000000a" };
}

const settledClasses = (transactions: readonly OcfTransaction[]): string[] => [
  ...new Set(txOfType({ transactions }, "TX_STOCK_ISSUANCE").filter((tx) => tx.security_id.startsWith("rsu-")).map((tx) => tx.stock_class_id)),
];

type Streamed = { head: AccumulatedIssuer; transactions: OcfTransaction[] };

/**
 * Feeds the records to an accumulator as the streaming export does (in the order given, deferring what
 * it defers, then `awardsComplete`, `recordsComplete`), writing and retracting objects by key.
 */
function streamed(records: { awards?: RestrictedStockAward[]; units?: RestrictedStockUnit[] }, options: MapIssuerOptions, unitsFirst: boolean): Streamed {
  const accumulator = new IssuerMappingAccumulator(ISSUER_ID, options);
  const written = new Map<string, OcfTransaction[]>();
  type Grant = Parameters<IssuerMappingAccumulator["add"]>[0];
  const awards: Grant[] = (records.awards ?? []).map((record) => ({ kind: "restrictedStockAward", record }));
  const units: Grant[] = (records.units ?? []).map((record) => ({ kind: "restrictedStockUnit", record }));
  const waiting = { awards: [] as Grant[], records: [] as Grant[] };
  const take = (grant: Grant): void => {
    const outcome = accumulator.add(grant);
    if (outcome.status === "deferred") waiting[outcome.until].push(grant);
    else if (outcome.status !== "stale") {
      if (outcome.replaces !== undefined) written.delete(outcome.replaces);
      if (outcome.mapped !== undefined) written.set(outcome.key, outcome.mapped.transactions);
    }
  };
  for (const grant of unitsFirst ? [...units, ...awards] : [...awards, ...units]) take(grant);
  accumulator.awardsComplete();
  for (const grant of waiting.awards.splice(0)) take(grant);
  accumulator.recordsComplete();
  for (const grant of waiting.records.splice(0)) take(grant);
  const head = accumulator.finish();
  for (const key of head.withdrawn) written.delete(key);
  // What the package writer does with `restamped` (package-writer.ts), on objects instead of texts.
  for (const [key, { from, to }] of head.restamped ?? []) {
    written.set(key, (written.get(key) ?? []).map((tx) => ("stock_class_id" in tx && tx.stock_class_id === from ? { ...tx, stock_class_id: to } : tx)));
  }
  return { head, transactions: [...written.values()].flat() };
}

const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const quarantineOf = (q: readonly QuarantinedMapping[]) => q.map(({ kind, recordId, error, deliveredShares }) => ({ kind, recordId, code: error.code, message: error.message, deliveredShares }));

/** The accumulator, fed in either order, gives what mapIssuer gives. */
function expectSameAsMapIssuer(expected: MappedIssuer, records: { awards?: RestrictedStockAward[]; units?: RestrictedStockUnit[] }, options: MapIssuerOptions): void {
  for (const unitsFirst of [false, true]) {
    const { head, transactions } = streamed(records, options, unitsFirst);
    expect([...transactions].sort(byId)).toEqual([...expected.transactions].sort(byId));
    expect(head.stockClasses).toEqual(expected.stockClasses);
    expect(head.stakeholders).toEqual(expected.stakeholders);
    expect(head.stockPlans).toEqual(expected.stockPlans);
    expect(head.warnings).toEqual(expected.warnings);
    expect(head.manifestComments).toEqual(expected.manifestComments);
    expect(quarantineOf(head.quarantined)).toEqual(quarantineOf(expected.quarantined));
  }
}

const OPTIONS = { asOf: "2025-06-30" } as const;

describe("the class of the shares delivered by a unit that names none", () => {
  it("mapUnit alone puts them in the placeholder class and marks the mapping; --strict refuses", () => {
    const mapped = mapUnit(classless(), { issuerId: ISSUER_ID });
    expect(mapped.assumedSettlementClass).toBe(true);
    expect(settledClasses(mapped.transactions)).toEqual([PLACEHOLDER_ID]);
    const issuance = mapped.transactions.find((tx) => tx.id === "rsu-8550-issuance");
    expect(issuance).toMatchObject({ stock_class_id: PLACEHOLDER_ID });
    expect(issuance?.comments).toContain(ASSUMED_CLASS_COMMENT);
    const error = mappingErrorOf(() => mapUnit(classless(), { issuerId: ISSUER_ID, options: { strict: true } }));
    expect(error.code).toBe("MAPPING_MISSING_VALUE");
    expect(error.path).toBe("shareClassId");
    expect(error.record).toEqual({ kind: "restrictedStockUnit", recordId: "8550" });
    expect(error.message).toContain('restrictedStockUnit "8550" of issuer "7"');
    expect(error.message).toContain("--settlement-class NAME (option settlementStockClassName)");
    // A unit that delivers nothing needs no class, strict or not.
    const nothing = { ...classless(), settlements: [], releasedQuantity: "0", netSettledQuantity: "0", quantity: "2000" };
    expect(mapUnit(nothing, { issuerId: ISSUER_ID, options: { strict: true } }).assumedSettlementClass).toBeUndefined();
  });

  it("goes to the one class the issuer's records name, with a warning and a manifest line naming --settlement-class", () => {
    const records = { awards: [baseAward()], units: [classless()] };
    const mapped = mapRecords(records, OPTIONS);
    expect(settledClasses(mapped.transactions)).toEqual(["stock-class-Common"]);
    expect(mapped.transactions.find((tx) => tx.id === "rsu-8550-issuance")).toMatchObject({ stock_class_id: "stock-class-Common" });
    expect(mapped.stockClasses.map((c) => c.id)).toEqual(["stock-class-Common"]);
    const warnings = mapped.warnings.filter((w) => w.code === "SETTLEMENT_CLASS_ASSUMED");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain('1 unit (restrictedStockUnit "8550")');
    expect(warnings[0]?.message).toContain('"stock-class-Common", the one class the issuer\'s records name');
    expect(warnings[0]?.message).toContain("--settlement-class NAME (library option settlementStockClassName)");
    expect(mapped.manifestComments.filter((c) => c.startsWith("Settlement class chosen, not a fact"))).toHaveLength(1);
    expectSameAsMapIssuer(mapped, records, OPTIONS);
  });

  it("counts a unit's class id as it resolves: a unit of the one class makes it the choice", () => {
    const records = { units: [baseUnit(), classless("9000")] };
    const mapped = mapRecords(records, OPTIONS);
    // No award names baseUnit's class id: it is a class known by its id, and the only one.
    expect(settledClasses(mapped.transactions)).toEqual(["stock-class-4519cc18-ee7f-4fb7-8a4b-b70a063de4f5"]);
    expectSameAsMapIssuer(mapped, records, OPTIONS);
  });

  it("goes to a labelled placeholder class when the records name several classes, or none", () => {
    for (const awards of [[baseAward(), preferredAward()], []]) {
      const records = { awards, units: [classless("1"), classless("2")] };
      const mapped = mapRecords(records, OPTIONS);
      expect(settledClasses(mapped.transactions)).toEqual([PLACEHOLDER_ID]);
      const placeholder = mapped.stockClasses.find((c) => c.id === PLACEHOLDER_ID);
      expect(placeholder?.name).toBe(UNSTATED_SETTLEMENT_CLASS_NAME);
      expect(placeholder?.comments?.[0]).toContain("Placeholder class, not a fact");
      expect(mapped.manifestComments.find((c) => c.startsWith("Placeholders, not facts"))).toContain(`${PLACEHOLDER_ID}: name, class_type, initial_shares_authorized`);
      const warning = mapped.warnings.find((w) => w.code === "SETTLEMENT_CLASS_ASSUMED");
      expect(warning?.message).toContain(`2 units (restrictedStockUnit "1", "2")`);
      expect(warning?.message).toContain(`the placeholder class "${PLACEHOLDER_ID}" (the issuer's records name ${awards.length} classes`);
      expectSameAsMapIssuer(mapped, records, OPTIONS);
    }
  });

  it("names a few units and counts the rest when many take the choice", () => {
    const units = Array.from({ length: 8 }, (_, i) => classless(`u${8 - i}`));
    const mapped = mapRecords({ awards: [baseAward()], units }, OPTIONS);
    const warning = mapped.warnings.find((w) => w.code === "SETTLEMENT_CLASS_ASSUMED");
    expect(warning?.message).toContain('8 units (restrictedStockUnit "u1", "u2", "u3", "u4", "u5" and 3 more)');
    expectSameAsMapIssuer(mapped, { awards: [baseAward()], units }, OPTIONS);
  });

  it("makes no choice and says nothing when --settlement-class gives the class", () => {
    const mapped = mapRecords({ awards: [baseAward(), preferredAward()], units: [classless()] }, { ...OPTIONS, settlementStockClassName: "Common" });
    expect(settledClasses(mapped.transactions)).toEqual(["stock-class-Common"]);
    expect(mapped.warnings.filter((w) => w.code === "SETTLEMENT_CLASS_ASSUMED")).toEqual([]);
    expect(mapped.manifestComments.some((c) => c.startsWith("Settlement class chosen"))).toBe(false);
  });

  it("gives a plan whose grants name no class (units that deliver nothing) the same class, stated; --strict refuses", () => {
    const nothing = { ...classless(), settlements: [], releasedQuantity: "0", netSettledQuantity: "0", quantity: "2000" };
    const plan2015 = (mapped: MappedIssuer) => mapped.stockPlans.find((p) => p.id === "stock-plan-2015 Equity Incentive Plan")?.stock_class_ids;
    const withAward = mapRecords({ awards: [baseAward()], units: [nothing] }, OPTIONS);
    expect(plan2015(withAward)).toEqual(["stock-class-Common"]);
    const warning = withAward.warnings.find((w) => w.code === "SETTLEMENT_CLASS_ASSUMED");
    expect(warning?.message).toContain('stock plan "stock-plan-2015 Equity Incentive Plan": no grant under it names a share class');
    expect(warning?.message).toContain("--settlement-class NAME");
    expect(withAward.manifestComments.some((c) => c.startsWith("Plan class chosen, not a fact"))).toBe(true);
    expectSameAsMapIssuer(withAward, { awards: [baseAward()], units: [nothing] }, OPTIONS);
    // No class at all: the placeholder class, which the package then holds.
    const alone = mapRecords({ units: [nothing] }, OPTIONS);
    expect(plan2015(alone)).toEqual([PLACEHOLDER_ID]);
    expect(alone.stockClasses.map((c) => c.id)).toEqual([PLACEHOLDER_ID]);
    expectSameAsMapIssuer(alone, { units: [nothing] }, OPTIONS);
    expect(mappingErrorOf(() => mapRecords({ units: [nothing] }, { ...OPTIONS, strict: true })).message).toContain("--settlement-class NAME");
  });

  it("rebinds a stored mapping exactly as a fresh one: only class ids and uses change", () => {
    const provisional = mapUnit(classless(), { issuerId: ISSUER_ID });
    const chosen = { key: "Common", name: "Common", labels: [] };
    const rebound = rebindSettlementClass(provisional, chosen);
    const given = mapUnit(classless(), { issuerId: ISSUER_ID, options: { settlementStockClassName: "Common" } });
    const withoutNote = (txs: readonly OcfTransaction[]) => txs.map((tx) => ({ ...tx, comments: tx.comments?.filter((c) => c !== ASSUMED_CLASS_COMMENT) }));
    expect(withoutNote(rebound.transactions)).toEqual(withoutNote(given.transactions));
    expect(rebound.uses).toEqual(given.uses);
    // Rebinding to the class it has changes nothing.
    expect(rebindSettlementClass(rebound, chosen)).toBe(rebound);
  });

  it("--strict fails the unit (issuer, record, field, option), or quarantines it; the issuer's other records export", () => {
    const records = { awards: [baseAward()], units: [classless()] };
    const error = mappingErrorOf(() => mapRecords(records, { ...OPTIONS, strict: true }));
    expect(error.message).toContain("--settlement-class NAME");
    const mapped = mapRecords(records, { ...OPTIONS, strict: true, onInvalid: "quarantine" });
    expect(mapped.quarantined.map((q) => q.recordId)).toEqual(["8550"]);
    // Strict refuses to choose their class, so the shares cannot be kept either: the report says so.
    expect(mapped.quarantined[0]?.deliveredShares?.notKept[0]).toContain("--strict refuses");
    expect(mapped.transactions.some((tx) => tx.id.startsWith("rsu-"))).toBe(false);
    expect(mapped.transactions.some((tx) => tx.id.startsWith("rsa-"))).toBe(true);
    expectSameAsMapIssuer(mapped, records, { ...OPTIONS, strict: true, onInvalid: "quarantine" });
  });

  it("--strict refuses a placeholder class for a class id no award and no profile names", () => {
    const error = mappingErrorOf(() => mapRecords({ units: [baseUnit()] }, { ...OPTIONS, strict: true }));
    expect(error.code).toBe("MAPPING_MISSING_VALUE");
    expect(error.path).toBe("shareClassId");
    expect(error.value).toBe("4519cc18-ee7f-4fb7-8a4b-b70a063de4f5");
    expect(error.message).toContain("shareClasses.4519cc18-ee7f-4fb7-8a4b-b70a063de4f5.name");
    // Named by an award, or by the profile: nothing to refuse.
    expect(mapRecords({ awards: [baseAward()], units: [baseUnit()] }, { ...OPTIONS, strict: true }).quarantined).toEqual([]);
    const profile = { shareClasses: { "4519cc18-ee7f-4fb7-8a4b-b70a063de4f5": { name: "Common" } } };
    expect(settledClasses(mapRecords({ units: [baseUnit()] }, { ...OPTIONS, strict: true, issuerProfile: profile }).transactions)).toEqual(["stock-class-Common"]);
  });
});

describe("--strict refuses the mapping's other choices", () => {
  it("a cancellation dated with terminationDate, for want of canceledDate (awards and units)", () => {
    const { canceledDate: _a, ...award } = baseAward();
    const { canceledDate: _u, ...unit } = baseUnit();
    // Without strict: mapped, dated with the termination, and said in a comment.
    expect(mapRecords({ awards: [award], units: [unit] }, OPTIONS).transactions.some((tx) => tx.comments?.includes("Dated with terminationDate: the record has no canceledDate."))).toBe(true);
    for (const records of [{ awards: [award] }, { awards: [baseAward()], units: [unit] }]) {
      const error = mappingErrorOf(() => mapRecords(records, { ...OPTIONS, strict: true }));
      expect(error.code).toBe("MAPPING_MISSING_VALUE");
      expect(error.path).toBe("canceledDate");
      expect(error.message).toContain("--strict refuses this choice: the source must give canceledDate");
    }
  });

  it("a settlement without netSettlementQuantity (no shares issued for it)", () => {
    const settlements = baseUnit().settlements.map((s, i) => (i === 0 ? (({ netSettlementQuantity: _n, ...rest }) => rest)(s) : s));
    const unit = { ...baseUnit(), settlements };
    expect(mapRecords({ awards: [baseAward()], units: [unit] }, OPTIONS).warnings.map((w) => w.code)).toContain("SETTLEMENT_NET_MISSING");
    const error = mappingErrorOf(() => mapRecords({ awards: [baseAward()], units: [unit] }, { ...OPTIONS, strict: true }));
    expect(error.path).toBe("settlements[0].netSettlementQuantity");
    expect(error.message).toContain("--strict refuses this choice: the source must give netSettlementQuantity");
  });
});

describe("a share class id named two ways", () => {
  const CLASS_ID = "4519cc18-ee7f-4fb7-8a4b-b70a063de4f5";
  // Listed first, but 2209 comes after 1191 in canonical order: the rule is the order, not the arrival.
  const classB = (): RestrictedStockAward => ({ ...termsAward(), shareClassName: "Class B" });
  const classOf = (mapped: MappedIssuer, security: string) => (mapped.transactions.find((tx) => tx.id === `${security}-issuance`) as { stock_class_id?: string }).stock_class_id;

  it("puts every record of the id in the first award's class in canonical order, says so, and names the records and the names", () => {
    const records = { awards: [classB(), baseAward()], units: [baseUnit()] };
    const mapped = mapRecords(records, OPTIONS);
    expect(mapped.stockClasses.map((c) => c.id)).toEqual(["stock-class-Common"]);
    expect([classOf(mapped, "rsa-1191"), classOf(mapped, "rsa-2209"), classOf(mapped, "rsu-8550")]).toEqual(Array(3).fill("stock-class-Common"));
    const warning = mapped.warnings.find((w) => w.code === "STOCK_CLASS_NAME_CHOSEN");
    expect(warning?.message).toContain(`share class id "${CLASS_ID}" is named "Common" by restrictedStockAward "1191"; "Class B" by restrictedStockAward "2209"`);
    expect(warning?.message).toContain('put in "Common", the name of the first award in canonical order (restrictedStockAward "1191")');
    expect(warning?.message).toContain(`shareClasses.${CLASS_ID}.name (--issuer-profile) settles it; --strict refuses the choice`);
    expect(mapped.manifestComments).toContain(`Class name chosen, not a fact: ${warning?.message.replace(/^issuer "7", [^:]+: /, "")}`);
    expectSameAsMapIssuer(mapped, records, OPTIONS);
  });

  it("takes the issuer profile's name for the id when it gives one", () => {
    const options = { ...OPTIONS, issuerProfile: { shareClasses: { [CLASS_ID]: { name: "Class B" } } } };
    const records = { awards: [baseAward(), classB()], units: [baseUnit()] };
    const mapped = mapRecords(records, options);
    expect([classOf(mapped, "rsa-1191"), classOf(mapped, "rsa-2209"), classOf(mapped, "rsu-8550")]).toEqual(Array(3).fill("stock-class-Class B"));
    expect(mapped.warnings.find((w) => w.code === "STOCK_CLASS_NAME_CHOSEN")?.message).toContain('"Class B", the name the issuer profile gives it');
    expectSameAsMapIssuer(mapped, records, options);
  });

  it("stays a failure of the issuer under --strict", () => {
    const error = mappingErrorOf(() => mapRecords({ awards: [baseAward(), classB()] }, { ...OPTIONS, strict: true }));
    expect(error.code).toBe("MAPPING_CONFLICT");
    const accumulator = new IssuerMappingAccumulator(ISSUER_ID, { ...OPTIONS, strict: true });
    for (const record of [classB(), baseAward()]) accumulator.add({ kind: "restrictedStockAward", record });
    expect(mappingErrorOf(() => accumulator.finish()).code).toBe("MAPPING_CONFLICT");
  });
});

describe("a quarantined unit's delivered shares", () => {
  // quantity 1400: the cancellation of 500 on 2018-07-01 takes more than the 400 left: the unit cannot be written.
  const broken = (): RestrictedStockUnit => ({ ...baseUnit(), quantity: "1400" });

  it("stay in the package, as the issuances its mapping would write, labelled; the issuer total is the source's", async () => {
    const records = { awards: [baseAward()], units: [broken()] };
    const mapped = mapRecords(records, { ...OPTIONS, onInvalid: "quarantine" });
    expect(mapped.quarantined.map((q) => [q.recordId, q.error.code])).toEqual([["8550", "MAPPING_CONFLICT"]]);
    const kept = ["rsu-8550-settlement-1", "rsu-8550-settlement-1-sold", "rsu-8550-settlement-2", "rsu-8550-settlement-3"];
    expect(mapped.quarantined[0]?.deliveredShares).toEqual({ kept, notKept: [] });
    const issued = txOfType(mapped, "TX_STOCK_ISSUANCE").filter((tx) => tx.security_id.startsWith("rsu-"));
    expect(issued.map((tx) => tx.security_id).sort()).toEqual(kept);
    // The same objects a whole unit's mapping gives, plus a line that says why they stand alone.
    const whole = mapUnit(baseUnit(), { issuerId: ISSUER_ID, shareClasses: { nameOf: () => "Common", complete: true } });
    for (const tx of issued) {
      const { comments, ...rest } = tx as OcfStockIssuance;
      const { comments: normalComments, ...normal } = whole.transactions.find((t) => t.id === tx.id) as OcfStockIssuance;
      expect(rest).toEqual(normal);
      expect(comments?.slice(0, -1)).toEqual(normalComments);
      expect(comments?.at(-1)).toContain('Kept although restricted stock unit "8550" is quarantined');
    }
    // Nothing else of the unit is there: no issuance of units, no release.
    expect(mapped.transactions.filter((tx) => tx.id.startsWith("rsu-8550") && tx.object_type !== "TX_STOCK_ISSUANCE")).toEqual([]);
    // An independent reader counts the source's issued shares: the award's, and the unit's 775 delivered.
    const { files } = buildPackageFiles(mapped, { generatedAt: "2025-06-30T00:00:00Z" });
    const reader = readPackage(await packageFromTexts(files), "documents");
    const source = sourceHoldings({ awards: [baseAward()], units: [baseUnit()] });
    expect(reader.totalShares.toString()).toBe(source.totalShares.toString());
    expectSameAsMapIssuer(mapped, records, { ...OPTIONS, onInvalid: "quarantine" });
  });

  it("in the chosen class when the unit names none", () => {
    const { shareClassId: _, ...unit } = broken();
    const records = { awards: [baseAward()], units: [unit] };
    const mapped = mapRecords(records, { ...OPTIONS, onInvalid: "quarantine" });
    expect(settledClasses(mapped.transactions)).toEqual(["stock-class-Common"]);
    expect(mapped.warnings.find((w) => w.code === "SETTLEMENT_CLASS_ASSUMED")?.message).toContain('restrictedStockUnit "8550"');
    expectSameAsMapIssuer(mapped, records, { ...OPTIONS, onInvalid: "quarantine" });
  });

  it("cannot keep a settlement that cannot be mapped, and says so; the others are kept", () => {
    const { settlementDate: _d, ...undated } = baseUnit().settlements[0] as RestrictedStockUnit["settlements"][number];
    const unit = { ...baseUnit(), settlements: [undated, ...baseUnit().settlements.slice(1)] };
    const records = { awards: [baseAward()], units: [unit] };
    const mapped = mapRecords(records, { ...OPTIONS, onInvalid: "quarantine" });
    const delivered = mapped.quarantined[0]?.deliveredShares;
    // Numbered as the unit's mapping numbers them (an undated settlement comes first).
    expect(delivered?.kept).toEqual(["rsu-8550-settlement-2", "rsu-8550-settlement-2-sold", "rsu-8550-settlement-3"]);
    expect(delivered?.notKept).toHaveLength(1);
    expect(delivered?.notKept[0]).toMatch(/^settlement 1 \(settlements\[0\]\) cannot be mapped, so its shares are not in the package: .*settlementDate/);
    expectSameAsMapIssuer(mapped, records, { ...OPTIONS, onInvalid: "quarantine" });
  });
});
