/**
 * A performance event that pays out above its target (issue 24, item 3): the grant's quantity is its
 * target, the payout above it is a new issuance to the holder on the vest date (`payout.ts`). Checked
 * on the objects, and with the independent reader against the source's own figures (source-truth.ts).
 */
import { describe, expect, it } from "vitest";
import { mapAward } from "../../../src/mapping/award.js";
import { mapIssuer } from "../../../src/mapping/map-issuer.js";
import type { ShareClassDirectory } from "../../../src/mapping/share-classes.js";
import { mapUnit } from "../../../src/mapping/unit.js";
import { buildPackageFiles } from "../../../src/ocf/package-files.js";
import { readOcfPackageFromFiles } from "../../../src/ocf/package-reader.js";
import { validateOcfPackage } from "../../../src/ocf/validate-package.js";
import type { OcfEquityCompensationIssuance, OcfStockIssuance } from "../../../src/ocf/schemas.js";
import type { RestrictedStockUnit, VestingEvent } from "../../../src/source/records.js";
import { disagreements, grantDates } from "../../helpers/consumer-check.js";
import { packageFromTexts, type Reading } from "../../helpers/independent-reader.js";
import { expectOcfSyncValidObjects } from "../../helpers/ocf-verdicts.js";
import { ISSUER_ID, mappingErrorOf, performanceAward, performanceEvents, performanceUnit, timeEvent, txById, txOfType } from "./fixtures.js";

const COMMON_ID = "4519cc18-ee7f-4fb7-8a4b-b70a063de4f5";
const awardsName: ShareClassDirectory = { nameOf: (id) => (id === COMMON_ID ? "Common" : undefined), complete: true };

const mapU = (unit: RestrictedStockUnit) => mapUnit(unit, { issuerId: ISSUER_ID, shareClasses: awardsName });

