/**
 * Tranches the package vests by their dates while the source says they have not vested, held against
 * the package's as-of date. A time-based tranche is vested when the source says so (`vested`,
 * source-api.md §9.8), but OCF has no such flag: a reader counts each `vestings` entry (and each
 * absolute-date condition) as vested from its date. So a package read as of a day on or after such a
 * tranche states more vested than the source does. The mapping writes the tranche as the source dates
 * it (nothing is "fixed") and says so: one warning per record, and one for the issuer with the latest
 * as-of date that no record contradicts (a source whose vesting status is a snapshot of an earlier day
 * shows exactly this).
 */
import { previousDay, type CalendarDate } from "../dates.js";
import { mappingWarning, type MappingWarning, type RecordRef } from "./errors.js";
import type { UnvestedTranche } from "./types.js";

/** The warning of one record whose earliest unvested tranche is dated on or before `asOf`. */
export function unvestedRecordWarning(issuerId: string, record: RecordRef, tranche: UnvestedTranche, asOf: CalendarDate): MappingWarning {
  return mappingWarning(
    "UNVESTED_BEFORE_AS_OF",
    { issuerId, record, path: "vestingEvents" },
    `event ${tranche.event} of ${tranche.date} (${tranche.amount}) has not vested in the source, yet it is dated on or before the package's as-of date ${asOf}: a reader of the package counts it as vested (and any later tranche the source has not vested, up to that day)`,
  );
}

/**
 * The issuer's warning when `records` of its records have such a tranche; `earliest` is the earliest
 * unvested tranche date of all its records.
 */
export function unvestedIssuerWarning(issuerId: string, records: number, earliest: CalendarDate, asOf: CalendarDate): MappingWarning {
  return mappingWarning(
    "UNVESTED_BEFORE_AS_OF",
    { issuerId, path: "asOf" },
    `is ${asOf}, but ${records} record${records === 1 ? " has" : "s have"} tranches dated on or before it that the source says have not vested, so the package shows more vested than the source. If the source's figures are a snapshot, export as of ${previousDay(earliest)} or earlier (--as-of; library option asOf)`,
  );
}
