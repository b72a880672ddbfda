import { describe, expect, it } from "vitest";
import { isMappingError } from "../../../src/mapping/errors.js";
import { mapIssuer } from "../../../src/mapping/map-issuer.js";
import { compareTransactions } from "../../../src/ocf/order.js";
import { idPrefixOf } from "../../../src/mapping/stock-classes.js";
import { describeConformance } from "../../helpers/conformance.js";
import { expectOcfSyncValidObjects, mappedObjects } from "../../helpers/ocf-verdicts.js";
import { expectOfficiallyValidObjects } from "../../helpers/official-ocf.js";
import { ISSUER_ID, baseAward, baseUnit, mapRecords, mappingErrorOf, termsAward, termsUnit } from "./fixtures.js";

const all = () => ({ awards: [baseAward(), termsAward()], units: [baseUnit(), termsUnit()] });

describe("mapIssuer", () => {
  it("builds every object the references need, each valid per ocf-sync's OCF 1.2.0 schemas", () => {
    const mapped = mapRecords(all());
    expectOcfSyncValidObjects(mappedObjects(mapped));
    const ids = (list: readonly { id: string }[]) => new Set(list.map((o) => o.id));
    const stakeholders = ids(mapped.stakeholders);
    const classes = ids(mapped.stockClasses);
    const plans = ids(mapped.stockPlans);
    const terms = ids(mapped.vestingTerms);
    for (const tx of mapped.transactions) {
      const refs = tx as Partial<Record<"stakeholder_id" | "stock_class_id" | "stock_plan_id" | "vesting_terms_id", string>>;
      if (refs.stakeholder_id !== undefined) expect(stakeholders).toContain(refs.stakeholder_id);
      if (refs.stock_class_id !== undefined) expect(classes).toContain(refs.stock_class_id);
      if (refs.stock_plan_id !== undefined) expect(plans).toContain(refs.stock_plan_id);
      if (refs.vesting_terms_id !== undefined) expect(terms).toContain(refs.vesting_terms_id);
    }
    for (const plan of mapped.stockPlans) for (const id of plan.stock_class_ids ?? []) expect(classes).toContain(id);
  });

  it("makes placeholders for what the source does not give, and says so", () => {
    const mapped = mapRecords({ awards: [baseAward()] });
    expect(mapped.issuer).toMatchObject({
      object_type: "ISSUER",
      id: "issuer-7",
      legal_name: "Issuer 7",
      formation_date: "2016-08-01",
      country_of_formation: "US",
    });
    expect(mapped.stakeholders).toEqual([
      {
        object_type: "STAKEHOLDER",
        id: "stakeholder-6113",
        name: { legal_name: "Stakeholder 6113" },
        stakeholder_type: "INDIVIDUAL",
        issuer_assigned_id: "6113",
        comments: ["Placeholder name and stakeholder_type: the source gives only the stakeholder id (issuer_assigned_id)."],
      },
    ]);
    expect(mapped.warnings.map((w) => [w.code, w.path])).toEqual([
      ["PLACEHOLDER_ISSUER", "options.issuerProfile.formationDate"],
      ["PLACEHOLDER_ISSUER", "options.issuerProfile.legalName"],
      ["PLACEHOLDER_ISSUER", "options.issuerProfile.countryOfFormation"],
      ["PLACEHOLDER_STAKEHOLDERS", "options.stakeholders"],
    ]);
  });

  it("takes the issuer profile and the stakeholder directory instead of placeholders", () => {
    const mapped = mapRecords(
      { awards: [baseAward()] },
      {
        issuerProfile: { legalName: "Meadowlark Therapeutics, Inc.", formationDate: "2014-02-03", countryOfFormation: "US", countrySubdivisionOfFormation: "DE", dba: "Meadowlark" },
        stakeholders: new Map([["6113", { legalName: "Pat Example", firstName: "Pat", lastName: "Example", currentRelationship: "EMPLOYEE" }]]),
      },
    );
    expect(mapped.issuer).toEqual({
      object_type: "ISSUER",
      id: "issuer-7",
      legal_name: "Meadowlark Therapeutics, Inc.",
      dba: "Meadowlark",
      formation_date: "2014-02-03",
      country_of_formation: "US",
      country_subdivision_of_formation: "DE",
      comments: ['Issuer id at the source: "7".'],
    });
    expect(mapped.stakeholders[0]).toEqual({
      object_type: "STAKEHOLDER",
      id: "stakeholder-6113",
      name: { legal_name: "Pat Example", first_name: "Pat", last_name: "Example" },
      stakeholder_type: "INDIVIDUAL",
      issuer_assigned_id: "6113",
      current_relationship: "EMPLOYEE",
    });
    expect(mapped.warnings).toEqual([]);
  });

  it("rejects a profile value OCF cannot hold, naming the option", () => {
    const error = mappingErrorOf(() => mapRecords({ awards: [baseAward()] }, { issuerProfile: { countryOfFormation: "usa" } }));
    expect(error.code).toBe("MAPPING_INVALID_OUTPUT");
    expect(error.path).toBe("options.issuerProfile");
    expect(error.message).toContain("country_of_formation");
  });

  it("makes one stock class per class (a unit's class id named by an award), with placeholders said, and plans with a lower-bound reserve", () => {
    const mapped = mapRecords(all(), { settlementStockClassName: "Common Stock" });
    // The units name their class by baseAward's shareClassId: the awards' "Common", not the option.
    expect(mapped.stockClasses.map((c) => [c.id, c.name, c.default_id_prefix, c.initial_shares_authorized, c.votes_per_share, c.seniority, c.class_type])).toEqual([
      ["stock-class-Common", "Common", "CS-", "NOT APPLICABLE", "1", "1", "COMMON"],
    ]);
    expect(mapped.stockClasses[0]?.comments).toContain("Source share class id: 4519cc18-ee7f-4fb7-8a4b-b70a063de4f5 (shareClassId).");
    expect(mapped.stockPlans.map((p) => [p.id, p.initial_shares_reserved, p.stock_class_ids])).toEqual([
      ["stock-plan-2015 Equity Incentive Plan", "3000", ["stock-class-Common"]],
      ["stock-plan-2016 Equity Incentive Plan", "8000", ["stock-class-Common"]],
    ]);
    expect(mapped.stockPlans[0]?.comments?.[0]).toContain("lower bound");
    const placeholders = mapped.manifestComments.find((c) => c.startsWith("Placeholders, not facts"));
    expect(placeholders).toContain("stock-class-Common: class_type, initial_shares_authorized, votes_per_share, seniority");
    expect(placeholders).toContain("stock-plan-2016 Equity Incentive Plan: initial_shares_reserved (a lower bound: the sum granted under it)");
  });

  it("takes share class terms and plan reserves from the issuer profile, and names a class known only by id from it", () => {
    const { shareClassId: _, ...plainAward } = baseAward();
    const mapped = mapRecords(
      { awards: [plainAward], units: [baseUnit()] },
      {
        issuerProfile: {
          legalName: "Seven, Inc.",
          formationDate: "2010-01-01",
          countryOfFormation: "US",
          shareClasses: {
            Common: { classType: "COMMON", authorizedShares: "10000000", votesPerShare: "1", seniority: "1", parValue: { amount: "0.0001", currency: "USD" } },
            "4519cc18-ee7f-4fb7-8a4b-b70a063de4f5": { name: "Class B Common", authorizedShares: "UNLIMITED" },
          },
          stockPlans: { "2016 Equity Incentive Plan": { initialSharesReserved: "500000", boardApprovalDate: "2016-01-15" } },
        },
      },
    );
    expect(mapped.stockClasses.map((c) => [c.id, c.name, c.initial_shares_authorized, c.par_value])).toEqual([
      ["stock-class-Class B Common", "Class B Common", "UNLIMITED", undefined],
      ["stock-class-Common", "Common", "10000000", { amount: "0.0001", currency: "USD" }],
    ]);
    expect(mapped.stockPlans.find((p) => p.plan_name === "2016 Equity Incentive Plan")).toMatchObject({ initial_shares_reserved: "500000", board_approval_date: "2016-01-15" });
    const placeholders = mapped.manifestComments.find((c) => c.startsWith("Placeholders, not facts")) ?? "";
    expect(placeholders).not.toContain("stock-class-Common:");
    expect(placeholders).toContain("stock-class-Class B Common: class_type, votes_per_share, seniority");
    expect(placeholders).not.toContain("the issuer's");
  });

  it("names a class known only by its id with a placeholder, and warns", () => {
    const mapped = mapRecords({ units: [baseUnit()] });
    expect(mapped.stockClasses.map((c) => [c.id, c.name])).toEqual([["stock-class-4519cc18-ee7f-4fb7-8a4b-b70a063de4f5", "Share class 4519cc18-ee7f-4fb7-8a4b-b70a063de4f5"]]);
    expect(mapped.warnings.map((w) => w.code)).toContain("PLACEHOLDER_STOCK_CLASS");
  });

  it("fails the issuer under --strict when two awards give one share class id two names (class-names.test.ts: the rule without it)", () => {
    const error = mappingErrorOf(() => mapRecords({ awards: [baseAward(), { ...termsAward(), shareClassName: "Class B" }] }, { strict: true }));
    expect(error.code).toBe("MAPPING_CONFLICT");
    expect(error.message).toMatch(/share class id "4519cc18-ee7f-4fb7-8a4b-b70a063de4f5" is named both "(Common" and "Class B|Class B" and "Common)"/);
  });

  it("declares its lineage convention and the sell-to-cover holder in the manifest's comments", () => {
    const documents = mapRecords(all());
    expect(documents.manifestComments[0]).toMatch(/^Lineage: documents\. /);
    expect(mapRecords(all(), { lineage: "same-security" }).manifestComments[0]).toMatch(/^Lineage: same-security \(OCF #531\)\. /);
    expect(documents.stakeholders.map((s) => s.id)).toEqual(["market-sell-to-cover", "stakeholder-6113"]);
    expect(documents.manifestComments[1]).toContain("market-sell-to-cover");
  });

  it("sorts transactions by date, kind, then id, and every other list by id", () => {
    const mapped = mapRecords(all());
    expect([...mapped.transactions].sort(compareTransactions)).toEqual(mapped.transactions);
    for (const list of [mapped.stakeholders, mapped.stockClasses, mapped.stockPlans, mapped.vestingTerms]) {
      expect(list.map((o) => o.id)).toEqual(list.map((o) => o.id).sort());
    }
  });

  it("gives the same objects whatever the order of the records", () => {
    const records = all();
    const reversed = { awards: [...records.awards].reverse(), units: [...records.units].reverse() };
    expect(mapRecords(reversed)).toEqual(mapRecords(records));
  });

  it("takes as_of from the records when not given, and checks a given one", () => {
    expect(mapRecords(all()).asOf).toBe("2021-03-04");
    expect(mapRecords(all(), { asOf: "2025-06-30" }).asOf).toBe("2025-06-30");
    expect(mappingErrorOf(() => mapRecords(all(), { asOf: "2025-02-30" })).code).toBe("MAPPING_INVALID_OPTION");
  });

  it("needs an as_of or a formation date for an issuer without records", () => {
    expect(mappingErrorOf(() => mapRecords({})).path).toBe("options.asOf");
    const empty = mapRecords({}, { asOf: "2025-06-30" });
    expect(empty.issuer.formation_date).toBe("2025-06-30");
    expect(empty.transactions).toEqual([]);
  });

  it("fails on the first unmappable record by default, and quarantines it on request", () => {
    const { pricePerShare: _, ...unpriced } = { ...baseAward(), id: "9999" };
    const records = { awards: [baseAward(), unpriced], units: [baseUnit()] };
    expect(mappingErrorOf(() => mapRecords(records)).record).toEqual({ kind: "restrictedStockAward", recordId: "9999" });
    const mapped = mapRecords(records, { onInvalid: "quarantine" });
    expect(mapped.quarantined.map((q) => [q.kind, q.recordId, q.error.code, q.error.path])).toEqual([
      ["restrictedStockAward", "9999", "MAPPING_MISSING_VALUE", "pricePerShare"],
    ]);
    expect(mapped.transactions.some((tx) => tx.id.startsWith("rsa-9999"))).toBe(false);
    expect(mapped.transactions.some((tx) => tx.id === "rsa-1191-issuance")).toBe(true);
  });

  it("reports two records that would give the same OCF ids", () => {
    const error = mappingErrorOf(() => mapRecords({ awards: [baseAward(), baseAward()] }));
    expect(error.code).toBe("MAPPING_ID_COLLISION");
    expect(error.message).toContain("an earlier record with the same id");
    // Award "1"'s milestone "m-issuance" and award "1-vesting-event-m" both spell rsa-1-vesting-event-m-issuance.
    const milestoneAward = {
      ...termsAward(),
      id: "1",
      vestingEvents: termsAward().vestingEvents.map((e) => (e.id === "m1" ? { ...e, id: "m-issuance" } : e)),
    };
    const spelled = { ...baseAward(), id: "1-vesting-event-m" };
    const clash = mappingErrorOf(() => mapRecords({ awards: [milestoneAward, spelled] }));
    expect(clash.code).toBe("MAPPING_ID_COLLISION");
    expect(clash.record?.recordId).toBe("1-vesting-event-m");
    expect(clash.message).toContain('restrictedStockAward "1"');
    const mapped = mapRecords({ awards: [milestoneAward, spelled] }, { onInvalid: "quarantine" });
    expect(mapped.quarantined.map((q) => q.recordId)).toEqual(["1-vesting-event-m"]);
    expect(isMappingError(mapped.quarantined[0]?.error)).toBe(true);
  });

  it("does not call issuer-level errors record errors, even in quarantine mode", () => {
    expect(() => mapIssuer({ issuerId: ISSUER_ID, awards: [], units: [] }, { onInvalid: "quarantine" })).toThrow(/options\.asOf/);
  });
});

describe("idPrefixOf", () => {
  it.each([
    [["CS-1", "CS-22"], "CS-"],
    [["RSA-1", "RSA-9"], "RSA-"],
    [["RSA-1", "CS-2"], "CS-"],
    [["123"], "CS-"],
    [[], "CS-"],
    [["ES-136"], "ES-"],
  ])("%j → %s", (labels, prefix) => {
    expect(idPrefixOf(labels)).toBe(prefix);
  });
});

describeConformance("the official OCF 1.2.0 schemas", () => {
  it("accept every object mapIssuer builds", () => {
    expectOfficiallyValidObjects(mappedObjects(mapRecords(all())));
  });
});
