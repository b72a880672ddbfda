import { describe, expect, it } from "vitest";
import { parseAward, parseRecord, parseUnit, recordIdOf } from "../../../src/source/parse.js";
import { parseListEnvelope } from "../../../src/source/envelopes.js";
import { describeConformance } from "../../helpers/conformance.js";
import { awardRecord, oasExample, paddedUnitRecord, undefinedLeaves, unitRecord } from "./fixtures.js";

const ctx = { issuerId: "7" };

describe("complete records as the service sends them", () => {
  it("parses an award with every spec field to exactly the expected record", () => {
    const { parsed, warnings } = parseRecord("restrictedStockAward", awardRecord(), ctx);
    expect(warnings).toEqual([]);
    const tranche = (id: string, vestDate: string) => ({
      id,
      vestDate,
      quantity: "12000",
      performanceCondition: false,
      vested: true,
      maxQuantity: "12000",
      targetQuantity: "12000",
      vestedQuantity: "12000",
    });
    expect(parsed).toEqual({
      kind: "restrictedStockAward",
      record: {
        id: "3104",
        issuerId: "7",
        stakeholderId: "5402",
        equityIncentivePlanName: "2020 Stock Plan",
        shareClassName: "Common",
        issueDate: "2020-10-15",
        vestingStartDate: "2020-10-01",
        boardApprovalDate: "2020-10-08",
        stakeholderAcceptanceDate: "2020-10-22",
        canceledDate: "2023-04-28",
        quantity: "48000",
        vestedQuantity: "24000",
        securityLabel: "RSA-12",
        pricePerShare: { currency: "USD", amount: "0.0025" },
        vestingEvents: [tranche("77012", "2021-10-01"), tranche("77013", "2022-10-01")],
        vestingSchedule: { name: "1/4 yearly, no cliff", lastModifiedDate: "2020-10-15", startDate: "2020-10-01", endDate: "2024-10-01" },
        lastModifiedDatetime: "2023-05-02T14:20:05.000000Z",
      },
    });
  });

  it("parses a unit with every spec field, settlements included, to exactly the expected record", () => {
    const { record, warnings } = parseUnit(unitRecord(), ctx);
    expect(warnings).toEqual([]);
    const tranche = (id: string, vestDate: string) => ({
      id,
      vestDate,
      quantity: "600",
      performanceCondition: false,
      vested: true,
      maxQuantity: "600",
      targetQuantity: "600",
      vestedQuantity: "600",
    });
    expect(record).toEqual({
      id: "5570",
      issuerId: "7",
      stakeholderId: "5417",
      equityIncentivePlanName: "2020 Stock Plan",
      issueDate: "2021-03-15",
      vestingStartDate: "2021-03-01",
      boardApprovalDate: "2021-03-10",
      stakeholderAcceptanceDate: "2021-03-19",
      quantity: "2400",
      vestedQuantity: "1200",
      releasedQuantity: "600",
      releasePricePerShare: { currency: "USD", amount: "4.25" },
      netSettledQuantity: "402",
      securityLabel: "RSU-31",
      vestingEvents: [tranche("88120", "2022-03-01"), tranche("88121", "2023-03-01")],
      settlements: [
        {
          settlementDate: "2022-03-02",
          releaseQuantity: "600",
          saleQuantity: "0",
          withholdingQuantity: "198",
          netSettlementQuantity: "402",
          settlementPrice: { currency: "USD", amount: "4.25" },
          certificateId: "2210",
          certificateLabel: "CS-88",
        },
      ],
      vestingSchedule: { name: "1/4 yearly", lastModifiedDate: "2021-03-15", startDate: "2021-03-01", endDate: "2025-03-01" },
      lastModifiedDatetime: "2023-03-03T08:00:12.000000Z",
    });
  });

  it("parses a list page through the envelope, record by record", () => {
    const body = { restrictedStockAwards: [awardRecord(), { ...awardRecord(), id: "3105", quantity: { value: "1000.50" } }], nextPageToken: "MzEwNQ==" };
    const page = parseListEnvelope("restrictedStockAward", body, { issuerId: "7", path: "/v1alpha1/issuers/7/restrictedStockAwards" });
    expect(page.nextPageToken).toBe("MzEwNQ==");
    const records = page.items.map((item) => parseAward(item, ctx).record);
    expect(records.map((r) => [r.id, r.quantity, r.pricePerShare])).toEqual([
      ["3104", "48000", { currency: "USD", amount: "0.0025" }],
      ["3105", "1000.5", { currency: "USD", amount: "0.0025" }],
    ]);
  });

  it("parses a sparse, zero-padded record, normalizing the padding and defaulting the lists", () => {
    const { record, warnings } = parseUnit(paddedUnitRecord(), ctx);
    expect(warnings).toEqual([]);
    expect(record).toEqual({
      id: "6021",
      stakeholderId: "5433",
      equityIncentivePlanName: "2022 Equity Plan",
      issueDate: "2022-09-12",
      quantity: "3600",
      vestedQuantity: "900",
      releasedQuantity: "0",
      netSettledQuantity: "0",
      securityLabel: "RSU-58",
      vestingSchedule: { name: "1/16 quarterly" },
      vestingEvents: [],
      settlements: [],
    });
    expect(Object.hasOwn(record, "issuerId")).toBe(false);
  });
});

