/**
 * The sample data itself: valid per the spec, internally consistent by the conventions of
 * samples/README.md (except the one record marked there), and covering the wire quirks of
 * source-api.md §9. Also the loader's errors, and the large issuer's generator.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isCalendarDate, parseUtcDateTime } from "../../../src/dates.js";
import { Dec, SOURCE_DECIMAL_PATTERN, parseSourceDecimal } from "../../../src/decimal.js";
import {
  defaultDataDir,
  issuerFileName,
  loadSampleData,
  type SampleData,
  type WireRecord,
} from "../../../src/sample-server/data.js";
import { LARGE_ISSUER_FILE, SAMPLES_AS_OF, renderLargeIssuer } from "../../../samples/generate-large-issuer.js";

type Kind = "award" | "unit";
type Obj = Record<string, unknown>;

const INCONSISTENT = { issuerId: "acme-robotics", kind: "award", id: "RSA-0003" } as const;
const KNOWN_EXTRAS = new Set(["transferNote", "customAttributes", "legacyGrantNumber"]);

const COMMON_FIELDS = [
  "id", "securityId", "shareClassId", "vestingScheduleTemplateId", "issuerId", "stakeholderId", "equityIncentivePlanName",
  "issueDate", "vestingStartDate", "boardApprovalDate", "stakeholderAcceptanceDate", "canceledDate", "terminationDate",
  "quantity", "vestedQuantity", "securityLabel", "vestingEvents", "vestingSchedule", "canceledQuantity",
  "returnedToPoolQuantity", "returnedToTreasuryQuantity", "lastModifiedDatetime",
];
const FIELDS: Record<Kind, Set<string>> = {
  award: new Set([...COMMON_FIELDS, "shareClassName", "pricePerShare", "precededBy"]),
  unit: new Set([...COMMON_FIELDS, "releasedQuantity", "releasePricePerShare", "netSettledQuantity", "settlements", "forfeitedQuantity", "expiredQuantity"]),
};
const EVENT_FIELDS = new Set(["id", "vestDate", "quantity", "performanceCondition", "vested", "maxQuantity", "targetQuantity", "vestedQuantity"]);
const SETTLEMENT_FIELDS = new Set([
  "settlementDate", "releaseQuantity", "saleQuantity", "withholdingQuantity", "netSettlementQuantity", "settlementPrice", "certificateId", "certificateLabel",
]);
const PRECEDED_BY_REASONS = new Set([
  "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_ISSUED_FROM_SHARE_RESERVE",
  "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_SHARE_CLASS_CONVERTED",
  "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_TRANSFERRED",
  "RESTRICTED_STOCK_AWARD_PRECEDED_BY_REASON_BALANCE_REISSUED",
]);

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
/** `null` and absent are the same on this wire (source-api.md §9.6). */
const present = (v: unknown): boolean => v !== undefined && v !== null;
const wrapped = (v: unknown): string | undefined => (isObj(v) && typeof v.value === "string" ? v.value : undefined);
const dec = (v: unknown): InstanceType<typeof Dec> | undefined => {
  const text = wrapped(v);
  return text === undefined ? undefined : parseSourceDecimal(text);
};
const decOr0 = (v: unknown) => dec(v) ?? new Dec(0);
const sum = (values: InstanceType<typeof Dec>[]) => values.reduce((a, b) => a.plus(b), new Dec(0));
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

function eachRecord(data: SampleData): { issuerId: string; kind: Kind; record: WireRecord }[] {
  return [...data.issuers].flatMap(([issuerId, issuer]) => [
    ...issuer.awards.map((record) => ({ issuerId, kind: "award" as const, record })),
    ...issuer.units.map((record) => ({ issuerId, kind: "unit" as const, record })),
  ]);
}

