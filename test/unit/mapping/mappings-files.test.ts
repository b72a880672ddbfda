/**
 * `mappings/` against the code: every field the parser reads is listed (and nothing else), every entry
 * is well formed, and every target an entry names really moves when the source field moves. Each
 * target is checked on a small record (`case` names which one): the field is changed, the record
 * mapped again, and the values at the target's path must differ. A dropped field must change nothing
 * (or be rejected, naming the field).
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Dec, formatDecimal } from "../../../src/decimal.js";
import { isMappingError } from "../../../src/mapping/errors.js";
import { buildPackageFiles } from "../../../src/ocf/package-files.js";
import { OBJECT_TYPES } from "../../../src/ocf/schemas.js";
import { SPEC_FIELDS, type RestrictedStockAward, type RestrictedStockUnit, type SourceTypeName } from "../../../src/source/records.js";
import { mappedObjects } from "../../helpers/ocf-verdicts.js";
import { baseAward, baseUnit, mapRecords, termsAward, termsUnit } from "./fixtures.js";

const MAPPINGS_DIR = path.resolve(import.meta.dirname, "../../../mappings");

const FILE_OF: Readonly<Record<SourceTypeName | "decimal" | "date" | "dateTime", string>> = {
  restrictedStockAward: "restricted-stock-award.json",
  restrictedStockUnit: "restricted-stock-unit.json",
  vestingEvent: "vesting-event.json",
  settlement: "settlement.json",
  vestingSchedule: "vesting-schedule.json",
  money: "money.json",
  precededBy: "preceded-by.json",
  precededBySecurity: "preceded-by-security.json",
  decimal: "decimal.json",
  date: "date.json",
  dateTime: "date-time.json",
};

const TRANSFORMS = ["rename", "computed", "split", "combine", "dropped"];

interface Target {
  object: string;
  path: string;
  case?: string;
  rule?: string;
}
interface FieldEntry {
  field: string;
  transform: string;
  targets: Target[];
  note?: string;
  reason?: string;
}
interface MappingFile {
  sourceType: string;
  wireType: string;
  ocfVersion: string;
  summary: string;
  fields: FieldEntry[];
}

function readMapping(file: string): MappingFile {
  return JSON.parse(readFileSync(path.join(MAPPINGS_DIR, file), "utf8")) as MappingFile;
}

type Records = { awards: RestrictedStockAward[]; units: RestrictedStockUnit[] };
/** A record set, and where in it the source type's fields live. */
interface Case {
  records: () => Records;
  at: (records: Records) => Record<string, unknown>;
}

const award0 = (r: Records) => r.awards[0] as unknown as Record<string, unknown>;
const unit0 = (r: Records) => r.units[0] as unknown as Record<string, unknown>;
// Factories, so that every check starts from fresh records.
const withAward = (award: () => RestrictedStockAward): (() => Records) => () => ({ awards: [award()], units: [] });
const withUnit = (unit: () => RestrictedStockUnit): (() => Records) => () => ({ awards: [], units: [unit()] });
const without = <T extends object>(value: T, key: keyof T): T => {
  const copy = { ...value };
  delete copy[key];
  return copy;
};
const eventOf = (id: string) => (r: Records) => {
  const event = r.awards[0]?.vestingEvents.find((e) => e.id === id);
  if (event === undefined) throw new Error(`no event ${id}`);
  return event as unknown as Record<string, unknown>;
};
const firstSettlement = (r: Records) => r.units[0]?.settlements[0] as unknown as Record<string, unknown>;
const withFirstSettlement = (change: (s: RestrictedStockUnit["settlements"][number]) => RestrictedStockUnit["settlements"][number]) => {
  return withUnit(() => {
    const unit = baseUnit();
    const [first, ...rest] = unit.settlements;
    if (first === undefined) throw new Error("no settlement");
    return { ...unit, settlements: [change(first), ...rest] };
  });
};
const termsBare = (): RestrictedStockAward => {
  const award = termsAward();
  return { ...award, vestingEvents: award.vestingEvents.map((e) => (e.id === "m2" ? { ...without(e, "targetQuantity"), quantity: "999" } : e)) };
};
/** baseAward, not terminated and cancelling nothing: every tranche is still to vest or vested. */
const activeAward = (): RestrictedStockAward => {
  const { canceledDate: _c, terminationDate: _t, ...award } = baseAward();
  return { ...award, canceledQuantity: "0", returnedToPoolQuantity: "0", returnedToTreasuryQuantity: "0" };
};

