/**
 * Properties of the mapping over arbitrary valid awards and units (zero quantities, 20-digit
 * quantities, 10 decimal places, no vesting, all events vested, milestones without dates, several
 * settlements, and source counters that do or do not add up): the output is valid OCF, deterministic,
 * exact, and carries the source's totals; where the source breaks its own invariants, a warning names
 * the record and the numbers are mapped as sent. The generated records always fit one security chain
 * (dates on or after the issue date, room in the grant for every release, cancellation and tranche),
 * so every record maps; the chains themselves are checked against an independent reader in
 * consumer-true.property.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Dec, formatDecimal, sumDecimals, type DecimalString } from "../../src/decimal.js";
import { isMappingError, type MappingWarningCode } from "../../src/mapping/errors.js";
import { mapIssuer } from "../../src/mapping/map-issuer.js";
import type { MappedIssuer } from "../../src/mapping/types.js";
import type { TransactionOfType } from "../unit/mapping/fixtures.js";
import { buildPackageFiles } from "../../src/ocf/package-files.js";
import { OCF_NUMERIC_PATTERN, type OcfTransaction } from "../../src/ocf/schemas.js";
import type { RestrictedStockAward, RestrictedStockUnit, Settlement, VestingEvent } from "../../src/source/records.js";
import { describeConformance } from "../helpers/conformance.js";
import { expectOcfSyncValidObjects, mappedObjects } from "../helpers/ocf-verdicts.js";
import { expectOfficiallyValidObjects } from "../helpers/official-ocf.js";

const ISSUER = "prop-issuer";
const RUNS = { numRuns: 120 };

// ---------------------------------------------------------------------------------------------
// Generators

const digitString = (min: number, max: number) =>
  fc.array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max }).map((d) => d.join(""));

/** A non-negative decimal with 1 to 19 integer digits and 0 to 10 fractional digits, normalized; zero often. */
const decimal: fc.Arbitrary<DecimalString> = fc.oneof(
  { weight: 1, arbitrary: fc.constant("0") },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 100_000 }).map(String) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(digitString(1, 19), fc.option(digitString(1, 10), { nil: undefined }))
      .map(([whole, fraction]) => formatDecimal(new Dec(fraction === undefined ? whole : `${whole}.${fraction}`))),
  },
);

const date = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2035-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const name = fc.constantFrom("Common", "Common Stock", "Class B", "Série A ünïcode");
const planName = fc.constantFrom("2016 Plan", "2019 Equity Incentive Plan", "Plan/EU");
const sourceId = fc.stringMatching(/^[A-Za-z0-9%/ -]{1,10}$/);
const sum = (values: readonly (DecimalString | undefined)[]): DecimalString => formatDecimal(sumDecimals(values.map((v) => v ?? "0")));

interface EventSpec {
  performance: boolean;
  vested: boolean;
  dated: boolean;
  date: string;
  target: DecimalString;
  payout: DecimalString | undefined;
  max: DecimalString | undefined;
  noId: boolean;
}

const eventSpec: fc.Arbitrary<EventSpec> = fc.record({
  performance: fc.boolean(),
  vested: fc.boolean(),
  dated: fc.boolean(),
  date,
  target: decimal,
  payout: fc.option(decimal, { nil: undefined }),
  max: fc.option(decimal, { nil: undefined }),
  noId: fc.boolean(),
});

/** The later of two dates. */
const atOrAfter = (floor: string, date: string): string => (date < floor ? floor : date);

/**
 * Valid events: a vested event always has a date (a vested milestone without one is a mapping error),
 * and a met milestone is not dated before the grant (its TX_VESTING_EVENT could not be).
 */