/** Spec validity: field names, string lengths, wrappers, real dates, decimal syntax. Returns problems. */
function specProblems(issuerId: string, kind: Kind, r: WireRecord): string[] {
  const problems: string[] = [];
  const at = `${issuerId}/${kind}/${String(r.id)}`;
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(`${at}: ${what}`);
  };
  const str = (name: string, min: number, max: number, value: unknown = r[name]) => {
    if (!present(value)) return;
    check(typeof value === "string" && value.length >= min && value.length <= max, `${name} length ${min}-${max}: ${JSON.stringify(value)}`);
  };
  const date = (name: string, value: unknown) => {
    if (!present(value)) return;
    check(isCalendarDate(wrapped(value) ?? ""), `${name} is not a real date: ${JSON.stringify(value)}`);
  };
  const decimal = (name: string, value: unknown) => {
    if (!present(value)) return;
    check(SOURCE_DECIMAL_PATTERN.test(wrapped(value) ?? ""), `${name} is not a wire decimal: ${JSON.stringify(value)}`);
  };
  const money = (name: string, value: unknown) => {
    if (!present(value)) return;
    if (!isObj(value)) return check(false, `${name} is not Money`);
    const code = typeof value.currencyCode === "string" ? value.currencyCode : wrapped(value.currencyCode);
    check(/^[A-Z]{3}$/.test((code ?? "").toUpperCase()), `${name}.currencyCode ${JSON.stringify(value.currencyCode)}`);
    decimal(`${name}.amount`, value.amount);
  };

  for (const key of Object.keys(r)) check(FIELDS[kind].has(key) || KNOWN_EXTRAS.has(key), `unexpected field ${key}`);
  str("id", 1, 50);
  check(r.issuerId === issuerId, "issuerId");
  for (const name of ["securityId", "shareClassId", "vestingScheduleTemplateId", "stakeholderId", "securityLabel", "shareClassName"]) str(name, 1, 50);
  str("equityIncentivePlanName", 1, 100);
  for (const name of ["issueDate", "vestingStartDate", "boardApprovalDate", "stakeholderAcceptanceDate", "canceledDate", "terminationDate"]) date(name, r[name]);
  for (const name of [
    "quantity", "vestedQuantity", "canceledQuantity", "returnedToPoolQuantity", "returnedToTreasuryQuantity",
    "releasedQuantity", "netSettledQuantity", "forfeitedQuantity", "expiredQuantity",
  ]) decimal(name, r[name]);
  money("pricePerShare", r.pricePerShare);
  money("releasePricePerShare", r.releasePricePerShare);
  try {
    parseUtcDateTime(wrapped(r.lastModifiedDatetime) ?? "");
  } catch {
    check(false, "lastModifiedDatetime");
  }
  if (present(r.vestingSchedule)) {
    const s = r.vestingSchedule as Obj;
    str("vestingSchedule.name", 1, 500, s.name);
    for (const name of ["lastModifiedDate", "startDate", "endDate"]) date(`vestingSchedule.${name}`, s[name]);
  }
  arr(r.vestingEvents).forEach((e, i) => {
    for (const key of Object.keys(e)) check(EVENT_FIELDS.has(key), `vestingEvents[${i}] unexpected ${key}`);
    str(`vestingEvents[${i}].id`, 1, 50, e.id);
    date(`vestingEvents[${i}].vestDate`, e.vestDate);
    for (const name of ["quantity", "maxQuantity", "targetQuantity", "vestedQuantity"]) decimal(`vestingEvents[${i}].${name}`, e[name]);
    for (const name of ["performanceCondition", "vested"]) check(!(name in e) || typeof e[name] === "boolean", `vestingEvents[${i}].${name}`);
  });
  arr(r.settlements).forEach((s, i) => {
    for (const key of Object.keys(s)) check(SETTLEMENT_FIELDS.has(key), `settlements[${i}] unexpected ${key}`);
    date(`settlements[${i}].settlementDate`, s.settlementDate);
    for (const name of ["releaseQuantity", "saleQuantity", "withholdingQuantity", "netSettlementQuantity"]) decimal(`settlements[${i}].${name}`, s[name]);
    money(`settlements[${i}].settlementPrice`, s.settlementPrice);
    str(`settlements[${i}].certificateId`, 1, 1000, s.certificateId);
  });
  if (present(r.precededBy)) {
    const p = r.precededBy as Obj;
    check(PRECEDED_BY_REASONS.has(p.reason as string), `precededBy.reason ${String(p.reason)}`);
    arr(p.securities).forEach((s, i) => {
      str(`precededBy.securities[${i}].id`, 1, 50, s.id);
      str(`precededBy.securities[${i}].type`, 1, 50, s.type);
      str(`precededBy.securities[${i}].label`, 1, 50, s.label);
    });
  }
  return problems;
}