describe("decimals as the service sends them (source-api.md §9.2)", () => {
  it.each([
    ["200000.00000000000000000000", "200000"],
    ["0.2650000000000000000000000000", "0.265"],
    ["1e-05", "0.00001"],
    ["+1.23456e-3", "0.00123456"],
    [".321", "0.321"],
    ["1.", "1"],
    ["0.0", "0"],
    ["1.00", "1"],
    ["123.45", "123.45"],
    ["1E+3", "1000"],
    ["-0", "0"],
  ])("%s is kept exactly as %s", (wire, expected) => {
    const raw = { ...paddedUnitRecord(), quantity: { value: wire } };
    expect(parseUnit(raw, ctx).record.quantity).toBe(expected);
  });

  it("keeps every digit of a long value and never returns a number", () => {
    const wire = "123456789012345678901234567890.123456789012345678901234567891";
    const { record } = parseAward({ id: "1", quantity: { value: wire } }, ctx);
    expect(record.quantity).toBe(wire);
    expect(typeof record.quantity).toBe("string");
  });
});

describe("dates and date-times", () => {
  it("accepts a leap day and normalizes date-times with 0 to 6+ fractional digits to six", () => {
    const cases = [
      ["2024-07-30T09:31:57Z", "2024-07-30T09:31:57.000000Z"],
      ["2013-06-30T07:00:00.000Z", "2013-06-30T07:00:00.000000Z"],
      ["2024-07-30T09:31:57.5Z", "2024-07-30T09:31:57.500000Z"],
      ["2024-07-30T09:31:57.000000Z", "2024-07-30T09:31:57.000000Z"],
      ["2024-07-30T09:31:57.123456789Z", "2024-07-30T09:31:57.123456Z"],
      ["2024-07-30T09:31:57+00:00", "2024-07-30T09:31:57.000000Z"],
    ] as const;
    for (const [wire, expected] of cases) {
      const { record } = parseAward({ id: "1", issueDate: { value: "2024-02-29" }, lastModifiedDatetime: { value: wire } }, ctx);
      expect(record.lastModifiedDatetime).toBe(expected);
      expect(record.issueDate).toBe("2024-02-29");
    }
  });
});