function buildEvents(specs: readonly EventSpec[], issueDate: string): VestingEvent[] {
  return specs.map((s, index): VestingEvent => {
    const dated = s.vested || (s.performance ? s.dated : s.dated || index % 3 !== 0);
    const vestDate = s.vested && s.performance ? atOrAfter(issueDate, s.date) : s.date;
    const vestedQuantity = s.vested ? (s.performance && s.payout !== undefined ? s.payout : s.target) : undefined;
    return {
      ...(s.noId && index === 0 ? {} : { id: `ev-${index}` }),
      ...(dated ? { vestDate } : {}),
      quantity: s.vested || !s.performance ? s.target : (s.max ?? s.target),
      performanceCondition: s.performance,
      vested: s.vested,
      maxQuantity: s.performance ? (s.max ?? s.target) : s.target,
      targetQuantity: s.target,
      ...(vestedQuantity === undefined ? {} : { vestedQuantity }),
    };
  });
}

const grantCommon = fc.record({
  id: sourceId,
  stakeholderId: fc.constantFrom("sh-1", "sh-2", "sh 3"),
  plan: fc.option(planName, { nil: undefined }),
  issueDate: date,
  vestingStartDate: fc.option(date, { nil: undefined }),
  boardApprovalDate: fc.option(date, { nil: undefined }),
  acceptance: fc.option(date, { nil: undefined }),
  label: fc.option(fc.constantFrom("RSA-1", "ES-136", "CS-9"), { nil: undefined }),
  events: fc.array(eventSpec, { maxLength: 6 }),
  /** Whether the source's totals add up (quantity, vestedQuantity, cancellation breakdowns). */
  consistent: fc.boolean(),
  stray: decimal,
  canceledDate: fc.option(date, { nil: undefined }),
  terminationDate: fc.option(date, { nil: undefined }),
  pool: decimal,
  treasury: decimal,
});

type Common = typeof grantCommon extends fc.Arbitrary<infer T> ? T : never;

/**
 * The record fields every grant has. `room` is what the grant's releases and cancellation take: the
 * quantity leaves room for them beside every tranche, so that whatever the order of the dates, the
 * chain fits (the plan then adds up to the quantity only when nothing is released or cancelled).
 */
function commonFields(c: Common, events: VestingEvent[], room: DecimalString) {
  const planTotal = sum(events.map((e) => e.targetQuantity));
  const vestingTotal = sum(events.map(amountOf));
  const vestedTotal = sum(events.filter((e) => e.vested).map((e) => e.vestedQuantity));
  const base = new Dec(vestingTotal).gt(planTotal) ? vestingTotal : planTotal;
  const quantity = sum([base, room, c.consistent ? "0" : c.stray === "0" ? "1" : c.stray]);
  function later(date: string): string;
  function later(date: string | undefined): string | undefined;
  function later(date: string | undefined): string | undefined {
    return date === undefined ? undefined : atOrAfter(c.issueDate, date);
  }
  // The cancellation comes after the acceptance, the vesting start and every milestone met: a grant
  // cancelled in full could take none of them later (chains with later transactions are generated by
  // test/helpers/issuer-story.ts).
  const after = [c.acceptance, c.vestingStartDate, ...events.filter((e) => e.vested && e.performanceCondition).map((e) => e.vestDate)];
  const canceledDate = after.reduce<string>((latest, d) => (d !== undefined && d > latest ? d : latest), later(c.canceledDate) ?? later(c.terminationDate) ?? c.issueDate);
  return {
    id: c.id,
    issuerId: ISSUER,
    stakeholderId: c.stakeholderId,
    ...(c.plan === undefined ? {} : { equityIncentivePlanName: c.plan }),
    issueDate: c.issueDate,
    ...(c.vestingStartDate === undefined ? {} : { vestingStartDate: c.vestingStartDate }),
    ...(c.boardApprovalDate === undefined ? {} : { boardApprovalDate: c.boardApprovalDate }),
    ...(c.acceptance === undefined ? {} : { stakeholderAcceptanceDate: later(c.acceptance) }),
    canceledDate,
    ...(c.terminationDate === undefined ? {} : { terminationDate: later(c.terminationDate) }),
    quantity,
    vestedQuantity: c.consistent ? vestedTotal : sum([vestedTotal, c.stray]),
    ...(c.label === undefined ? {} : { securityLabel: c.label }),
    vestingEvents: events,
  };
}

