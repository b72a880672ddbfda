/**
 * Transactions of a grant dated on its cancellation day. OCF 1.2.0 orders transactions by date and
 * says nothing of the order within a day (consumer-true-ocf.md, "Order within a day"): some readers
 * keep the file's order, OCF-Tools sorts a day by type (a cancellation before a release). So no
 * transaction may act on a security another transaction of its day ends: each case is read by the
 * independent reader under every order it knows, and must give the source's figures with no problem.
 */
import { describe, expect, it } from "vitest";
import { sumDecimalStrings } from "../../../src/decimal.js";
import type { Lineage } from "../../../src/mapping/types.js";
import { buildPackageFiles } from "../../../src/ocf/package-files.js";
import { readOcfPackageFromFiles } from "../../../src/ocf/package-reader.js";
import { validateOcfPackage } from "../../../src/ocf/validate-package.js";
import type { RestrictedStockAward, RestrictedStockUnit, Settlement, VestingEvent } from "../../../src/source/records.js";
import { disagreements, grantDates } from "../../helpers/consumer-check.js";
import { DAY_ORDERS, dayOrderName, packageFromTexts } from "../../helpers/independent-reader.js";
import { baseAward, forfeitingUnit, mapRecords, timeEvent, txById } from "./fixtures.js";

const DAY = "2022-06-01";

/** The unit of 10,000 whose 5,000 not vested are forfeited on `DAY`. */
const unit = forfeitingUnit;

/** A unit as `unit` with these settlements (all delivered net, nothing withheld or sold). */
function settled(settlements: [string, string][], change: Partial<RestrictedStockUnit> = {}): RestrictedStockUnit {
  const list: Settlement[] = settlements.map(([date, gross], n) => ({
    settlementDate: date,
    releaseQuantity: gross,
    saleQuantity: "0",
    withholdingQuantity: "0",
    netSettlementQuantity: gross,
    settlementPrice: { currency: "USD", amount: "3" },
    certificateId: `c-${n}`,
  }));
  const released = sumDecimalStrings(settlements.map(([, gross]) => gross));
  return unit({ settlements: list, releasedQuantity: released, netSettledQuantity: released, ...change });
}

/**
 * Maps the records, checks the package is valid OCF, and that the independent reader reads the
 * source's figures from it under every order within a day, with no problem. Returns the mapping.
 */
async function readsTheSameInEveryOrder(records: { awards?: RestrictedStockAward[]; units?: RestrictedStockUnit[] }, lineage: Lineage) {
  const mapped = mapRecords(records, { lineage, asOf: "2025-06-30" });
  const files = buildPackageFiles(mapped, { generatedAt: "2025-06-30T00:00:00Z" }).files;
  expect(validateOcfPackage(await readOcfPackageFromFiles(files, { label: "same-day" })).problems).toEqual([]);
  const pkg = await packageFromTexts(files);
  const source = { awards: records.awards ?? [], units: records.units ?? [] };
  const dates = [...new Set([...source.awards, ...source.units].flatMap(grantDates))].sort();
  for (const order of DAY_ORDERS) expect(disagreements(source, pkg, lineage, dates, order), dayOrderName(order)).toEqual([]);
  return mapped;
}

const LINEAGES: Lineage[] = ["documents", "same-security"];

/**
 * An award of 4,000 whose vesting starts on its cancellation day, 2019-01-10 (no termination): `first`
 * (2,000) then a tranche of 2,000 on 2020-08-20 not vested; `canceled` shares cancelled, all to the pool.
 */
function startingOnItsCancellation(first: VestingEvent, canceled: string): RestrictedStockAward {
  const { terminationDate: _t, ...base } = baseAward();
  return {
    ...base,
    vestingStartDate: "2019-01-10",
    vestedQuantity: first.vested ? (first.vestedQuantity as string) : "0",
    vestingEvents: [first, timeEvent("e2", "2020-08-20", "2000", false)],
    canceledQuantity: canceled,
    returnedToPoolQuantity: canceled,
    returnedToTreasuryQuantity: "0",
  };
}

