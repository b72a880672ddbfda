/** Redaction of a secret in the forms a server or gateway echoes it: case, URL and form encoding, base64, cut short. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED, redactUrl, urlSecrets } from "../../src/redaction.js";

const SECRET = "cs-Abc/9+x y=Z~q";
const base64 = (text: string): string => Buffer.from(text).toString("base64");
const escapedWhole = (text: string): string => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");

/** Every form a server or gateway may echo `secret` in, by name. */
function echoedForms(secret: string): [string, string][] {
  return [
    ["as it is", secret],
    ["upper-cased", secret.toUpperCase()],
    ["lower-cased", secret.toLowerCase()],
    ["URL-encoded", encodeURIComponent(secret)],
    ["URL-encoded, upper-cased", encodeURIComponent(secret).toUpperCase()],
    ["URL-encoded twice", encodeURIComponent(encodeURIComponent(secret))],
    ["form-encoded", new URLSearchParams({ s: secret }).toString().slice(2)],
    ["JSON-escaped (\\/ and \\u002B)", JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/").replaceAll("+", "\\u002B")],
    ["wholly as \\uXXXX escapes", escapedWhole(secret)],
    ["\\uXXXX escapes, URL-encoded", encodeURIComponent(escapedWhole(secret))],
    ["base64", base64(secret)],
    ["base64url", Buffer.from(secret).toString("base64url")],
    ["base64 of Bearer <secret>", base64(`Bearer ${secret}`)],
    ["base64url of Bearer <secret>", Buffer.from(`Bearer ${secret}`).toString("base64url")],
    ["base64 of id:secret (HTTP Basic)", base64(`client-7:${secret}`)],
    ["base64 of Bearer <secret>, URL-encoded", encodeURIComponent(base64(`Bearer ${secret}`))],
    ["its first 8 characters", secret.slice(0, 8)],
    ["its second half", secret.slice(secret.length - 8)],
    ["8 characters from its middle, upper-cased", secret.slice(4, 12).toUpperCase()],
  ];
}

describe("a redactor", () => {
  const redactor = createRedactor([SECRET]);

  it.each(echoedForms(SECRET))("%s", (_form, echoed) => {
    const shown = redactor.redact(`invalid credential "${echoed}…" (see docs)`);
    expect(shown).toMatch(/^invalid credential "(\S*)\[REDACTED\](\S*)…" \(see docs\)$/);
    expectNoWindow(shown, SECRET);
  });

  it("leaves text without the secret, and runs too short to mean anything, as they are", () => {
    expect(redactor.redact("nothing to see")).toBe("nothing to see");
    expect(redactor.redact("cs-Abc/ is short, 9+x y=Z is too")).toBe("cs-Abc/ is short, 9+x y=Z is too");
    // A secret shorter than 8 characters is redacted whole, not by part.
    expect(createRedactor(["abcdef"]).redact("token abcdef, and abcde")).toBe("token [REDACTED], and abcde");
    // No secret: no work, the same text.
    const text = "a%2Fb \\u0041 QmVhcmVy";
    expect(createRedactor().redact(text)).toBe(text);
  });

  it("learns secrets added later (a minted token) and replaces a run of pieces once", () => {
    const later = createRedactor();
    expect(later.active).toBe(false);
    later.add("minted-token-4f9a1c77e2", undefined, "");
    expect(later.active).toBe(true);
    expect(later.redact("a minted-token-4f9a1c77e2minted-token-4f9a1c77e2 b")).toBe(`a ${REDACTED} b`);
  });

  it("redacts every string of a value, keys too, and says where; the same value when none holds a secret", () => {
    const value = { fine: ["a", 1, null], notes: `echo ${SECRET}`, [SECRET]: true, nested: [{ x: base64(`Bearer ${SECRET}`) }] };
    const paths: (readonly (string | number)[])[] = [];
    const shown = redactor.redactValue(value, (path) => paths.push(path));
    expect(shown).toEqual({ fine: ["a", 1, null], notes: `echo ${REDACTED}`, [REDACTED]: true, nested: [{ x: expect.stringContaining(REDACTED) as unknown }] });
    expect(paths).toEqual([["notes"], [SECRET], ["nested", 0, "x"]]);
    expect(value.notes).toBe(`echo ${SECRET}`);
    const clean = { a: [{ b: "c" }] };
    expect(redactor.redactValue(clean)).toBe(clean);
  });

  it("finds a secret in text given in pieces, also one that straddles them, escaped or not", () => {
    const pieces = (text: string, size: number): Buffer[] => {
      const bytes = Buffer.from(text);
      return Array.from({ length: Math.ceil(bytes.length / size) }, (_, k) => bytes.subarray(k * size, (k + 1) * size));
    };
    const filler = "x".repeat(300);
    for (const [, echoed] of echoedForms(SECRET)) {
      for (const size of [1, 5, 64, 301, 4096]) expect(redactor.holdsIn(pieces(`${filler}"${echoed}"${filler}`, size)), `${echoed} in pieces of ${size}`).toBe(true);
    }
    expect(redactor.holdsIn(pieces(`${filler}é${filler}`, 3))).toBe(false);
    expect(createRedactor().holdsIn([Buffer.from(SECRET)])).toBe(false);
  });

  it("never leaves any 8 characters of a random secret in any form, whatever surrounds it", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: 40, unit: "grapheme-ascii" }).filter((s) => s.trim().length >= 8), fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (secret, before, after) => {
        const random = createRedactor([secret]);
        for (const [, echoed] of echoedForms(secret)) expectNoWindow(random.redact(`${before}${echoed}${after}`), secret);
      }),
    );
  });
});

/** No run of 8 characters of `secret` (case aside), nor of its base64 at any alignment, in `text`. */
function expectNoWindow(text: string, secret: string): void {
  const lower = text.toLowerCase();
  const decode = (once: string): string => {
    try {
      return decodeURIComponent(once);
    } catch {
      return once;
    }
  };
  const decoded = [lower, decode(lower), decode(decode(lower))];
  for (let at = 0; at + 8 <= secret.length; at += 1) {
    const piece = secret.slice(at, at + 8).toLowerCase();
    for (const shown of decoded) expect(shown, `${piece} in ${text}`).not.toContain(piece);
  }
}

describe("redactUrl", () => {
  it.each([
    ["https://auth.example/token?client_secret=abc", "https://auth.example/token?client_secret=[REDACTED]"],
    ["https://auth.example/o/token/?api_key=k-1&scope=x&flag", "https://auth.example/o/token/?api_key=[REDACTED]&scope=[REDACTED]&[REDACTED]"],
    ["https://user:pa55@auth.example/token#frag", "https://[REDACTED]@auth.example/token#[REDACTED]"],
    ["https://auth.example/o/access_token/", "https://auth.example/o/access_token/"],
    ["not a url?secret=abc", "not a url?secret=[REDACTED]"],
  ])("%s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it("urlSecrets lists what redactUrl hides, as written and decoded, for echoes to be found", () => {
    expect(urlSecrets("https://u:p%40ss@auth.example/t?a=x%2By&b=plain#f")).toEqual(["u", "p%40ss", "p@ss", "x%2By", "x+y", "plain", "f"]);
    expect(urlSecrets("https://auth.example/t")).toEqual([]);
  });
});
