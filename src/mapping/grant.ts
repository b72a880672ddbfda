/**
 * What awards and units share: the record's identity and required values, the source facts that have
 * no OCF field (kept in the issuance's `comments`, never dropped), the record's dates, and the final
 * sort and schema check of its objects.
 */
import type { CalendarDate } from "../dates.js";
import { describeValue } from "../errors.js";
import type { OcfTransaction, OcfVestingTerms } from "../ocf/schemas.js";
import type { RecordKind } from "../source/kinds.js";
import type { GrantFields, PrecededBy } from "../source/records.js";
import { compact, type Money } from "../source/wire.js";
import { securityIdOf, stakeholderIdOf, stockPlanIdOf, txIds } from "./ids.js";
import { compareTransactions, sortIfNeeded } from "./order.js";
import { quoted } from "./quote.js";
import { RecordContext } from "./record-context.js";
import type { MappedRecord, MappingOptions } from "./types.js";
import { assertValidOcf } from "./validate.js";
import type { GrantVesting } from "./vesting.js";

/** Where a record is mapped: its issuer, and the options of the mapping. */
export interface RecordMappingContext {
  /** The issuer being mapped; a record naming another issuer is a `MappingError`. */
  issuerId: string;
  options?: MappingOptions;
}

/** The values every grant needs, checked once. */
export interface GrantBasics {
  ctx: RecordContext;
  security: string;
  customId: string;
  /** The source's `stakeholderId`. */
  sourceStakeholderId: string;
  /** The OCF stakeholder id. */
  stakeholderId: string;
  issueDate: CalendarDate;
  quantity: string;
}

/**
 * Starts mapping a record: its context, and the values no issuance can do without (a `MappingError`
 * for any that is absent, or for a record of another issuer).
 */
export function grantBasics(issuerId: string, kind: RecordKind, record: GrantFields): GrantBasics {
  const ctx = new RecordContext(issuerId, kind, record.id);
  if (record.issuerId !== undefined && record.issuerId !== issuerId) {
    ctx.fail("MAPPING_CONFLICT", "issuerId", `is ${describeValue(record.issuerId)}, not the issuer being mapped`, { value: record.issuerId });
  }
  const security = securityIdOf(kind, record.id);
  const sourceStakeholderId = ctx.required(record.stakeholderId, "stakeholderId", "the issuance's stakeholder_id");
  if (sourceStakeholderId === "") ctx.fail("MAPPING_MISSING_VALUE", "stakeholderId", "is empty, but OCF requires it for the issuance's stakeholder_id");
  return {
    ctx,
    security,
    customId: record.securityLabel ?? record.id,
    sourceStakeholderId,
    stakeholderId: stakeholderIdOf(sourceStakeholderId),
    issueDate: ctx.required(record.issueDate, "issueDate", "the issuance's date"),
    quantity: ctx.numeric(ctx.required(record.quantity, "quantity", "the issuance's quantity"), "quantity"),
  };
}

/** The grant's plan (from `equityIncentivePlanName`), if it names one. */
export function planOf(record: GrantFields): { stockPlanId: string; planName: string } | undefined {
  const name = record.equityIncentivePlanName;
  return name === undefined ? undefined : { stockPlanId: stockPlanIdOf(name), planName: name };
}

/** What `mapVesting` needs from a grant. */
export function vestingOf(basics: GrantBasics, record: GrantFields): GrantVesting {
  const { kind } = basics.ctx.record;
  return {
    security: basics.security,
    customId: basics.customId,
    grantLabel: `${GRANT_LABEL[kind]} ${quoted(record.id)}${record.securityLabel === undefined ? "" : ` (${record.securityLabel})`}`,
    events: record.vestingEvents,
    quantity: basics.quantity,
    vestedQuantity: record.vestedQuantity,
    issueDate: basics.issueDate,
    vestingStartDate: record.vestingStartDate,
    schedule: record.vestingSchedule,
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
 * The keys every issuance of a grant starts with, in OCF's order. An absent board approval date is
 * `undefined` here: the caller compacts the whole issuance it spreads this into.
 */
export function issuanceHead(basics: GrantBasics, record: GrantFields) {
  return {
    id: txIds.issuance(basics.security),
    date: basics.issueDate,
    security_id: basics.security,
    custom_id: basics.customId,
    stakeholder_id: basics.stakeholderId,
    board_approval_date: record.boardApprovalDate,
    security_law_exemptions: [],
  };
}

/** What a grant's mapping hands to `finishGrant`. */
export interface GrantParts {
  /** The acceptance transaction type of this kind of grant. */
  acceptance: "TX_STOCK_ACCEPTANCE" | "TX_EQUITY_COMPENSATION_ACCEPTANCE";
  /** The issuance and every other transaction but the acceptance. */
  transactions: OcfTransaction[];
  vestingTerms: OcfVestingTerms[];
  /** The class the grant's shares belong to, with the labels of its securities. */
  stockClass: { name: string; labels: string[] };
  plan: { stockPlanId: string; planName: string } | undefined;
}

/**
 * Completes a grant: adds the holder's acceptance (when dated), sorts the transactions, checks every
 * object against the schemas, and says what the issuer-level objects need.
 */
export function finishGrant(basics: GrantBasics, record: GrantFields & { settlements?: readonly { settlementDate?: CalendarDate }[] }, parts: GrantParts): MappedRecord {
  const { ctx } = basics;
  const transactions = [...parts.transactions];
  if (record.stakeholderAcceptanceDate !== undefined) {
    transactions.push({
      object_type: parts.acceptance,
      id: txIds.acceptance(basics.security),
      date: record.stakeholderAcceptanceDate,
      security_id: basics.security,
    });
  }
  sortIfNeeded(transactions, compareTransactions);
  assertValidOcf(ctx.at(), [...transactions, ...parts.vestingTerms]);
  const { plan, stockClass } = parts;
  return {
    kind: ctx.record.kind,
    recordId: ctx.record.recordId,
    securityId: basics.security,
    transactions,
    vestingTerms: parts.vestingTerms,
    warnings: ctx.warnings,
    uses: compact({
      stakeholderId: basics.sourceStakeholderId,
      stockClasses: [stockClass],
      plan: plan === undefined ? undefined : { name: plan.planName, quantity: basics.quantity, stockClassName: stockClass.name },
      earliestDate: earliestGrantDate(record),
      lastModifiedDatetime: record.lastModifiedDatetime,
    }),
  };
}
