/**
 * `ocf-sync validate` run in-process with runCli: exit codes, the readable report, --json, and one
 * package with many corruptions at once, every one of which must be reported.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import type { PackageProblem } from "../../../src/ocf/validate-package.js";
import { captureIo } from "../../helpers/capture.js";
import { example } from "../../helpers/ocf-examples.js";
import {
  fixtureBytes,
  itemOf,
  locate,
  temporaryDirectory,
  validFixture,
  withManifest,
  writePackageFolder,
  writePackageZip,
  zipBytes,
} from "../../helpers/ocf-package-fixture.js";

const tmp = temporaryDirectory("ocf-sync-validate-cli-");
const fresh = tmp.fresh;

async function validate(...args: string[]) {
  const io = captureIo(tmp.path());
  const code = await runCli(["validate", ...args], io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/**
 * The valid fixture with one of each corruption the issue names (and a few more), and the problems
 * each must produce.
 */
function corruptedPackage(): { files: Map<string, Uint8Array>; expected: Omit<PackageProblem, "message">[] } {
  const fixture = validFixture();
  itemOf(fixture, "rsa-77-issuance").stakeholder_id = "sh-404"; // dangling stakeholder
  itemOf(fixture, "rsu-8550-release-1").quantity = "1600"; // release over the quantity
  itemOf(fixture, "sh-7001").custom_field = "x"; // extra field
  itemOf(fixture, "rsa-77-acceptance").date = "2015-05-01"; // before the issuance
  itemOf(fixture, "rsu-8550-milestone").vesting_condition_id = "start"; // wrong trigger
  fixture.files[0]?.items.push(example("STAKEHOLDER", { name: { legal_name: "Pat Twice" } })); // duplicate id
  let files = fixtureBytes(fixture);
  // bad md5: a file changed after the manifest was written
  const classes = new TextDecoder().decode(files.get("StockClasses.ocf.json")).replace("Common Stock", "Common Stocks");
  files.set("StockClasses.ocf.json", new TextEncoder().encode(classes));
  // a listed file that is missing, and a file that is not listed
  files = withManifest(files, (m) => (m.transactions_files as unknown[]).push({ filepath: "Transactions-2.ocf.json", md5: "0".repeat(32) }));
  files.set("Leftover.ocf.json", new TextEncoder().encode("{}"));
  return {
    files,
    expected: [
      { code: "MD5_MISMATCH", file: "Manifest.ocf.json", jsonPath: "$.stock_classes_files[0].md5" },
      { code: "FILE_MISSING", file: "Manifest.ocf.json", jsonPath: "$.transactions_files[1].filepath" },
      { code: "DANGLING_REFERENCE", ...locate(fixture, "rsa-77-issuance", "stakeholder_id") },
      { code: "BEFORE_ISSUANCE", ...locate(fixture, "rsa-77-acceptance", "date") },
      { code: "VESTING_TRIGGER_MISMATCH", ...locate(fixture, "rsu-8550-milestone", "vesting_condition_id") },
      { code: "OVER_CONSUMED", ...locate(fixture, "rsu-8550-release-1", "quantity") },
      { code: "SCHEMA", ...locate(fixture, "sh-7001", "custom_field") },
      { code: "DUPLICATE_ID", file: "Stakeholders.ocf.json", itemId: "sh-6113", jsonPath: "$.items[2].id" },
      { code: "UNLISTED_FILE", file: "Leftover.ocf.json", jsonPath: "$" },
    ],
  };
}