describe("a settlement on the cancellation day", () => {
  it("with a partial cancellation, is released from the balance security, which holds its units too", async () => {
    // 2,500 released before; on DAY 5,000 forfeited and 1,000 released; 1,500 released later.
    const record = settled([["2021-02-01", "2500"], [DAY, "1000"], ["2022-09-01", "1500"]]);
    const mapped = await readsTheSameInEveryOrder({ units: [record] }, "documents");
    expect(txById(mapped, "rsu-8550-cancellation")).toMatchObject({ date: DAY, quantity: "5000", balance_security_id: "rsu-8550-balance" });
    expect(txById(mapped, "rsu-8550-balance-issuance")).toMatchObject({ date: DAY, quantity: "2500" });
    expect(txById(mapped, "rsu-8550-release-1")).toMatchObject({ security_id: "rsu-8550" });
    expect(txById(mapped, "rsu-8550-release-2")).toMatchObject({ date: DAY, security_id: "rsu-8550-balance", quantity: "1000" });
    expect(txById(mapped, "rsu-8550-release-3")).toMatchObject({ security_id: "rsu-8550-balance" });
    await readsTheSameInEveryOrder({ units: [record] }, "same-security");
  });

  it("when the release takes all the cancellation leaves, gets a balance holding exactly the units released that day", async () => {
    // 2,500 released before; on DAY 5,000 forfeited and the last 2,500 released: the grant ends that day.
    const record = settled([["2021-02-01", "2500"], [DAY, "2500"]]);
    const mapped = await readsTheSameInEveryOrder({ units: [record] }, "documents");
    expect(txById(mapped, "rsu-8550-cancellation")).toMatchObject({ quantity: "5000", balance_security_id: "rsu-8550-balance" });
    expect(txById(mapped, "rsu-8550-balance-issuance")).toMatchObject({ date: DAY, quantity: "2500" });
    expect(txById(mapped, "rsu-8550-balance-issuance")).not.toHaveProperty("vestings");
    expect(txById(mapped, "rsu-8550-release-2")).toMatchObject({ date: DAY, security_id: "rsu-8550-balance", quantity: "2500" });
    // Same security: nothing is left after the day, and no balance is named.
    const same = await readsTheSameInEveryOrder({ units: [record] }, "same-security");
    expect(txById(same, "rsu-8550-cancellation")).not.toHaveProperty("balance_security_id");
  });
});

describe("an acceptance", () => {
  it.each(LINEAGES)("dated after a full cancellation is left out with a warning naming the record and field (%s)", async (lineage) => {
    const award = { ...baseAward(), canceledQuantity: "4000", returnedToPoolQuantity: "4000", returnedToTreasuryQuantity: "0", stakeholderAcceptanceDate: "2019-02-01" };
    const mapped = await readsTheSameInEveryOrder({ awards: [award] }, lineage);
    expect(mapped.transactions.filter((tx) => tx.object_type === "TX_STOCK_ACCEPTANCE")).toEqual([]);
    const warnings = mapped.warnings.filter((w) => w.code === "ACCEPTANCE_AFTER_END");
    expect(warnings.map((w) => [w.record?.recordId, w.path])).toEqual([["1191", "stakeholderAcceptanceDate"]]);
    expect(warnings[0]?.message).toContain("is 2019-02-01, after the grant was cancelled in full on 2019-01-10");
  });

  it("on the day of a full cancellation is left out in the documents lineage, kept on the security in the same-security one", async () => {
    const award = { ...baseAward(), canceledQuantity: "4000", returnedToPoolQuantity: "4000", returnedToTreasuryQuantity: "0", stakeholderAcceptanceDate: "2019-01-10" };
    const documents = await readsTheSameInEveryOrder({ awards: [award] }, "documents");
    expect(documents.transactions.filter((tx) => tx.object_type === "TX_STOCK_ACCEPTANCE")).toEqual([]);
    expect(documents.warnings.find((w) => w.code === "ACCEPTANCE_AFTER_END")?.message).toContain("is 2019-01-10, the day the grant was cancelled in full on 2019-01-10");
    const same = await readsTheSameInEveryOrder({ awards: [award] }, "same-security");
    expect(txById(same, "rsa-1191-acceptance")).toMatchObject({ date: "2019-01-10", security_id: "rsa-1191" });
    expect(same.warnings.filter((w) => w.code === "ACCEPTANCE_AFTER_END")).toEqual([]);
  });

  it("after the releases and a cancellation took every unit is left out in the same-security lineage, which ends the security then", async () => {
    // 2,500 released, 5,000 forfeited on DAY, the last 2,500 released on 2022-09-01; accepted later still.
    const record = settled([["2021-02-01", "2500"], ["2022-09-01", "2500"]], { stakeholderAcceptanceDate: "2023-01-01" });
    const same = await readsTheSameInEveryOrder({ units: [record] }, "same-security");
    expect(same.transactions.filter((tx) => tx.object_type === "TX_EQUITY_COMPENSATION_ACCEPTANCE")).toEqual([]);
    expect(same.warnings.find((w) => w.code === "ACCEPTANCE_AFTER_END")?.message).toContain("is 2023-01-01, after nothing of the grant was left outstanding on 2022-09-01");
    // The documents end a security at a cancellation only: the balance, all released, takes the acceptance.
    const documents = await readsTheSameInEveryOrder({ units: [record] }, "documents");
    expect(txById(documents, "rsu-8550-balance-acceptance")).toMatchObject({ date: "2023-01-01" });
  });

  it("on the day of a partial cancellation acts on the balance security", async () => {
    const mapped = await readsTheSameInEveryOrder({ units: [unit({ stakeholderAcceptanceDate: DAY })] }, "documents");
    expect(txById(mapped, "rsu-8550-balance-acceptance")).toMatchObject({ date: DAY, security_id: "rsu-8550-balance" });
    expect(mapped.transactions.filter((tx) => tx.security_id === "rsu-8550" && tx.object_type === "TX_EQUITY_COMPENSATION_ACCEPTANCE")).toEqual([]);
  });
});

