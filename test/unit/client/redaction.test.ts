/** Redaction of a secret in the forms a server or gateway echoes it: case, URL and form encoding, base64, cut short. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets, secretVariants } from "../../../src/client/auth.js";

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
