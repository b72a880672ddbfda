/**
 * The sync state holds whatever the mapping takes (issue 25, item 1): awards whose share class
 * references are any text (empty, white space, control characters, `__proto__`, lone surrogates,
 * too long, …) are parsed and mapped as a sync does; the class names a pass keeps of the awards the
 * mapping takes go into an issuer's entry, which is written and read back equal, never refused.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mapGrant } from "../../src/mapping/accumulator.js";
import { isMappingError } from "../../src/mapping/errors.js";
import { isSourceRecordError } from "../../src/source/errors.js";
import { parseRecord } from "../../src/source/parse.js";
import type { RestrictedStockAward } from "../../src/source/records.js";
import { PassClassNames } from "../../src/sync/class-names.js";
import { readSyncState, writeSyncState, type IssuerSyncState } from "../../src/sync/state.js";
import { awardRecord } from "../unit/source/fixtures.js";

/** Text as hostile as JSON allows: any UTF-16 unit (lone surrogates, NUL, ESC, U+2028), names of Object.prototype. */
const anyText = fc.oneof(
  fc.constantFrom("", " ", "\t\n", "\u00a0", "__proto__", "constructor", "toString", "hasOwnProperty", "\u0000", "\u001b[2J", "\u2028", 'a"b\\c', "x".repeat(50), "x".repeat(51)),
  fc.string({ maxLength: 60, unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) }),
  fc.string({ maxLength: 60, unit: "binary" }),
);

const awardArb = fc.record({
  id: fc.oneof(fc.constantFrom("__proto__", "1"), fc.string({ minLength: 1, maxLength: 50, unit: "binary" })),
  shareClassName: fc.option(anyText, { nil: undefined }),
  shareClassId: fc.option(anyText, { nil: undefined }),
  // Some awards the mapping refuses (no price is invented): they name no class.
  priced: fc.boolean(),
});

const entryArb = fc.record({
  issuerId: fc.string({ minLength: 1, maxLength: 50, unit: "binary" }),
  generation: fc.nat(),
  records: fc.nat(),
  cursor: fc.option(fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }), { nil: null }),
  token: fc.option(anyText, { nil: null }),
});

describe("the sync state round-trips what the mapping takes", () => {
  it("an issuer's entry with the class names of arbitrary awards is read back as written", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ocf-sync-state-property-"));
    const file = join(dir, "state.json");
    await fc.assert(
      fc.asyncProperty(fc.array(awardArb, { maxLength: 12 }), fc.array(entryArb, { minLength: 1, maxLength: 3 }), async (awards, entries) => {
        const names = new PassClassNames(undefined, true);
        for (const award of awards) {
          const raw: Record<string, unknown> = { ...awardRecord(), id: award.id, shareClassName: award.shareClassName, shareClassId: award.shareClassId };
          if (!award.priced) delete raw.pricePerShare;
          let record: RestrictedStockAward;
          try {
            record = parseRecord("restrictedStockAward", raw, { issuerId: "7" }).parsed.record as RestrictedStockAward;
          } catch (error) {
            if (!isSourceRecordError(error)) throw error;
            continue;
          }
          // As the pass does: an award the mapping takes gives its class id its name.
          let taken = true;
          try {
            mapGrant({ kind: "restrictedStockAward", record }, { issuerId: "7" });
          } catch (error) {
            if (!isMappingError(error)) throw error;
            taken = false;
          }
          const { shareClassId: id, shareClassName: name } = record;
          names.pulledAward(record.id, taken && id !== undefined && name !== undefined ? { id, name } : undefined);
        }
        await names.settle(() => Promise.resolve(new Map()));
        const issuers: IssuerSyncState[] = entries.map((entry, index) => ({
          issuerId: `${index}-${entry.issuerId}`,
          cursor: entry.cursor === null ? null : `${entry.cursor.toISOString().slice(0, 23)}000Z`,
          generation: entry.generation,
          records: entry.records,
          incrementalSinceFull: 0,
          lastPass: "full",
          syncedAt: "2026-01-01T00:00:00Z",
          store: { shards: [entry.generation], recent: entry.generation, mapping: "abc", ...names.toStore() },
          unchangedPages: [["def", entry.records, entry.token]],
        }));
        await writeSyncState(file, { version: 2, issuers });
        const read = await readSyncState(file);
        expect(read.unreadable).toBeUndefined();
        const sorted = [...issuers].sort((a, b) => (a.issuerId < b.issuerId ? -1 : a.issuerId > b.issuerId ? 1 : 0));
        expect(read.issuers).toEqual(sorted);
        // Own keys, `__proto__` among them, and nothing inherited.
        for (const [index, issuer] of read.issuers.entries()) {
          expect(Object.entries(issuer.store?.classNames ?? {})).toEqual(Object.entries(sorted[index]?.store?.classNames ?? {}));
          expect(Object.entries(issuer.store?.classNamedBy ?? {})).toEqual(Object.entries(sorted[index]?.store?.classNamedBy ?? {}));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a name while an award still gives it, and drops it when none does", async () => {
    const stored = { shards: [1], recent: 1, mapping: "abc", classNames: { X: "Common", Y: "Preferred" }, classNamedBy: { X: "a1", Y: "a2" } };
    // a1 is quarantined now; the store has a3 naming X: the name stays, with a3.
    const kept = new PassClassNames(stored, false);
    kept.pulledAward("a1", undefined);
    expect(await kept.settle((ids, except) => Promise.resolve(new Map(ids.has("X") && !except.has("a3") ? [["X", ["Common", "a3"] as [string, string]]] : [])))).toBe(false);
    expect(kept.toStore()).toEqual({ classNames: { X: "Common", Y: "Preferred" }, classNamedBy: { X: "a3", Y: "a2" } });
    // a2 names another class now, and no stored award names Y: Y goes.
    const dropped = new PassClassNames(stored, false);
    dropped.pulledAward("a2", { id: "Z", name: "Other" });
    expect(await dropped.settle(() => Promise.resolve(new Map()))).toBe(true);
    expect(dropped.toStore()).toEqual({ classNames: { X: "Common", Z: "Other" }, classNamedBy: { X: "a1", Z: "a2" } });
    // An award that was not the one kept for a name changes nothing: the store is not searched.
    const untouched = new PassClassNames(stored, false);
    untouched.pulledAward("a9", undefined);
    expect(await untouched.settle(() => Promise.reject(new Error("searched")))).toBe(false);
  });
});