const award: fc.Arbitrary<RestrictedStockAward> = fc
  .record({ common: grantCommon, className: name, price: decimal, currency: fc.constantFrom("USD", "EUR", "JPY") })
  .map(({ common, className, price, currency }) => {
    const events = buildEvents(common.events, common.issueDate);
    // The pool never gets more than is cancelled (that could not be written); an inconsistent record
    // cancels more than pool + treasury.
    const canceled = common.consistent ? sum([common.pool, common.treasury]) : sum([common.pool, common.treasury, common.stray]);
    const fields = commonFields(common, events, canceled);
    return {
      ...fields,
      shareClassName: className,
      pricePerShare: { currency, amount: price },
      canceledQuantity: canceled,
      returnedToPoolQuantity: common.pool,
      returnedToTreasuryQuantity: common.treasury,
    };
  });

const settlementSpec = fc.record({
  date,
  net: decimal,
  withheld: fc.option(decimal, { nil: undefined }),
  sold: fc.option(decimal, { nil: undefined }),
  partsAddUp: fc.boolean(),
  stray: decimal,
  price: fc.option(decimal, { nil: undefined }),
  certificateId: fc.option(fc.constantFrom("78", "c-1", "c-2"), { nil: undefined }),
  certificateLabel: fc.option(fc.constantFrom("CS-1", "CS-124"), { nil: undefined }),
});

function buildSettlement(spec: typeof settlementSpec extends fc.Arbitrary<infer T> ? T : never, issueDate: string): Settlement {
  // A settlement releases something: one of nothing after a grant ended would act on an ended security.
  const s = sum([spec.net, spec.withheld, spec.sold]) === "0" ? { ...spec, net: "1" } : spec;
  const parts = sum([s.net, s.withheld, s.sold]);
  return {
    settlementDate: atOrAfter(issueDate, s.date),
    releaseQuantity: s.partsAddUp ? parts : sum([parts, s.stray === "0" ? "1" : s.stray]),
    ...(s.sold === undefined ? {} : { saleQuantity: s.sold }),
    ...(s.withheld === undefined ? {} : { withholdingQuantity: s.withheld }),
    netSettlementQuantity: s.net,
    ...(s.price === undefined ? {} : { settlementPrice: { currency: "USD", amount: s.price } }),
    ...(s.certificateId === undefined ? {} : { certificateId: s.certificateId }),
    ...(s.certificateLabel === undefined ? {} : { certificateLabel: s.certificateLabel }),
  };
}

const unit: fc.Arbitrary<RestrictedStockUnit> = fc
  .record({
    common: grantCommon,
    settlements: fc.array(settlementSpec, { maxLength: 4 }),
    forfeited: decimal,
    expired: decimal,
    releasePrice: decimal,
  })
  .map(({ common, settlements: specs, forfeited, expired, releasePrice }) => {
    const events = buildEvents(common.events, common.issueDate);
    const settlements = specs.map((spec) => buildSettlement(spec, common.issueDate));
    const released = sum(settlements.map((s) => s.releaseQuantity));
    const net = sum(settlements.map((s) => s.netSettlementQuantity));
    const canceled = common.consistent ? sum([forfeited, expired]) : common.stray;
    // What the one cancellation takes: the canceled total, else forfeited + expired.
    const cancels = new Dec(canceled).gt(0) ? canceled : sum([forfeited, expired]);
    const fields = commonFields(common, events, sum([released, cancels]));
    const pool = new Dec(common.pool).gt(cancels) ? cancels : common.pool;
    return {
      ...fields,
      releasedQuantity: common.consistent ? released : sum([released, common.stray]),
      releasePricePerShare: { currency: "USD", amount: releasePrice },
      netSettledQuantity: common.consistent ? net : sum([net, common.stray]),
      settlements,
      canceledQuantity: canceled,
      forfeitedQuantity: forfeited,
      expiredQuantity: expired,
      returnedToPoolQuantity: pool,
      returnedToTreasuryQuantity: common.treasury,
    };
  });

/** Distinct ids, as the service guarantees within an issuer. */
const records = fc
  .record({ awards: fc.array(award, { maxLength: 3 }), units: fc.array(unit, { maxLength: 3 }) })
  .map(({ awards, units }) => ({
    awards: awards.map((a, i) => ({ ...a, id: `${a.id}#${i}` })),
    units: units.map((u, i) => ({ ...u, id: `${u.id}#${i}` })),
  }));

