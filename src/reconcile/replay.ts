/**
 * Replays the transactions of an OCF package per security and derives the figures a source record
 * states: issued, vested (as of a date), released, net settled, canceled (forfeited, expired),
 * returned to pool and to treasury, and outstanding. Pure, exact decimals.
 *
 * How ocf-sync's own policies (mappings/README.md) read back:
 * - a release counts gross units; the net shares it delivers are issuances of the securities it names
 *   in `resulting_security_ids` (each counted once, however many releases name it);
 * - a unit's cancellation whose `reason_text` starts with "Expired" (or whose id ends in `-expiry`)
 *   cancels vested units; every other cancellation (and every repurchase) cancels unvested shares;
 *   `forfeited` counts those starting with "Forfeited" or ending in `-forfeiture`;
 * - returned to treasury has no OCF transaction: it is what was cancelled and not returned to the pool;
 * - vesting: the issuance's `vestings`; else its VestingTerms, each condition vesting its quantity (or
 *   portion of the issued quantity) on its absolute date, at the `TX_VESTING_START` for a start
 *   condition, or at the `TX_VESTING_EVENT` naming it; with neither, everything vests at issuance
 *   (OCF's reading). Relative triggers are not replayed and are named in `notes`.
 */
import { compareIso, isCalendarDate, type CalendarDate } from "../dates.js";
import { Dec, formatDecimal } from "../decimal.js";
import { OCF_NUMERIC_PATTERN } from "../ocf/schemas.js";
import { isRecord, stringAt, type JsonRecord, type PackageObjects } from "./package-objects.js";
import { capTranches, mergeTranches } from "./tranches.js";
import type { Figures, Tranche } from "./types.js";

/** One security of a package, replayed. */
export interface ReplayedSecurity {
  securityId: string;
  /** The issuance that created it. */
  issuance: JsonRecord;
  /** `TX_STOCK_ISSUANCE`, `TX_EQUITY_COMPENSATION_ISSUANCE`, … */
  issuanceType: string;
  /** Every figure except `vested` (which depends on a date: see `vestedBy`). */
  figures: Figures;
  /** What vests when, already cut to what cancellations leave (`capTranches`). */
  tranches: Tranche[];
  /** Securities named as resulting from this security's releases (a unit's delivered shares). */
  resultingSecurityIds: string[];
}

/** A replayed package. */
export interface ReplayedPackage {
  /** By security id, in package order of the issuances. */
  securities: Map<string, ReplayedSecurity>;
  /** What could not be replayed, in words. */
  notes: string[];
}

const ISSUANCES: ReadonlySet<string> = new Set(["TX_STOCK_ISSUANCE", "TX_EQUITY_COMPENSATION_ISSUANCE", "TX_WARRANT_ISSUANCE", "TX_CONVERTIBLE_ISSUANCE"]);
const CANCELLATIONS: ReadonlySet<string> = new Set(["TX_STOCK_CANCELLATION", "TX_EQUITY_COMPENSATION_CANCELLATION"]);
/** Transactions that take shares off a security besides releases and cancellations (outstanding only). */
const OTHER_CONSUMING: ReadonlySet<string> = new Set(["TX_STOCK_REPURCHASE", "TX_STOCK_TRANSFER", "TX_EQUITY_COMPENSATION_TRANSFER"]);

