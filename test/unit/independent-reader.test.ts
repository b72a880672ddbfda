/**
 * The independent reader (test/helpers/independent-reader.ts) reads a package under several orders
 * within a day (OCF 1.2.0 orders transactions by date only): what it must find under each.
 */
import { describe, expect, it } from "vitest";
import { DAY_ORDERS, dayOrderName, readPackage, type ReaderPackage } from "../helpers/independent-reader.js";

describe("the independent reader", () => {
  /** A unit of 100 issued on 2020-01-01, cancelled (60) and released (40) on 2021-01-01, both on its own security. */
  const released = async (): Promise<ReaderPackage> => ({
    manifest: {},
    stakeholders: [],
    vestingTerms: [],
    transactions: [
      { object_type: "TX_EQUITY_COMPENSATION_ISSUANCE", id: "i", date: "2020-01-01", security_id: "u", stakeholder_id: "s", quantity: "100" },
      { object_type: "TX_EQUITY_COMPENSATION_RELEASE", id: "r", date: "2021-01-01", security_id: "u", quantity: "40" },
      { object_type: "TX_EQUITY_COMPENSATION_CANCELLATION", id: "c", date: "2021-01-01", security_id: "u", quantity: "60" },
    ],
  });

  it("finds a release that acts on the security its day's cancellation ends, in the orders that put it after the cancellation", async () => {
    const pkg = await released();
    const problems = Object.fromEntries(DAY_ORDERS.map((order) => [dayOrderName(order), readPackage(pkg, "documents", undefined, order).problems]));
    expect(problems.file).toEqual([]);
    // OCF-Tools lists TX_EQUITY_COMPENSATION_CANCELLATION before TX_EQUITY_COMPENSATION_RELEASE.
    expect(problems["by-type"]).toEqual([
      "c: leaves 40 of u on no security (no balance_security_id)",
      "r: TX_EQUITY_COMPENSATION_RELEASE on u, which ended on 2021-01-01",
      "r: releases more than u holds",
    ]);
    expect(problems.reverse).toEqual(problems["by-type"]);
    // The same-security reading reads the same figures in every order.
    for (const order of DAY_ORDERS) expect(readPackage(pkg, "same-security", undefined, order).problems).toEqual([]);
  });

  it("takes a day's issuances first in every order, so nothing reads as acting before its issuance", async () => {
    const pkg = await released();
    pkg.transactions.push(
      { object_type: "TX_EQUITY_COMPENSATION_ACCEPTANCE", id: "a", date: "2022-01-01", security_id: "v" },
      { object_type: "TX_EQUITY_COMPENSATION_ISSUANCE", id: "j", date: "2022-01-01", security_id: "v", stakeholder_id: "s", quantity: "5" },
    );
    for (const order of DAY_ORDERS) expect(readPackage(pkg, "same-security", undefined, order).problems, dayOrderName(order)).toEqual([]);
  });
});
