/** CSV, text and HTML renderings: exact figures, hostile text kept inert. */
import { describe, expect, it } from "vitest";
import { escapeHtml, groupThousands, renderReconciliationHtml } from "../../../src/reconcile/html.js";
import { terminalSafe } from "../../../src/errors.js";
import { differingHolders, reconciliationCsv, renderReconciliationText, reportAgrees } from "../../../src/reconcile/render.js";
import { cumulativeCurve, mergeTranches } from "../../../src/reconcile/tranches.js";
import type { ReconciliationReport } from "../../../src/reconcile/types.js";
import { Dec } from "../../../src/decimal.js";

const report: ReconciliationReport = {
  mode: "source-vs-ocf",
  issuerId: 'acme "robotics"\u001b[31m',
  asOf: "2025-06-30",
  tolerance: "0",
  labels: { expected: "source", actual: "OCF" },
  totals: { expected: { issued: "100.0000000001" }, actual: { issued: "100" } },
  grants: [],
  holders: [
    { stakeholderId: "stakeholder-<1>", expected: { shares: "1234567.5", units: "0" }, actual: { shares: "1234567.5", units: "0" } },
    { stakeholderId: "stakeholder-2", expected: { shares: "19000", units: "10" }, actual: { shares: "0", units: "10" } },
  ],
  reading: { reading: "documents", from: "declared" },
  differences: [
    {
      section: "source-vs-ocf",
      code: "FIGURE_MISMATCH",
      issuerId: "acme",
      kind: "restrictedStockAward",
      recordId: 'R,"1"\nnext',
      securityId: "rsa-R",
      field: "issued",
      expected: "100.0000000001",
      actual: "100",
      message: "<b>bold</b> & more",
    },
  ],
  vestingCurves: { expected: [{ date: "2024-01-01", vested: "50" }], actual: [{ date: "2024-01-02", vested: "50" }] },
  notes: [],
};

