import { describe, expect, it } from "vitest";
import { parseGetEnvelope, parseListEnvelope } from "../../../src/source/envelopes.js";
import {
  SourceEnvelopeError,
  SourceRecordError,
  isSourceEnvelopeError,
  type SourceWarning,
} from "../../../src/source/errors.js";
import { parseUnit } from "../../../src/source/parse.js";
import { awardRecord, thrownBy, unitRecord } from "./fixtures.js";

const awardsCtx = { issuerId: "7", path: "/v1alpha1/issuers/7/restrictedStockAwards" };
const unitsCtx = { issuerId: "7", path: "/v1alpha1/issuers/7/restrictedStockUnits" };

const envelopeErrorOf = (fn: () => unknown): SourceEnvelopeError => thrownBy(SourceEnvelopeError, fn);

describe("parseListEnvelope", () => {
  it("returns the items raw and untouched, with the page token", () => {
    const record = awardRecord();
    const page = parseListEnvelope("restrictedStockAward", { restrictedStockAwards: [record], nextPageToken: "ODMxMw==" }, awardsCtx);
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toBe(record);
    expect(page.nextPageToken).toBe("ODMxMw==");
    expect(page.warnings).toEqual([]);
  });

  it.each([
    ["missing", {}],
    ["null", { restrictedStockUnits: null, nextPageToken: null }],
    ["empty", { restrictedStockUnits: [], nextPageToken: "" }],
  ])("reads a %s array as an empty last page", (_label, body) => {
    expect(parseListEnvelope("restrictedStockUnit", body, unitsCtx)).toEqual({ items: [], nextPageToken: undefined, warnings: [] });
  });

  it("keeps the token of an empty page: only the token decides the end (source-api.md §5)", () => {
    expect(parseListEnvelope("restrictedStockUnit", { nextPageToken: "ODU3NA==" }, unitsCtx).nextPageToken).toBe("ODU3NA==");
  });

  it("keeps a bad record raw so that it fails alone, not its page", () => {
    const bad = { ...unitRecord(), id: "9", quantity: { value: "1,5" } };
    const page = parseListEnvelope("restrictedStockUnit", { restrictedStockUnits: [unitRecord(), bad] }, unitsCtx);
    const outcomes = page.items.map((item) => {
      try {
        return parseUnit(item, unitsCtx).record.id;
      } catch (error) {
        return error instanceof SourceRecordError ? `failed ${error.recordId}` : "other";
      }
    });
    expect(outcomes).toEqual(["5570", "failed 9"]);
  });

  it("reports unknown envelope keys, the other kind's array included, as warnings", () => {
    const body = { restrictedStockAwards: [], totalSize: 3, restrictedStockUnits: [] };
    const { warnings } = parseListEnvelope("restrictedStockAward", body, awardsCtx);
    expect(warnings).toEqual([
      {
        code: "UNKNOWN_FIELD",
        issuerId: "7",
        kind: "restrictedStockAward",
        path: "totalSize",
        value: 3,
        message: "list response of GET /v1alpha1/issuers/7/restrictedStockAwards: totalSize: unknown field, ignored (value 3)",
      },
      expect.objectContaining({ code: "UNKNOWN_FIELD", path: "restrictedStockUnits" }),
    ]);
    expect(Object.hasOwn(warnings[0] as SourceWarning, "recordId")).toBe(false);
  });

  it.each([
    ["a null body", null, "the body null is not a JSON object"],
    ["an array body", [], "the body [] is not a JSON object"],
    ["a text body", "<html>", 'the body "<html>" is not a JSON object'],
    ["items not an array", { restrictedStockAwards: { id: "1" } }, '"restrictedStockAwards" is {"id":"1"}, not an array'],
    ["the other kind's page", { restrictedStockUnits: [{ id: "1" }] }, 'it holds "restrictedStockUnits" instead of "restrictedStockAwards"'],
    ["a numeric token", { restrictedStockAwards: [], nextPageToken: 8313 }, "nextPageToken 8313 is not a string"],
  ])("rejects %s, naming the request path", (_label, body, problem) => {
    const error = envelopeErrorOf(() => parseListEnvelope("restrictedStockAward", body, awardsCtx));
    expect(error.code).toBe("SOURCE_ENVELOPE_INVALID");
    expect(isSourceEnvelopeError(error)).toBe(true);
    expect(error).toMatchObject({ issuerId: "7", kind: "restrictedStockAward", path: awardsCtx.path });
    expect(error.message).toBe(
      `response of GET /v1alpha1/issuers/7/restrictedStockAwards (restrictedStockAward, issuer "7"): ${problem}`,
    );
  });
});

