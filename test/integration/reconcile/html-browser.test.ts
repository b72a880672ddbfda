/**
 * The HTML report opened in a real headless browser (an installed Chromium driven by playwright-core,
 * no browser download; found as test/helpers/gates.ts says, and skipped with one printed line when
 * there is none): the totals and differences tables and the vesting chart render, nothing is fetched
 * from the network, hostile ids stay text, and a screenshot is taken.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { renderReconciliationHtml } from "../../../src/reconcile/html.js";
import { reconcileSourceWithOcf } from "../../../src/reconcile/source-vs-ocf.js";
import { captureIo } from "../../helpers/capture.js";
import { chromiumPath, describeWithChromium } from "../../helpers/chromium.js";
import { samplePackage, sampleSource, txById } from "../../unit/reconcile/helpers.js";

const GOLDEN = resolve(import.meta.dirname, "../../../samples/ocf");

describeWithChromium("the HTML reconciliation report in headless chromium", () => {
  let dir: string;
  let context: BrowserContext;
  /** Every request the page made that is not the report file itself. */
  const outside: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ocf-sync-html-"));
    context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath: chromiumPath(),
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    await context.route("**/*", async (route) => {
      const url = route.request().url();
      if (url.startsWith("file:")) return route.continue();
      outside.push(url);
      return route.abort();
    });
  });
  afterAll(async () => {
    await context?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("renders the totals, every difference and the chart of vested shares, offline", async () => {
    const io = captureIo(dir);
    const source = resolve(import.meta.dirname, "../../../samples/api/acme-robotics.json");
    // A pull's NDJSON built from the sample records, so the test needs no server.
    const data = JSON.parse(await readFile(source, "utf8")) as { restrictedStockAwards: unknown[]; restrictedStockUnits: unknown[] };
    const lines = [
      ...data.restrictedStockAwards.map((record) => ({ kind: "restrictedStockAward", issuerId: "acme-robotics", id: (record as { id: string }).id, record })),
      ...data.restrictedStockUnits.map((record) => ({ kind: "restrictedStockUnit", issuerId: "acme-robotics", id: (record as { id: string }).id, record })),
    ];
    await writeFile(join(dir, "acme.ndjson"), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    expect(await runCli(["reconcile", "--source", "acme.ndjson", join(GOLDEN, "acme-robotics"), "--html", "report.html"], io)).toBe(1);

    const html = await readFile(join(dir, "report.html"), "utf8");
    // Self-contained: no script, no linked or embedded external resource.
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|\shref=|url\(|@import/i);

    const page = await context.newPage();
    await page.setViewportSize({ width: 1000, height: 1400 });
    await page.goto(pathToFileURL(join(dir, "report.html")).href);
    const rows = (selector: string) => page.locator(selector).evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent ?? "")));
    expect(await page.locator("table.totals tbody tr").count()).toBe(11);
    expect((await rows("table.differences tbody tr")).map((cells) => cells.slice(0, 7))).toEqual([
      ["source-vs-ocf", "FIGURE_MISMATCH", "RSA-0003", "rsa-RSA-0003", "vested", "47,500", "45,000"],
      ["source", "SOURCE_INCONSISTENT", "RSA-0003", "", "vestedQuantity", "47,500", "45,000"],
    ]);
    expect(await page.locator("p.reading").textContent()).toContain("OCF read by the documents reading");
    expect(await page.locator("p.reading").textContent()).toContain("declared by the package");
    // Every holder agrees: a row per holder, none marked.
    expect(await page.locator("table.holders tbody tr").count()).toBeGreaterThan(3);
    expect(await page.locator("table.holders tbody tr.differ").count()).toBe(0);
    // The headline counts 2 differences; the panel under the curves, which agree, says where they are
    // instead of reading as if nothing differed.
    expect(await page.locator("p.difference-summary").textContent()).toContain(
      "The two vesting schedules vest the same shares on every date; the 2 differences listed above are not in the schedules but in vested, vestedQuantity: the source's vestedQuantity counters (the square marker) do not match its own vesting events.",
    );
    // The chart drew: both series as paths with real extent on the page, with their points.
    const chart = await page.locator("svg.vesting-chart").boundingBox();
    expect(chart?.width).toBeGreaterThan(500);
    expect(chart?.height).toBeGreaterThan(200);
    const series = page.locator("svg.vesting-chart path.series");
    expect(await series.count()).toBe(2);
    for (const side of ["expected", "actual"]) {
      const path = page.locator(`svg.vesting-chart path.series[data-side="${side}"]`);
      const box = await path.boundingBox();
      expect(box?.width).toBeGreaterThan(400);
      expect(box?.height).toBeGreaterThan(150);
      expect(await path.evaluate((p) => (p as unknown as { getTotalLength(): number }).getTotalLength())).toBeGreaterThan(500);
    }
    expect(await page.locator("svg.vesting-chart circle").count()).toBeGreaterThan(10);
    expect(await page.locator("svg.vesting-chart rect.counter title").textContent()).toContain("vestedQuantity counters total 330,084.5 as of 2025-06-30");
    // Readable axes: round ticks with thousands separators, and years along the bottom.
    const yTicks = await page.locator("svg.vesting-chart text.y-tick").allTextContents();
    expect(yTicks.length).toBeGreaterThanOrEqual(4);
    expect(yTicks.some((t) => /^\d{1,3}(,\d{3})+$/.test(t))).toBe(true);
    expect(await page.locator("svg.vesting-chart text.x-tick").count()).toBeGreaterThanOrEqual(2);

    const shot = join(dir, "report.png");
    await page.screenshot({ path: shot, fullPage: true });
    const png = await readFile(shot);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect((await stat(shot)).size).toBeGreaterThan(10_000);
    expect(outside).toEqual([]);
    await page.close();
  });

  it("makes a difference visible: the holders that differ are marked, and the difference series leaves zero where the sides part", async () => {
    const source = await sampleSource("7");
    const doctored = await samplePackage("7", (txs) => {
      // A tranche the holder never earned, added back after the termination, and the balance removed.
      (txById(txs, "rsa-2208-issuance").vestings as { date: string; amount: string }[]).push({ date: "2024-05-15", amount: "1000" });
      return txs.filter((t) => t.security_id !== "rsa-2208-balance");
    });
    const report = reconcileSourceWithOcf(source, doctored, { asOf: "2025-06-30" });
    await writeFile(join(dir, "doctored.html"), renderReconciliationHtml([report]));
    const page = await context.newPage();
    await page.goto(pathToFileURL(join(dir, "doctored.html")).href);
    expect(await page.locator('table.holders tbody tr.differ[data-stakeholder="stakeholder-5187"]').count()).toBe(1);
    expect(await page.locator('table.holders tbody tr.differ[data-stakeholder="stakeholder-5187"] td').allTextContents()).toEqual(["20,880", "1,880", "-19,000", "1,000", "1,000", "0"]);
    expect(await page.locator("p.difference-summary").textContent()).toContain("largest difference 1,000 shares");
    const diff = page.locator('svg.difference-chart path.series[data-side="difference"]');
    const box = await diff.boundingBox();
    // Off the zero line: the step has height, and its points carry the difference.
    expect(box?.height).toBeGreaterThan(20);
    expect(await page.locator("svg.difference-chart circle title").first().textContent()).toContain("= 1,000");
    await page.screenshot({ path: join(process.env.OCF_SYNC_SCREENSHOT_DIR ?? dir, "doctored.png"), fullPage: true });
    expect(outside).toEqual([]);
    await page.close();
  });

  it("shows hostile ids and labels as text, never as markup", async () => {
    const hostile = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>&amp;`;
    const source = await sampleSource("7");
    const award = source.awards[0];
    if (award === undefined) throw new Error("no award");
    // A source record the package does not have: its id lands in the differences table.
    const report = reconcileSourceWithOcf({ ...source, awards: [...source.awards, { ...award, id: hostile }] }, await samplePackage("7"), {
      labels: { expected: hostile, actual: "OCF" },
    });
    await writeFile(join(dir, "hostile.html"), renderReconciliationHtml([report]));
    const page = await context.newPage();
    await page.goto(pathToFileURL(join(dir, "hostile.html")).href);
    const found = {
      title: await page.title(),
      injected: await page.locator("img, script").count(),
      recordCells: await page.locator("table.differences tbody tr td:nth-child(3)").allTextContents(),
    };
    expect(found).toEqual({ title: "ocf-sync reconciliation", injected: 0, recordCells: [hostile] });
    expect(outside).toEqual([]);
    await page.close();
  });
});
