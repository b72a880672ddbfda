/**
 * Parsed records for the mapping tests: small, complete, consistent grants that each exercise one
 * shape of the mapping (a vestings list, VestingTerms, settlements, cancellations). Each call returns
 * a fresh object a test may change.
 */
import { expect } from "vitest";
import { isMappingError, type MappingError } from "../../../src/mapping/errors.js";
import { mapIssuer } from "../../../src/mapping/map-issuer.js";
import type { MapIssuerOptions, MappedIssuer } from "../../../src/mapping/types.js";
import type { OcfTransaction } from "../../../src/ocf/schemas.js";
import type { RestrictedStockAward, RestrictedStockUnit, VestingEvent } from "../../../src/source/records.js";

export const ISSUER_ID = "7";

const usd = (amount: string) => ({ currency: "USD", amount });

/** A dated, time-based tranche. */
export function timeEvent(id: string, vestDate: string, amount: string, vested: boolean): VestingEvent {
  return {
    id,
    vestDate,
    quantity: amount,
    performanceCondition: false,
    vested,
    maxQuantity: amount,
    targetQuantity: amount,
    ...(vested ? { vestedQuantity: amount } : {}),
  };
}

/** A performance event paid above its target (`payout.ts`): paid 750 against a target of 500 (max 1000) on 2021-06-01: 250 above target; the grant's quantity 1000 is the sum of the targets. */
function paidAbove(overrides: Partial<VestingEvent> = {}): VestingEvent {
  return { id: "p1", vestDate: "2021-06-01", performanceCondition: true, vested: true, targetQuantity: "500", maxQuantity: "1000", vestedQuantity: "750", quantity: "500", ...overrides };
}
export const performanceEvents = (): VestingEvent[] => [timeEvent("t1", "2021-01-01", "250", true), paidAbove(), timeEvent("t2", "2022-01-01", "250", false)];

/** A unit of 1000 (targets; t1 250, p1 500 paid 750, t2 250), vested 1000 (250 + 750), released 1000 in two settlements, 250 to vest. */
export function performanceUnit(): RestrictedStockUnit {
  const { canceledDate: _c, terminationDate: _t, ...unit } = baseUnit();
  return {
    ...unit,
    id: "9100",
    issueDate: "2020-01-01",
    vestingStartDate: "2020-01-01",
    boardApprovalDate: "2019-12-20",
    stakeholderAcceptanceDate: "2020-01-10",
    quantity: "1000",
    vestedQuantity: "1000",
    releasedQuantity: "1000",
    netSettledQuantity: "800",
    canceledQuantity: "0",
    forfeitedQuantity: "0",
    expiredQuantity: "0",
    returnedToPoolQuantity: "0",
    returnedToTreasuryQuantity: "0",
    vestingEvents: performanceEvents(),
    settlements: [
      { settlementDate: "2021-01-05", releaseQuantity: "250", saleQuantity: "0", withholdingQuantity: "50", netSettlementQuantity: "200", settlementPrice: { currency: "USD", amount: "2" }, certificateId: "c-1", certificateLabel: "CS-1" },
      { settlementDate: "2021-07-01", releaseQuantity: "750", saleQuantity: "0", withholdingQuantity: "150", netSettlementQuantity: "600", settlementPrice: { currency: "USD", amount: "3" }, certificateId: "c-2", certificateLabel: "CS-2" },
    ],
  };
}

