/**
 * What the issuer-level objects (Issuer, Stakeholders, StockClasses, StockPlans) are built from: the
 * `RecordUses` of the records in a package, tallied. Every one of those objects depends on the uses
 * only through sets, counts, sums and a minimum, so a tally holds one entry per distinct value (a
 * stakeholder, a class use, a plan, a date), never one per record, and a record can be taken out
 * again exactly (a newer copy replaces it, or it loses an id collision).
 */
import type { CalendarDate } from "../dates.js";
import { subtractDecimalStrings, sumDecimalStrings, type DecimalString } from "../decimal.js";
import { compareText } from "../ocf/order.js";
import { labelPrefix } from "./stock-classes.js";
import type { RecordUses, StockClassUse } from "./types.js";

/** The grants made under one plan that deliver one class key (or none), summed. */
export interface PlanUse {
  name: string;
  stockClassKey?: string;
  /** The sum of the grants' quantities. */
  quantity: DecimalString;
  /** How many grants. */
  grants: number;
}

/** The tallied uses of an issuer's records. */
export interface IssuerUses {
  /** Each stakeholder id used, once, in order. */
  stakeholderIds: string[];
  /** Each distinct class use (labels reduced to their prefixes, all that `idPrefixOf` looks at), by key, name, id and labels. */
  stockClasses: StockClassUse[];
  /** By plan name, then class key. */
  plans: PlanUse[];
  soldToCover: boolean;
  /** The earliest `earliestDate` of the records. */
  earliestDate: CalendarDate | undefined;
}

interface Counted<T> {
  value: T;
  count: number;
}

/** Counts per key; an entry whose count falls to 0 is gone. */
export class CountedMap<T> {
  private readonly entries = new Map<string, Counted<T>>();

  change(key: string, value: () => T, delta: 1 | -1): Counted<T> | undefined {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (delta < 0) throw new Error(`${JSON.stringify(key)} taken out more often than put in`);
      this.entries.set(key, (entry = { value: value(), count: 0 }));
    }
    entry.count += delta;
    if (entry.count === 0) this.entries.delete(key);
    return entry.count === 0 ? undefined : entry;
  }

  /** The values, by key. */
  sortedValues(): T[] {
    return [...this.entries].sort(([a], [b]) => compareText(a, b)).map(([, entry]) => entry.value);
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }
}

/** A class use with its labels' prefixes instead of the labels (all `idPrefixOf` looks at; a prefix is its own prefix). */
function compactClassUse(use: StockClassUse): StockClassUse {
  return { ...use, labels: [...new Set(use.labels.map(labelPrefix))] };
}

/** A record's uses with class uses by label prefix (`compactClassUse`): what a tally needs to take it out again. */
export function compactUses(uses: RecordUses): RecordUses {
  return { ...uses, stockClasses: uses.stockClasses.map(compactClassUse) };
}

/**
 * A running tally of records' uses. `add` and `remove` cost the size of one record's uses; memory is
 * the number of distinct values, not of records.
 */
export class UsesTally {
  private readonly stakeholders = new CountedMap<string>();
  private readonly classes = new CountedMap<StockClassUse>();
  private readonly plans = new CountedMap<PlanUse>();
  private readonly earliest = new CountedMap<CalendarDate>();
  private soldToCover = 0;

  add(uses: RecordUses): void {
    this.change(uses, 1);
  }

  /** Takes out a record added before (with the same uses). */
  remove(uses: RecordUses): void {
    this.change(uses, -1);
  }

  private change(uses: RecordUses, delta: 1 | -1): void {
    this.stakeholders.change(uses.stakeholderId, () => uses.stakeholderId, delta);
    for (const use of uses.stockClasses) {
      const compacted = compactClassUse(use);
      // Keyed by a tuple that no field's text can forge (each part is JSON).
      this.classes.change(JSON.stringify([compacted.key, compacted.name ?? null, compacted.id ?? null, compacted.labels]), () => compacted, delta);
    }
    const { plan } = uses;
    if (plan !== undefined) {
      const entry = this.plans.change(JSON.stringify([plan.name, plan.stockClassKey ?? null]), () => ({ name: plan.name, ...(plan.stockClassKey === undefined ? {} : { stockClassKey: plan.stockClassKey }), quantity: "0", grants: 0 }), delta);
      if (entry !== undefined) {
        entry.value.quantity = delta > 0 ? sumDecimalStrings([entry.value.quantity, plan.quantity]) : subtractDecimalStrings(entry.value.quantity, plan.quantity);
        entry.value.grants += delta;
      }
    }
    if (uses.soldToCover === true) this.soldToCover += delta;
    if (uses.earliestDate !== undefined) this.earliest.change(uses.earliestDate, () => uses.earliestDate as CalendarDate, delta);
  }

  summary(): IssuerUses {
    let earliestDate: CalendarDate | undefined;
    for (const date of this.earliest.keys()) if (earliestDate === undefined || date < earliestDate) earliestDate = date;
    // In the order of their keys, not of arrival: the head objects, their warnings and the first
    // conflict reported are the same whatever order the records came in.
    return {
      stakeholderIds: this.stakeholders.keys().sort(compareText),
      stockClasses: this.classes.sortedValues(),
      plans: this.plans.sortedValues().map((p) => ({ ...p })),
      soldToCover: this.soldToCover > 0,
      earliestDate,
    };
  }
}

/** The tally of a list of uses (`mapIssuer`, which holds every record anyway). */
export function tallyUses(uses: Iterable<RecordUses>): IssuerUses {
  const tally = new UsesTally();
  for (const use of uses) tally.add(use);
  return tally.summary();
}
