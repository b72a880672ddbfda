/**
 * What awards and units share: the record's identity and required values, the source facts that have
 * no OCF field (kept in the issuance's `comments`, never dropped), the record's dates, and the final
 * sort and schema check of its objects.
 */
import type { CalendarDate } from "../dates.js";
import { describeValue } from "../errors.js";
import { isZeroDecimal, type DecimalString } from "../decimal.js";
import type { RecordKind } from "../source/kinds.js";
import type { GrantFields, PrecededBy, Settlement } from "../source/records.js";
import { compact, type Money } from "../source/wire.js";
import type { GrantBasics } from "./grant-basics.js";
import { securityIdOf, stakeholderIdOf, stockPlanIdOf } from "./ids.js";
import type { GrantChain, IssuancePart } from "./lineage.js";
import { compareTransactions } from "../ocf/order.js";
import { sortIfNeeded } from "./order.js";
import { quoted } from "./quote.js";
import { RecordContext } from "./record-context.js";
import type { ShareClassDirectory } from "./share-classes.js";
import type { MappedRecord, MappingOptions, StockClassUse } from "./types.js";
import { assertConsistentLineage, assertValidOcf } from "./validate.js";
import { neverEarnedEvents, type GrantVesting } from "./vesting.js";

/**
 * Where a record is mapped: its issuer, and the options of the mapping.
 *
 * @category Mapping
 */
export interface RecordMappingContext {
  /** The issuer being mapped; a record naming another issuer is a `MappingError`. */
  issuerId: string;
  options?: MappingOptions;
  /**
   * The names the issuer's awards give share class ids, for a unit's class (`share-classes.ts`).
   * @default none: only the issuer profile names a unit's class id
   */
  shareClasses?: ShareClassDirectory;
}

/**
 * Starts mapping a record: its context, and the values no issuance can do without (a `MappingError`
 * for any that is absent, or for a record of another issuer).
 */
export function grantBasics(issuerId: string, kind: RecordKind, record: GrantFields, options?: MappingOptions): GrantBasics {
  const ctx = new RecordContext(issuerId, kind, record.id, { strict: options?.strict });
  if (record.issuerId !== undefined && record.issuerId !== issuerId) {
    ctx.fail("MAPPING_CONFLICT", "issuerId", `is ${describeValue(record.issuerId)}, not the issuer being mapped`, { value: record.issuerId });
  }
  const security = securityIdOf(kind, record.id);
  const sourceStakeholderId = ctx.required(record.stakeholderId, "stakeholderId", "the issuance's stakeholder_id");
  if (sourceStakeholderId === "") ctx.fail("MAPPING_MISSING_VALUE", "stakeholderId", "is empty, but OCF requires it for the issuance's stakeholder_id");
  checkNotNegative(ctx, record);
  const quantity = ctx.numeric(ctx.required(record.quantity, "quantity", "the issuance's quantity"), "quantity");
  // A grant of 0 keeps its issuance, of 0: it is the one OCF object that carries the grant (holder,
  // plan, dates, source ids in its comments), and every later transaction of the grant and every
  // reader matching grants by security id needs it. It adds nothing to anyone's holdings.
  const exactQuantity = ctx.exact(quantity);
  if (exactQuantity.isZero()) ctx.warn("ZERO_QUANTITY", "quantity", "is 0: the grant's issuance is written with quantity 0, so that the grant and its facts are in the package; it holds nothing");
  return {
    ctx,
    security,
    customId: record.securityLabel ?? record.id,
    sourceStakeholderId,
    stakeholderId: stakeholderIdOf(sourceStakeholderId),
    issueDate: ctx.required(record.issueDate, "issueDate", "the issuance's date"),
    quantity,
    exactQuantity,
  };
}

/** The counters of a grant record and of its settlements (events are checked by the vesting). */
const COUNTERS = [
  "quantity",
  "vestedQuantity",
  "canceledQuantity",
  "returnedToPoolQuantity",
  "returnedToTreasuryQuantity",
  "releasedQuantity",
  "netSettledQuantity",
  "forfeitedQuantity",
  "expiredQuantity",
] as const;
const SETTLEMENT_COUNTERS = ["releaseQuantity", "saleQuantity", "withholdingQuantity", "netSettlementQuantity"] as const;

/**
 * A share count cannot be negative: OCF quantities are counts, and ocf-sync's validate rejects a
 * negative one, so such a record is a `MappingError` naming the field (never its absolute value).
 */