/** An award of 1000 (targets), 250 paid above target, not cancelled. */
export function performanceAward(): RestrictedStockAward {
  const { canceledDate: _c, terminationDate: _t, ...award } = baseAward();
  return { ...award, id: "2300", issueDate: "2020-01-01", vestingStartDate: "2020-01-01", boardApprovalDate: "2019-12-20", stakeholderAcceptanceDate: "2020-01-10", quantity: "1000", vestedQuantity: "1000", canceledQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0", vestingEvents: performanceEvents() };
}

/**
 * An award with every field present: four yearly tranches (two vested), terminated and cancelled,
 * part of the cancelled shares returned to the pool and part to treasury.
 */
export function baseAward(): RestrictedStockAward {
  return {
    id: "1191",
    issuerId: ISSUER_ID,
    stakeholderId: "6113",
    equityIncentivePlanName: "2016 Equity Incentive Plan",
    shareClassName: "Common",
    issueDate: "2016-08-25",
    vestingStartDate: "2016-08-20",
    boardApprovalDate: "2016-08-01",
    stakeholderAcceptanceDate: "2016-09-01",
    canceledDate: "2019-01-10",
    terminationDate: "2019-01-02",
    quantity: "4000",
    vestedQuantity: "2000",
    securityLabel: "RSA-16",
    pricePerShare: usd("0.01"),
    vestingEvents: [
      timeEvent("e1", "2017-08-20", "1000", true),
      timeEvent("e2", "2018-08-20", "1000", true),
      timeEvent("e3", "2019-08-20", "1000", false),
      timeEvent("e4", "2020-08-20", "1000", false),
    ],
    vestingSchedule: { name: "Yearly over 4 years", lastModifiedDate: "2016-08-25", startDate: "2016-08-20", endDate: "2020-08-20" },
    canceledQuantity: "2000",
    returnedToPoolQuantity: "1500",
    returnedToTreasuryQuantity: "500",
    lastModifiedDatetime: "2021-03-04T05:06:07.000000Z",
    securityId: "f07bc732-8b79-43e8-b5a4-01390fdb4ae6",
    shareClassId: "4519cc18-ee7f-4fb7-8a4b-b70a063de4f5",
    vestingScheduleTemplateId: "69d23866-fd77-4347-a301-0441a3582782",
    precededBy: {
      reason: "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_TRANSFERRED",
      securities: [{ id: "1877", type: "restricted_stock_award", label: "RSA-0" }],
    },
  };
}

/** An award mixing a dated tranche, a vested milestone and a pending milestone: VestingTerms. Not terminated. */
export function termsAward(): RestrictedStockAward {
  const { canceledDate: _c, terminationDate: _t, ...award } = baseAward();
  return {
    ...award,
    canceledQuantity: "0",
    returnedToPoolQuantity: "0",
    returnedToTreasuryQuantity: "0",
    id: "2209",
    securityLabel: "RSA-3",
    vestedQuantity: "2500",
    vestingEvents: [
      {
        id: "m2",
        quantity: "1500",
        performanceCondition: true,
        vested: false,
        maxQuantity: "1500",
        targetQuantity: "1000",
      },
      timeEvent("t1", "2017-08-20", "1000", true),
      {
        id: "m1",
        vestDate: "2018-02-01",
        quantity: "1500",
        performanceCondition: true,
        vested: true,
        maxQuantity: "2000",
        targetQuantity: "1500",
        vestedQuantity: "1500",
      },
      timeEvent("t2", "2019-08-20", "500", false),
    ],
    vestingSchedule: { name: "Milestones and a tranche", lastModifiedDate: "2018-02-01", startDate: "2016-08-20", endDate: "2019-08-20" },
  };
}

/**
 * A unit with three settlements (one priced by the unit's releasePricePerShare), terminated: the
 * unvested units forfeited and the unsettled vested ones expired, all returned to the pool.
 */
export function baseUnit(): RestrictedStockUnit {
  return {
    id: "8550",
    issuerId: ISSUER_ID,
    stakeholderId: "6113",
    equityIncentivePlanName: "2015 Equity Incentive Plan",
    issueDate: "2015-06-01",
    vestingStartDate: "2015-06-01",
    boardApprovalDate: "2015-05-20",
    stakeholderAcceptanceDate: "2015-06-10",
    canceledDate: "2018-07-01",
    terminationDate: "2018-06-15",
    quantity: "1500",
    vestedQuantity: "1125",
    releasedQuantity: "1000",
    releasePricePerShare: usd("0.78"),
    netSettledQuantity: "700",
    securityLabel: "ES-136",
    vestingEvents: [
      timeEvent("v1", "2016-06-01", "375", true),
      timeEvent("v2", "2017-06-01", "375", true),
      timeEvent("v3", "2018-06-01", "375", true),
      timeEvent("v4", "2019-06-01", "375", false),
    ],
    settlements: [
      {
        settlementDate: "2017-06-05",
        releaseQuantity: "375",
        saleQuantity: "0",
        withholdingQuantity: "100",
        netSettlementQuantity: "275",
        settlementPrice: usd("1.5"),
        certificateId: "c-2",
        certificateLabel: "CS-2",
      },
      {
        settlementDate: "2016-06-05",
        releaseQuantity: "375",
        saleQuantity: "75",
        withholdingQuantity: "0",
        netSettlementQuantity: "300",
        settlementPrice: usd("1.2"),
        certificateId: "c-1",
        certificateLabel: "CS-1",
      },
      {
        settlementDate: "2018-06-05",
        releaseQuantity: "250",
        saleQuantity: "0",
        withholdingQuantity: "125",
        netSettlementQuantity: "125",
        certificateId: "c-3",
        certificateLabel: "CS-3",
      },
    ],
    vestingSchedule: { name: "Yearly over 4 years", lastModifiedDate: "2015-06-01", startDate: "2015-06-01", endDate: "2019-06-01" },
    canceledQuantity: "500",
    forfeitedQuantity: "375",
    expiredQuantity: "125",
    returnedToPoolQuantity: "400",
    returnedToTreasuryQuantity: "100",
    lastModifiedDatetime: "2020-01-01T00:00:00.000000Z",
    securityId: "e79f0fae-ab53-409a-b2d3-a7d4325e78f2",
    shareClassId: "4519cc18-ee7f-4fb7-8a4b-b70a063de4f5",
    vestingScheduleTemplateId: "27fa9da5-8aaa-4825-9c27-de44f5cac88e",
  };
}

/** A unit whose first event is a milestone: VestingTerms. Not terminated: every event is earned or still to come. */
export function termsUnit(): RestrictedStockUnit {
  const { canceledDate: _c, terminationDate: _t, ...unit } = { ...baseUnit(), canceledQuantity: "0", forfeitedQuantity: "0", expiredQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
  const [first, ...rest] = unit.vestingEvents;
  return { ...unit, id: "8551", vestingEvents: [{ ...(first as VestingEvent), performanceCondition: true }, ...rest] };
}

/**
 * A unit of 10,000 in four tranches of 2,500, the first two vested; nothing released yet; not
 * terminated; the 5,000 not vested forfeited on 2022-06-01 (a partial cancellation).
 */
export function forfeitingUnit(change: Partial<RestrictedStockUnit>): RestrictedStockUnit {
  const { terminationDate: _t, ...base } = baseUnit();
  return {
    ...base,
    quantity: "10000",
    vestedQuantity: "5000",
    releasedQuantity: "0",
    netSettledQuantity: "0",
    vestingEvents: [
      timeEvent("v1", "2021-01-01", "2500", true),
      timeEvent("v2", "2022-01-01", "2500", true),
      timeEvent("v3", "2023-01-01", "2500", false),
      timeEvent("v4", "2024-01-01", "2500", false),
    ],
    issueDate: "2020-01-01",
    vestingStartDate: "2020-01-01",
    stakeholderAcceptanceDate: "2020-01-02",
    settlements: [],
    canceledDate: "2022-06-01",
    canceledQuantity: "5000",
    forfeitedQuantity: "5000",
    expiredQuantity: "0",
    returnedToPoolQuantity: "0",
    returnedToTreasuryQuantity: "0",
    ...change,
  };
}

/** Maps awards and units of `ISSUER_ID` with `onInvalid: "fail"`. */
export function mapRecords(
  records: { awards?: RestrictedStockAward[]; units?: RestrictedStockUnit[] },
  options: MapIssuerOptions = {},
): MappedIssuer {
  return mapIssuer({ issuerId: ISSUER_ID, awards: records.awards ?? [], units: records.units ?? [] }, options);
}

/**
 * The transaction type whose `object_type` admits `T` (the equity-compensation types admit two
 * spellings, so a plain `Extract` on a literal finds nothing).
 */
export type TransactionOfType<T extends OcfTransaction["object_type"]> = OcfTransaction extends infer U
  ? U extends { object_type: infer O }
    ? T extends O
      ? U
      : never
    : never
  : never;

/** The transactions of a given object type. */
export function txOfType<T extends OcfTransaction["object_type"]>(
  mapped: { transactions: readonly OcfTransaction[] },
  objectType: T,
): TransactionOfType<T>[] {
  return mapped.transactions.filter((tx): tx is TransactionOfType<T> => tx.object_type === objectType);
}

/** The one transaction with this id (fails the test when there is none). */
export function txById(mapped: { transactions: readonly OcfTransaction[] }, id: string): OcfTransaction {
  const found = mapped.transactions.find((tx) => tx.id === id);
  if (found === undefined) throw new Error(`no transaction ${id}; have ${mapped.transactions.map((tx) => tx.id).join(", ")}`);
  return found;
}

/** Runs `fn`, which must throw a `MappingError`, and returns it. */
export function mappingErrorOf(fn: () => unknown): MappingError {
  try {
    fn();
  } catch (error) {
    expect(isMappingError(error)).toBe(true);
    return error as MappingError;
  }
  throw new Error("expected a MappingError, but nothing was thrown");
}
