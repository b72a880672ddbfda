import { describe, expect, it } from "vitest";
import { HEAP_GROWTH_FLAG, boundHeapGrowth } from "../../../src/cli/heap.js";

describe("boundHeapGrowth (the CLI's bounded heap growth)", () => {
  const setter = (): { set: (flag: string) => void; flags: string[] } => {
    const flags: string[] = [];
    return { set: (flag) => flags.push(flag), flags };
  };

  it("sets the flag when node was started without a heap growth of its own", () => {
    const { set, flags } = setter();
    expect(boundHeapGrowth({ execArgv: ["--enable-source-maps"], nodeOptions: "--max-old-space-size=4096" }, set)).toBe(true);
    expect(flags).toEqual([HEAP_GROWTH_FLAG]);
  });

  it("leaves a heap growth given on the command line or in NODE_OPTIONS as it is", () => {
    for (const node of [
      { execArgv: ["--heap-growing-percent=200"], nodeOptions: undefined },
      { execArgv: [], nodeOptions: "--inspect --heap_growing_percent=10" },
      { execArgv: ["--heap-growing-percent", "30"], nodeOptions: "" },
    ]) {
      const { set, flags } = setter();
      expect(boundHeapGrowth(node, set)).toBe(false);
      expect(flags).toEqual([]);
    }
  });

  it("does not mistake another flag for it", () => {
    const { set, flags } = setter();
    expect(boundHeapGrowth({ execArgv: ["--heap-growing-percentage-x"], nodeOptions: undefined }, set)).toBe(true);
    expect(flags).toEqual([HEAP_GROWTH_FLAG]);
  });
});