describe("ocf-sync validate", () => {
  it("has help with examples, and is listed in the program's help", async () => {
    const help = await validate("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: ocf-sync validate PATH [--json] [--reader documents|same-security]");
    expect(help.stdout).toContain("Examples:");
    expect(help.stdout).toContain("Exit status: 0 valid (warnings or none), 1 problems found, 2 unusable input");
    expect(help.stdout.replace(/\s+/g, " ")).toContain('"warnings": [ the same ] }');
    expect(help.stdout.replace(/\s+/g, " ")).toContain("releases before vesting, a warning (RELEASED_BEFORE_VESTED)");
    const io = captureIo(tmp.path());
    await runCli(["--help"], io);
    expect(io.stdout.text).toMatch(/\n {2}validate +check an OCF package/);
  });

  it("exits 2 on usage mistakes", async () => {
    expect((await validate()).code).toBe(2);
    const two = await validate("a", "b");
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("takes exactly one PATH");
    expect((await validate("--bogus", "a")).stderr).toContain("ocf-sync validate --help");
  });

  it("exits 0 on a valid folder and a valid zip, with a summary", async () => {
    const files = fixtureBytes(validFixture());
    const folder = await writePackageFolder(fresh(), files);
    const zip = await writePackageZip(fresh(".ocf.zip"), files);
    for (const path of [folder, zip]) {
      const result = await validate(path);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toBe(
        `valid: ${path}\n6 files, 19 objects (1 STOCK_PLAN, 1 STOCK_CLASS, 2 VESTING_TERMS, 3 TX_STOCK_ISSUANCE, 1 TX_STOCK_ACCEPTANCE, ` +
          "2 TX_VESTING_START, 1 TX_STOCK_REPURCHASE, 2 TX_STOCK_PLAN_RETURN_TO_POOL, 1 TX_EQUITY_COMPENSATION_ISSUANCE, 1 TX_VESTING_EVENT, " +
          "1 TX_EQUITY_COMPENSATION_RELEASE, 1 TX_EQUITY_COMPENSATION_CANCELLATION, 2 STAKEHOLDER), 4 securities\n" +
          "lineage read as documents (the default: the manifest declares none)\n",
      );
    }
  });

  it("--reader chooses the lineage reading over the package's declaration, and the report says which it used", async () => {
    const fixture = validFixture();
    // Two partial cancellations on one security: fine on the same security, not by the documents.
    itemOf(fixture, "rsu-8550-cancellation").quantity = "1000";
    itemOf(fixture, "rsu-8550-return").quantity = "1000";
    fixture.files[4]?.items.push(example("TX_EQUITY_COMPENSATION_CANCELLATION", { id: "second", date: "2016-10-01", quantity: "125" }));
    fixture.manifest.comments = ["Lineage: same-security (OCF #531)"];
    const folder = await writePackageFolder(fresh(), fixtureBytes(fixture));
    const declared = await validate(folder);
    expect(declared.code).toBe(0);
    expect(declared.stdout).toContain("lineage read as same-security (declared in Manifest.comments)\n");
    const strict = await validate(folder, "--reader", "documents", "--json");
    expect(strict.code).toBe(1);
    const report = JSON.parse(strict.stdout) as { lineage: unknown; problems: PackageProblem[] };
    expect(report.lineage).toEqual({ reading: "documents", from: "option" });
    expect(report.problems.map((p) => [p.code, p.itemId])).toEqual([
      ["BALANCE_MISSING", "rsu-8550-cancellation"],
      ["SECOND_TERMINAL", "second"],
    ]);
    const bad = await validate(folder, "--reader", "strict");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--reader must be documents or same-security, got "strict"');
  });

  it("resolves PATH against the working directory", async () => {
    await writePackageFolder(join(tmp.path(), "relative-package"), fixtureBytes(validFixture()));
    expect((await validate("relative-package")).code).toBe(0);
  });

  it("reports every problem of a package corrupted many ways, in text and in JSON, and exits 1", async () => {
    const { files, expected } = corruptedPackage();
    for (const path of [await writePackageFolder(fresh(), files), await writePackageZip(fresh(".ocf.zip"), files)]) {
      const json = await validate(path, "--json");
      expect(json.code).toBe(1);
      const report = JSON.parse(json.stdout) as { path: string; valid: boolean; problems: PackageProblem[] };
      expect(report.path).toBe(path);
      expect(report.valid).toBe(false);
      expect(report.problems.map(({ message: _m, ...rest }) => rest)).toEqual(expected);

      const text = await validate(path);
      expect(text.code).toBe(1);
      const lines = text.stdout.split("\n");
      expect(lines[0]).toMatch(/^file +item +path +problem$/);
      for (const problem of report.problems) {
        const line = lines.find((l) => l.includes(`${problem.message} [${problem.code}]`));
        expect(line, `${problem.code} ${problem.jsonPath}`).toBeDefined();
        expect(line?.split(/ {2,}/).slice(0, 3)).toEqual([problem.file, problem.itemId ?? "-", problem.jsonPath]);
      }
      expect(text.stdout).toContain(`\nINVALID: ${expected.length} problems in ${path}\n`);
    }
  });

  it("reports a release on its security's cancellation day (SAME_DAY_ORDER), a problem, and a release before vesting (RELEASED_BEFORE_VESTED), a warning", async () => {
    // Issue 24: the release on the day the rest is cancelled, before the cancellation in the file.
    const sameDay = validFixture();
    itemOf(sameDay, "rsu-8550-release-1").date = "2016-09-01";
    itemOf(sameDay, "rsu-8550-release-1").settlement_date = "2016-09-01";
    const text = await validate(await writePackageFolder(fresh(), fixtureBytes(sameDay)));
    expect(text.code).toBe(1);
    const release = locate(sameDay, "rsu-8550-release-1", "date");
    const line = text.stdout.split("\n").find((l) => l.includes("[SAME_DAY_ORDER]"));
    expect(line?.split(/ {2,}/).slice(0, 3)).toEqual([release.file, release.itemId, release.jsonPath]);
    expect(line).toContain('is 2016-09-01, the day TX_EQUITY_COMPENSATION_CANCELLATION "rsu-8550-cancellation" ends security "rsu-8550"');
    expect(text.stdout).toContain("INVALID: 1 problem in");

    // Vested on 2016-07-01, released on 2016-06-01: odd data, valid OCF, so a warning and exit 0.
    const early = validFixture();
    itemOf(early, "rsu-8550-issuance").vestings = [{ date: "2016-07-01", amount: "1500" }];
    const earlyPath = await writePackageFolder(fresh(), fixtureBytes(early));
    const warning: PackageProblem = {
      code: "RELEASED_BEFORE_VESTED",
      ...locate(early, "rsu-8550-release-1", "quantity"),
      message: 'releases 375 of security "rsu-8550" on 2016-06-01, which brings what is released of it to 375, but its vestings have vested only 0 by then',
    };
    const json = await validate(earlyPath, "--json");
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { valid: boolean; problems: PackageProblem[]; warnings: PackageProblem[] };
    expect(report.valid).toBe(true);
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual([warning]);

    // The text lists it as problems are listed, under a "warning" header, and the summary counts it.
    const warned = await validate(earlyPath);
    expect(warned.code).toBe(0);
    const lines = warned.stdout.split("\n");
    expect(lines[0]).toMatch(/^file +item +path +warning$/);
    const warningLine = lines.find((l) => l.includes(`${warning.message} [RELEASED_BEFORE_VESTED]`));
    expect(warningLine?.split(/ {2,}/).slice(0, 3)).toEqual([warning.file, warning.itemId, warning.jsonPath]);
    expect(warned.stdout).toContain(`\n\nvalid, 1 warning: ${earlyPath}\n`);
    expect(warned.stdout).not.toContain("INVALID");

    // Both: the problem makes the package invalid, the warning is still a warning, each in its table.
    const both = validFixture();
    itemOf(both, "rsu-8550-issuance").vestings = [{ date: "2016-07-01", amount: "1500" }];
    itemOf(both, "rsu-8550-milestone").date = "2016-09-01";
    const bothPath = await writePackageFolder(fresh(), fixtureBytes(both));
    const mixed = await validate(bothPath);
    expect(mixed.code).toBe(1);
    const [problemTable, warningTable] = mixed.stdout.split("\n\n");
    expect(problemTable?.split("\n")[0]).toMatch(/^file +item +path +problem$/);
    expect(problemTable).toContain("[SAME_DAY_ORDER]");
    expect(problemTable).not.toContain("[RELEASED_BEFORE_VESTED]");
    expect(warningTable?.split("\n")[0]).toMatch(/^file +item +path +warning$/);
    expect(warningTable).toContain("[RELEASED_BEFORE_VESTED]");
    expect(mixed.stdout).toContain(`\n\nINVALID: 1 problem, 1 warning in ${bothPath}\n`);
    const mixedJson = JSON.parse((await validate(bothPath, "--json")).stdout) as { valid: boolean; problems: PackageProblem[]; warnings: PackageProblem[] };
    expect(mixedJson.valid).toBe(false);
    expect(mixedJson.problems.map((p) => [p.code, p.itemId])).toEqual([["SAME_DAY_ORDER", "rsu-8550-milestone"]]);
    expect(mixedJson.warnings.map((p) => [p.code, p.itemId])).toEqual([["RELEASED_BEFORE_VESTED", "rsu-8550-release-1"]]);
  });

  it("exits 2 on a truncated zip, a folder without a manifest and a manifest that is not JSON", async () => {
    const files = fixtureBytes(validFixture());
    const zip = zipBytes(files);
    const truncated = fresh(".ocf.zip");
    await writeFile(truncated, zip.subarray(0, zip.length - 30));
    const noManifest = new Map(files);
    noManifest.delete("Manifest.ocf.json");
    const notJson = new Map(files);
    notJson.set("Manifest.ocf.json", new TextEncoder().encode("Manifest, but not JSON"));
    const cases = [
      { path: truncated, message: "is not a readable zip (truncated or corrupt" },
      { path: await writePackageFolder(fresh(), noManifest), message: "holds no Manifest.ocf.json" },
      { path: await writePackageFolder(fresh(), notJson), message: "is not JSON" },
    ];
    for (const { path, message } of cases) {
      const result = await validate(path);
      expect(result.code, path).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(message);
      expect(result.stderr).toMatch(/\[PACKAGE_UNUSABLE\]\n$/);
      const json = await validate(path, "--json");
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stdout)).toMatchObject({ path, valid: false, unusable: { code: "PACKAGE_UNUSABLE" } });
    }
  });

  it("never prints control characters that come from the package", async () => {
    const fixture = validFixture();
    fixture.files[0]?.items.push(example("STAKEHOLDER", { id: "sh-\u001b[2J\u001b]0;owned\u0007", extra: 1 }));
    const result = await validate(await writePackageFolder(fresh(), fixtureBytes(fixture)));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("sh-\\u001b[2J\\u001b]0;owned\\u0007");
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});
