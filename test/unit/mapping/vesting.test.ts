import { describe, expect, it } from "vitest";
import { mapAward } from "../../../src/mapping/award.js";
import { mapUnit } from "../../../src/mapping/unit.js";
import type { OcfStockIssuance, OcfVestingCondition } from "../../../src/ocf/schemas.js";
import type { RestrictedStockAward, VestingEvent } from "../../../src/source/records.js";
import { ISSUER_ID, baseAward, mappingErrorOf, termsAward, termsUnit, timeEvent, txById, txOfType } from "./fixtures.js";

const map = (award: RestrictedStockAward) => mapAward(award, { issuerId: ISSUER_ID });
const issuanceOf = (award: RestrictedStockAward) => txById(map(award), `rsa-${award.id}-issuance`) as OcfStockIssuance;
const noEnd = { canceledQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
/** baseAward with these events, not terminated and cancelling nothing (termination is tested below). */
const withEvents = (vestingEvents: VestingEvent[], extra: Partial<RestrictedStockAward> = {}): RestrictedStockAward => {
  const { canceledDate: _c, terminationDate: _t, ...award } = baseAward();
  return { ...award, ...noEnd, vestingEvents, ...extra };
};
const eventsLine = (issuance: OcfStockIssuance): string | undefined => issuance.comments?.find((c) => c.startsWith("Vesting events"));
const milestone = (id: string, vested: boolean, amount: string, vestDate?: string): VestingEvent => ({
  id,
  ...(vestDate === undefined ? {} : { vestDate }),
  performanceCondition: true,
  vested,
  targetQuantity: amount,
  maxQuantity: amount,
  ...(vested ? { vestedQuantity: amount } : {}),
});

describe("vesting: all events time-based and dated", () => {
  it("becomes the issuance's vestings, sorted by date then event id, without VestingTerms", () => {
    const events = [
      timeEvent("b", "2018-01-01", "1000", true),
      timeEvent("a", "2018-01-01", "500", true),
      timeEvent("c", "2017-01-01", "2500", true),
    ];
    const mapped = map(withEvents(events));
    const issuance = txById(mapped, "rsa-1191-issuance") as OcfStockIssuance;
    expect(issuance.vestings).toEqual([
      { date: "2017-01-01", amount: "2500" },
      { date: "2018-01-01", amount: "500" },
      { date: "2018-01-01", amount: "1000" },
    ]);
    expect(issuance).not.toHaveProperty("vesting_terms_id");
    expect(mapped.vestingTerms).toEqual([]);
    expect(txOfType(mapped, "TX_VESTING_START")).toEqual([]);
    expect(issuance.comments).toContain(
      'Vesting events in the order of vestings (time-based; other quantities equal to the tranche amount unless shown): "c" vested, "a" vested, "b" vested.',
    );
  });

  it("leaves zero tranches out, and names them in the comments", () => {
    const issuance = issuanceOf(withEvents([timeEvent("z", "2017-01-01", "0", false), timeEvent("x", "2018-01-01", "4000", false)], { vestedQuantity: "0" }));
    expect(issuance.vestings).toEqual([{ date: "2018-01-01", amount: "4000" }]);
    expect(eventsLine(issuance)).toContain('"z" not vested (amount 0, not in vestings)');
  });

  it("uses what vested for a vested tranche and the target for a pending one, and shows other quantities", () => {
    const vested = { ...timeEvent("v", "2017-01-01", "1000", true), vestedQuantity: "900", maxQuantity: "1200" };
    const pending = { ...timeEvent("p", "2018-01-01", "3000", false), quantity: "3100" };
    const mapped = map(withEvents([vested, pending], { vestedQuantity: "900" }));
    const issuance = txById(mapped, "rsa-1191-issuance") as OcfStockIssuance;
    expect(issuance.vestings).toEqual([
      { date: "2017-01-01", amount: "900" },
      { date: "2018-01-01", amount: "3000" },
    ]);
    expect(eventsLine(issuance)).toContain('"v" vested (targetQuantity 1000, maxQuantity 1200, quantity (deprecated) 1000), "p" not vested (quantity (deprecated) 3100)');
    expect(mapped.warnings.map((w) => w.code)).toEqual(["VESTING_EVENT_QUANTITY"]);
  });

  it("falls back to the deprecated quantity when there is no targetQuantity", () => {
    const { targetQuantity: _t, maxQuantity: _m, ...bare } = timeEvent("q", "2017-01-01", "4000", false);
    expect(issuanceOf(withEvents([bare], { vestedQuantity: "0" })).vestings).toEqual([{ date: "2017-01-01", amount: "4000" }]);
  });

  it("fails an event without any amount", () => {
    const error = mappingErrorOf(() => map(withEvents([{ id: "n", vestDate: "2017-01-01", performanceCondition: false, vested: false }])));
    expect(error.code).toBe("MAPPING_MISSING_VALUE");
    expect(error.path).toBe("vestingEvents[0].targetQuantity");
  });

  it("warns when the events do not add up to the grant or the vested events to vestedQuantity", () => {
    const mapped = map(withEvents([timeEvent("a", "2017-01-01", "1000", true)], { vestedQuantity: "999" }));
    expect(mapped.warnings.map((w) => w.code)).toEqual(["VESTING_SUM_MISMATCH", "VESTED_SUM_MISMATCH"]);
    expect(mapped.warnings[1]?.message).toContain("is 999, but the vested events' vestedQuantity add up to 1000");
  });
});

describe("vesting: no events", () => {
  it("emits no vesting keys, and warns when the grant is not fully vested", () => {
    const mapped = map(withEvents([], { vestedQuantity: "1000" }));
    const issuance = txById(mapped, "rsa-1191-issuance") as OcfStockIssuance;
    expect(issuance).not.toHaveProperty("vestings");
    expect(issuance).not.toHaveProperty("vesting_terms_id");
    expect(mapped.warnings.map((w) => w.code)).toEqual(["NO_VESTING_EVENTS_NOT_FULLY_VESTED"]);
    expect(map(withEvents([], { vestedQuantity: "4000" })).warnings).toEqual([]);
  });
});

describe("vesting: performance conditions or undated events", () => {
  const mapped = map(termsAward());
  const terms = mapped.vestingTerms[0];
  const conditions = terms?.vesting_conditions ?? [];
  const byId = (id: string): OcfVestingCondition | undefined => conditions.find((c) => c.id === id);

  it("builds one VestingTerms for the grant, referenced by the issuance, with no vestings list", () => {
    expect(mapped.vestingTerms).toHaveLength(1);
    expect(terms).toMatchObject({
      object_type: "VESTING_TERMS",
      id: "vesting-terms-rsa-2209",
      name: "Milestones and a tranche (RSA-3)",
      allocation_type: "FRACTIONAL",
    });
    expect(terms?.description).toContain('restricted stock award "2209" (RSA-3)');
    expect(terms?.description).toContain('Vesting schedule "Milestones and a tranche": start 2016-08-20, end 2019-08-20, last modified 2018-02-01.');
    expect(terms?.description).toContain("Vesting start date: 2016-08-20.");
    const issuance = txById(mapped, "rsa-2209-issuance") as OcfStockIssuance;
    expect(issuance.vesting_terms_id).toBe("vesting-terms-rsa-2209");
    expect(issuance).not.toHaveProperty("vestings");
  });

  it("chains all events after the start: dated conditions by date, then the pending milestones", () => {
    expect(conditions.map((c) => [c.id, c.next_condition_ids])).toEqual([
      ["vesting-start", ["event-t1"]],
      ["event-t1", ["event-m1"]],
      ["event-m1", ["event-t2"]],
      ["event-t2", ["event-m2"]],
      ["event-m2", []],
    ]);
    expect(byId("vesting-start")).toMatchObject({ quantity: "0", trigger: { type: "VESTING_START_DATE" } });
  });

  it("triggers time-based tranches on their date and milestones on an event", () => {
    expect(byId("event-t1")?.trigger).toEqual({ type: "VESTING_SCHEDULE_ABSOLUTE", date: "2017-08-20" });
    expect(byId("event-t2")?.trigger).toEqual({ type: "VESTING_SCHEDULE_ABSOLUTE", date: "2019-08-20" });
    expect(byId("event-m1")?.trigger).toEqual({ type: "VESTING_EVENT" });
    expect(byId("event-m2")?.trigger).toEqual({ type: "VESTING_EVENT" });
  });

  it("vests what vested, else the target; keeps maximum and deprecated quantity in the description", () => {
    expect(conditions.map((c) => [c.id, c.quantity])).toEqual([
      ["vesting-start", "0"],
      ["event-t1", "1000"],
      ["event-m1", "1500"],
      ["event-t2", "500"],
      ["event-m2", "1000"],
    ]);
    expect(byId("event-m2")?.description).toBe('Vesting event "m2": performance condition, not vested; targetQuantity 1000, maxQuantity 1500, quantity (deprecated) 1500.');
    expect(byId("event-m1")?.description).toBe(
      'Vesting event "m1": performance condition, vested on 2018-02-01; vestedQuantity 1500, targetQuantity 1500, maxQuantity 2000, quantity (deprecated) 1500.',
    );
  });

  it("starts vesting on vestingStartDate and records each milestone met", () => {
    expect(txOfType(mapped, "TX_VESTING_START")).toEqual([
      { object_type: "TX_VESTING_START", id: "rsa-2209-vesting-start", date: "2016-08-20", security_id: "rsa-2209", vesting_condition_id: "vesting-start" },
    ]);
    expect(txOfType(mapped, "TX_VESTING_EVENT")).toEqual([
      { object_type: "TX_VESTING_EVENT", id: "rsa-2209-vesting-event-m1", date: "2018-02-01", security_id: "rsa-2209", vesting_condition_id: "event-m1" },
    ]);
  });

  it("starts vesting on the issue date when there is no vestingStartDate", () => {
    const { vestingStartDate: _, ...award } = termsAward();
    expect(txOfType(map(award), "TX_VESTING_START")[0]?.date).toBe("2016-08-25");
  });

  it("treats a unit's events the same way", () => {
    const unit = mapUnit(termsUnit(), { issuerId: ISSUER_ID });
    expect(unit.vestingTerms[0]?.vesting_conditions.map((c) => c.id)).toEqual(["vesting-start", "event-v1", "event-v2", "event-v3", "event-v4"]);
    expect(txOfType(unit, "TX_VESTING_EVENT").map((tx) => [tx.id, tx.date])).toEqual([["rsu-8551-vesting-event-v1", "2016-06-01"]]);
  });

  it("puts an undated time-based event on an event trigger", () => {
    const { vestDate: _, ...undated } = timeEvent("u", "2019-01-01", "3000", false);
    const award = withEvents([timeEvent("a", "2017-01-01", "1000", true), undated], { vestedQuantity: "1000" });
    const mappedUndated = map(award);
    expect(mappedUndated.vestingTerms[0]?.vesting_conditions.map((c) => [c.id, c.trigger.type])).toEqual([
      ["vesting-start", "VESTING_START_DATE"],
      ["event-a", "VESTING_SCHEDULE_ABSOLUTE"],
      ["event-u", "VESTING_EVENT"],
    ]);
    expect(txOfType(mappedUndated, "TX_VESTING_EVENT")).toEqual([]);
  });

  it("fails a vested milestone without a date", () => {
    const error = mappingErrorOf(() => map(withEvents([milestone("m", true, "4000")], { vestedQuantity: "4000" })));
    expect(error.code).toBe("MAPPING_MISSING_VALUE");
    expect(error.path).toBe("vestingEvents[0].vestDate");
  });

  it("fails two events with the same id", () => {
    const error = mappingErrorOf(() => map(withEvents([milestone("m", false, "2000"), milestone("m", false, "2000")], { vestedQuantity: "0" })));
    expect(error.code).toBe("MAPPING_CONFLICT");
  });

  it("names an event without an id by its position in the sorted events", () => {
    const { id: _, ...anonymous } = milestone("x", true, "1000", "2017-05-01");
    const mappedAnonymous = map(withEvents([anonymous, milestone("m", false, "3000")], { vestedQuantity: "1000" }));
    expect(mappedAnonymous.vestingTerms[0]?.vesting_conditions.map((c) => c.id)).toEqual(["vesting-start", "event-index-2", "event-m"]);
    expect(txOfType(mappedAnonymous, "TX_VESTING_EVENT")[0]?.id).toBe("rsa-1191-vesting-event-index-2");
  });
});

describe("vesting as earned: a terminated grant", () => {
  const terminated = (vestingEvents: VestingEvent[], extra: Partial<RestrictedStockAward> = {}): RestrictedStockAward => ({
    ...baseAward(),
    ...noEnd,
    terminationDate: "2018-06-30",
    canceledDate: "2018-07-01",
    vestingEvents,
    ...extra,
  });

  it("leaves out what the source says did not vest and falls after the termination, and names it", () => {
    const events = [timeEvent("a", "2017-01-01", "1000", true), timeEvent("b", "2018-06-30", "1000", false), timeEvent("c", "2019-01-01", "2000", false)];
    const issuance = issuanceOf(terminated(events, { vestedQuantity: "1000" }));
    // "b" falls on the termination day itself: still earnable, so it stays.
    expect(issuance.vestings).toEqual([
      { date: "2017-01-01", amount: "1000" },
      { date: "2018-06-30", amount: "1000" },
    ]);
    expect(issuance.comments).toContain('Not vested and after the termination on 2018-06-30, so never earned and left out of the vesting: "c" 2019-01-01 2000.');
  });

  it("keeps what vested after the termination (the source says it vested)", () => {
    const events = [timeEvent("a", "2017-01-01", "1000", true), timeEvent("late", "2019-01-01", "3000", true)];
    expect(issuanceOf(terminated(events, { vestedQuantity: "4000" })).vestings).toEqual([
      { date: "2017-01-01", amount: "1000" },
      { date: "2019-01-01", amount: "3000" },
    ]);
  });

  it("drops a pending milestone of a terminated grant from the VestingTerms chain", () => {
    const mapped = map(terminated([timeEvent("a", "2017-01-01", "1000", true), milestone("m", false, "3000")], { vestedQuantity: "1000" }));
    expect(mapped.vestingTerms).toEqual([]);
    expect(issuanceOf(terminated([timeEvent("a", "2017-01-01", "1000", true), milestone("m", false, "3000")], { vestedQuantity: "1000" })).vestings).toEqual([
      { date: "2017-01-01", amount: "1000" },
    ]);
  });

  it("never reads a grant whose every event was left out as fully vested: its only condition vests nothing", () => {
    const mapped = map(terminated([timeEvent("x", "2019-01-01", "4000", false)], { vestedQuantity: "0" }));
    const issuance = txById(mapped, "rsa-1191-issuance") as OcfStockIssuance;
    expect(issuance).not.toHaveProperty("vestings");
    expect(issuance.vesting_terms_id).toBe("vesting-terms-rsa-1191");
    expect(mapped.vestingTerms[0]?.vesting_conditions).toEqual([
      { id: "vesting-start", description: expect.any(String) as string, quantity: "0", trigger: { type: "VESTING_START_DATE" }, next_condition_ids: [] },
    ]);
    expect(txOfType(mapped, "TX_VESTING_START")).toHaveLength(1);
  });
});