/** The consistency conventions of samples/README.md. Returns the rules a record breaks. */
function consistencyProblems(kind: Kind, r: WireRecord): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, rule: string) => {
    if (!ok) problems.push(rule);
  };
  const events = arr(r.vestingEvents);
  const quantity = decOr0(r.quantity);
  const vested = decOr0(r.vestedQuantity);
  const termination = wrapped(r.terminationDate);
  const cutoff = termination !== undefined && termination < SAMPLES_AS_OF ? termination : SAMPLES_AS_OF;

  check(sum(events.map((e) => dec(e.targetQuantity) ?? decOr0(e.quantity))).equals(quantity), "events sum to quantity");
  check(sum(events.filter((e) => e.vested === true).map((e) => decOr0(e.vestedQuantity))).equals(vested), "vested events sum to vestedQuantity");
  events.forEach((e, i) => {
    const isVested = e.vested === true;
    const date = wrapped(e.vestDate);
    check(present(e.vestedQuantity) === isVested, `event ${i}: vestedQuantity iff vested`);
    check(decOr0(e.maxQuantity).gte(decOr0(e.targetQuantity)), `event ${i}: max >= target`);
    if (e.performanceCondition === true) {
      check((date !== undefined) === isVested, `event ${i}: milestone has a date iff vested`);
      const expected = isVested ? e.targetQuantity : e.maxQuantity;
      check(decOr0(e.quantity).equals(decOr0(expected)), `event ${i}: milestone quantity`);
      if (isVested) check(date !== undefined && date <= SAMPLES_AS_OF, `event ${i}: milestone date`);
    } else {
      check(date !== undefined, `event ${i}: time-based event has a date`);
      check(isVested === (date !== undefined && date <= cutoff), `event ${i}: vested iff vestDate <= ${cutoff}`);
      check(decOr0(e.quantity).equals(decOr0(e.targetQuantity)) && decOr0(e.maxQuantity).equals(decOr0(e.targetQuantity)), `event ${i}: time-based quantities equal`);
    }
  });
  const canceled = decOr0(r.canceledQuantity);
  check(canceled.equals(decOr0(r.returnedToPoolQuantity).plus(decOr0(r.returnedToTreasuryQuantity))), "canceled = pool + treasury");
  if (termination !== undefined) {
    check(wrapped(r.canceledDate) !== undefined && termination <= (wrapped(r.canceledDate) as string), "terminationDate <= canceledDate");
  }
  const issue = wrapped(r.issueDate) ?? "";
  check((wrapped(r.boardApprovalDate) ?? issue) <= issue, "boardApprovalDate <= issueDate");
  check(issue <= (wrapped(r.stakeholderAcceptanceDate) ?? issue), "issueDate <= stakeholderAcceptanceDate");

  if (kind === "award") {
    if (termination !== undefined) check(canceled.equals(quantity.minus(vested)), "terminated award cancels the unvested shares");
    return problems;
  }
  const settlements = arr(r.settlements);
  const released = decOr0(r.releasedQuantity);
  settlements.forEach((s, i) => {
    check(
      decOr0(s.releaseQuantity).equals(decOr0(s.netSettlementQuantity).plus(decOr0(s.withholdingQuantity)).plus(decOr0(s.saleQuantity))),
      `settlement ${i}: release = net + withholding + sale`,
    );
    check((wrapped(s.settlementDate) ?? "") <= SAMPLES_AS_OF, `settlement ${i}: date`);
  });
  check(sum(settlements.map((s) => decOr0(s.releaseQuantity))).equals(released), "releasedQuantity = sum of releases");
  check(sum(settlements.map((s) => decOr0(s.netSettlementQuantity))).equals(decOr0(r.netSettledQuantity)), "netSettledQuantity = sum of nets");
  check(released.lte(vested), "released <= vested");
  const forfeited = decOr0(r.forfeitedQuantity);
  const expired = decOr0(r.expiredQuantity);
  check(canceled.equals(forfeited.plus(expired)), "canceled = forfeited + expired");
  if (termination !== undefined) {
    check(forfeited.equals(quantity.minus(vested)), "terminated unit forfeits the unvested units");
    // Either the unsettled vested units expire, or they are kept (nothing expires) and settled later.
    check(expired.equals(vested.minus(released)) || expired.isZero(), "terminated unit's unsettled vested units expire or are kept");
  }
  return problems;
}

let data: SampleData;
beforeAll(async () => {
  data = await loadSampleData();
});

