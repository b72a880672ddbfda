/**
 * Which share class a record's shares belong to. The source names a class two ways: awards carry a
 * `shareClassName` (and, on newer data, a `shareClassId`), units only a `shareClassId` (source-api.md
 * §9.11, §10). A class is keyed by its name whenever the name can be known, so that awards and units of
 * one class share one OCF stock class:
 *
 * - an award: its `shareClassName`;
 * - a unit with a `shareClassId`: the name the issuer profile gives that id, else the name an award of
 *   the issuer with the same `shareClassId` gives it, else the id itself (a class known only by id:
 *   its StockClass gets a placeholder name, with a warning);
 * - a unit without one: the caller's `settlementStockClassName`, else no class at all (a unit whose
 *   settlements issue shares is then a `MappingError`: no class is invented).
 *
 * A unit can only be resolved once every award of the issuer is known (`ShareClassDirectory.complete`);
 * until then a unit whose id no award has named yet waits (the accumulator defers it).
 */
import type { RestrictedStockAward, RestrictedStockUnit } from "../source/records.js";
import type { MappingOptions, StockClassUse } from "./types.js";

/** The names the issuer's awards give class ids. */
export interface ShareClassDirectory {
  /** The name awards give `shareClassId`, if any has. */
  nameOf(shareClassId: string): string | undefined;
  /** Every award of the issuer has been seen: an id no award names now stays unnamed. */
  readonly complete: boolean;
}

/** A directory that knows no names and is complete: only the issuer profile names ids. */
export const NO_AWARD_NAMES: ShareClassDirectory = { nameOf: () => undefined, complete: true };

/** The class of an award (its name is required, checked by the caller). */
export function awardClassUse(record: RestrictedStockAward, name: string): StockClassUse {
  return {
    key: name,
    name,
    ...(record.shareClassId === undefined ? {} : { id: record.shareClassId }),
    labels: record.securityLabel === undefined ? [] : [record.securityLabel],
  };
}

/**
 * The class a unit's settlements deliver: a `StockClassUse` (its labels are the certificate labels),
 * `undefined` when neither the unit nor the options say, or `"deferred"` when the unit's class id may
 * still be named by an award not yet seen.
 */
export function unitClassUse(record: RestrictedStockUnit, options: MappingOptions | undefined, directory: ShareClassDirectory): StockClassUse | undefined | "deferred" {
  const labels: string[] = [];
  for (const s of record.settlements) if (s.certificateLabel !== undefined) labels.push(s.certificateLabel);
  const id = record.shareClassId;
  if (id === undefined) {
    const name = options?.settlementStockClassName;
    return name === undefined ? undefined : { key: name, name, labels };
  }
  const name = options?.issuerProfile?.shareClasses?.[id]?.name ?? directory.nameOf(id);
  if (name !== undefined) return { key: name, name, id, labels };
  if (!directory.complete) return "deferred";
  return { key: id, id, labels };
}