describe("parseGetEnvelope", () => {
  const getCtx = { issuerId: "7", path: "/v1alpha1/issuers/7/restrictedStockUnits/5570" };

  it("returns the raw record", () => {
    const record = unitRecord();
    expect(parseGetEnvelope("restrictedStockUnit", { restrictedStockUnit: record }, getCtx)).toBe(record);
  });

  it.each([
    ["missing", {}, 'the body has no "restrictedStockUnit"'],
    ["null", { restrictedStockUnit: null }, 'the body has no "restrictedStockUnit"'],
    ["of the other kind", { restrictedStockAward: { id: "1" } }, 'the body has no "restrictedStockUnit"'],
    ["not an object", { restrictedStockUnit: ["5570"] }, '"restrictedStockUnit" is ["5570"], not an object'],
    ["without an envelope", null, "the body null is not a JSON object"],
  ])("treats a resource that is %s as a protocol error, not as not-found", (_label, body, problem) => {
    const error = envelopeErrorOf(() => parseGetEnvelope("restrictedStockUnit", body, getCtx));
    expect(error.code).toBe("SOURCE_ENVELOPE_INVALID");
    expect(error.message).toContain(getCtx.path);
    expect(error.message).toContain(problem);
  });

  it("passes unknown envelope keys to onWarning", () => {
    const warnings: SourceWarning[] = [];
    parseGetEnvelope("restrictedStockUnit", { restrictedStockUnit: { id: "1" }, etag: "x" }, {
      ...getCtx,
      onWarning: (warning) => warnings.push(warning),
    });
    expect(warnings.map((w) => [w.code, w.path, w.value])).toEqual([["UNKNOWN_FIELD", "etag", "x"]]);
    expect(warnings[0]?.message).toContain("get response of GET /v1alpha1/issuers/7/restrictedStockUnits/5570");
  });
});

describe("credentials the client redacted (ApiResponse.redacted)", () => {
  it("are each a SECRET_REDACTED warning about the record and field, or about the response", () => {
    const body = { restrictedStockAwards: [{ ...awardRecord(), id: "41", transferNote: "a [REDACTED]" }], nextPageToken: "[REDACTED]" };
    const redacted = [["restrictedStockAwards", 0, "transferNote"], ["nextPageToken"]];
    const page = parseListEnvelope("restrictedStockAward", body, { ...awardsCtx, redacted });
    expect(page.warnings.map(({ code, recordId, path }) => ({ code, recordId, path }))).toEqual([
      { code: "SECRET_REDACTED", recordId: "41", path: "transferNote" },
      { code: "SECRET_REDACTED", recordId: undefined, path: "nextPageToken" },
    ]);
    expect(page.warnings[0]?.message).toMatch(/^restrictedStockAward "41" of issuer "7": transferNote: held a credential in use/);
    expect(page.warnings[1]?.message).toMatch(/^list response of GET \/v1alpha1\/issuers\/7\/restrictedStockAwards: nextPageToken: held a credential/);

    const warnings: SourceWarning[] = [];
    const path = "/v1alpha1/issuers/7/restrictedStockAwards/41";
    parseGetEnvelope("restrictedStockAward", { restrictedStockAward: body.restrictedStockAwards[0] }, { issuerId: "7", path, redacted: [["restrictedStockAward", "transferNote"]], onWarning: (w) => warnings.push(w) });
    expect(warnings.map(({ code, recordId, path: at }) => ({ code, recordId, path: at }))).toEqual([{ code: "SECRET_REDACTED", recordId: "41", path: "transferNote" }]);
  });
});