describe("vesting on the cancellation day", () => {
  it("a milestone met that day is written with its date on the ended security, with no TX_VESTING_EVENT", async () => {
    const milestone: VestingEvent = { ...timeEvent("v2", DAY, "2500", true), performanceCondition: true };
    const record = unit({ vestingEvents: [timeEvent("v1", "2021-01-01", "2500", true), milestone, timeEvent("v3", "2023-01-01", "2500", false), timeEvent("v4", "2024-01-01", "2500", false)] });
    for (const lineage of LINEAGES) {
      const mapped = await readsTheSameInEveryOrder({ units: [record] }, lineage);
      const events = mapped.transactions.filter((tx) => tx.object_type === "TX_VESTING_EVENT");
      const condition = mapped.vestingTerms[0]?.vesting_conditions.find((c) => c.description?.startsWith('Vesting event "v2"'));
      if (lineage === "documents") {
        expect(events).toEqual([]);
        expect(condition?.trigger).toEqual({ type: "VESTING_SCHEDULE_ABSOLUTE", date: DAY });
        expect(condition?.description).toContain("the security ends that day");
      } else {
        // The same-security lineage ends nothing that day: the milestone keeps its TX_VESTING_EVENT.
        expect(events.map((tx) => [tx.date, tx.security_id])).toEqual([[DAY, "rsu-8550"]]);
        expect(condition?.trigger).toEqual({ type: "VESTING_EVENT" });
      }
    }
  });

  it("a vesting that starts that day and vests on the ended security that day is a vestings list, with no TX_VESTING_START", async () => {
    // A milestone met on the vesting start, which is the cancellation day; the tranche still to come, not vested, is cancelled.
    const award = startingOnItsCancellation({ ...timeEvent("m1", "2019-01-10", "2000", true), performanceCondition: true }, "2000");
    const mapped = await readsTheSameInEveryOrder({ awards: [award] }, "documents");
    expect(mapped.transactions.filter((tx) => tx.object_type === "TX_VESTING_START" || tx.object_type === "TX_VESTING_EVENT")).toEqual([]);
    const issuance = txById(mapped, "rsa-1191-issuance");
    expect(issuance).toMatchObject({ vestings: [{ date: "2019-01-10", amount: "2000" }] });
    expect(issuance.comments).toContain(
      "Written as a vestings list, not VestingTerms: the vesting starts on 2019-01-10, the day this security ends, and OCF orders nothing within a day, so a TX_VESTING_START that day could be read after the end; every event vesting on it has a date.",
    );
    // The same-security lineage ends nothing that day: VestingTerms, started and met by transactions.
    const same = await readsTheSameInEveryOrder({ awards: [award] }, "same-security");
    expect(same.transactions.filter((tx) => tx.object_type === "TX_VESTING_START" || tx.object_type === "TX_VESTING_EVENT").map((tx) => tx.date)).toEqual(["2019-01-10", "2019-01-10"]);
  });

  it.each(LINEAGES)("a vesting start that day, of a grant cancelled in full, that vests nothing, is left out of the documents (%s)", async (lineage) => {
    // Nothing vested: every tranche comes after the start, which is the cancellation day.
    const award = startingOnItsCancellation({ ...timeEvent("e1", "2019-08-20", "2000", false), performanceCondition: true }, "4000");
    const mapped = await readsTheSameInEveryOrder({ awards: [award] }, lineage);
    const starts = mapped.transactions.filter((tx) => tx.object_type === "TX_VESTING_START").map((tx) => tx.date);
    expect(starts).toEqual(lineage === "documents" ? [] : ["2019-01-10"]);
  });
});