describe("Money (source-api.md §9.5)", () => {
  it("accepts currencyCode as an object or a bare string and upper-cases it", () => {
    const asObject = parseAward({ id: "1", pricePerShare: { currencyCode: { value: "usd" }, amount: { value: "0.010" } } }, ctx);
    const asString = parseAward({ id: "1", pricePerShare: { currencyCode: "Usd", amount: { value: "1000.77" } } }, ctx);
    expect(asObject.record.pricePerShare).toEqual({ currency: "USD", amount: "0.01" });
    expect(asString.record.pricePerShare).toEqual({ currency: "USD", amount: "1000.77" });
  });

  it.each([
    ["{}", {}],
    ["null", null],
    ["empty parts", { currencyCode: {}, amount: {} }],
    ["null parts", { currencyCode: null, amount: null }],
    ["null values", { currencyCode: { value: null }, amount: { value: null } }],
  ])("treats Money with neither part (%s) as absent", (_label, money) => {
    const { record } = parseAward({ id: "1", pricePerShare: money }, ctx);
    expect(Object.hasOwn(record, "pricePerShare")).toBe(false);
  });
});

describe("null, {} and missing are the same (source-api.md §9.6)", () => {
  const awardKeys = [
    "issuerId", "stakeholderId", "equityIncentivePlanName", "shareClassName", "issueDate", "vestingStartDate",
    "boardApprovalDate", "stakeholderAcceptanceDate", "canceledDate", "terminationDate", "quantity", "vestedQuantity",
    "securityLabel", "pricePerShare", "vestingEvents", "vestingSchedule", "canceledQuantity", "returnedToPoolQuantity",
    "returnedToTreasuryQuantity", "lastModifiedDatetime", "securityId", "shareClassId", "vestingScheduleTemplateId",
    "precededBy",
  ];
  const unitKeys = [
    "issuerId", "stakeholderId", "equityIncentivePlanName", "issueDate", "vestingStartDate", "boardApprovalDate",
    "stakeholderAcceptanceDate", "quantity", "vestedQuantity", "releasedQuantity", "releasePricePerShare",
    "netSettledQuantity", "securityLabel", "vestingEvents", "canceledDate", "terminationDate", "settlements",
    "vestingSchedule", "canceledQuantity", "forfeitedQuantity", "expiredQuantity", "returnedToPoolQuantity",
    "returnedToTreasuryQuantity", "lastModifiedDatetime", "securityId", "shareClassId", "vestingScheduleTemplateId",
  ];

  it("gives the same award for every field null as for every field missing", () => {
    const allNull = Object.fromEntries([["id", "1"], ...awardKeys.map((key) => [key, null])]);
    expect(parseAward(allNull, ctx)).toEqual(parseAward({ id: "1" }, ctx));
    expect(parseAward({ id: "1" }, ctx).record).toEqual({ id: "1", vestingEvents: [] });
  });

  it("gives the same unit for every field null as for every field missing", () => {
    const allNull = Object.fromEntries([["id", "1"], ...unitKeys.map((key) => [key, null])]);
    expect(parseUnit(allNull, ctx)).toEqual(parseUnit({ id: "1" }, ctx));
    expect(parseUnit({ id: "1" }, ctx).record).toEqual({ id: "1", vestingEvents: [], settlements: [] });
  });

  it("treats wrappers that arrive as {} or { value: null } as absent", () => {
    const wrappers = ["issueDate", "quantity", "vestedQuantity", "lastModifiedDatetime", "canceledQuantity"];
    const empty = parseAward(Object.fromEntries([["id", "1"], ...wrappers.map((key) => [key, {}])]), ctx).record;
    const nullValue = parseAward(Object.fromEntries([["id", "1"], ...wrappers.map((key) => [key, { value: null }])]), ctx).record;
    expect(empty).toEqual({ id: "1", vestingEvents: [] });
    expect(nullValue).toEqual({ id: "1", vestingEvents: [] });
  });

  it("defaults absent or null booleans of a vesting event to false and keeps explicit ones", () => {
    const events = [{}, { vested: null, performanceCondition: null }, { vested: true, performanceCondition: true }];
    const { record } = parseAward({ id: "1", vestingEvents: events }, ctx);
    expect(record.vestingEvents).toEqual([
      { performanceCondition: false, vested: false },
      { performanceCondition: false, vested: false },
      { performanceCondition: true, vested: true },
    ]);
  });

  it("never puts a key holding undefined into a parsed record, at any depth", () => {
    const raw = {
      id: "1",
      stakeholderId: null,
      vestingEvents: [{ id: null, vestDate: {}, quantity: { value: null }, vested: null }],
      settlements: [{ settlementPrice: {}, certificateId: null, releaseQuantity: {} }],
      vestingSchedule: { name: null, startDate: {} },
      releasePricePerShare: { currencyCode: null, amount: {} },
    };
    const { record } = parseUnit(raw, ctx);
    expect(undefinedLeaves(record)).toEqual([]);
    expect(record).toEqual({
      id: "1",
      vestingEvents: [{ performanceCondition: false, vested: false }],
      settlements: [{}],
      vestingSchedule: {},
    });
  });
});

