/**
 * Packages other tools write, read by reconcile as validate reads them: transactions of one day in any
 * file order, legacy spellings, the transaction kinds ocf-sync never writes. Each package is built
 * here from the validate fixture (no third-party material needed).
 */
import { describe, expect, it } from "vitest";
import { fixtureBytes, itemOf, loadFiles, validFixture, type PackageFixture } from "../../helpers/ocf-package-fixture.js";
import { reconcileOcfWithOcf } from "../../../src/reconcile/ocf-vs-ocf.js";
import { packageObjects, type PackageObjects } from "../../../src/reconcile/package-objects.js";
import { replayPackage } from "../../../src/reconcile/replay.js";
import { reconciliationCsv } from "../../../src/reconcile/render.js";
import { allocate, relativeDates } from "../../../src/reconcile/vesting-terms.js";
import { Dec } from "../../../src/decimal.js";

type Json = Record<string, unknown>;

function transactionsOf(fixture: PackageFixture): Json[] {
  const file = fixture.files.find((f) => f.fileType === "OCF_TRANSACTIONS_FILE");
  if (file === undefined) throw new Error("no transactions file");
  return file.items;
}

async function objectsOf(fixture: PackageFixture): Promise<PackageObjects> {
  return packageObjects(await loadFiles(fixtureBytes(fixture)));
}

/** The fixture with the RSU's cancellation on the day of its release, listed before it (another tool's order). */
function sameDayFixture(cancellationFirst: boolean): PackageFixture {
  const fixture = validFixture();
  const items = transactionsOf(fixture);
  const cancellation = itemOf(fixture, "rsu-8550-cancellation");
  cancellation.date = "2016-06-01";
  itemOf(fixture, "rsu-8550-return").date = "2016-06-01";
  if (cancellationFirst) {
    items.splice(items.indexOf(cancellation), 1);
    items.splice(items.indexOf(itemOf(fixture, "rsu-8550-release-1")), 0, cancellation);
  }
  return fixture;
}