/** The records each target is checked on, per source type and case. */
const CASES: Readonly<Record<SourceTypeName, Readonly<Record<string, Case>>>> = {
  restrictedStockAward: {
    default: { records: withAward(() => baseAward()), at: award0 },
    terms: { records: withAward(() => termsAward()), at: award0 },
    noLabel: { records: withAward(() => without(baseAward(), "securityLabel")), at: award0 },
    noCancelDate: { records: withAward(() => without(baseAward(), "canceledDate")), at: award0 },
    noVestingStart: { records: withAward(() => without(termsAward(), "vestingStartDate")), at: award0 },
  },
  restrictedStockUnit: {
    default: { records: withUnit(() => baseUnit()), at: unit0 },
    terms: { records: withUnit(() => termsUnit()), at: unit0 },
    noLabel: { records: withUnit(() => without(baseUnit(), "securityLabel")), at: unit0 },
    noCancelDate: { records: withUnit(() => without(baseUnit(), "canceledDate")), at: unit0 },
    noVestingStart: { records: withUnit(() => without(termsUnit(), "vestingStartDate")), at: unit0 },
    canceledOnly: { records: withUnit(() => ({ ...baseUnit(), forfeitedQuantity: "0", expiredQuantity: "0" })), at: unit0 },
    noCanceledTotal: { records: withUnit(() => without(baseUnit(), "canceledQuantity")), at: unit0 },
    partial: {
      records: withUnit(() => ({ ...baseUnit(), canceledQuantity: "375", forfeitedQuantity: "375", expiredQuantity: "0", returnedToPoolQuantity: "375", returnedToTreasuryQuantity: "0" })),
      at: unit0,
    },
  },
  vestingEvent: {
    vestings: { records: withAward(() => baseAward()), at: eventOf("e1") },
    vestingsPending: { records: withAward(() => activeAward()), at: eventOf("e4") },
    terms: { records: withAward(() => termsAward()), at: eventOf("m1") },
    termsPending: { records: withAward(() => termsAward()), at: eventOf("m2") },
    termsBare: { records: withAward(() => termsBare()), at: eventOf("m2") },
  },
  settlement: {
    default: { records: withUnit(() => baseUnit()), at: firstSettlement },
    netZero: { records: withFirstSettlement((s) => ({ ...s, netSettlementQuantity: "0" })), at: firstSettlement },
    // One share sold: one less is none, and the sold issuance goes.
    sold: { records: withFirstSettlement((s) => ({ ...s, saleQuantity: "1", withholdingQuantity: "99" })), at: firstSettlement },
    noCertificateLabel: { records: withFirstSettlement((s) => without(s, "certificateLabel")), at: firstSettlement },
    singleSettlement: { records: withUnit(() => ({ ...baseUnit(), settlements: baseUnit().settlements.slice(0, 1) })), at: firstSettlement },
  },
  vestingSchedule: {
    vestings: { records: withAward(() => baseAward()), at: (r) => r.awards[0]?.vestingSchedule as unknown as Record<string, unknown> },
    terms: { records: withAward(() => termsAward()), at: (r) => r.awards[0]?.vestingSchedule as unknown as Record<string, unknown> },
  },
  money: {
    default: { records: withAward(() => baseAward()), at: (r) => r.awards[0]?.pricePerShare as unknown as Record<string, unknown> },
  },
  precededBy: {
    default: { records: withAward(() => baseAward()), at: (r) => r.awards[0]?.precededBy as unknown as Record<string, unknown> },
  },
  precededBySecurity: {
    default: { records: withAward(() => baseAward()), at: (r) => r.awards[0]?.precededBy?.securities[0] as unknown as Record<string, unknown> },
  },
};

/**
 * A different value of the same kind, so that the mapping still accepts it: a date one day earlier
 * (every fixture date has a day to spare before the next event), a grant's quantity one more, every
 * other count one less (counters such as canceled or released are at their ceiling in the fixtures),
 * a price one more.
 */
function changed(value: unknown, field: string): unknown {
  if (typeof value === "boolean") return !value;
  if (Array.isArray(value)) return [];
  if (typeof value === "object" && value !== null) {
    if ("currency" in value && "amount" in value) {
      const money = value as { currency: string; amount: string };
      return { currency: changed(money.currency, "currency"), amount: formatDecimal(new Dec(money.amount).plus(1)) };
    }
    return undefined;
  }
  if (typeof value !== "string") throw new Error(`cannot change ${String(value)}`);
  const date = /^(\d{4}-\d{2}-\d{2})(.*)$/.exec(value);
  if (date !== null) {
    const day = new Date(`${date[1] as string}T00:00:00Z`);
    day.setUTCDate(day.getUTCDate() - 1);
    return `${day.toISOString().slice(0, 10)}${date[2] ?? ""}`;
  }
  if (/^[A-Z]{3}$/.test(value)) return value === "EUR" ? "USD" : "EUR";
  if (/^-?\d+(\.\d+)?$/.test(value)) {
    const dec = new Dec(value);
    return formatDecimal(field === "quantity" || dec.lt(1) ? dec.plus(1) : dec.minus(1));
  }
  return `${value}-x`;
}

/** Maps the records and returns every OCF object, the manifest included, keyed by type. */
function outputOf(records: Records): Map<string, unknown[]> {
  const mapped = mapRecords(records);
  const { manifest } = buildPackageFiles(mapped, { generatedAt: "2025-06-30T00:00:00Z" });
  const objects: { object_type?: string; file_type?: string }[] = [manifest, ...mappedObjects(mapped)];
  const byType = new Map<string, unknown[]>();
  for (const object of objects) {
    const type = object.object_type ?? object.file_type ?? "";
    byType.set(type, [...(byType.get(type) ?? []), object]);
  }
  return byType;
}

