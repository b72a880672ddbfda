/**
 * validateOcfPackage over packages read from memory: a valid package passes, and each corruption
 * gives exactly the problems expected, with code, file, item id and JSON path.
 */
import { describe, expect, it } from "vitest";
import { MANIFEST_FILE_LIST_KEYS, readOcfPackageFromFiles, type InMemoryPackageFile } from "../../../src/ocf/package-reader.js";
import type { Lineage } from "../../../src/ocf/security-ledger.js";
import { validateOcfPackage, type PackageProblem } from "../../../src/ocf/validate-package.js";
import { example } from "../../helpers/ocf-examples.js";
import {
  fixtureBytes,
  itemOf,
  loadFiles,
  locate,
  resealed,
  validFixture,
  withManifest,
  type PackageFixture,
} from "../../helpers/ocf-package-fixture.js";
import { describeConformance } from "../../helpers/conformance.js";
import { expectOcfSyncValidFiles, parsedFiles } from "../../helpers/ocf-verdicts.js";
import { expectOfficiallyValidFiles } from "../../helpers/official-ocf.js";

const MANIFEST = "Manifest.ocf.json";
const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

/** The problems of `fixture` as rows (code, object, path, message) are `expected`, read by either lineage. */
async function expectInBothReadings(fixture: PackageFixture, expected: (string | undefined)[][]): Promise<void> {
  for (const reader of ["documents", "same-security"] as const) {
    const problems = (await problemsOf(fixtureBytes(fixture), reader)).map((p) => [p.code, p.itemId, p.jsonPath, p.message]);
    expect(problems).toEqual(expected);
  }
}

async function problemsOf(files: ReadonlyMap<string, Uint8Array>, reader?: Lineage): Promise<PackageProblem[]> {
  return validateOcfPackage(await loadFiles(files), reader === undefined ? {} : { reader }).problems;
}

/** The problems of the fixture after `change`; compared without messages, which have their own tests. */
async function problemsAfter(change: (fixture: PackageFixture) => void, reader?: Lineage): Promise<Omit<PackageProblem, "message">[]> {
  const fixture = validFixture();
  change(fixture);
  return (await problemsOf(fixtureBytes(fixture), reader)).map(({ message: _message, ...rest }) => rest);
}

const at = (code: string, fixture: PackageFixture, id: string, field?: string) => ({ code, ...locate(fixture, id, field) });

describe("a valid package", () => {
  it("has no problem, and the counts say what it holds", async () => {
    const report = validateOcfPackage(await loadFiles(fixtureBytes(validFixture())));
    expect(report.problems).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.lineage).toEqual({ reading: "documents", from: "default" });
    expect(report.counts).toEqual({
      files: 6,
      objects: 19,
      objectsByType: {
        STOCK_PLAN: 1,
        STOCK_CLASS: 1,
        VESTING_TERMS: 2,
        TX_STOCK_ISSUANCE: 3,
        TX_STOCK_ACCEPTANCE: 1,
        TX_VESTING_START: 2,
        TX_STOCK_REPURCHASE: 1,
        TX_STOCK_PLAN_RETURN_TO_POOL: 2,
        TX_EQUITY_COMPENSATION_ISSUANCE: 1,
        TX_VESTING_EVENT: 1,
        TX_EQUITY_COMPENSATION_RELEASE: 1,
        TX_EQUITY_COMPENSATION_CANCELLATION: 1,
        STAKEHOLDER: 2,
      },
      uncheckedByType: {},
      transactions: 13,
      securities: 4,
    });
  });

  it("is valid OCF 1.2.0 file by file for ocf-sync's schemas (the fixture is sound)", () => {
    expectOcfSyncValidFiles(parsedFiles(fixtureBytes(validFixture())));
  });

  it("accepts the legacy TX_PLAN_SECURITY_* spellings and counts them under the current names", async () => {
    const fixture = validFixture();
    for (const id of ["rsu-8550-issuance", "rsu-8550-release-1", "rsu-8550-cancellation"]) {
      const item = itemOf(fixture, id);
      item.object_type = String(item.object_type).replace("TX_EQUITY_COMPENSATION_", "TX_PLAN_SECURITY_");
    }
    const report = validateOcfPackage(await loadFiles(fixtureBytes(fixture)));
    expect(report.problems).toEqual([]);
    expect(report.counts.objectsByType.TX_EQUITY_COMPENSATION_RELEASE).toBe(1);
  });

  it("accepts the OCF 1.2.0 kinds ocf-sync has no schema for (an exercise, a split, a pool adjustment) and counts them as not checked; an unknown kind is still a SCHEMA problem", async () => {
    const fixture = validFixture();
    const transactions = fixture.files.find((f) => f.fileType === "OCF_TRANSACTIONS_FILE")!.items;
    transactions.push(
      { ...itemOf(fixture, "rsu-8550-issuance"), id: "opt-1-issuance", security_id: "opt-1", custom_id: "OPT-1", compensation_type: "OPTION", exercise_price: { amount: "0.10", currency: "USD" } },
      { object_type: "TX_PLAN_SECURITY_EXERCISE", id: "opt-1-exercise", security_id: "opt-1", date: "2017-01-02", quantity: "1500", resulting_security_ids: [] },
      { object_type: "TX_STOCK_PLAN_POOL_ADJUSTMENT", id: "pool-1", date: "2017-01-02", stock_plan_id: "plan-2015", board_approval_date: "2017-01-02", shares_reserved: "9000000" },
      { object_type: "TX_STOCK_CLASS_SPLIT", id: "split-1", date: "2017-01-02", stock_class_id: "class-common", split_ratio: { numerator: "2", denominator: "1" } },
    );
    const report = validateOcfPackage(await loadFiles(fixtureBytes(fixture)));
    expect(report.problems).toEqual([]);
    expect(report.counts.uncheckedByType).toEqual({ TX_EQUITY_COMPENSATION_EXERCISE: 1, TX_STOCK_PLAN_POOL_ADJUSTMENT: 1, TX_STOCK_CLASS_SPLIT: 1 });
    // The lineage is still checked: an exercise of more than was issued.
    itemOf(fixture, "opt-1-exercise").quantity = "1501";
    expect((await problemsOf(fixtureBytes(fixture))).map((p) => [p.code, p.itemId])).toEqual([["OVER_CONSUMED", "opt-1-exercise"]]);
    transactions.push({ object_type: "TX_SOMETHING_NEW", id: "new-1", date: "2017-01-02" });
    itemOf(fixture, "opt-1-exercise").quantity = "1500";
    expect((await problemsOf(fixtureBytes(fixture))).map((p) => [p.code, p.itemId, p.jsonPath])).toEqual([["SCHEMA", "new-1", `$.items[${transactions.length - 1}].object_type`]]);
  });

  it("an object_type that is no OCF 1.2.0 type is named so, with the type it may be a typo of", async () => {
    const fixture = validFixture();
    const transactions = fixture.files.find((f) => f.fileType === "OCF_TRANSACTIONS_FILE")!.items;
    transactions.push(
      { object_type: "TX_STOCK_CLAS_SPLIT", id: "typo-1", date: "2017-01-02" },
      { object_type: "TX_SOMETHING_NEW", id: "new-1", date: "2017-01-02" },
      { ...itemOf(fixture, "rsu-8550-issuance"), id: "typo-2", object_type: "TX_EQUITY_COMPENSATON_ISSUANCE" },
      { object_type: "STAKEHOLDER", id: "holder-1", name: { legal_name: "A" }, stakeholder_type: "INDIVIDUAL" },
    );
    expect((await problemsOf(fixtureBytes(fixture))).map((p) => [p.code, p.itemId, p.message])).toEqual([
      ["SCHEMA", "typo-1", '"TX_STOCK_CLAS_SPLIT" is not an OCF 1.2.0 object type (did you mean "TX_STOCK_CLASS_SPLIT"?)'],
      ["SCHEMA", "new-1", '"TX_SOMETHING_NEW" is not an OCF 1.2.0 object type'],
      ["SCHEMA", "typo-2", '"TX_EQUITY_COMPENSATON_ISSUANCE" is not an OCF 1.2.0 object type (did you mean "TX_EQUITY_COMPENSATION_ISSUANCE"?)'],
      ["SCHEMA", "holder-1", '"STAKEHOLDER" is an OCF 1.2.0 object type, but not one allowed here (transactions only)'],
    ]);
  });

  it("compares quantities as exact decimals: 0.1 + 0.2 cancels all of 0.3, 0.2000000001 is too much", async () => {
    const exact = (cancelled: string) => (fixture: PackageFixture) => {
      itemOf(fixture, "rsu-8550-issuance").quantity = "0.3";
      itemOf(fixture, "rsu-8550-release-1").quantity = "0.1";
      itemOf(fixture, "rsu-8550-cancellation").quantity = cancelled;
      itemOf(fixture, "rsu-8550-return").quantity = "0.2";
    };
    expect(await problemsAfter(exact("0.2"))).toEqual([]);
    const fixture = validFixture();
    expect(await problemsAfter(exact("0.2000000001"))).toEqual([at("OVER_CONSUMED", fixture, "rsu-8550-cancellation", "quantity")]);
  });
});