const mapAll = (r: { awards: RestrictedStockAward[]; units: RestrictedStockUnit[] }): MappedIssuer =>
  mapIssuer({ issuerId: ISSUER, awards: r.awards, units: r.units }, { asOf: "2030-01-01", settlementStockClassName: "Common" });

// ---------------------------------------------------------------------------------------------
// Helpers

/** Every award and unit with its OCF security id. */
const grantsOf = (r: { awards: RestrictedStockAward[]; units: RestrictedStockUnit[] }) => [
  ...r.awards.map((g) => ({ g: g as RestrictedStockAward | RestrictedStockUnit, security: `rsa-${g.id}` })),
  ...r.units.map((g) => ({ g: g as RestrictedStockAward | RestrictedStockUnit, security: `rsu-${g.id}` })),
];

/** The transactions of a grant's chain: its own security and its balance security. */
const txOf = (mapped: MappedIssuer, security: string) => mapped.transactions.filter((tx) => tx.security_id === security || tx.security_id === `${security}-balance`);
/** The events a terminated holder can still earn (the mapping leaves the others out). */
const earned = (g: RestrictedStockAward | RestrictedStockUnit): VestingEvent[] =>
  g.vestingEvents.filter((e) => e.vested || g.terminationDate === undefined || (e.vestDate !== undefined && e.vestDate <= g.terminationDate));
/** The holder's OCF stakeholder id. */
const holderOf = (g: RestrictedStockAward | RestrictedStockUnit) => `stakeholder-${g.stakeholderId ?? ""}`;
const ofType = <T extends OcfTransaction["object_type"]>(txs: readonly OcfTransaction[], type: T) =>
  txs.filter((tx): tx is TransactionOfType<T> => tx.object_type === type);
const equal = (a: Dec | string, b: Dec | string): boolean => new Dec(a).equals(new Dec(b));
/** A warning of this code about this grant (awards and units may share an id, so the kind counts). */
const warned = (mapped: MappedIssuer, security: string, code: MappingWarningCode): boolean =>
  mapped.warnings.some(
    (w) => w.code === code && w.record !== undefined && `${w.record.kind === "restrictedStockAward" ? "rsa" : "rsu"}-${w.record.recordId}` === security,
  );

/** What the mapping vests for one event: what vested once vested, else the plan. */
const amountOf = (e: VestingEvent): DecimalString => (e.vested ? e.vestedQuantity : undefined) ?? e.targetQuantity ?? e.quantity ?? "0";

/**
 * The total the OCF output vests for a grant: its security's vestings (or its conditions' quantities),
 * plus its balance security's, less what the balance carries over on its issue date.
 */
function emittedVesting(mapped: MappedIssuer, security: string): Dec {
  let total = new Dec(0);
  for (const id of [security, `${security}-balance`]) {
    const issuance = mapped.transactions.find((tx) => tx.id === `${id}-issuance`) as { date: string; vestings?: { date: string; amount: string }[]; vesting_terms_id?: string } | undefined;
    if (issuance === undefined) continue;
    const carried = (date: string) => id !== security && date === issuance.date;
    if (issuance.vestings !== undefined) {
      total = total.plus(sumDecimals(issuance.vestings.filter((v) => !carried(v.date)).map((v) => v.amount)));
      continue;
    }
    const terms = mapped.vestingTerms.find((t) => t.id === issuance.vesting_terms_id);
    total = total.plus(sumDecimals((terms?.vesting_conditions ?? []).filter((c) => c.id !== "event-balance-carried-over").map((c) => c.quantity ?? "0")));
  }
  return total;
}

/** Source decimals never lose a digit: the emitted text is the normalized source decimal itself. */
function sameDecimal(emitted: string, source: DecimalString): boolean {
  return OCF_NUMERIC_PATTERN.test(emitted) && emitted === formatDecimal(new Dec(source)) && equal(emitted, source);
}