describe("sample issuers", () => {
  it("are the five documented issuers, each in a file named after its escaped id", async () => {
    expect([...data.issuers.keys()].sort()).toEqual(["144361", "7", "acme-robotics", "north wind/eu", "zeta%labs"]);
    const files = (await readdir(defaultDataDir())).sort();
    expect(files).toEqual([...data.issuers.keys()].map(issuerFileName).sort());
    expect(files).toContain("north%20wind%2Feu.json");
    expect(files).toContain("zeta%25labs.json");
  });

  it("include a large issuer of more than 120 records and an empty one", () => {
    const large = data.issuers.get("144361");
    expect(large?.awards).toHaveLength(80);
    expect(large?.units).toHaveLength(70);
    expect(data.issuers.get("zeta%labs")).toEqual({ awards: [], units: [] });
  });

  it("have record ids that need escaping in a URL", () => {
    const ids = eachRecord(data).map((r) => r.record.id as string);
    expect(ids.some((id) => id.includes("/"))).toBe(true);
    expect(ids.some((id) => id.includes("%"))).toBe(true);
  });

  it("have distinct lastModifiedDatetime seconds within each issuer", () => {
    for (const [issuerId, issuer] of data.issuers) {
      const seconds = [...issuer.awards, ...issuer.units].map((r) => parseUtcDateTime(wrapped(r.lastModifiedDatetime) ?? "").slice(0, 19));
      expect(new Set(seconds).size, issuerId).toBe(seconds.length);
    }
  });

  it("are valid per the spec", () => {
    const problems = eachRecord(data).flatMap(({ issuerId, kind, record }) => specProblems(issuerId, kind, record));
    expect(problems).toEqual([]);
  });

  it("are consistent, except the one record samples/README.md marks as inconsistent", () => {
    const broken = eachRecord(data)
      .map(({ issuerId, kind, record }) => ({ issuerId, kind, id: record.id, problems: consistencyProblems(kind, record) }))
      .filter((r) => r.problems.length > 0);
    expect(broken).toEqual([{ ...INCONSISTENT, problems: ["vested events sum to vestedQuantity"] }]);
  });

  it("name the inconsistent record in samples/README.md", async () => {
    const readme = await readFile(path.resolve(defaultDataDir(), "../README.md"), "utf8");
    expect(readme).toContain(`\`${INCONSISTENT.issuerId}\` / RSA \`${INCONSISTENT.id}\``);
  });

  it("cover the wire quirks", () => {
    const records = eachRecord(data).map((r) => r.record);
    const json = JSON.stringify(records);
    const values: string[] = [];
    const walk = (v: unknown, key: string): void => {
      if (Array.isArray(v)) v.forEach((x) => walk(x, key));
      else if (isObj(v)) for (const [k, x] of Object.entries(v)) walk(x, k);
      else if (typeof v === "string" && key === "value") values.push(v);
    };
    walk(records, "");
    const events = records.flatMap((r) => arr(r.vestingEvents));
    const settlements = records.flatMap((r) => arr(r.settlements));
    const moneys = records.flatMap((r) => [r.pricePerShare, r.releasePricePerShare, ...arr(r.settlements).map((s) => s.settlementPrice)]).filter(isObj);
    const fractionDigits = new Set(
      records.map((r) => /(?:\.(\d+))?Z$/.exec(wrapped(r.lastModifiedDatetime) ?? "")?.[1]?.length ?? 0),
    );

    expect(json).toContain(":null");
    expect(values.some((v) => /\.\d*0{20}$/.test(v))).toBe(true); // long zero tails
    expect(values).toContain("1500000.00000000000000000000");
    expect(values).toContain("1e-05");
    expect(values).toContain("2.5E+3");
    expect(values.some((v) => v.startsWith("."))).toBe(true);
    expect([...fractionDigits]).toEqual(expect.arrayContaining([0, 3, 6]));
    expect(moneys.some((m) => isObj(m.currencyCode))).toBe(true);
    expect(moneys.some((m) => m.currencyCode === "USD")).toBe(true);
    expect(moneys.some((m) => m.currencyCode === "usd")).toBe(true);
    expect(events.some((e) => !("vested" in e))).toBe(true);
    expect(events.some((e) => !("performanceCondition" in e))).toBe(true);
    expect(events.some((e) => e.vested === false && e.performanceCondition === false)).toBe(true);
    expect(records.some((r) => !("settlements" in r) && data.issuers.get(r.issuerId as string)?.units.includes(r))).toBe(true);
    expect(records.some((r) => Object.keys(r).some((k) => KNOWN_EXTRAS.has(k)))).toBe(true);
    for (const field of ["securityId", "shareClassId", "vestingScheduleTemplateId", "precededBy"]) {
      expect(records.some((r) => present(r[field])), field).toBe(true);
    }
    expect(new Set(records.map((r) => (r.precededBy as Obj | undefined)?.reason).filter(present))).toEqual(PRECEDED_BY_REASONS);
    // milestones: unvested ones have neither date nor vested quantity, vested ones have both
    expect(events.some((e) => e.performanceCondition === true && !("vestDate" in e) && !("vestedQuantity" in e))).toBe(true);
    expect(events.some((e) => e.performanceCondition === true && "vestDate" in e && "vestedQuantity" in e)).toBe(true);
    // cancellations, pool and treasury, forfeiture and expiry, settlement without a price, several settlements
    expect(records.some((r) => present(r.canceledDate) && present(r.terminationDate) && wrapped(r.canceledDate) !== wrapped(r.terminationDate))).toBe(true);
    for (const field of ["returnedToPoolQuantity", "returnedToTreasuryQuantity", "forfeitedQuantity", "expiredQuantity"]) {
      expect(records.some((r) => decOr0(r[field]).gt(0)), field).toBe(true);
    }
    expect(settlements.some((s) => !("settlementPrice" in s))).toBe(true);
    expect(settlements.some((s) => decOr0(s.withholdingQuantity).gt(0))).toBe(true);
    expect(settlements.some((s) => decOr0(s.saleQuantity).gt(0))).toBe(true);
    expect(records.some((r) => arr(r.settlements).length >= 3)).toBe(true);
    // fractional shares
    expect(records.some((r) => !decOr0(r.quantity).isInteger())).toBe(true);
  });
});