describe("reconcile reads other tools' packages as validate does", () => {
  it("takes a day's transactions by kind (release before cancellation), whatever the file order", async () => {
    const ours = await objectsOf(sameDayFixture(false));
    const theirs = await objectsOf(sameDayFixture(true));
    const replayed = replayPackage(theirs, "documents");
    expect(replayed.problems).toEqual([]);
    const rsu = replayed.securities.get("rsu-8550");
    expect(rsu?.figures).toMatchObject({ released: "375", canceled: "1125", outstanding: "0" });
    expect(reconcileOcfWithOcf(ours, theirs).differences).toEqual([]);
  });

  it("same-security reading: a named balance security takes what is left, so no share counts twice", async () => {
    const objects = await objectsOf(validFixture());
    const documents = replayPackage(objects, "documents");
    const sameSecurity = replayPackage(objects, "same-security");
    expect(sameSecurity.holdings).toEqual(documents.holdings);
    expect(sameSecurity.holdings.get("sh-6113")).toEqual({ shares: "5000", units: "0" });
    expect([...sameSecurity.securities.keys()]).toEqual([...documents.securities.keys()]);
    expect(sameSecurity.securities.get("rsa-77")?.chain).toEqual(["rsa-77", "rsa-77-b"]);
  });

  it("reads the legacy TX_PLAN_SECURITY_EXERCISE as an exercise: it ends the option and takes its quantity", async () => {
    const fixture = validFixture();
    transactionsOf(fixture).push(
      {
        object_type: "TX_PLAN_SECURITY_ISSUANCE",
        id: "opt-1-issuance",
        security_id: "opt-1",
        date: "2017-01-02",
        custom_id: "OPT-1",
        stakeholder_id: "sh-7001",
        stock_plan_id: "plan-2015",
        compensation_type: "OPTION",
        option_grant_type: "ISO",
        quantity: "1000",
        exercise_price: { amount: "0.10", currency: "USD" },
        expiration_date: "2027-01-01",
        termination_exercise_windows: [],
        security_law_exemptions: [],
      },
      {
        object_type: "TX_PLAN_SECURITY_EXERCISE",
        id: "opt-1-exercise",
        security_id: "opt-1",
        date: "2018-01-02",
        quantity: "400",
        resulting_security_ids: ["opt-1-shares"],
      },
    );
    const replayed = replayPackage(await objectsOf(fixture), "documents");
    expect(replayed.securities.get("opt-1")?.figures.outstanding).toBe("0");
    expect(replayed.problems).toEqual(["opt-1-exercise: leaves 600 of opt-1 on no security (it names no balance_security_id)"]);
    const sameSecurity = replayPackage(await objectsOf(fixture), "same-security");
    expect(sameSecurity.securities.get("opt-1")?.figures.outstanding).toBe("600");
  });

  it("takes a stock conversion's quantity_converted", async () => {
    const fixture = validFixture();
    const issuance = itemOf(fixture, "rsa-77-issuance");
    transactionsOf(fixture).push(
      { ...issuance, id: "pref-issuance", security_id: "pref-1", custom_id: "PS-1", quantity: "1000", vestings: undefined, date: "2017-01-02" },
      { ...issuance, id: "pref-balance-issuance", security_id: "pref-1-b", custom_id: "PS-1-B", quantity: "600", vestings: undefined, date: "2018-01-02" },
      { ...issuance, id: "common-issuance", security_id: "common-1", custom_id: "CS-99", quantity: "400", vestings: undefined, date: "2018-01-02" },
      {
        object_type: "TX_STOCK_CONVERSION",
        id: "pref-conversion",
        security_id: "pref-1",
        date: "2018-01-02",
        quantity_converted: "400",
        resulting_security_ids: ["common-1"],
        balance_security_id: "pref-1-b",
      },
    );
    const documents = replayPackage(await objectsOf(fixture), "documents");
    expect(documents.problems).toEqual([]);
    expect(documents.securities.get("pref-1")?.figures.outstanding).toBe("600");
    const sameSecurity = replayPackage(await objectsOf(fixture), "same-security");
    expect(sameSecurity.securities.get("pref-1")?.figures.outstanding).toBe("600");
  });

  it("says which transactions it does not model (a split, an acceleration, an unknown kind) instead of passing over them", async () => {
    const fixture = validFixture();
    transactionsOf(fixture).push(
      { object_type: "TX_STOCK_CLASS_SPLIT", id: "split-1", date: "2017-01-02", stock_class_id: "class-common", split_ratio: { numerator: "2", denominator: "1" } },
      { object_type: "TX_VESTING_ACCELERATION", id: "acc-1", security_id: "rsa-77", date: "2015-07-01", quantity: "1000", reason_text: "change of control" },
      { object_type: "TX_STOCK_PLAN_POOL_ADJUSTMENT", id: "pool-1", date: "2017-01-02", stock_plan_id: "plan-2015", shares_reserved: "9000000" },
      { object_type: "TX_SOMETHING_NEW", id: "new-1", date: "2017-01-02" },
    );
    const report = reconcileOcfWithOcf(await objectsOf(fixture), await objectsOf(fixture));
    const unmodelled = report.notes.filter((n) => n.includes("does not model"));
    expect(unmodelled).toEqual([
      '1 TX_VESTING_ACCELERATION transaction(s) ("acc-1"): reconcile does not model this kind and computes the vested figures of its security (OCF does not say which tranches it pulls forward, OCF #538) without it',
      '1 TX_STOCK_CLASS_SPLIT transaction(s) ("split-1"): reconcile does not model this kind and computes the share counts of its stock class without it',
      '1 TX_SOMETHING_NEW transaction(s) ("new-1"): reconcile does not model this kind and computes every figure it would change without it',
      'other package: 1 TX_VESTING_ACCELERATION transaction(s) ("acc-1"): reconcile does not model this kind and computes the vested figures of its security (OCF does not say which tranches it pulls forward, OCF #538) without it',
      'other package: 1 TX_STOCK_CLASS_SPLIT transaction(s) ("split-1"): reconcile does not model this kind and computes the share counts of its stock class without it',
      'other package: 1 TX_SOMETHING_NEW transaction(s) ("new-1"): reconcile does not model this kind and computes every figure it would change without it',
    ]);
    // A spreadsheet user sees them too: a row of section note each.
    const csvNotes = reconciliationCsv([report]).split("\r\n").filter((row) => row.split(",")[1] === '"note"');
    expect(csvNotes).toHaveLength(report.notes.length);
    expect(csvNotes[0]).toContain('"1 TX_VESTING_ACCELERATION transaction(s) (""acc-1""): reconcile does not model this kind');
  });

  it("replays VestingTerms with relative triggers: calendar months from the vesting start, day_of_month, cumulative rounding", async () => {
    const fixture = validFixture();
    transactionsOf(fixture).push(
      { ...itemOf(fixture, "rsu-8550-issuance"), id: "rsu-9-issuance", security_id: "rsu-9", custom_id: "ES-9", date: "2021-01-30", quantity: "1000", vesting_terms_id: "4yr-1yr-cliff" },
      { object_type: "TX_VESTING_START", id: "rsu-9-start", security_id: "rsu-9", date: "2021-01-30", vesting_condition_id: "start" },
    );
    const replayed = replayPackage(await objectsOf(fixture), "documents");
    expect(replayed.notes.filter((n) => n.includes("rsu-9"))).toEqual([]);
    const tranches = replayed.securities.get("rsu-9")?.tranches ?? [];
    // ocf-1.2.0.md §8: a start on 2021-01-30 puts the cliff on 2022-01-30, then 2022-02-28, 2022-03-30, …
    expect(tranches.slice(0, 4)).toEqual([
      { date: "2022-01-30", amount: "250" },
      { date: "2022-02-28", amount: "21" }, // 270.83 rounds to 271
      { date: "2022-03-30", amount: "21" }, // 291.67 to 292
      { date: "2022-04-30", amount: "21" }, // 312.5 to 313 (half up, though 1000/48 is no finite decimal)
    ]);
    expect(tranches).toHaveLength(37);
    expect(tranches.at(-1)).toEqual({ date: "2025-01-30", amount: "21" });
    expect(tranches.reduce((sum, t) => sum + Number(t.amount), 0)).toBe(1000);
    expect(tranches.every((t) => /^[0-9]+$/.test(t.amount))).toBe(true);
  });

  it("says so when a grant on vesting terms has no vesting start (it counts nothing as vested)", async () => {
    const fixture = validFixture();
    transactionsOf(fixture).push({ ...itemOf(fixture, "rsu-8550-issuance"), id: "rsu-9-issuance", security_id: "rsu-9", custom_id: "ES-9", vesting_terms_id: "4yr-1yr-cliff" });
    const replayed = replayPackage(await objectsOf(fixture), "documents");
    expect(replayed.securities.get("rsu-9")?.tranches).toEqual([]);
    expect(replayed.notes.filter((n) => n.includes("rsu-9"))).toEqual([
      'security "rsu-9": no TX_VESTING_START names a VESTING_START_DATE condition of its vesting terms "4yr-1yr-cliff", so its vesting never starts; nothing of it is counted as vested',
    ]);
  });

  it("rounds portions as each allocation type says (OCF's example: 18 shares in 4 tranches)", () => {
    const tranches = ["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01"].map((date) => ({ date, amount: new Dec("4.5"), portion: true }));
    const amounts = (type: string) => allocate(tranches, type).map((t) => t.amount.toString());
    expect(amounts("CUMULATIVE_ROUNDING")).toEqual(["5", "4", "5", "4"]);
    expect(amounts("CUMULATIVE_ROUND_DOWN")).toEqual(["4", "5", "4", "5"]);
    expect(amounts("FRONT_LOADED")).toEqual(["5", "5", "4", "4"]);
    expect(amounts("BACK_LOADED")).toEqual(["4", "4", "5", "5"]);
    expect(amounts("FRONT_LOADED_TO_SINGLE_TRANCHE")).toEqual(["6", "4", "4", "4"]);
    expect(amounts("BACK_LOADED_TO_SINGLE_TRANCHE")).toEqual(["4", "4", "4", "6"]);
    expect(amounts("FRACTIONAL")).toEqual(["4.5", "4.5", "4.5", "4.5"]);
  });

  it("relative periods in days and fixed days of the month, across year ends and leap days", () => {
    expect(relativeDates({ length: 1, type: "DAYS", occurrences: 3 }, "2023-12-30", "2023-12-30")).toEqual(["2023-12-31", "2024-01-01", "2024-01-02"]);
    expect(relativeDates({ length: 365, type: "DAYS", occurrences: 1 }, "2024-01-01", "2024-01-01")).toEqual(["2024-12-31"]);
    expect(relativeDates({ length: 1, type: "MONTHS", occurrences: 3, day_of_month: "31_OR_LAST_DAY_OF_MONTH" }, "2023-12-15", "2023-12-15")).toEqual(["2024-01-31", "2024-02-29", "2024-03-31"]);
    expect(relativeDates({ length: 12, type: "MONTHS", occurrences: 2, day_of_month: "01" }, "2024-02-29", "2024-02-29")).toEqual(["2025-02-01", "2026-02-01"]);
    expect(relativeDates({ length: 1, type: "YEARS", occurrences: 1 }, "2024-01-01", "2024-01-01")).toBeUndefined();
  });
});
