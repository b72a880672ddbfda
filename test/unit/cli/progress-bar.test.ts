/** The progress bar on a terminal moves inside an issuer: pages and records, and what it reads now. */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createReporter, PageTally } from "../../../src/cli/progress.js";

/** A terminal stream that keeps what was written. */
function terminal(): Writable & { isTTY: boolean; columns: number; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString("utf8"));
      done();
    },
  });
  return Object.assign(stream, { isTTY: true, columns: 200, text: () => chunks.join("") });
}

describe("the progress bar", () => {
  it("shows pages and the page being read while the only issuer runs, and no empty ETA", () => {
    const stream = terminal();
    let t = 0;
    const reporter = createReporter(stream, "auto", { env: { TERM: "xterm", NO_COLOR: "1" }, now: () => t });
    const tally = new PageTally();
    for (const [kind, page] of [["restrictedStockAward", 1], ["restrictedStockAward", 2], ["restrictedStockUnit", 1]] as const) {
      tally.see({ type: "page-fetched", issuerId: "7", kind, page, records: 50 });
      t += 200;
      reporter.update({ issuersDone: 0, issuersTotal: 1, ...tally.state(), requests: 3 });
    }
    const last = stream.text().split("\r").filter((s) => s.trim() !== "").at(-1) ?? "";
    expect(last).toContain("0/1 issuers  150 records in 3 pages");
    expect(last).toContain('now: issuer "7" units, page 1');
    expect(last).not.toContain("ETA --");
    reporter.done();
  });

  it("estimates once an issuer is done, and escapes an issuer id's control characters", () => {
    const stream = terminal();
    let t = 0;
    const reporter = createReporter(stream, "auto", { env: { TERM: "xterm", NO_COLOR: "1" }, now: () => t });
    const tally = new PageTally();
    tally.see({ type: "page-fetched", issuerId: "a\u001b[2Jb", kind: "restrictedStockUnit", page: 1, records: 1 });
    t = 10_000;
    reporter.update({ issuersDone: 1, issuersTotal: 3, ...tally.state(), requests: 1 });
    const text = stream.text();
    expect(text).toContain("ETA 20s");
    expect(text).toContain("a\\u001b[2Jb");
    expect(text).not.toContain("\u001b[2J");
    reporter.done();
  });
});