/** Reads the settlement sentence back (quantities exactly as written). */
function parseConsideration(text: string): { gross: string; withheld: string; sold: string; net: string } {
  const m = /^Gross (\S+) units released; withheld (not reported|\S+); sold (not reported|\S+); net (not reported|\S+) shares delivered\.$/.exec(text);
  if (m === null) throw new Error(`unexpected consideration_text ${text}`);
  return { gross: m[1] ?? "", withheld: m[2] ?? "", sold: m[3] ?? "", net: m[4] ?? "" };
}

function permuted<T>(list: readonly T[], keys: readonly number[]): T[] {
  return list
    .map((item, i) => ({ item, key: keys[i % Math.max(keys.length, 1)] ?? 0, i }))
    .sort((a, b) => a.key - b.key || b.i - a.i)
    .map((e) => e.item);
}

// ---------------------------------------------------------------------------------------------
// Properties

describe("mapping properties", () => {
  it("maps every valid record, and every object passes ocf-sync's OCF 1.2.0 schemas", () => {
    fc.assert(
      fc.property(records, (r) => {
        const mapped = mapAll(r);
        expect(mapped.quarantined).toEqual([]);
        expectOcfSyncValidObjects(mappedObjects(mapped));
      }),
      { numRuns: 60 },
    );
  });

  it("is deterministic: the same bytes whatever the order of records, events and settlements", () => {
    fc.assert(
      fc.property(records, fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), (r, keys) => {
        const shuffled = {
          awards: permuted(r.awards, keys).map((a) => ({ ...a, vestingEvents: permuted(a.vestingEvents, keys) })),
          units: permuted(r.units, keys).map((u) => ({ ...u, vestingEvents: permuted(u.vestingEvents, keys), settlements: permuted(u.settlements, keys) })),
        };
        const options = { generatedAt: "2030-01-01T00:00:00Z" };
        expect(buildPackageFiles(mapAll(shuffled), options).files).toEqual(buildPackageFiles(mapAll(r), options).files);
      }),
      RUNS,
    );
  });

  it("vests exactly what the events say, so the vesting sums to the quantity when the events do", () => {
    fc.assert(
      fc.property(records, (r) => {
        const mapped = mapAll(r);
        for (const { g, security } of grantsOf(r)) {
          const expected = sumDecimals(earned(g).map(amountOf));
          expect(emittedVesting(mapped, security).equals(expected)).toBe(true);
          const planAddsUp = sumDecimals(g.vestingEvents.map((e) => e.targetQuantity ?? "0")).equals(new Dec(g.quantity ?? "0"));
          const payoutAsPlanned = g.vestingEvents.every((e) => !e.vested || equal(amountOf(e), e.targetQuantity ?? "0"));
          const allEarned = earned(g).length === g.vestingEvents.length;
          if (g.vestingEvents.length > 0 && planAddsUp && payoutAsPlanned && allEarned) expect(emittedVesting(mapped, security).equals(new Dec(g.quantity ?? "0"))).toBe(true);
          // A cancellation may take its tranches off the list: the events plus what it cancelled make the quantity then.
          const remainsListed = g.canceledQuantity !== undefined && sumDecimals(g.vestingEvents.map((e) => e.targetQuantity ?? "0")).plus(new Dec(g.canceledQuantity)).equals(new Dec(g.quantity ?? "0"));
          expect(warned(mapped, security, "VESTING_SUM_MISMATCH")).toBe(g.vestingEvents.length > 0 && !planAddsUp && !remainsListed);
        }
      }),
      RUNS,
    );
  });

  it("reports, never fixes, vested events that do not add up to vestedQuantity; milestones met get a vesting event", () => {
    fc.assert(
      fc.property(records, (r) => {
        const mapped = mapAll(r);
        for (const { g, security } of grantsOf(r)) {
          const vested = sumDecimals(g.vestingEvents.filter((e) => e.vested).map((e) => e.vestedQuantity ?? "0"));
          expect(warned(mapped, security, "VESTED_SUM_MISMATCH")).toBe(g.vestingEvents.length > 0 && !vested.equals(new Dec(g.vestedQuantity ?? "0")));
          const kept = earned(g);
          const usesTerms = mapped.vestingTerms.some((t) => t.id.startsWith(`vesting-terms-${security}`));
          // The documents end the grant's security on its cancellation day, and OCF orders nothing within
          // a day, so no vesting transaction acts on it that day (consumer-true-ocf.md, "Order within a
          // day"): a milestone met then is a dated condition, and VestingTerms that would start then are
          // a vestings list (or, vesting nothing, have no TX_VESTING_START).
          const endsOn = txOf(mapped, security).find((tx) => tx.security_id === security && (tx.object_type === "TX_STOCK_CANCELLATION" || tx.object_type === "TX_EQUITY_COMPENSATION_CANCELLATION"))?.date;
          const onItsEnd = [...ofType(txOf(mapped, security), "TX_VESTING_START"), ...ofType(txOf(mapped, security), "TX_VESTING_EVENT")].filter((tx) => tx.security_id === security && tx.date === endsOn);
          expect(onItsEnd).toEqual([]);
          // Every milestone met that vests shares has its vesting event, on the grant's security or,
          // after a partial cancellation, on its balance security (a milestone of 0 vests nothing).
          const metMilestones = kept.filter((e) => e.vested && (e.performanceCondition || e.vestDate === undefined) && !new Dec(amountOf(e)).isZero() && e.vestDate !== endsOn);
          const anyMilestone = kept.some((e) => e.performanceCondition || e.vestDate === undefined);
          const ownIssuance = mapped.transactions.find((tx) => tx.id === `${security}-issuance`) as { vestings?: unknown[] } | undefined;
          if (anyMilestone) expect(usesTerms || ownIssuance?.vestings !== undefined).toBe(true);
          const starts = ofType(txOf(mapped, security), "TX_VESTING_START");
          const termsOf = (id: string) => mapped.vestingTerms.find((t) => t.id === `vesting-terms-${id}`);
          const own = termsOf(security);
          if (own === undefined) expect(starts.filter((tx) => tx.security_id === security)).toEqual([]);
          else if (own.vesting_conditions.some((c) => !new Dec(c.quantity ?? "0").isZero())) expect(starts.some((tx) => tx.security_id === security)).toBe(true);
          expect(starts.some((tx) => tx.security_id === `${security}-balance`)).toBe(termsOf(`${security}-balance`) !== undefined);
          const conditions = mapped.vestingTerms.filter((t) => t.id.startsWith(`vesting-terms-${security}`)).flatMap((t) => t.vesting_conditions.map((c) => ({ terms: t.id, c })));
          const fired = new Set(ofType(txOf(mapped, security), "TX_VESTING_EVENT").map((tx) => `vesting-terms-${tx.security_id} ${tx.vesting_condition_id}`));
          const firedWithShares = conditions.filter(({ terms, c }) => fired.has(`${terms} ${c.id}`) && !new Dec(c.quantity ?? "0").isZero());
          expect(firedWithShares).toHaveLength(metMilestones.length);
          expect(sumDecimals(firedWithShares.map(({ c }) => c.quantity ?? "0")).equals(sumDecimals(metMilestones.map(amountOf)))).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("releases exactly the settlements' gross units and issues exactly their net shares to the holder and their sold shares to the market", () => {
    fc.assert(
      fc.property(records, (r) => {
        const mapped = mapAll(r);
        for (const u of r.units) {
          const txs = txOf(mapped, `rsu-${u.id}`);
          const releases = ofType(txs, "TX_EQUITY_COMPENSATION_RELEASE");
          expect(releases).toHaveLength(u.settlements.length);
          const gross = sumDecimals(releases.map((tx) => tx.quantity));
          expect(gross.equals(sumDecimals(u.settlements.map((s) => s.releaseQuantity ?? "0")))).toBe(true);
          expect(warned(mapped, `rsu-${u.id}`, "RELEASED_SUM_MISMATCH")).toBe(!gross.equals(new Dec(u.releasedQuantity ?? "0")));
          const resulting = releases.flatMap((tx) => tx.resulting_security_ids);
          const issued = ofType(mapped.transactions, "TX_STOCK_ISSUANCE").filter((tx) => resulting.includes(tx.security_id));
          expect(issued).toHaveLength(resulting.length);
          const net = sumDecimals(issued.filter((tx) => tx.stakeholder_id === holderOf(u)).map((tx) => tx.quantity));
          expect(net.equals(sumDecimals(u.settlements.map((s) => s.netSettlementQuantity ?? "0")))).toBe(true);
          const sold = sumDecimals(issued.filter((tx) => tx.stakeholder_id === "market-sell-to-cover").map((tx) => tx.quantity));
          expect(sold.equals(sumDecimals(u.settlements.map((s) => s.saleQuantity ?? "0")))).toBe(true);
          expect(issued.every((tx) => tx.share_price.amount === "0" && tx.cost_basis !== undefined && equal(tx.cost_basis.amount, releases.find((rel) => rel.resulting_security_ids.includes(tx.security_id))?.release_price.amount ?? "-1"))).toBe(true);
          expect(warned(mapped, `rsu-${u.id}`, "NET_SETTLED_SUM_MISMATCH")).toBe(!net.equals(new Dec(u.netSettledQuantity ?? "0")));
        }
      }),
      RUNS,
    );
  });

  it("carries gross, withheld, sold and net exactly; released = net + withheld + sold where the source says so", () => {
    fc.assert(
      fc.property(records, (r) => {
        const mapped = mapAll(r);
        for (const u of r.units) {
          const releases = ofType(txOf(mapped, `rsu-${u.id}`), "TX_EQUITY_COMPENSATION_RELEASE");
          const texts = releases.map((tx) => parseConsideration(tx.consideration_text ?? ""));
          const sourceTexts = u.settlements.map((s) => ({
            gross: s.releaseQuantity ?? "",
            withheld: s.withholdingQuantity ?? "not reported",
            sold: s.saleQuantity ?? "not reported",
            net: s.netSettlementQuantity ?? "not reported",
          }));
          const key = (t: { gross: string; withheld: string; sold: string; net: string }) => JSON.stringify(t);
          expect(texts.map(key).sort()).toEqual(sourceTexts.map(key).sort());
          const orZero = (text: string): string => (text === "not reported" ? "0" : text);
          for (const [i, release] of releases.entries()) {
            const t = texts[i];
            if (t === undefined) continue;
            expect(release.quantity).toBe(t.gross);
            const delivered = ofType(mapped.transactions, "TX_STOCK_ISSUANCE").find((tx) => release.resulting_security_ids.includes(tx.security_id) && tx.stakeholder_id === holderOf(u));
            expect(equal(delivered?.quantity ?? "0", orZero(t.net))).toBe(true);
            const sourceAddsUp = sumDecimals([t.net, t.withheld, t.sold].map(orZero)).equals(new Dec(t.gross));
            if (sourceAddsUp) {
              // released (gross) = net delivered + withheld + sold, read back from the package alone.
              expect(sumDecimals([delivered?.quantity ?? "0", orZero(t.withheld), orZero(t.sold)]).equals(new Dec(release.quantity))).toBe(true);
            }
          }
          const anyMismatch = u.settlements.some((s) => !sumDecimals([s.netSettlementQuantity ?? "0", s.withholdingQuantity ?? "0", s.saleQuantity ?? "0"]).equals(new Dec(s.releaseQuantity ?? "0")));
          expect(warned(mapped, `rsu-${u.id}`, "SETTLEMENT_PARTS_MISMATCH")).toBe(anyMismatch);
        }
      }),
      RUNS,
    );
  });

  it("never cancels plus releases more than the grant when the source's counters add up", () => {
    fc.assert(
      fc.property(records, (r) => {
        const mapped = mapAll(r);
        for (const u of r.units) {
          const txs = txOf(mapped, `rsu-${u.id}`);
          const cancelled = sumDecimals(ofType(txs, "TX_EQUITY_COMPENSATION_CANCELLATION").map((tx) => tx.quantity));
          const released = sumDecimals(ofType(txs, "TX_EQUITY_COMPENSATION_RELEASE").map((tx) => tx.quantity));
          // One cancellation event, one cancellation: the canceled total when reported and positive, else forfeited + expired.
          expect(ofType(txs, "TX_EQUITY_COMPENSATION_CANCELLATION").length).toBeLessThanOrEqual(1);
          const event = new Dec(u.canceledQuantity ?? "0").gt(0) ? new Dec(u.canceledQuantity ?? "0") : sumDecimals([u.forfeitedQuantity ?? "0", u.expiredQuantity ?? "0"]);
          expect(cancelled.equals(event)).toBe(true);
          const quantity = new Dec(u.quantity ?? "0");
          const sourceExceeds = new Dec(u.releasedQuantity ?? "0").plus(u.canceledQuantity ?? "0").gt(quantity);
          const packageExceeds = cancelled.plus(released).gt(quantity);
          // The package never cancels plus releases more than the grant (that is a mapping error); the
          // source's counters saying so is a warning naming the unit.
          expect(packageExceeds).toBe(false);
          expect(warned(mapped, `rsu-${u.id}`, "CANCELED_AND_RELEASED_EXCEED_QUANTITY")).toBe(sourceExceeds);
        }
        for (const a of r.awards) {
          const cancelled = sumDecimals(ofType(txOf(mapped, `rsa-${a.id}`), "TX_STOCK_CANCELLATION").map((tx) => tx.quantity));
          expect(cancelled.equals(new Dec(a.canceledQuantity ?? "0"))).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("never loses a digit: quantities and prices are the source decimals, exactly", () => {
    fc.assert(
      fc.property(records, (r) => {
        const mapped = mapAll(r);
        for (const a of r.awards) {
          const issuance = ofType(txOf(mapped, `rsa-${a.id}`), "TX_STOCK_ISSUANCE").find((tx) => tx.security_id === `rsa-${a.id}`);
          expect(sameDecimal(issuance?.quantity ?? "", a.quantity ?? "")).toBe(true);
          expect(sameDecimal(issuance?.share_price.amount ?? "", a.pricePerShare?.amount ?? "")).toBe(true);
          expect(issuance?.share_price.currency).toBe(a.pricePerShare?.currency);
        }
        for (const u of r.units) {
          const issuance = ofType(txOf(mapped, `rsu-${u.id}`), "TX_EQUITY_COMPENSATION_ISSUANCE").find((tx) => tx.security_id === `rsu-${u.id}`);
          expect(sameDecimal(issuance?.quantity ?? "", u.quantity ?? "")).toBe(true);
          for (const release of ofType(txOf(mapped, `rsu-${u.id}`), "TX_EQUITY_COMPENSATION_RELEASE")) {
            const prices = [...u.settlements.map((s) => s.settlementPrice?.amount), u.releasePricePerShare?.amount].filter((p) => p !== undefined);
            expect(prices.some((p) => sameDecimal(release.release_price.amount, p))).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });

  it("rejects, naming the record and field, a value that needs more than 10 decimal places", () => {
    fc.assert(
      fc.property(award, digitString(11, 30), (a, fraction) => {
        const amount = `0.${fraction.slice(0, -1)}7`;
        try {
          mapIssuer({ issuerId: ISSUER, awards: [{ ...a, pricePerShare: { currency: "USD", amount } }], units: [] });
        } catch (error) {
          expect(isMappingError(error) && error.code === "MAPPING_DECIMAL_PRECISION").toBe(true);
          expect(isMappingError(error) && error.path).toBe("pricePerShare.amount");
          expect(isMappingError(error) && error.record?.recordId).toBe(a.id);
          return;
        }
        throw new Error("expected a MAPPING_DECIMAL_PRECISION error");
      }),
      { numRuns: 50 },
    );
  });
});

describeConformance("the official OCF 1.2.0 schemas", () => {
  it("accept every object mapped from generated valid records", () => {
    fc.assert(
      fc.property(records, (r) => {
        expectOfficiallyValidObjects(mappedObjects(mapAll(r)));
      }),
      { numRuns: 60 },
    );
  });
});