function checkNotNegative(ctx: RecordContext, record: GrantFields & { settlements?: readonly Settlement[] }): void {
  const fields = record as Partial<Record<(typeof COUNTERS)[number], string>>;
  for (const name of COUNTERS) {
    const value = fields[name];
    if (value !== undefined && isNegativeDecimal(value)) ctx.fail("MAPPING_CONFLICT", name, `is ${value}: a share count cannot be negative`, { value });
  }
  const settlements = record.settlements ?? [];
  for (let i = 0; i < settlements.length; i++) {
    const s = settlements[i] as Settlement;
    for (const name of SETTLEMENT_COUNTERS) {
      const value = s[name];
      if (value !== undefined && isNegativeDecimal(value)) ctx.fail("MAPPING_CONFLICT", `settlements[${i}].${name}`, `is ${value}: a share count cannot be negative`, { value });
    }
  }
}

/**
 * Below zero (`"-0"` is not), on the record's text as it arrives: this check runs before any of the
 * record's decimals is parsed, and a text that is no decimal at all (a hand-built record) is
 * reported here as negative when it starts with a minus, not as a syntax error.
 */
function isNegativeDecimal(value: DecimalString): boolean {
  return value.startsWith("-") && !isZeroDecimal(value);
}

/** The grant's plan (from `equityIncentivePlanName`), if it names one. */
export function planOf(record: GrantFields): { stockPlanId: string; planName: string } | undefined {
  const name = record.equityIncentivePlanName;
  return name === undefined ? undefined : { stockPlanId: stockPlanIdOf(name), planName: name };
}

/**
 * What `mapVesting` needs from a grant: its events, less those never earned (`neverEarnedEvents`: the tranches a
 * terminated holder can no longer earn) and, for the issuance's comments, which events were left out.
 */
export function vestingOf(basics: GrantBasics, record: GrantFields): { vesting: GrantVesting; comments: string[] } {
  const { kind } = basics.ctx.record;
  const never = neverEarnedEvents(record.vestingEvents, record.terminationDate);
  return {
    vesting: {
      security: basics.security,
      customId: basics.customId,
      grantLabel: `${GRANT_LABEL[kind]} ${quoted(record.id)}${record.securityLabel === undefined ? "" : ` (${record.securityLabel})`}`,
      events: record.vestingEvents,
      neverEarned: never.events,
      quantity: basics.quantity,
      vestedQuantity: record.vestedQuantity,
      canceledQuantity: record.canceledQuantity,
      issueDate: basics.issueDate,
      vestingStartDate: record.vestingStartDate,
      schedule: record.vestingSchedule,
    },
    comments: never.comment === undefined ? [] : [never.comment],
  };
}

const GRANT_LABEL: Readonly<Record<RecordKind, string>> = {
  restrictedStockAward: "restricted stock award",
  restrictedStockUnit: "restricted stock unit",
};

const moneyText = (money: Money): string => `${money.amount} ${money.currency}`;

/** Source facts with no OCF field, as comment lines, in a fixed order. */
export function sourceFactComments(kind: RecordKind, issuerId: string, record: GrantFields & { precededBy?: PrecededBy }): string[] {
  const lines = [`Source: ${GRANT_LABEL[kind]} ${quoted(record.id)} of issuer ${quoted(issuerId)} (Carta Issuer API v1alpha1).`];
  if (record.vestedQuantity !== undefined) lines.push(`Vested quantity reported by the source: ${record.vestedQuantity} (vestedQuantity).`);
  const ids = [
    record.securityId === undefined ? undefined : `securityId ${quoted(record.securityId)}`,
    record.shareClassId === undefined ? undefined : `shareClassId ${quoted(record.shareClassId)}`,
    record.vestingScheduleTemplateId === undefined ? undefined : `vestingScheduleTemplateId ${quoted(record.vestingScheduleTemplateId)}`,
  ].filter((part) => part !== undefined);
  if (ids.length > 0) lines.push(`Source ids: ${ids.join(", ")}.`);
  if (record.precededBy !== undefined) lines.push(precededByComment(record.precededBy));
  if (record.lastModifiedDatetime !== undefined) lines.push(`Last modified at the source: ${record.lastModifiedDatetime} (lastModifiedDatetime).`);
  return lines;
}