describe("the newer optional fields (source-api.md §10)", () => {
  it("reads securityId, shareClassId, vestingScheduleTemplateId and precededBy", () => {
    const raw = {
      ...awardRecord(),
      securityId: "0f8fad5b-d9cb-469f-a165-70867728950e",
      shareClassId: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
      vestingScheduleTemplateId: null,
      precededBy: {
        reason: "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_TRANSFERRED",
        securities: [{ id: "1190", type: "restricted_stock_award", label: "CS-15" }],
      },
    };
    const { record, warnings } = parseAward(raw, ctx);
    expect(warnings).toEqual([]);
    expect(record.securityId).toBe("0f8fad5b-d9cb-469f-a165-70867728950e");
    expect(record.shareClassId).toBe("7c9e6679-7425-40de-944b-e07fc1f90ae7");
    expect(Object.hasOwn(record, "vestingScheduleTemplateId")).toBe(false);
    expect(record.precededBy).toEqual({
      reason: "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_TRANSFERRED",
      securities: [{ id: "1190", type: "restricted_stock_award", label: "CS-15" }],
    });
  });

  it("reads a share-reserve precededBy with no securities, and a unit's newer ids", () => {
    const award = parseAward(
      { id: "1", precededBy: { reason: "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_ISSUED_FROM_SHARE_RESERVE" } },
      ctx,
    ).record;
    expect(award.precededBy).toEqual({
      reason: "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_ISSUED_FROM_SHARE_RESERVE",
      securities: [],
    });
    const unit = parseUnit({ id: "2", vestingScheduleTemplateId: "tpl-1", shareClassId: null }, ctx).record;
    expect(unit).toEqual({ id: "2", vestingScheduleTemplateId: "tpl-1", vestingEvents: [], settlements: [] });
  });
});

describe("parseRecord and recordIdOf", () => {
  it("tags the parsed record with its kind", () => {
    expect(parseRecord("restrictedStockUnit", unitRecord(), ctx).parsed.kind).toBe("restrictedStockUnit");
    expect(parseRecord("restrictedStockAward", awardRecord(), ctx).parsed.kind).toBe("restrictedStockAward");
  });

  it("accepts a record without issuerId (every field is optional) for any requested issuer", () => {
    expect(parseAward({ id: "1" }, { issuerId: "144361" }).record.id).toBe("1");
  });

  it.each([
    [{ id: "1191" }, "1191"],
    [{ id: 1191 }, "1191"],
    [{ id: "" }, undefined],
    [{ id: null }, undefined],
    [{}, undefined],
    [{ id: { value: "1" } }, undefined],
    [null, undefined],
    ["1191", undefined],
    [[{ id: "1" }], undefined],
  ])("recordIdOf(%j) is %j", (raw, expected) => {
    expect(recordIdOf(raw)).toBe(expected);
  });
});