describe("the large issuer's generator", () => {
  it("reproduces the committed file exactly", async () => {
    expect(renderLargeIssuer()).toBe(await readFile(LARGE_ISSUER_FILE, "utf8"));
  });
});

describe("loadSampleData", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function loadOne(fileName: string, content: unknown): Promise<unknown> {
    dir = await mkdtemp(path.join(tmpdir(), "ocf-sync-samples-"));
    await writeFile(path.join(dir, fileName), typeof content === "string" ? content : JSON.stringify(content));
    return loadSampleData(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
  }

  const record = { id: "r1", issuerId: "x/y", lastModifiedDatetime: { value: "2024-01-01T00:00:00Z" } };

  it("loads a minimal valid directory", async () => {
    dir = await mkdtemp(path.join(tmpdir(), "ocf-sync-samples-"));
    await writeFile(path.join(dir, issuerFileName("x/y")), JSON.stringify({ issuerId: "x/y", restrictedStockUnits: [record] }));
    await writeFile(path.join(dir, "notes.txt"), "ignored");
    const loaded = await loadSampleData(dir);
    expect([...loaded.issuers.keys()]).toEqual(["x/y"]);
    expect(loaded.issuers.get("x/y")).toEqual({ awards: [], units: [record] });
  });

  it.each([
    ["not JSON", "x%2Fy.json", "{", /not valid JSON/],
    ["a file named after another id", "x-y.json", { issuerId: "x/y" }, /must be named x%2Fy\.json/],
    ["an unknown top-level key", "x%2Fy.json", { issuerId: "x/y", restrictedStockAward: [] }, /unknown top-level key "restrictedStockAward"/],
    ["a missing issuerId", "x%2Fy.json", { restrictedStockUnits: [] }, /issuerId must be a string/],
    ["records that are not an array", "x%2Fy.json", { issuerId: "x/y", restrictedStockUnits: {} }, /restrictedStockUnits must be an array/],
    ["a record without id", "x%2Fy.json", { issuerId: "x/y", restrictedStockAwards: [{ ...record, id: "" }] }, /restrictedStockAwards\[0\]\.id/],
    ["a duplicate id", "x%2Fy.json", { issuerId: "x/y", restrictedStockAwards: [record, record] }, /restrictedStockAwards\[1\]\.id: duplicate id "r1"/],
    ["a record of another issuer", "x%2Fy.json", { issuerId: "x/y", restrictedStockAwards: [{ ...record, issuerId: "7" }] }, /\(id "r1"\)\.issuerId: expected "x\/y", got "7"/],
    [
      "a bad lastModifiedDatetime",
      "x%2Fy.json",
      { issuerId: "x/y", restrictedStockUnits: [{ ...record, lastModifiedDatetime: { value: "2024-01-01" } }] },
      /restrictedStockUnits\[0\] \(id "r1"\)\.lastModifiedDatetime\.value/,
    ],
  ])("rejects %s with SAMPLE_DATA_INVALID naming the file and field", async (_, fileName, content, message) => {
    const error = await loadOne(fileName, content);
    expect(error).toMatchObject({ code: "SAMPLE_DATA_INVALID", message: expect.stringMatching(message) });
    expect((error as Error).message).toContain(fileName);
  });

  it("honours an aborted signal", async () => {
    await expect(loadSampleData(defaultDataDir(), { signal: AbortSignal.abort() })).rejects.toThrow();
  });
});