describe("each corruption gives exactly its problems", () => {
  it("bad md5: a file changed after the manifest was written", async () => {
    const files = fixtureBytes(validFixture());
    const text = new TextDecoder().decode(files.get("Stakeholders.ocf.json")).replace("Pat Example", "Pat Exemple");
    files.set("Stakeholders.ocf.json", new TextEncoder().encode(text));
    const problems = await problemsOf(files);
    expect(problems).toEqual([
      { code: "MD5_MISMATCH", file: MANIFEST, jsonPath: "$.stakeholders_files[0].md5", message: expect.stringContaining('"Stakeholders.ocf.json"') as string },
    ]);
    expect(problems[0]?.message).toMatch(/^is [0-9a-f]{32}, but the MD5 of "Stakeholders.ocf.json" is [0-9a-f]{32}$/);
  });

  it("dangling stakeholder", async () => {
    const fixture = validFixture();
    const problems = await problemsAfter((f) => (itemOf(f, "rsa-77-issuance").stakeholder_id = "sh-404"));
    expect(problems).toEqual([at("DANGLING_REFERENCE", fixture, "rsa-77-issuance", "stakeholder_id")]);
  });

  it("release over the issued quantity", async () => {
    const fixture = validFixture();
    const problems = await problemsAfter((f) => (itemOf(f, "rsu-8550-release-1").quantity = "1600"));
    expect(problems).toEqual([at("OVER_CONSUMED", fixture, "rsu-8550-release-1", "quantity")]);
  });

  it("an extra field", async () => {
    const fixture = validFixture();
    const problems = await problemsAfter((f) => (itemOf(f, "sh-6113").custom_field = "x"));
    expect(problems).toEqual([at("SCHEMA", fixture, "sh-6113", "custom_field")]);
  });

  it("a listed file missing: reported, and so is every reference to what it held", async () => {
    const fixture = validFixture();
    const files = fixtureBytes(fixture);
    files.delete("StockPlans.ocf.json");
    expect((await problemsOf(files)).map(({ message: _m, ...rest }) => rest)).toEqual([
      { code: "FILE_MISSING", file: MANIFEST, jsonPath: "$.stock_plans_files[0].filepath" },
      at("DANGLING_REFERENCE", fixture, "rsa-77-issuance", "stock_plan_id"),
      at("DANGLING_REFERENCE", fixture, "rsa-77-return", "stock_plan_id"),
      at("DANGLING_REFERENCE", fixture, "rsu-8550-issuance", "stock_plan_id"),
      at("DANGLING_REFERENCE", fixture, "rsu-8550-return", "stock_plan_id"),
      at("DANGLING_REFERENCE", fixture, "rsa-77-balance-issuance", "stock_plan_id"),
    ]);
  });

  it("an unlisted *.ocf.json file (other files are not the manifest's business)", async () => {
    const files = fixtureBytes(validFixture());
    files.set("Extra.ocf.json", encode({ file_type: "OCF_STAKEHOLDERS_FILE", items: [] }));
    files.set("README.txt", encode("not an OCF file"));
    expect(await problemsOf(files)).toEqual([
      { code: "UNLISTED_FILE", file: "Extra.ocf.json", jsonPath: "$", message: "is in the package but not listed in Manifest.ocf.json" },
    ]);
  });

  it("a duplicate id", async () => {
    const fixture = validFixture();
    fixture.files[0]?.items.push(example("STAKEHOLDER", { name: { legal_name: "Pat Again" } }));
    const problems = await problemsOf(fixtureBytes(fixture));
    expect(problems).toEqual([
      {
        code: "DUPLICATE_ID",
        file: "Stakeholders.ocf.json",
        itemId: "sh-6113",
        jsonPath: "$.items[2].id",
        message: '"sh-6113" is already the id of the STAKEHOLDER at Stakeholders.ocf.json $.items[0]',
      },
    ]);
  });

  it("a transaction dated before its issuance", async () => {
    const fixture = validFixture();
    itemOf(fixture, "rsa-77-acceptance").date = "2015-05-31";
    expect(await problemsOf(fixtureBytes(fixture))).toEqual([
      { ...at("BEFORE_ISSUANCE", fixture, "rsa-77-acceptance", "date"), message: 'is 2015-05-31, before the issuance of security "rsa-77" on 2015-06-01' },
    ]);
  });

  it("but a vesting start may precede the issuance: vesting can commence before the grant (OCF §7.3)", async () => {
    expect(await problemsAfter((f) => (itemOf(f, "rsa-77-vesting-start").date = "2015-01-01"))).toEqual([]);
  });

  it("a vesting event naming a condition whose trigger is not VESTING_EVENT", async () => {
    const fixture = validFixture();
    itemOf(fixture, "rsu-8550-milestone").vesting_condition_id = "start";
    expect(await problemsOf(fixtureBytes(fixture))).toEqual([
      {
        ...at("VESTING_TRIGGER_MISMATCH", fixture, "rsu-8550-milestone", "vesting_condition_id"),
        message: 'names condition "start" of VestingTerms "milestone-terms", whose trigger is "VESTING_START_DATE"; a TX_VESTING_EVENT needs a VESTING_EVENT condition',
      },
    ]);
  });
});