describeConformance("the OpenAPI document's example payloads (source-api.md §12)", () => {
  it("parses the RSA example to exactly the expected record", () => {
    const { parsed, warnings } = parseRecord("restrictedStockAward", oasExample("v1alpha1RestrictedStockAward"), ctx);
    expect(warnings).toEqual([]);
    expect(parsed).toEqual({
      kind: "restrictedStockAward",
      record: {
        id: "1191",
        issuerId: "7",
        stakeholderId: "6113",
        equityIncentivePlanName: "2016 Equity Incentive Plan",
        shareClassName: "Common",
        issueDate: "2016-08-25",
        vestingStartDate: "2016-08-25",
        boardApprovalDate: "2016-12-01",
        stakeholderAcceptanceDate: "2017-02-27",
        canceledDate: "2022-05-02",
        quantity: "200000",
        vestedQuantity: "200000",
        securityLabel: "CS-16",
        pricePerShare: { currency: "USD", amount: "0.01" },
        vestingEvents: [
          {
            id: "1988",
            vestDate: "2018-02-27",
            quantity: "200000",
            performanceCondition: false,
            vested: true,
            maxQuantity: "200000",
            targetQuantity: "200000",
            vestedQuantity: "200000",
          },
        ],
        vestingSchedule: { name: "1/24 Cliff", lastModifiedDate: "2022-01-31", startDate: "2022-01-31", endDate: "2024-01-31" },
        lastModifiedDatetime: "2024-07-30T09:31:57.000000Z",
      },
    });
  });

  it("parses the RSU example, settlements included, to exactly the expected record", () => {
    const { record, warnings } = parseUnit(oasExample("v1alpha1RestrictedStockUnit"), ctx);
    expect(warnings).toEqual([]);
    expect(record).toEqual({
      id: "8550",
      issuerId: "7",
      stakeholderId: "6113",
      equityIncentivePlanName: "2015 Equity Incentive Plan",
      issueDate: "2015-06-01",
      vestingStartDate: "2015-06-01",
      boardApprovalDate: "2015-06-01",
      stakeholderAcceptanceDate: "2017-02-27",
      quantity: "1500",
      vestedQuantity: "1500",
      releasedQuantity: "200",
      releasePricePerShare: { currency: "USD", amount: "0.78" },
      netSettledQuantity: "145",
      securityLabel: "ES-136",
      vestingEvents: [
        {
          id: "1988",
          vestDate: "2016-06-01",
          quantity: "375",
          performanceCondition: false,
          vested: true,
          maxQuantity: "375",
          targetQuantity: "375",
          vestedQuantity: "375",
        },
      ],
      settlements: [
        {
          settlementDate: "2016-08-19",
          releaseQuantity: "200",
          saleQuantity: "200",
          withholdingQuantity: "55",
          netSettlementQuantity: "145",
          settlementPrice: { currency: "USD", amount: "0.78" },
          certificateId: "78",
          certificateLabel: "CS-124",
        },
      ],
      vestingSchedule: { name: "1/24 Cliff", lastModifiedDate: "2022-01-31", startDate: "2015-06-01", endDate: "2024-01-31" },
      lastModifiedDatetime: "2024-07-30T09:31:57.000000Z",
    });
  });

  it("parses the §12 list page through the envelope, record by record", () => {
    const body = { restrictedStockAwards: [oasExample("v1alpha1RestrictedStockAward")], nextPageToken: "ODMxMw==" };
    const page = parseListEnvelope("restrictedStockAward", body, { issuerId: "7", path: "/v1alpha1/issuers/7/restrictedStockAwards" });
    expect(page.nextPageToken).toBe("ODMxMw==");
    const records = page.items.map((item) => parseAward(item, ctx).record);
    expect(records.map((r) => [r.id, r.quantity, r.pricePerShare])).toEqual([["1191", "200000", { currency: "USD", amount: "0.01" }]]);
  });
});