describe("a performance event paid above target", () => {
  it("an award: the grant vests the target, the 250 above it are a fully vested issuance to the holder on the vest date", () => {
    const mapped = mapAward(performanceAward(), { issuerId: ISSUER_ID });
    const grant = txById(mapped, "rsa-2300-issuance") as OcfStockIssuance;
    expect(grant.quantity).toBe("1000");
    const payout = txById(mapped, "rsa-2300-payout-p1-issuance") as OcfStockIssuance;
    expect(payout).toMatchObject({ security_id: "rsa-2300-payout-p1", date: "2021-06-01", quantity: "250", stakeholder_id: grant.stakeholder_id, stock_class_id: grant.stock_class_id, share_price: grant.share_price, issuance_type: "RSA" });
    expect(payout.vestings).toBeUndefined();
    expect(payout.vesting_terms_id).toBeUndefined();
    const terms = mapped.vestingTerms.find((t) => t.id === grant.vesting_terms_id);
    expect(terms?.vesting_conditions.find((c) => c.id === "event-p1")?.quantity).toBe("500");
    const warning = mapped.warnings.find((w) => w.code === "PERFORMANCE_ABOVE_TARGET");
    expect(warning?.path).toBe("vestingEvents[1].vestedQuantity");
    expect(warning?.message).toContain("the 250 above it are a new issuance to the holder, rsa-2300-payout-p1, on 2021-06-01");
    expect(grant.comments?.some((c) => c.startsWith("Performance paid above target"))).toBe(true);
    // The source's own sums are checked on the events as sent: vested 250 + 750 = vestedQuantity 1000.
    expect(mapped.warnings.map((w) => w.code)).not.toContain("VESTED_SUM_MISMATCH");
    expectOcfSyncValidObjects([...mapped.transactions, ...mapped.vestingTerms]);
  });

  it("a unit: settlements release from the payout first (it is vested), then from the grant; the shares go with the first release", () => {
    const mapped = mapU(performanceUnit());
    expect((txById(mapped, "rsu-9100-payout-p1-issuance") as OcfEquityCompensationIssuance).quantity).toBe("250");
    const releases = txOfType(mapped, "TX_EQUITY_COMPENSATION_RELEASE").map((r) => [r.security_id, r.date, r.quantity, r.resulting_security_ids]);
    expect(releases).toEqual([
      ["rsu-9100", "2021-01-05", "250", ["rsu-9100-settlement-1"]],
      ["rsu-9100-payout-p1", "2021-07-01", "250", ["rsu-9100-settlement-2"]],
      ["rsu-9100", "2021-07-01", "500", []],
    ]);
    expect(mapped.warnings.map((w) => w.code)).not.toContain("CANCELED_AND_RELEASED_EXCEED_QUANTITY");
    expect(mapped.warnings.map((w) => w.code)).not.toContain("RELEASED_SUM_MISMATCH");
    expectOcfSyncValidObjects([...mapped.transactions, ...mapped.vestingTerms]);
  });

  it("is mapped as before when the grant's quantity holds every tranche as paid (its quantity is the maximum)", () => {
    const unit = { ...performanceUnit(), quantity: "1250" };
    const mapped = mapU(unit);
    expect(mapped.transactions.some((tx) => tx.security_id.includes("-payout-"))).toBe(false);
    expect(mapped.warnings.map((w) => w.code)).not.toContain("PERFORMANCE_ABOVE_TARGET");
  });

  it("still refuses tranches beyond the grant that no payout above target explains", () => {
    const award = { ...performanceAward(), vestingEvents: [...performanceEvents(), timeEvent("t3", "2023-01-01", "100", false)] };
    expect(mappingErrorOf(() => mapAward(award, { issuerId: ISSUER_ID })).code).toBe("MAPPING_CONFLICT");
  });

  // The payout's quantity is vestedQuantity − targetQuantity: one of those fields that OCF Numeric
  // cannot hold is the error, named as the record wrote it, before any object is built.
  const withP1 = <T extends { vestingEvents: VestingEvent[] }>(record: T, p1: Partial<VestingEvent>): T => ({ ...record, vestingEvents: record.vestingEvents.map((e) => (e.id === "p1" ? { ...e, ...p1 } : e)) });
  const precisionOf = (fn: () => unknown) => {
    const error = mappingErrorOf(fn);
    return { code: error.code, issuerId: error.issuerId, record: error.record, path: error.path, value: error.value, message: error.message };
  };

  it.each([
    ["an award", () => mapAward(withP1(performanceAward(), { vestedQuantity: "750.00000000001" }), { issuerId: ISSUER_ID }), "restrictedStockAward", "2300"],
    ["a unit", () => mapU(withP1(performanceUnit(), { vestedQuantity: "750.00000000001" })), "restrictedStockUnit", "9100"],
  ] as const)("%s paid above target with a vestedQuantity of 11 decimal places: MAPPING_DECIMAL_PRECISION naming the issuer, record, field and value as sent", (_, map, kind, recordId) => {
    expect(precisionOf(map)).toEqual({
      code: "MAPPING_DECIMAL_PRECISION",
      issuerId: ISSUER_ID,
      record: { kind, recordId },
      path: "vestingEvents[1].vestedQuantity",
      value: "750.00000000001",
      message: `${kind} "${recordId}" of issuer "${ISSUER_ID}", vestingEvents[1].vestedQuantity: 750.00000000001 needs 11 decimal places; OCF Numeric allows at most 10`,
    });
  });

  it.each([
    // The excess 250.00000000001 needs 11 places because the target does.
    ["750", "499.99999999999"],
    // The excess 250 fits, but the target the grant's own security vests does not.
    ["749.99999999999", "499.99999999999"],
  ])("names the targetQuantity, as sent, when it is the field OCF cannot hold (vestedQuantity %s, targetQuantity %s)", (vestedQuantity, targetQuantity) => {
    const error = precisionOf(() => mapAward(withP1(performanceAward(), { vestedQuantity, targetQuantity }), { issuerId: ISSUER_ID }));
    expect([error.code, error.path, error.value]).toEqual(["MAPPING_DECIMAL_PRECISION", "vestingEvents[1].targetQuantity", targetQuantity]);
  });

  it("quarantines such a unit with that error, and keeps the shares its settlements delivered and every other record", () => {
    const bad = { ...withP1(performanceUnit(), { vestedQuantity: "750.00000000001" }), id: "9101" };
    const options = { asOf: "2023-01-01", settlementStockClassName: "Common", onInvalid: "quarantine" } as const;
    const mapped = mapIssuer({ issuerId: ISSUER_ID, awards: [performanceAward()], units: [performanceUnit(), bad] }, options);
    expect(mapped.quarantined.map((q) => [q.kind, q.recordId, q.error.code, q.error.path, q.error.value])).toEqual([
      ["restrictedStockUnit", "9101", "MAPPING_DECIMAL_PRECISION", "vestingEvents[1].vestedQuantity", "750.00000000001"],
    ]);
    // The shares the quarantined unit delivered are outstanding stock: kept, as its mapping would write them.
    expect(mapped.quarantined[0]?.deliveredShares).toEqual({ kept: ["rsu-9101-settlement-1", "rsu-9101-settlement-2"], notKept: [] });
    const ofBad = mapped.transactions.filter((tx) => tx.id.startsWith("rsu-9101-")).map((tx) => [tx.object_type, tx.security_id]);
    expect(ofBad).toEqual([
      ["TX_STOCK_ISSUANCE", "rsu-9101-settlement-1"],
      ["TX_STOCK_ISSUANCE", "rsu-9101-settlement-2"],
    ]);
    // The other records map as they do without it, payouts and all.
    const alone = mapIssuer({ issuerId: ISSUER_ID, awards: [performanceAward()], units: [performanceUnit()] }, options);
    expect(mapped.transactions.filter((tx) => !tx.id.startsWith("rsu-9101-"))).toEqual(alone.transactions);
  });

  const readings: [Reading, "documents" | "same-security"][] = [
    ["documents", "documents"],
    ["same-security", "same-security"],
  ];
  it.each(readings)("reads right to the independent reader (%s): every holder's shares and units, the total, every grant's vested figure", async (reading, lineage) => {
    // A unit cancelled too: the 250 still to vest forfeited on 2022-01-05 after a termination.
    const cancelledUnit: RestrictedStockUnit = { ...performanceUnit(), id: "9101", terminationDate: "2021-12-15", canceledDate: "2022-01-05", canceledQuantity: "250", forfeitedQuantity: "250" };
    // And one cancelled in part: only the first settlement made, the 250 to vest forfeited, the 750
    // paid on p1 left to settle (500 on the grant's balance, 250 on the payout).
    const first = performanceUnit().settlements.slice(0, 1);
    const partlyCancelled: RestrictedStockUnit = { ...cancelledUnit, id: "9102", settlements: first, releasedQuantity: "250", netSettledQuantity: "200" };
    const source = { awards: [performanceAward()], units: [performanceUnit(), cancelledUnit, partlyCancelled] };
    const mapped = mapIssuer({ issuerId: ISSUER_ID, ...source }, { asOf: "2023-01-01", lineage, settlementStockClassName: "Common" });
    const { files } = buildPackageFiles(mapped, { generatedAt: "2023-01-01T00:00:00Z" });
    // ocf-sync's validate finds nothing wrong either, read by the lineage the package declares.
    expect(validateOcfPackage(await readOcfPackageFromFiles(files)).problems).toEqual([]);
    const pkg = await packageFromTexts(files);
    if (lineage === "documents") expect(mapped.transactions.map((tx) => tx.id)).toContain("rsu-9102-balance-issuance");
    const dates = [...new Set([...source.awards, ...source.units].flatMap(grantDates))].sort();
    expect(disagreements(source, pkg, reading, dates)).toEqual([]);
  });
});