/** The counters of a unit that OCF derives from transactions instead of storing. */
export function unitCounterComments(record: { releasedQuantity?: string; netSettledQuantity?: string; releasePricePerShare?: Money }): string[] {
  const parts = [
    record.releasedQuantity === undefined ? undefined : `releasedQuantity ${record.releasedQuantity} (units settled)`,
    record.netSettledQuantity === undefined ? undefined : `netSettledQuantity ${record.netSettledQuantity} (units released to the stakeholder)`,
    record.releasePricePerShare === undefined ? undefined : `releasePricePerShare ${moneyText(record.releasePricePerShare)}`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? [] : [`Unit totals reported by the source: ${parts.join("; ")}.`];
}

function precededByComment(precededBy: PrecededBy): string {
  const securities = precededBy.securities.map((s) =>
    [s.type ?? "security", s.id === undefined ? "(no id)" : JSON.stringify(s.id), s.label === undefined ? undefined : `label ${JSON.stringify(s.label)}`]
      .filter((part) => part !== undefined)
      .join(" "),
  );
  const reason = precededBy.reason ?? "(no reason)";
  return `Preceded by (precededBy): reason ${reason}${securities.length === 0 ? "" : `; securities: ${securities.join(", ")}`}.`;
}

/** The earliest calendar date a grant carries (for the issuer's formation-date placeholder). */
export function earliestGrantDate(record: GrantFields & { settlements?: readonly { settlementDate?: CalendarDate }[] }): CalendarDate | undefined {
  const schedule = record.vestingSchedule;
  let earliest = earlier(record.issueDate, record.vestingStartDate);
  earliest = earlier(earliest, record.boardApprovalDate);
  earliest = earlier(earliest, record.stakeholderAcceptanceDate);
  earliest = earlier(earliest, record.canceledDate);
  earliest = earlier(earliest, record.terminationDate);
  if (schedule !== undefined) {
    earliest = earlier(earliest, schedule.startDate);
    earliest = earlier(earliest, schedule.endDate);
    earliest = earlier(earliest, schedule.lastModifiedDate);
  }
  for (const event of record.vestingEvents) earliest = earlier(earliest, event.vestDate);
  for (const settlement of record.settlements ?? []) earliest = earlier(earliest, settlement.settlementDate);
  return earliest;
}

/** The earlier of two optional dates (`YYYY-MM-DD` text orders as the days do). */
function earlier(a: CalendarDate | undefined, b: CalendarDate | undefined): CalendarDate | undefined {
  if (a === undefined) return b;
  return b !== undefined && b < a ? b : a;
}

/**
 * The keys every issuance of a grant's chain starts with, in OCF's order. An absent board approval
 * date is `undefined` here: the caller compacts the whole issuance it spreads this into.
 */
export function issuanceHead(basics: GrantBasics, record: GrantFields, part: IssuancePart) {
  return {
    id: part.txId,
    date: part.date,
    security_id: part.security,
    custom_id: part.customId,
    stakeholder_id: basics.stakeholderId,
    board_approval_date: record.boardApprovalDate,
    security_law_exemptions: [],
  };
}

/** What a grant's mapping hands to `finishGrant`. */
export interface GrantParts {
  chain: GrantChain;
  /** The class the grant's shares belong to (a unit: the class its settlements deliver, if known). */
  stockClass: StockClassUse | undefined;
  plan: { stockPlanId: string; planName: string } | undefined;
  /** Some settlement issued shares sold to cover taxes. */
  soldToCover?: boolean;
  /** What the grant takes from its plan, when more than its quantity (its payouts above target: `payout.ts`). */
  granted?: DecimalString | undefined;
}

/**
 * Completes a grant: sorts the transactions, checks every object against the schemas, and says what
 * the issuer-level objects need.
 */
export function finishGrant(basics: GrantBasics, record: GrantFields & { settlements?: readonly { settlementDate?: CalendarDate }[] }, parts: GrantParts): MappedRecord {
  const { ctx } = basics;
  const { transactions, vestingTerms } = parts.chain;
  sortIfNeeded(transactions, compareTransactions);
  assertValidOcf(ctx.at(), [...transactions, ...vestingTerms]);
  assertConsistentLineage(ctx.at(), transactions, parts.chain.lineage);
  const { plan, stockClass } = parts;
  return {
    kind: ctx.record.kind,
    recordId: ctx.record.recordId,
    securityId: basics.security,
    transactions,
    vestingTerms,
    warnings: ctx.warnings,
    uses: compact({
      stakeholderId: basics.sourceStakeholderId,
      stockClasses: stockClass === undefined ? [] : [stockClass],
      plan: plan === undefined ? undefined : compact({ name: plan.planName, quantity: parts.granted ?? basics.quantity, stockClassKey: stockClass?.key }),
      soldToCover: parts.soldToCover === true ? true : undefined,
      earliestDate: earliestGrantDate(record),
      lastModifiedDatetime: record.lastModifiedDatetime,
    }),
    ...(ctx.unvested === undefined ? {} : { unvested: ctx.unvested }),
  };
}