describe("renderings", () => {
  it("CSV quotes every field, doubles quotes and keeps line breaks inside the field", () => {
    expect(reconciliationCsv([report])).toBe(
      '"issuer_id","section","code","kind","record_id","security_id","field","expected","actual","message"\r\n' +
        '"acme","source-vs-ocf","FIGURE_MISMATCH","restrictedStockAward","R,""1""\nnext","rsa-R","issued","100.0000000001","100","<b>bold</b> & more"\r\n' +
        '"acme ""robotics""\u001b[31m","holders","","","","","stakeholder_id stakeholder-2 shares","19000","0","stakeholder ""stakeholder-2"": shares as of 2025-06-30 are 19000 in the source but 0 in the OCF package"\r\n',
    );
  });

  it("CSV: the report's notes are rows of section note, after its differences, the note in message", () => {
    const notes = ['1 TX_STOCK_CLASS_SPLIT transaction(s) ("split-1"): reconcile does not model this kind', "=cmd|' /C calc'!A0"];
    const rows = reconciliationCsv([{ ...report, issuerId: "7", holders: [], notes }]).split("\r\n").slice(1, -1);
    expect(rows.slice(1)).toEqual([
      '"7","note","","","","","","","","1 TX_STOCK_CLASS_SPLIT transaction(s) (""split-1""): reconcile does not model this kind"',
      '"7","note","","","","","","","","\'=cmd|\' /C calc\'!A0"',
    ]);
  });

  it("CSV: a cell a spreadsheet would run as a formula starts with ', a number does not", () => {
    const hostile = ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-1+cmd", "@SUM(A1)", "\tx", "\rx"];
    const differences = hostile.map((id, k) => ({ ...report.differences[0]!, recordId: id, securityId: `s${k}`, expected: "-2500", actual: "+3" }));
    const rows = reconciliationCsv([{ ...report, differences, holders: [] }]).split("\r\n").slice(1, -1);
    expect(rows.map((row) => row.split(",")[4])).toEqual(['"\'=HYPERLINK(""http://x""', '"\'+1+1"', '"\'-1+cmd"', '"\'@SUM(A1)"', '"\'\tx"', '"\'\rx"']);
    for (const row of rows) expect(row).toContain(',"-2500","+3",');
  });

  it("text draws its own tables, names long labels' columns by side and keeps short labels a caller chose", () => {
    const long = { ...report, labels: { expected: "source (/home/someone/exports/2025/issuer-7.ndjson)", actual: "OCF (/home/someone/exports/2025/out/7)" } };
    const text = renderReconciliationText(long);
    expect(text).toContain("source (/home/someone/exports/2025/issuer-7.ndjson) vs OCF (/home/someone/exports/2025/out/7)");
    expect(text).toMatch(/^total\s+source\s+OCF\s+difference$/m);
    expect(text).toMatch(/^-+ {2}-+ {2}-+ {2}-+$/m);
    expect(text).toMatch(/^issued\s+100\.0000000001\s+100\s+-0\.0000000001$/m);
    const chosen = renderReconciliationText({ ...report, labels: { expected: "prod", actual: "staging" } });
    expect(chosen).toMatch(/^total\s+prod\s+staging\s+difference$/m);
    const packages = renderReconciliationText({ ...report, mode: "ocf-vs-ocf", issuerId: "issuer-7", labels: { expected: "/a/out/7", actual: "/a/out/7" } });
    expect(packages.split("\n")[0]).toBe('OCF against OCF for issuer "7" (OCF issuer id "issuer-7"): first /a/out/7 vs second /a/out/7; vested as of 2025-06-30; tolerance 0');
    expect(packages).toMatch(/^total\s+first\s+second\s+difference$/m);
  });

  it("text keeps figures exact and escapes control characters", () => {
    const text = renderReconciliationText(report, (rows, headers) => [headers.join("|"), ...rows.map((r) => r.join("|"))].join("\n"));
    expect(text).toContain("issued|100.0000000001|100|-0.0000000001");
    expect(text).toContain("\\u001b[31m");
    expect(text).not.toContain("\u001b");
    expect(text).toContain("R,\"1\"\\u000anext");
    expect(terminalSafe("a\u202eb")).toBe("a\\u202eb");
  });

  it("HTML escapes every value and holds no script or external reference", () => {
    const html = renderReconciliationHtml([report]);
    expect(escapeHtml(`<a href='x'>&"`)).toBe("&#60;a href=&#39;x&#39;&#62;&#38;&#34;");
    expect(html).toContain("&#60;b&#62;bold&#60;/b&#62; &#38; more");
    expect(html).not.toContain("<b>");
    expect(html).not.toMatch(/<script|\ssrc=|\shref=/i);
    expect(html).toContain("100.0000000001");
  });

  it("tranches: merged per date and summed into a curve, never cut", () => {
    const merged = mergeTranches([
      { date: "2024-02-01", amount: new Dec("1.5") },
      { date: "2024-01-01", amount: new Dec("2") },
      { date: "2024-02-01", amount: new Dec("0.5") },
      { date: "2024-03-01", amount: new Dec("0") },
    ]);
    expect(merged).toEqual([
      { date: "2024-01-01", amount: "2" },
      { date: "2024-02-01", amount: "2" },
    ]);
    expect(cumulativeCurve([merged, [{ date: "2024-01-01", amount: "0.1" }]])).toEqual([
      { date: "2024-01-01", vested: "2.1" },
      { date: "2024-02-01", vested: "4.1" },
    ]);
  });

  it("says which reading was used, in text and HTML, and lists the holders that differ", () => {
    const text = renderReconciliationText(report, (rows, headers) => [headers.join("|"), ...rows.map((r) => r.join("|"))].join("\n"));
    expect(text).toContain("OCF read by the documents reading (a cancellation ends its security; what remains lives on its balance security); declared by the package.");
    expect(text).toContain("Holders that differ (1 of 2), as of 2025-06-30:");
    expect(text).toContain("stakeholder-2|19000|0|10|10");
    const html = renderReconciliationHtml([report]);
    expect(html).toContain('data-reading="documents"');
    expect(html).toContain('<tr class="differ" data-stakeholder="stakeholder-2">');
    expect(html).toContain("&#60;1&#62;");
    expect(html).toContain("1,234,567.5");
    expect(html).toContain("-19,000");
  });

  it("a holder that differs is a difference, though every grant agrees: not AGREE, in text, HTML and CSV; within the tolerance it is not", () => {
    const onlyHolders: ReconciliationReport = { ...report, issuerId: "7", differences: [], notes: [] };
    expect(reportAgrees(onlyHolders)).toBe(false);
    expect(differingHolders(onlyHolders).map((h) => h.stakeholderId)).toEqual(["stakeholder-2"]);
    const text = renderReconciliationText(onlyHolders, (rows, headers) => [headers.join("|"), ...rows.map((r) => r.join("|"))].join("\n"));
    expect(text).not.toContain("AGREE");
    expect(text).toContain("DIFFERENCES: 1 holder (every grant agrees, but not who holds it)");
    expect(renderReconciliationText({ ...report, notes: [] }, (rows) => rows.map((r) => r.join("|")).join("\n"))).toContain("DIFFERENCES: 1 (1 source-vs-ocf); 1 holder");
    const html = renderReconciliationHtml([onlyHolders]);
    expect(html).not.toContain("Everything agrees.");
    expect(html).toContain('<p class="differ">1 holder whose holdings differ.</p>');
    expect(reconciliationCsv([onlyHolders]).split("\r\n").slice(1, -1)).toEqual([
      '"7","holders","","","","","stakeholder_id stakeholder-2 shares","19000","0","stakeholder ""stakeholder-2"": shares as of 2025-06-30 are 19000 in the source but 0 in the OCF package"',
    ]);
    const tolerated = { ...onlyHolders, tolerance: "19000" };
    expect(reportAgrees(tolerated)).toBe(true);
    expect(reconciliationCsv([tolerated]).split("\r\n").slice(1, -1)).toEqual([]);
    expect(renderReconciliationText(tolerated, (rows) => rows.map((r) => r.join("|")).join("\n"))).toContain("AGREE: 0 grants compared, no difference");
    expect(renderReconciliationHtml([tolerated])).toContain("Everything agrees.");
  });

  it("groups thousands without changing a digit", () => {
    expect(groupThousands("1234567.12345")).toBe("1,234,567.12345");
    expect(groupThousands("-1000")).toBe("-1,000");
    expect(groupThousands("999")).toBe("999");
    expect(groupThousands("0.0001")).toBe("0.0001");
    expect(groupThousands("n/a")).toBe("n/a");
  });

  it("draws the difference of the two curves on its own scale, and says where they part", () => {
    const html = renderReconciliationHtml([report]);
    expect(html).toContain('class="difference-chart"');
    expect(html).toContain("The sides differ on 1 of 2 dates; largest difference 50 shares.");
    const agreeing = renderReconciliationHtml([{ ...report, vestingCurves: { expected: report.vestingCurves.expected, actual: report.vestingCurves.expected } }]);
    // The curves agree but the report still lists a difference: the panel says where it is rather than
    // reading as if nothing differed.
    expect(agreeing).toContain("The two vesting schedules vest the same shares on every date; the difference listed above is not in the schedules but in issued.");
    expect(agreeing).not.toContain("The two sides vest the same shares on every date.");
    const agreeingEverywhere = renderReconciliationHtml([{ ...report, differences: [], vestingCurves: { expected: report.vestingCurves.expected, actual: report.vestingCurves.expected } }]);
    expect(agreeingEverywhere).toContain("The two sides vest the same shares on every date.");
  });
});