/** The values at a path such as `vesting_conditions[].trigger.type` in every object of the type. */
function valuesAt(output: Map<string, unknown[]>, target: Target): string {
  let values: unknown[] = output.get(target.object) ?? [];
  for (const segment of target.path.split(".")) {
    const key = segment.replace(/\[\]$/, "");
    values = values.map((v) => (typeof v === "object" && v !== null ? (v as Record<string, unknown>)[key] : undefined));
    if (segment.endsWith("[]")) values = values.flatMap((v) => (Array.isArray(v) ? v : []));
  }
  return JSON.stringify(values);
}

/** Where the parser keeps a wire field under another name (Money's `currencyCode` is `currency`). */
const PARSED_NAME: Readonly<Record<string, string>> = { currencyCode: "currency" };
const parsedName = (field: string): string => PARSED_NAME[field] ?? field;

function mutatedRecords(kase: Case, wireField: string): Records {
  const field = parsedName(wireField);
  const records = kase.records();
  const container = kase.at(records);
  const next = changed(container[field], field);
  if (next === undefined) delete container[field];
  else container[field] = next;
  return records;
}

const SOURCE_TYPES = Object.keys(SPEC_FIELDS) as SourceTypeName[];

describe("mappings/", () => {
  it("holds one file per source type and wrapper, and nothing else", () => {
    const files = readdirSync(MAPPINGS_DIR).filter((f) => f.endsWith(".json")).sort();
    expect(files).toEqual(Object.values(FILE_OF).sort());
    for (const [type, file] of Object.entries(FILE_OF)) expect(readMapping(file).sourceType).toBe(type);
  });

  it.each(SOURCE_TYPES)("lists every field of %s, once, and no field the source does not have", (type) => {
    const listed = readMapping(FILE_OF[type]).fields.map((f) => f.field);
    expect([...listed].sort()).toEqual([...SPEC_FIELDS[type]].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it.each(["decimal", "date", "dateTime"] as const)("describes the %s wrapper's value", (type) => {
    expect(readMapping(FILE_OF[type]).fields.map((f) => f.field)).toEqual(["value"]);
  });

  it.each(Object.values(FILE_OF))("%s: every entry has a transform, a note or reason, and known targets", (file) => {
    const mapping = readMapping(file);
    expect(mapping.ocfVersion).toBe("1.2.0");
    expect(mapping.summary.length).toBeGreaterThan(40);
    const knownObjects = new Set<string>([...OBJECT_TYPES, "OCF_MANIFEST_FILE", "*"]);
    for (const entry of mapping.fields) {
      expect(TRANSFORMS, entry.field).toContain(entry.transform);
      if (entry.transform === "dropped") {
        expect(entry.targets, entry.field).toEqual([]);
        expect(entry.reason?.length ?? 0, entry.field).toBeGreaterThan(20);
      } else {
        expect(entry.targets.length, entry.field).toBeGreaterThan(0);
        expect(entry.note?.length ?? 0, entry.field).toBeGreaterThan(5);
      }
      for (const target of entry.targets) expect(knownObjects, `${entry.field} → ${target.object}`).toContain(target.object);
    }
  });

  const checks: { type: SourceTypeName; entry: FieldEntry; target: Target | undefined }[] = SOURCE_TYPES.flatMap((type) =>
    readMapping(FILE_OF[type]).fields.flatMap((entry) =>
      entry.transform === "dropped"
        ? [{ type, entry, target: undefined as Target | undefined }]
        : entry.targets.map((target) => ({ type, entry, target: target as Target | undefined })),
    ),
  );

  it.each(checks.map((c) => [`${c.type}.${c.entry.field}`, c.target === undefined ? "(dropped)" : `${c.target.object}.${c.target.path}${c.target.case === undefined ? "" : ` [${c.target.case}]`}`, c] as const))(
    "%s → %s follows the field",
    (_field, _target, { type, entry, target }) => {
      const cases = CASES[type];
      if (target === undefined) {
        for (const kase of Object.values(cases)) {
          let after: Map<string, unknown[]> | undefined;
          try {
            after = outputOf(mutatedRecords(kase, entry.field));
          } catch (error) {
            expect(isMappingError(error) && error.path === entry.field, String(error)).toBe(true);
            continue;
          }
          expect(after).toEqual(outputOf(kase.records()));
        }
        return;
      }
      const kase = cases[target.case ?? "default"];
      if (kase === undefined) throw new Error(`mappings/${FILE_OF[type]}: no test case ${JSON.stringify(target.case)} for ${type}`);
      expect(kase.at(kase.records())[parsedName(entry.field)], "the case record must have the field").not.toBeUndefined();
      const before = valuesAt(outputOf(kase.records()), target);
      const after = valuesAt(outputOf(mutatedRecords(kase, entry.field)), target);
      expect(before).not.toBe("[]");
      expect(after).not.toBe(before);
    },
  );
});
