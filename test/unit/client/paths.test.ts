import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isClientConfigError, isInvalidIdentifierError } from "../../../src/client/errors.js";
import { buildQuery, buildRequestPath, encodePathSegment, parseBaseUrl } from "../../../src/client/paths.js";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("encodePathSegment", () => {
  it.each([
    ["../x", "..%2Fx"],
    ["a/b", "a%2Fb"],
    ["%", "%25"],
    ["%2E%2E", "%252E%252E"],
    ["a b", "a%20b"],
    ["?#&=", "%3F%23%26%3D"],
    ["Zürich", "Z%C3%BCrich"],
    ["株式", "%E6%A0%AA%E5%BC%8F"],
    ["😀", "%F0%9F%98%80"],
    ["...", "..."],
    ["1191", "1191"],
  ])("escapes %j as one segment %j", (raw, encoded) => {
    expect(encodePathSegment(raw)).toBe(encoded);
    const url = new URL(`http://h/v1alpha1/${encodePathSegment(raw)}/tail`);
    const segments = url.pathname.split("/");
    expect(segments).toHaveLength(4);
    expect(decodeURIComponent(segments[2]!)).toBe(raw);
  });

  it.each([".", "..", ""])("rejects %j with INVALID_IDENTIFIER naming the value", (raw) => {
    const error = thrown(() => encodePathSegment(raw));
    expect(isInvalidIdentifierError(error)).toBe(true);
    expect((error as Error).message).toContain(JSON.stringify(raw));
  });

  it("rejects an unpaired surrogate", () => {
    expect(isInvalidIdentifierError(thrown(() => encodePathSegment("a\uD800b")))).toBe(true);
  });

  it("property: any other string survives WHATWG URL parsing as exactly one segment", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).filter((s) => s !== "." && s !== ".."),
        (raw) => {
          const url = new URL(`https://api.example.com/prefix/${encodePathSegment(raw)}/end`);
          const segments = url.pathname.split("/");
          expect(segments).toEqual(["", "prefix", expect.any(String), "end"]);
          expect(decodeURIComponent(segments[2]!)).toBe(raw);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("buildRequestPath", () => {
  it("keeps the base URL's path prefix, with or without a trailing slash", () => {
    for (const base of ["https://api.example.com/prefix", "https://api.example.com/prefix/"]) {
      const parsed = parseBaseUrl(base);
      expect(parsed.href).toBe("https://api.example.com/prefix");
      expect(buildRequestPath(parsed, ["v1alpha1", "issuers", "7"])).toBe("/prefix/v1alpha1/issuers/7");
    }
    expect(buildRequestPath(parseBaseUrl("http://127.0.0.1:4010"), ["a"])).toBe("/a");
  });

  it("adds the query, leaving out undefined values and escaping the rest", () => {
    expect(
      buildRequestPath(parseBaseUrl("http://h"), ["x"], {
        pageSize: "50",
        pageToken: "ODMxMw==",
        gone: undefined,
        after: "2024-07-30T09:31:57Z",
        spaced: "a b+c",
      }),
    ).toBe("/x?pageSize=50&pageToken=ODMxMw%3D%3D&after=2024-07-30T09%3A31%3A57Z&spaced=a%20b%2Bc");
    expect(buildQuery({ only: undefined })).toBe("");
    expect(buildQuery(undefined)).toBe("");
  });
});

describe("parseBaseUrl", () => {
  it.each([
    ["not a url"],
    ["ftp://example.com"],
    ["https://example.com/?q=1"],
    ["https://example.com/#frag"],
  ])("rejects %j", (text) => {
    expect(isClientConfigError(thrown(() => parseBaseUrl(text)))).toBe(true);
  });

  it.each([
    ["https://api.example.com/v1alpha1", "https://api.example.com"],
    ["https://api.example.com/v1alpha1/", "https://api.example.com"],
    ["http://127.0.0.1:4010/proxy/v1alpha1/issuers/7", "http://127.0.0.1:4010/proxy"],
  ])("rejects %j, a base URL with the API version the client adds itself, naming the root %j", (text, root) => {
    const error = thrown(() => parseBaseUrl(text));
    expect(isClientConfigError(error)).toBe(true);
    expect((error as Error).message).toContain(`requests already start with /v1alpha1/: give the API's root, ${root}`);
  });

  it("keeps a path prefix that is not the API version", () => {
    expect(parseBaseUrl("https://gateway.example.com/carta/").prefix).toBe("/carta");
    expect(parseBaseUrl("https://gateway.example.com/v1alpha10").prefix).toBe("/v1alpha10");
  });

  it("rejects credentials in the URL without repeating them", () => {
    const error = thrown(() => parseBaseUrl("https://user:hunter22@example.com"));
    expect(isClientConfigError(error)).toBe(true);
    expect((error as Error).message).not.toContain("hunter22");
  });
});
