/**
 * src/ocf/types.ts is written from the runtime schemas by scripts/write-ocf-types.ts (`npm run
 * ocf-types`): the committed file must be exactly what the generator prints now, so that a schema
 * change that is not carried into the public types (or a hand edit of them) fails here. That the
 * printed types equal what the schemas infer is proved by src/ocf/types-match.ts at type-check time.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { OCF_TYPES_FILE, ocfTypesSource } from "../../../scripts/ocf-types.js";

describe("src/ocf/types.ts", () => {
  it("is byte for byte what `npm run ocf-types` writes from the schemas", () => {
    const committed = readFileSync(resolve(import.meta.dirname, "../../..", OCF_TYPES_FILE), "utf8");
    expect(committed, "run `npm run ocf-types` and commit src/ocf/types.ts").toBe(ocfTypesSource());
  });

  it("never mentions zod, so neither do the published declarations", () => {
    expect(ocfTypesSource()).not.toMatch(/zod/i);
  });
});