describe("files and the manifest", () => {
  it("a file listed under the wrong key has the wrong file_type; its items are still checked as what they are", async () => {
    const fixture = validFixture();
    const stakeholders = fixture.files[0];
    if (stakeholders !== undefined) stakeholders.key = "stock_classes_files";
    expect(await problemsOf(fixtureBytes(fixture))).toEqual([
      {
        code: "WRONG_FILE_TYPE",
        file: "Stakeholders.ocf.json",
        jsonPath: "$.file_type",
        message: 'is "OCF_STAKEHOLDERS_FILE", but the manifest lists this file in stock_classes_files, which holds OCF_STOCK_CLASSES_FILE files',
      },
    ]);
  });

  it("an unknown file_type is checked as the type its list holds", async () => {
    const fixture = validFixture();
    const stakeholders = fixture.files[0];
    if (stakeholders !== undefined) stakeholders.fileType = "BOGUS";
    expect((await problemsOf(fixtureBytes(fixture))).map((p) => [p.code, p.file, p.jsonPath])).toEqual([
      ["WRONG_FILE_TYPE", "Stakeholders.ocf.json", "$.file_type"],
    ]);
  });

  it("a listed file that is not JSON, or a JSON file that is not an items file", async () => {
    const files = resealed(
      new Map([
        ...fixtureBytes(validFixture()),
        ["StockClasses.ocf.json", new TextEncoder().encode("{ oops")],
        ["StockPlans.ocf.json", new TextEncoder().encode('\uFEFF{"file_type":"OCF_STOCK_PLANS_FILE","items":[]}')],
      ]),
    );
    files.set("VestingTerms.ocf.json", encode([1, 2]));
    const problems = await problemsOf(resealed(files));
    expect(problems.filter((p) => p.code === "NOT_JSON")).toEqual([
      { code: "NOT_JSON", file: "StockPlans.ocf.json", jsonPath: "$", message: "starts with a byte order mark, which JSON does not allow" },
      { code: "NOT_JSON", file: "StockClasses.ocf.json", jsonPath: "$", message: expect.stringMatching(/^is not JSON \(/) as string },
    ]);
    expect(problems.filter((p) => p.code === "SCHEMA")).toEqual([
      { code: "SCHEMA", file: "VestingTerms.ocf.json", jsonPath: "$", message: "must be a JSON object with a file_type, got [1,2]" },
    ]);
  });

  it("an object over the size limit: reported, and its file read no further", async () => {
    const fixture = validFixture();
    itemOf(fixture, "sh-7001").comments = ["x".repeat(20_000)];
    const report = validateOcfPackage(await loadFiles(fixtureBytes(fixture)), { maxValueBytes: 10_000 });
    expect(report.problems.filter((p) => p.code !== "DANGLING_REFERENCE")).toEqual([
      { code: "VALUE_TOO_LARGE", file: "Stakeholders.ocf.json", jsonPath: "$", message: "holds a value over the limit of 10000 bytes ($.items[1]); it is not read further" },
    ]);
    // What the rest of the file held is not seen: every reference to sh-7001 dangles.
    const dangling = report.problems.filter((p) => p.code === "DANGLING_REFERENCE");
    expect(dangling.length).toBeGreaterThan(0);
    for (const p of dangling) expect(p.message).toBe('names stakeholder "sh-7001", which the package does not have');
  });

  it("manifest problems: wrong file_type, an extra key, an invalid issuer (with the issuer's id)", async () => {
    const files = withManifest(fixtureBytes(validFixture()), (manifest) => {
      manifest.file_type = "OCF_STAKEHOLDERS_FILE";
      manifest.extra = true;
      delete (manifest.issuer as Record<string, unknown>).legal_name;
    });
    expect((await problemsOf(files)).map(({ message: _m, ...rest }) => rest)).toEqual([
      { code: "WRONG_FILE_TYPE", file: MANIFEST, jsonPath: "$.file_type" },
      { code: "SCHEMA", file: MANIFEST, itemId: "issuer-7", jsonPath: "$.issuer.legal_name" },
      { code: "SCHEMA", file: MANIFEST, jsonPath: "$.extra" },
    ]);
  });

  it("unsafe filepaths are reported and not read; a file listed twice is checked once", async () => {
    const files = withManifest(fixtureBytes(validFixture()), (manifest) => {
      const zeros = "0".repeat(32);
      (manifest.transactions_files as unknown[]).push(
        { filepath: "../../etc/passwd.ocf.json", md5: zeros },
        { filepath: "/etc/passwd", md5: zeros },
        { filepath: "C:x.ocf.json", md5: zeros },
        { filepath: "a\\b.ocf.json", md5: zeros },
        { filepath: "./", md5: zeros },
      );
      const [first] = manifest.stakeholders_files as { md5: string }[];
      (manifest.stakeholders_files as unknown[]).push({ filepath: "./sub/../Stakeholders.ocf.json", md5: first?.md5 }, { filepath: "Manifest.ocf.json", md5: zeros });
    });
    expect((await problemsOf(files)).map((p) => [p.code, p.jsonPath, p.message])).toEqual([
      ["UNSAFE_PATH", "$.transactions_files[1].filepath", '"../../etc/passwd.ocf.json" leads out of the package; it is not read'],
      ["UNSAFE_PATH", "$.transactions_files[2].filepath", '"/etc/passwd" is an absolute path; it is not read'],
      ["UNSAFE_PATH", "$.transactions_files[3].filepath", '"C:x.ocf.json" is an absolute path; it is not read'],
      ["UNSAFE_PATH", "$.transactions_files[4].filepath", '"a\\\\b.ocf.json" holds a backslash (package paths use /); it is not read'],
      ["UNSAFE_PATH", "$.transactions_files[5].filepath", '"./" names a folder, not a file; it is not read'],
      ["LISTED_TWICE", "$.stakeholders_files[1].filepath", 'lists "Stakeholders.ocf.json" again (first at $.stakeholders_files[0]); it is checked once'],
      ["LISTED_TWICE", "$.stakeholders_files[2].filepath", "lists the manifest itself"],
    ]);
  });

  it("entries with unsafe or repeated names are refused", async () => {
    const files: InMemoryPackageFile[] = [...fixtureBytes(validFixture())].map(([path, content]) => ({ path, content }));
    files.push({ path: "../evil.ocf.json", content: "{}" }, { path: "./Stakeholders.ocf.json", content: "{}" });
    const report = validateOcfPackage(await readOcfPackageFromFiles(files));
    expect(report.problems.map((p) => [p.code, p.file, p.jsonPath])).toEqual([
      ["UNSAFE_PATH", "../evil.ocf.json", "$"],
      ["DUPLICATE_ENTRY", "./Stakeholders.ocf.json", "$"],
    ]);
  });

  it("lists problems grouped by file (manifest first, then manifest order) and by object", async () => {
    const fixture = validFixture();
    itemOf(fixture, "rsu-8550-release-1").bogus = 1;
    itemOf(fixture, "rsa-77-issuance").stakeholder_id = "nobody";
    itemOf(fixture, "sh-7001").bogus = 1;
    itemOf(fixture, "rsa-77-issuance").bogus = 1;
    const files = withManifest(fixtureBytes(fixture), (manifest) => (manifest.bogus = 1));
    expect((await problemsOf(files)).map((p) => `${p.file} ${p.jsonPath}`)).toEqual([
      "Manifest.ocf.json $.bogus",
      "Transactions.ocf.json $.items[0].bogus",
      "Transactions.ocf.json $.items[0].stakeholder_id",
      "Transactions.ocf.json $.items[8].bogus",
      "Stakeholders.ocf.json $.items[1].bogus",
    ]);
  });
});

describe("references", () => {
  it("ids are unique across the package, not only per type (the later one in manifest order is reported)", async () => {
    const fixture = validFixture();
    fixture.files[1]?.items.push(example("STOCK_CLASS", { id: "sh-6113" }));
    const problems = await problemsOf(fixtureBytes(fixture));
    expect(problems).toEqual([
      {
        ...at("DUPLICATE_ID", fixture, "sh-6113", "id"),
        message: '"sh-6113" is already the id of the STOCK_CLASS at StockClasses.ocf.json $.items[1] (ids must be unique across the package, not only per object type)',
      },
    ]);
  });

  it("two issuances of one security", async () => {
    const fixture = validFixture();
    fixture.files[4]?.items.push(example("TX_EQUITY_COMPENSATION_ISSUANCE", { id: "rsu-8550-again", stakeholder_id: "sh-7001" }));
    expect(await problemsOf(fixtureBytes(fixture))).toEqual([
      {
        ...at("DUPLICATE_SECURITY_ID", fixture, "rsu-8550-again", "security_id"),
        message: '"rsu-8550" is already created by the issuance at Transactions.ocf.json $.items[5]',
      },
    ]);
  });

  it("security, resulting and balance securities, stock class, legends and plan classes resolve", async () => {
    const fixture = validFixture();
    const change = (f: PackageFixture) => {
      itemOf(f, "rsa-77-acceptance").security_id = "ghost";
      itemOf(f, "rsu-8550-release-1").resulting_security_ids = ["rsu-8550-shares-1", "nope"];
      itemOf(f, "rsa-77-repurchase").balance_security_id = "nope-balance";
      itemOf(f, "rsu-8550-shares-1-issuance").stock_class_id = "class-x";
      itemOf(f, "rsu-8550-shares-1-issuance").stock_legend_ids = ["legend-x"];
      itemOf(f, "plan-2015").stock_class_ids = ["class-common", "class-y"];
      itemOf(f, "rsu-8550-issuance").vesting_terms_id = "terms-x";
    };
    change(fixture);
    expect(await problemsAfter(change)).toEqual([
      at("DANGLING_REFERENCE", fixture, "plan-2015", "stock_class_ids[1]"),
      at("DANGLING_REFERENCE", fixture, "rsa-77-acceptance", "security_id"),
      at("DANGLING_REFERENCE", fixture, "rsa-77-repurchase", "balance_security_id"),
      at("DANGLING_REFERENCE", fixture, "rsu-8550-issuance", "vesting_terms_id"),
      at("DANGLING_REFERENCE", fixture, "rsu-8550-release-1", "resulting_security_ids[1]"),
      at("DANGLING_REFERENCE", fixture, "rsu-8550-shares-1-issuance", "stock_class_id"),
      at("DANGLING_REFERENCE", fixture, "rsu-8550-shares-1-issuance", "stock_legend_ids[0]"),
    ]);
  });

  it("conditions inside VestingTerms name conditions of the same terms, once each", async () => {
    const fixture = validFixture();
    const conditions = itemOf(fixture, "4yr-1yr-cliff").vesting_conditions as Record<string, unknown>[];
    (conditions[1]?.trigger as Record<string, unknown>).relative_to_condition_id = "begin";
    if (conditions[2] !== undefined) conditions[2].next_condition_ids = ["end"];
    const milestone = itemOf(fixture, "milestone-terms").vesting_conditions as Record<string, unknown>[];
    if (milestone[1] !== undefined) milestone[1].id = "start";
    const problems = await problemsOf(fixtureBytes(fixture));
    expect(problems.map((p) => [p.code, p.itemId, p.jsonPath])).toEqual([
      ["DANGLING_REFERENCE", "4yr-1yr-cliff", "$.items[0].vesting_conditions[1].trigger.relative_to_condition_id"],
      ["DANGLING_REFERENCE", "4yr-1yr-cliff", "$.items[0].vesting_conditions[2].next_condition_ids[0]"],
      ["DUPLICATE_ID", "milestone-terms", "$.items[1].vesting_conditions[1].id"],
      ["DANGLING_REFERENCE", "milestone-terms", "$.items[1].vesting_conditions[0].next_condition_ids[0]"],
      ["DANGLING_REFERENCE", "rsu-8550-milestone", "$.items[7].vesting_condition_id"],
    ]);
  });

  it("a vesting condition of a security without vesting terms, or not in its terms", async () => {
    const fixture = validFixture();
    delete itemOf(fixture, "rsa-77-issuance").vesting_terms_id;
    itemOf(fixture, "rsu-8550-milestone").vesting_condition_id = "cliff";
    const problems = (await problemsOf(fixtureBytes(fixture))).map((p) => [p.code, p.itemId, p.jsonPath, p.message]);
    expect(problems).toEqual([
      ["DANGLING_REFERENCE", "rsa-77-vesting-start", locate(fixture, "rsa-77-vesting-start", "vesting_condition_id").jsonPath, 'names condition "start", but the issuance of security "rsa-77" has no vesting_terms_id'],
      ["DANGLING_REFERENCE", "rsu-8550-milestone", locate(fixture, "rsu-8550-milestone", "vesting_condition_id").jsonPath, 'names condition "cliff", which VestingTerms "milestone-terms" does not have'],
    ]);
  });

  it("a stock transaction on an equity compensation security", async () => {
    const fixture = validFixture();
    const add = (f: PackageFixture) =>
      f.files[4]?.items.push(example("TX_STOCK_ACCEPTANCE", { id: "wrong-side", security_id: "rsu-8550", date: "2016-07-01" }));
    add(fixture);
    expect(await problemsAfter(add)).toEqual([at("WRONG_SECURITY_KIND", fixture, "wrong-side", "security_id")]);
  });
});

describe("quantities over time, either reading", () => {
  it("no more returns to the pool than was cancelled or repurchased, by each day", async () => {
    const fixture = validFixture();
    for (const reader of ["documents", "same-security"] as const) {
      expect(await problemsAfter((f) => (itemOf(f, "rsa-77-return").quantity = "15000.5"), reader)).toEqual([
        at("RETURN_TO_POOL_EXCEEDS", fixture, "rsa-77-return", "quantity"),
      ]);
      expect(await problemsAfter((f) => (itemOf(f, "rsa-77-return").date = "2016-08-31"), reader)).toEqual([
        at("RETURN_TO_POOL_EXCEEDS", fixture, "rsa-77-return", "quantity"),
      ]);
    }
  });

  it("negative quantities and vesting amounts, and vestings adding up to more than the quantity", async () => {
    const fixture = validFixture();
    fixture.files[4]?.items.push(example("TX_VESTING_ACCELERATION", { id: "negative", quantity: "-5" }));
    itemOf(fixture, "rsa-77-issuance").vestings = [
      { date: "2016-06-01", amount: "0" },
      { date: "2017-06-01", amount: "-1" },
      { date: "2018-06-01", amount: "20000.0000000001" },
    ];
    await expectInBothReadings(fixture, [
      ["VESTING_AMOUNT_NOT_POSITIVE", "rsa-77-issuance", "$.items[0].vestings[0].amount", 'is "0"; a vesting tranche must vest a positive amount'],
      ["VESTING_AMOUNT_NOT_POSITIVE", "rsa-77-issuance", "$.items[0].vestings[1].amount", 'is "-1"; a vesting tranche must vest a positive amount'],
      ["VESTING_SUM", "rsa-77-issuance", "$.items[0].vestings", "vest 20000.0000000001 in total, more than the quantity 20000"],
      ["NEGATIVE_QUANTITY", "negative", locate(fixture, "negative", "quantity").jsonPath, 'is "-5"; a quantity cannot be negative'],
    ]);
  });

  it("reads quantities and tranches written with a sign or leading zeros, as OCF Numerics allow (these once made validation throw)", async () => {
    const fixture = validFixture();
    fixture.files[4]?.items.push(example("TX_VESTING_ACCELERATION", { id: "negative", quantity: "-007" }));
    itemOf(fixture, "rsa-77-issuance").quantity = "+020000";
    itemOf(fixture, "rsa-77-issuance").vestings = [
      { date: "2016-06-01", amount: "+00.6" },
      { date: "2017-06-01", amount: "-00" },
      { date: "2018-06-01", amount: "019999.5" },
    ];
    await expectInBothReadings(fixture, [
      ["VESTING_AMOUNT_NOT_POSITIVE", "rsa-77-issuance", "$.items[0].vestings[1].amount", 'is "-00"; a vesting tranche must vest a positive amount'],
      ["VESTING_SUM", "rsa-77-issuance", "$.items[0].vestings", "vest 20000.1 in total, more than the quantity 20000"],
      ["NEGATIVE_QUANTITY", "negative", locate(fixture, "negative", "quantity").jsonPath, 'is "-007"; a quantity cannot be negative'],
    ]);
  });

  it("vestings that add up to less than the quantity are fine (later tranches may be milestone-based)", async () => {
    expect(await problemsAfter((f) => (itemOf(f, "rsa-77-issuance").vestings = [{ date: "2016-06-01", amount: "1" }]))).toEqual([]);
  });

  it("a balance security of another quantity than what remains", async () => {
    const fixture = validFixture();
    const change = (f: PackageFixture) => {
      itemOf(f, "rsa-77-repurchase").balance_security_id = "rsu-8550-shares-1";
      f.files[4]?.items.push(example("TX_STOCK_ACCEPTANCE", { id: "late", date: "2016-10-01" }));
    };
    change(fixture);
    for (const reader of ["documents", "same-security"] as const) {
      expect(await problemsAfter(change, reader)).toEqual([at("BALANCE_MISMATCH", fixture, "rsa-77-repurchase", "balance_security_id"), at("AFTER_TERMINAL", fixture, "late", "date")]);
    }
    const [mismatch] = await problemsOf(fixtureBytes(fixture));
    expect(mismatch?.message).toBe('names balance security "rsu-8550-shares-1", issued 300, but 5000 of security "rsa-77" remain after this transaction');
  });

  it("a transaction that names its own security as its balance", async () => {
    const fixture = validFixture();
    const change = (f: PackageFixture) => (itemOf(f, "rsa-77-repurchase").balance_security_id = "rsa-77");
    for (const reader of ["documents", "same-security"] as const) {
      expect(await problemsAfter(change, reader)).toEqual([at("BALANCE_IS_SELF", fixture, "rsa-77-repurchase", "balance_security_id")]);
    }
  });
});

describe("the documents reading (OCF TraversingTransactions): a terminal transaction ends its security", () => {
  it("is the default, and says so", async () => {
    const report = validateOcfPackage(await loadFiles(fixtureBytes(validFixture())));
    expect(report.lineage).toEqual({ reading: "documents", from: "default" });
  });

  it("a partial repurchase without a balance security", async () => {
    const fixture = validFixture();
    const change = (f: PackageFixture) => {
      delete itemOf(f, "rsa-77-repurchase").balance_security_id;
      f.files[4]!.items = f.files[4]!.items.filter((item) => item.id !== "rsa-77-balance-issuance");
    };
    change(fixture);
    expect(await problemsAfter(change)).toEqual([at("BALANCE_MISSING", fixture, "rsa-77-repurchase", "balance_security_id")]);
    expect((await problemsOf(fixtureBytes(fixture)))[0]?.message).toBe(
      'repurchases 15000 of the 20000 outstanding of security "rsa-77" and names no balance security for the other 5000: read by the OCF documents, this transaction ends security "rsa-77", so what remains must be a new issuance named by balance_security_id',
    );
    // The same package read on the same security (OCF #531) is fine: the 5000 stay on rsa-77.
    expect(await problemsAfter(change, "same-security")).toEqual([]);
  });

  it("two partial cancellations: the second acts on an ended security", async () => {
    const fixture = validFixture();
    const change = (f: PackageFixture) => {
      itemOf(f, "rsu-8550-cancellation").quantity = "1000";
      itemOf(f, "rsu-8550-return").quantity = "1000";
      f.files[4]?.items.push(example("TX_EQUITY_COMPENSATION_CANCELLATION", { id: "second", date: "2016-10-01", quantity: "125" }));
    };
    change(fixture);
    expect(await problemsAfter(change)).toEqual([at("BALANCE_MISSING", fixture, "rsu-8550-cancellation", "balance_security_id"), at("SECOND_TERMINAL", fixture, "second", "date")]);
    const messages = (await problemsOf(fixtureBytes(fixture))).map((p) => p.message);
    expect(messages[1]).toBe('is a second terminal transaction: security "rsu-8550" ended on 2016-09-01 (ended by TX_EQUITY_COMPENSATION_CANCELLATION "rsu-8550-cancellation")');
    // Read on the same security, two partial cancellations that add up are fine.
    expect(await problemsAfter(change, "same-security")).toEqual([]);
  });

  it("nothing but a return to pool may act on an ended security, whatever its date", async () => {
    const fixture = validFixture();
    const items = fixture.files[4]?.items ?? [];
    items.push(example("TX_STOCK_PLAN_RETURN_TO_POOL", { id: "late-return", quantity: "0", date: "2017-01-01" }));
    items.push(example("TX_EQUITY_COMPENSATION_ACCEPTANCE", { id: "late-acceptance", date: "2017-01-01" }));
    items.push(example("TX_VESTING_EVENT", { id: "same-day-event", security_id: "rsu-8550", date: "2016-09-01", vesting_condition_id: "milestone" }));
    items.push(example("TX_STOCK_RETRACTION", { id: "rsa-77-retraction", date: "2017-01-01" }));
    const problems = (await problemsOf(fixtureBytes(fixture))).map((p) => [p.code, p.itemId, p.message]);
    expect(problems).toEqual([
      ["AFTER_TERMINAL", "late-acceptance", 'is 2017-01-01, after security "rsu-8550" ended on 2016-09-01 (ended by TX_EQUITY_COMPENSATION_CANCELLATION "rsu-8550-cancellation")'],
      [
        "SAME_DAY_ORDER",
        "same-day-event",
        'is 2016-09-01, the day TX_EQUITY_COMPENSATION_CANCELLATION "rsu-8550-cancellation" ends security "rsu-8550": OCF 1.2.0 does not order a day\'s transactions, so a reader that takes that one first (OCF-Tools sorts a day by type) sees this one act on an ended security',
      ],
      ["SECOND_TERMINAL", "rsa-77-retraction", 'is a second terminal transaction: security "rsa-77" ended on 2016-09-01 (ended by TX_STOCK_REPURCHASE "rsa-77-repurchase")'],
    ]);
  });

  it("a vesting event on the day of the cancellation depends on the order within the day (SAME_DAY_ORDER), whatever the file order", async () => {
    // Issue 24: OCF 1.2.0 orders a day's transactions by nothing; a reader that sorts by type sees the event after the end.
    const event = () => example("TX_VESTING_EVENT", { id: "same-day", security_id: "rsu-8550", date: "2016-09-01", vesting_condition_id: "milestone" });
    const last = validFixture();
    last.files[4]?.items.push(event());
    const first = validFixture();
    first.files[4]?.items.unshift(event());
    for (const fixture of [last, first]) {
      const problems = (await problemsOf(fixtureBytes(fixture))).map(({ message: _message, ...rest }) => rest);
      expect(problems).toEqual([at("SAME_DAY_ORDER", fixture, "same-day", "date")]);
    }
  });

  it("a release does not end its security (OCF 1.2.0 gives it no balance): what is outstanding shrinks", async () => {
    const fixture = validFixture();
    // 1500 issued, 375 released: 1125 outstanding, all cancelled. One more unit cancelled is too many.
    itemOf(fixture, "rsu-8550-cancellation").quantity = "1126";
    itemOf(fixture, "rsu-8550-return").quantity = "1126";
    expect((await problemsOf(fixtureBytes(fixture))).map((p) => [p.code, p.itemId, p.message])).toEqual([
      ["OVER_CONSUMED", "rsu-8550-cancellation", 'cancels 1126 of security "rsu-8550", more than the 1125 outstanding (issued 1500, 375 released before)'],
    ]);
  });

  it("a release over what is outstanding is reported once, at the release", async () => {
    const fixture = validFixture();
    expect(await problemsAfter((f) => (itemOf(f, "rsu-8550-release-1").quantity = "1600"))).toEqual([at("OVER_CONSUMED", fixture, "rsu-8550-release-1", "quantity")]);
  });

  it("a partial cancellation with its balance: the balance must hold exactly what remains, and later transactions act on it", async () => {
    const fixture = validFixture();
    const change = (f: PackageFixture, balance: string) => {
      itemOf(f, "rsu-8550-cancellation").quantity = "1000";
      itemOf(f, "rsu-8550-cancellation").balance_security_id = "rsu-8550-b";
      itemOf(f, "rsu-8550-return").quantity = "1000";
      f.files[4]?.items.push(
        example("TX_EQUITY_COMPENSATION_ISSUANCE", { id: "rsu-8550-b-issuance", security_id: "rsu-8550-b", date: "2016-09-01", quantity: balance, stakeholder_id: "sh-7001" }),
        example("TX_EQUITY_COMPENSATION_RELEASE", { id: "rsu-8550-b-release", security_id: "rsu-8550-b", date: "2016-12-01", settlement_date: "2016-12-01", quantity: "125", resulting_security_ids: [] }),
      );
    };
    expect(await problemsAfter((f) => change(f, "125"))).toEqual([]);
    const fixture2 = validFixture();
    change(fixture2, "120");
    expect((await problemsOf(fixtureBytes(fixture2))).map((p) => [p.code, p.itemId, p.jsonPath, p.message])).toEqual([
      ["BALANCE_MISMATCH", "rsu-8550-cancellation", locate(fixture2, "rsu-8550-cancellation", "balance_security_id").jsonPath, 'names balance security "rsu-8550-b", issued 120, but 125 of security "rsu-8550" remain after this transaction'],
      ["OVER_CONSUMED", "rsu-8550-b-release", locate(fixture2, "rsu-8550-b-release", "quantity").jsonPath, 'releases 125 of security "rsu-8550-b", more than the 120 outstanding (issued 120)'],
    ]);
    void fixture;
  });

  it("a balance the package does not issue is a dangling reference, reported once", async () => {
    const fixture = validFixture();
    const change = (f: PackageFixture) => (f.files[4]!.items = f.files[4]!.items.filter((item) => item.id !== "rsa-77-balance-issuance"));
    change(fixture);
    expect(await problemsAfter(change)).toEqual([at("DANGLING_REFERENCE", fixture, "rsa-77-repurchase", "balance_security_id")]);
  });

  it("same-day order does not depend on file order: a return to pool listed before its cancellation", async () => {
    const fixture = validFixture();
    const items = fixture.files[4]!.items;
    const cancellation = items.findIndex((item) => item.id === "rsu-8550-cancellation");
    const [moved] = items.splice(cancellation, 1);
    items.push(moved!);
    expect(await problemsOf(fixtureBytes(fixture))).toEqual([]);
  });
});

describe("the same-security reading (OCF #531)", () => {
  const declared = (reading: string) => (f: PackageFixture) => (f.manifest.comments = ["Generated by a test.", `Lineage: ${reading} (how this package reads)`]);

  it("is used when the manifest declares it, and the report says so; an option overrides the declaration", async () => {
    const fixture = validFixture();
    declared("same-security")(fixture);
    delete itemOf(fixture, "rsa-77-repurchase").balance_security_id;
    fixture.files[4]!.items = fixture.files[4]!.items.filter((item) => item.id !== "rsa-77-balance-issuance");
    const report = validateOcfPackage(await loadFiles(fixtureBytes(fixture)));
    expect([report.lineage, report.problems]).toEqual([{ reading: "same-security", from: "declared" }, []]);
    const strict = validateOcfPackage(await loadFiles(fixtureBytes(fixture)), { reader: "documents" });
    expect([strict.lineage, strict.problems.map((p) => p.code)]).toEqual([{ reading: "documents", from: "option" }, ["BALANCE_MISSING"]]);
    const other = validFixture();
    declared("documents")(other);
    expect(validateOcfPackage(await loadFiles(fixtureBytes(other))).lineage).toEqual({ reading: "documents", from: "declared" });
  });

  it("names the totals in the over-consumption message", async () => {
    const fixture = validFixture();
    itemOf(fixture, "rsu-8550-cancellation").quantity = "1125.5";
    expect(await problemsOf(fixtureBytes(fixture), "same-security")).toEqual([
      {
        ...at("OVER_CONSUMED", fixture, "rsu-8550-cancellation", "quantity"),
        message: 'brings what is released, cancelled, repurchased or transferred of security "rsu-8550" to 1500.5, more than the 1500 issued',
      },
    ]);
  });

  it("a release over the issued quantity", async () => {
    const fixture = validFixture();
    expect(await problemsAfter((f) => (itemOf(f, "rsu-8550-release-1").quantity = "1600"), "same-security")).toEqual([at("OVER_CONSUMED", fixture, "rsu-8550-release-1", "quantity")]);
  });

  it("nothing but a return to pool follows a security that ended (used up, retracted, or moved to a balance)", async () => {
    const fixture = validFixture();
    const items = fixture.files[4]?.items ?? [];
    // rsu-8550 is fully consumed on 2016-09-01; a return to pool later is fine, an acceptance is not.
    items.push(example("TX_STOCK_PLAN_RETURN_TO_POOL", { id: "late-return", quantity: "0", date: "2017-01-01" }));
    items.push(example("TX_EQUITY_COMPENSATION_ACCEPTANCE", { id: "late-acceptance", date: "2017-01-01" }));
    // rsa-77-b is retracted, then cancelled; rsa-77 moved its balance to rsa-77-b on 2016-09-01.
    items.push(example("TX_STOCK_RETRACTION", { id: "rsa-77-b-retraction", security_id: "rsa-77-b", date: "2017-01-01" }));
    items.push(example("TX_STOCK_CANCELLATION", { id: "after-retraction", security_id: "rsa-77-b", date: "2017-02-01", quantity: "1" }));
    items.push(example("TX_STOCK_ACCEPTANCE", { id: "after-balance", date: "2017-02-01" }));
    const problems = (await problemsOf(fixtureBytes(fixture), "same-security")).map((p) => [p.code, p.itemId, p.jsonPath, p.message]);
    expect(problems).toEqual([
      ["AFTER_TERMINAL", "late-acceptance", locate(fixture, "late-acceptance", "date").jsonPath,
        'is 2017-01-01, after security "rsu-8550" ended on 2016-09-01 (fully consumed by TX_EQUITY_COMPENSATION_CANCELLATION "rsu-8550-cancellation")'],
      ["AFTER_TERMINAL", "after-retraction", locate(fixture, "after-retraction", "date").jsonPath,
        'is 2017-02-01, after security "rsa-77-b" ended on 2017-01-01 (retracted by TX_STOCK_RETRACTION "rsa-77-b-retraction")'],
      ["AFTER_TERMINAL", "after-balance", locate(fixture, "after-balance", "date").jsonPath,
        'is 2017-02-01, after security "rsa-77" ended on 2016-09-01 (TX_STOCK_REPURCHASE "rsa-77-repurchase" moved the balance to "rsa-77-b")'],
    ]);
  });
});

describe("manifest file lists", () => {
  it("are read from every *_files key of the 1.2.0 manifest, in schema order", () => {
    expect(MANIFEST_FILE_LIST_KEYS).toEqual([
      "stock_plans_files",
      "stock_legend_templates_files",
      "stock_classes_files",
      "vesting_terms_files",
      "valuations_files",
      "transactions_files",
      "stakeholders_files",
      "financings_files",
      "documents_files",
    ]);
  });

  it("a listed file of a type ocf-sync does not model is reported, not ignored", async () => {
    const files = withManifest(fixtureBytes(validFixture()), (m) => (m.financings_files = [{ filepath: "Financings.ocf.json", md5: "0".repeat(32) }]));
    files.set("Financings.ocf.json", encode({ file_type: "OCF_FINANCINGS_FILE", items: [] }));
    expect((await problemsOf(resealed(files))).map((p) => [p.code, p.file, p.jsonPath, p.message])).toEqual([
      ["SCHEMA", "Financings.ocf.json", "$.file_type", '"OCF_FINANCINGS_FILE" is an OCF 1.2.0 file type ocf-sync has no schema for'],
    ]);
  });
});

describeConformance("the official OCF 1.2.0 schemas", () => {
  it("accept every file of the valid fixture package, whole and item by item (the fixture is sound)", () => {
    expectOfficiallyValidFiles(parsedFiles(fixtureBytes(validFixture())));
  });
});
