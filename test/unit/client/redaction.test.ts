/** Redaction of a secret in the forms a server or gateway echoes it: case, URL and form encoding, base64, cut short. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets, redactUrl, secretVariants, urlSecrets } from "../../../src/client/auth.js";

const SECRET = "cs-Abc/9+x y=Z~q";

describe("redactSecrets", () => {
  it.each([
    ["as it is", SECRET],
    ["upper-cased", SECRET.toUpperCase()],
    ["lower-cased", SECRET.toLowerCase()],
    ["URL-encoded", encodeURIComponent(SECRET)],
    ["URL-encoded, upper-cased", encodeURIComponent(SECRET).toUpperCase()],
    ["form-encoded", new URLSearchParams({ s: SECRET }).toString().slice(2)],
    ["base64", Buffer.from(SECRET).toString("base64")],
    ["base64url", Buffer.from(SECRET).toString("base64url")],
    ["cut to its first 8 characters", SECRET.slice(0, 8)],
    ["cut to 11 characters and upper-cased", SECRET.slice(0, 11).toUpperCase()],
  ])("%s", (_form, echoed) => {
    const text = `invalid credential "${echoed}…" (see docs)`;
    expect(redactSecrets(text, [SECRET])).toBe('invalid credential "[REDACTED]…" (see docs)');
  });

  it("leaves text without the secret, and prefixes too short to mean anything, as they are", () => {
    expect(redactSecrets("nothing to see", [SECRET])).toBe("nothing to see");
    expect(redactSecrets(`cs-Abc/ is short`, [SECRET])).toBe("cs-Abc/ is short");
    // A secret shorter than 8 characters is redacted whole, not by prefix.
    expect(redactSecrets("token abcdef, and abcde", ["abcdef"])).toBe("token [REDACTED], and abcde");
  });

  it("never leaves any variant of a random secret, whatever surrounds it", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: 40, unit: "grapheme-ascii" }), fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (secret, before, after) => {
        for (const variant of secretVariants(secret)) {
          const out = redactSecrets(`${before}${variant}${after}`, [secret]);
          expect(out.toLowerCase()).not.toContain(variant.toLowerCase());
        }
      }),
    );
  });
});

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