/** Replays every security of `pkg`. Malformed values (not OCF Numeric, not a date) count as absent. */
export function replayPackage(pkg: PackageObjects): ReplayedPackage {
  const notes: string[] = [];
  const issuances = new Map<string, JsonRecord>();
  const onSecurity = new Map<string, JsonRecord[]>();
  for (const tx of pkg.transactions) {
    const type = stringAt(tx, "object_type") ?? "";
    const security = stringAt(tx, "security_id");
    if (security === undefined) continue;
    if (ISSUANCES.has(type)) {
      if (!issuances.has(security)) issuances.set(security, tx);
      continue;
    }
    let list = onSecurity.get(security);
    if (list === undefined) onSecurity.set(security, (list = []));
    list.push(tx);
  }
  const terms = new Map<string, JsonRecord>();
  for (const t of pkg.vestingTerms) {
    const id = stringAt(t, "id");
    if (id !== undefined && !terms.has(id)) terms.set(id, t);
  }
  const securities = new Map<string, ReplayedSecurity>();
  for (const [securityId, issuance] of issuances) {
    securities.set(securityId, replaySecurity(securityId, issuance, onSecurity.get(securityId) ?? [], issuances, terms, notes));
  }
  return { securities, notes };
}

function replaySecurity(
  securityId: string,
  issuance: JsonRecord,
  transactions: readonly JsonRecord[],
  issuances: ReadonlyMap<string, JsonRecord>,
  terms: ReadonlyMap<string, JsonRecord>,
  notes: string[],
): ReplayedSecurity {
  const issued = decimalAt(issuance, "quantity") ?? new Dec(0);
  let released = new Dec(0);
  let canceled = new Dec(0);
  let forfeited = new Dec(0);
  let expired = new Dec(0);
  let vestedCancelled = new Dec(0);
  let otherConsumed = new Dec(0);
  let returnedToPool = new Dec(0);
  const resulting: string[] = [];
  for (const tx of transactions) {
    const type = stringAt(tx, "object_type") ?? "";
    const quantity = decimalAt(tx, "quantity") ?? new Dec(0);
    if (type === "TX_EQUITY_COMPENSATION_RELEASE") {
      released = released.plus(quantity);
      const named = tx.resulting_security_ids;
      if (Array.isArray(named)) for (const id of named) if (typeof id === "string" && !resulting.includes(id)) resulting.push(id);
    } else if (CANCELLATIONS.has(type)) {
      canceled = canceled.plus(quantity);
      const reason = stringAt(tx, "reason_text") ?? "";
      const id = stringAt(tx, "id") ?? "";
      if (/^expired\b/i.test(reason) || id.endsWith("-expiry")) {
        expired = expired.plus(quantity);
        vestedCancelled = vestedCancelled.plus(quantity);
      } else if (/^forfeited\b/i.test(reason) || id.endsWith("-forfeiture")) {
        forfeited = forfeited.plus(quantity);
      }
    } else if (OTHER_CONSUMING.has(type)) {
      otherConsumed = otherConsumed.plus(quantity);
    } else if (type === "TX_STOCK_PLAN_RETURN_TO_POOL") {
      returnedToPool = returnedToPool.plus(quantity);
    }
  }
  let netSettled = new Dec(0);
  for (const id of resulting) netSettled = netSettled.plus(decimalAt(issuances.get(id) ?? {}, "quantity") ?? 0);
  const unvestedCancelled = canceled.minus(vestedCancelled);
  const scheduled = scheduleOf(securityId, issuance, issued, transactions, terms, notes);
  const figures: Figures = {
    issued: formatDecimal(issued),
    released: formatDecimal(released),
    netSettled: formatDecimal(netSettled),
    canceled: formatDecimal(canceled),
    forfeited: formatDecimal(forfeited),
    expired: formatDecimal(expired),
    returnedToPool: formatDecimal(returnedToPool),
    returnedToTreasury: formatDecimal(canceled.minus(returnedToPool)),
    outstanding: formatDecimal(issued.minus(released).minus(canceled).minus(otherConsumed)),
  };
  return {
    securityId,
    issuance,
    issuanceType: stringAt(issuance, "object_type") ?? "",
    figures,
    tranches: capTranches(scheduled, issued.minus(unvestedCancelled)),
    resultingSecurityIds: resulting,
  };
}

