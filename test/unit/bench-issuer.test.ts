/**
 * The benchmarks' generated issuer must stay something ocf-sync exports: when the mapping tightens
 * (a unit's settlement class must be known, …), `npm run bench` would otherwise fail long after the
 * change that broke it.
 */
import { describe, expect, it } from "vitest";
import { GENERATED_ISSUER_ID, generatedPullItems, generatedRecordText, generatedRecordTexts, pullItemsOfTexts } from "../../bench/generated-issuer.js";
import { IssuerMappingAccumulator } from "../../src/mapping/accumulator.js";

describe("the benchmarks' generated issuer", () => {
  it("parses and maps with no quarantine and no failure", async () => {
    const accumulator = new IssuerMappingAccumulator(GENERATED_ISSUER_ID, { asOf: "2025-06-30", onInvalid: "fail" });
    let mapped = 0;
    let awardsDone = false;
    for await (const item of generatedPullItems(60)) {
      if (item.type !== "record") continue;
      if (item.kind === "restrictedStockUnit" && !awardsDone) {
        accumulator.awardsComplete();
        awardsDone = true;
      }
      const outcome = accumulator.add(item);
      expect(outcome.status).toBe("mapped");
      mapped++;
    }
    const head = accumulator.finish();
    expect(mapped).toBe(60);
    expect(head.quarantined).toEqual([]);
    expect(head.stockClasses.map((c) => c.name)).toEqual(["Common"]);
  });

  it("writes each record as the text JSON.stringify gives of it, as the sample server sends it", () => {
    for (const kind of ["award", "unit"] as const) {
      for (const i of [0, 1, 23, 24, 27, 49, 59, 996, 997, 9999]) {
        const text = generatedRecordText(kind, i);
        expect(JSON.stringify(JSON.parse(text))).toBe(text);
      }
    }
  });

  it("gives the same items from text made first (the timed exports) as from text made as it is needed", async () => {
    const collect = async (items: AsyncIterable<unknown>): Promise<unknown[]> => {
      const all: unknown[] = [];
      for await (const item of items) all.push(item);
      return all;
    };
    const made = await collect(pullItemsOfTexts(generatedRecordTexts(7)));
    expect(made).toHaveLength(7);
    expect(made).toEqual(await collect(generatedPullItems(7)));
  });
});