/** The uncapped vesting schedule of a security (see the module comment). */
function scheduleOf(
  securityId: string,
  issuance: JsonRecord,
  issued: Dec,
  transactions: readonly JsonRecord[],
  terms: ReadonlyMap<string, JsonRecord>,
  notes: string[],
): Tranche[] {
  const vestings = issuance.vestings;
  if (Array.isArray(vestings) && vestings.length > 0) {
    return mergeTranches(
      vestings.flatMap((v: unknown) => {
        if (!isRecord(v)) return [];
        const date = dateAt(v, "date");
        const amount = decimalAt(v, "amount");
        return date === undefined || amount === undefined ? [] : [{ date, amount }];
      }),
    );
  }
  const termsId = stringAt(issuance, "vesting_terms_id");
  const issuedOn = dateAt(issuance, "date");
  if (termsId === undefined) return issuedOn === undefined ? [] : mergeTranches([{ date: issuedOn, amount: issued }]);
  const found = terms.get(termsId);
  if (found === undefined) {
    notes.push(`security ${JSON.stringify(securityId)}: its vesting terms ${JSON.stringify(termsId)} are not in the package; nothing of it is counted as vested`);
    return [];
  }
  // When each condition fires: absolute dates, and the transactions that name a condition.
  const firedOn = new Map<string, CalendarDate>();
  for (const tx of transactions) {
    const type = stringAt(tx, "object_type");
    const condition = stringAt(tx, "vesting_condition_id");
    const date = dateAt(tx, "date");
    if ((type === "TX_VESTING_START" || type === "TX_VESTING_EVENT") && condition !== undefined && date !== undefined) {
      const earlier = firedOn.get(condition);
      if (earlier === undefined || compareIso(date, earlier) < 0) firedOn.set(condition, date);
    }
  }
  const conditions = Array.isArray(found.vesting_conditions) ? found.vesting_conditions.filter(isRecord) : [];
  const tranches: { date: CalendarDate; amount: Dec }[] = [];
  for (const condition of conditions) {
    const id = stringAt(condition, "id") ?? "";
    const trigger = isRecord(condition.trigger) ? condition.trigger : {};
    const triggerType = stringAt(trigger, "type");
    let date: CalendarDate | undefined;
    if (triggerType === "VESTING_SCHEDULE_ABSOLUTE") date = dateAt(trigger, "date");
    else if (triggerType === "VESTING_START_DATE" || triggerType === "VESTING_EVENT") date = firedOn.get(id);
    else {
      notes.push(`security ${JSON.stringify(securityId)}: vesting condition ${JSON.stringify(id)} has a ${String(triggerType)} trigger, which reconcile does not replay`);
      continue;
    }
    if (date === undefined) continue;
    const amount = conditionAmount(condition, issued);
    if (amount !== undefined) tranches.push({ date, amount });
  }
  return mergeTranches(tranches);
}

/** A condition's `quantity`, else its `portion` of the issued quantity. */
function conditionAmount(condition: JsonRecord, issued: Dec): Dec | undefined {
  const quantity = decimalAt(condition, "quantity");
  if (quantity !== undefined) return quantity;
  const portion = isRecord(condition.portion) ? condition.portion : undefined;
  if (portion === undefined) return undefined;
  const numerator = decimalAt(portion, "numerator");
  const denominator = decimalAt(portion, "denominator");
  if (numerator === undefined || denominator === undefined || denominator.isZero()) return undefined;
  // Dec has 200 significant digits: a portion such as 1/3 of a share count is exact far beyond any
  // figure it is compared with, and the comparison reports what remains.
  return issued.times(numerator).dividedBy(denominator);
}

function decimalAt(value: JsonRecord, key: string): Dec | undefined {
  const found = value[key];
  return typeof found === "string" && OCF_NUMERIC_PATTERN.test(found) ? new Dec(found) : undefined;
}

function dateAt(value: JsonRecord, key: string): CalendarDate | undefined {
  const found = value[key];
  return typeof found === "string" && isCalendarDate(found) ? found : undefined;
}
