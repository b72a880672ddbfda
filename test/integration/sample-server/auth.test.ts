import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "undici";
import { basicAuth, fetchJson, getPath, listPath, newAgent, postToken, tokenHeaders, withServer } from "./helpers.js";

const UNAUTHORIZED = {
  code: 16,
  message: "Unauthorized",
  details: [
    {
      "@type": "type.googleapis.com/carta.proto.publicapi.errors.v1alpha1.ErrorInfo",
      reason: "MISSING_OR_INVALID_ACCESS_TOKEN",
      metadata: {},
    },
  ],
};
const GRANT = "grant_type=client_credentials&scope=read_issuer_securities";
const FORM = { "content-type": "application/x-www-form-urlencoded" };

let agent: Agent;
beforeAll(() => {
  agent = newAgent();
});
afterAll(async () => {
  await agent.close();
});

describe("bearer token", () => {
  it("is not needed when no token is configured", async () => {
    await withServer({}, async (server) => {
      expect((await fetchJson(agent, `${server.url}${listPath("7", "restrictedStockAwards")}`)).status).toBe(200);
    });
  });

  it("is required on every API call when a token is configured", async () => {
    await withServer({ token: "s3cret-token" }, async (server) => {
      const url = `${server.url}${getPath("7", "restrictedStockUnits", "8801")}`;
      for (const authorization of [undefined, "Bearer wrong", "Bearer s3cret-token-but-longer", "Basic s3cret-token", "s3cret-token", "Bearer"]) {
        const res = await fetchJson(agent, url, { headers: authorization === undefined ? {} : { authorization } });
        expect(res.status, authorization).toBe(401);
        expect(res.json).toEqual(UNAUTHORIZED);
        expect(res.headers["x-ratelimit-limit-second"]).toBe("10");
      }
      // Unknown routes are not revealed to unauthenticated callers either.
      expect((await fetchJson(agent, `${server.url}/v1alpha1/issuers/7/optionGrants`)).status).toBe(401);
      for (const authorization of ["Bearer s3cret-token", "bearer s3cret-token"]) {
        expect((await fetchJson(agent, url, { headers: { authorization } })).status).toBe(200);
      }
      expect(server.stats().unauthorized).toBe(7);
    });
  });
});

describe("OAuth client-credentials token endpoint", () => {
  const oauth = { clientId: "sample-client", clientSecret: "p@ss:word with spaces", tokenTtlSeconds: 3600 };
  const goodHeaders = tokenHeaders(oauth.clientId, oauth.clientSecret);
  const bearer = (res: { json: unknown }) => ({ authorization: `Bearer ${(res.json as { access_token: string }).access_token}` });

  it("mints a token the API accepts (Basic auth + form, as documented)", async () => {
    await withServer({ oauth }, async (server) => {
      const url = `${server.url}${listPath("7", "restrictedStockAwards")}`;
      expect((await fetchJson(agent, url)).status).toBe(401);
      for (const grantType of ["CLIENT_CREDENTIALS", "client_credentials"]) {
        const res = await postToken(agent, server.url, goodHeaders, `grant_type=${grantType}&scope=read_issuer_securities`);
        expect(res.status).toBe(200);
        expect(res.json).toEqual({
          access_token: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
          expires_in: "3600",
          scope: "read_issuer_securities",
          token_type: "Bearer",
        });
        expect((await fetchJson(agent, url, { headers: bearer(res) })).status).toBe(200);
      }
      expect(server.stats().tokensIssued).toBe(2);
      // The token endpoint is not an API call.
      expect(server.stats().requests).toBe(3);
    });
  });

  it("accepts form-encoded client credentials inside Basic auth (RFC 6749 §2.3.1)", async () => {
    await withServer({ oauth }, async (server) => {
      const secret = new URLSearchParams({ s: oauth.clientSecret }).toString().slice(2);
      const headers = { ...FORM, authorization: basicAuth(encodeURIComponent(oauth.clientId), secret) };
      expect((await postToken(agent, server.url, headers, GRANT)).status).toBe(200);
    });
  });

  it("rejects wrong or misplaced client credentials with 401 invalid_client", async () => {
    await withServer({ oauth }, async (server) => {
      const inBody = new URLSearchParams({
        grant_type: "client_credentials",
        scope: "read_issuer_securities",
        client_id: oauth.clientId,
        client_secret: oauth.clientSecret,
      }).toString();
      const attempts: [Record<string, string>, string][] = [
        [tokenHeaders(oauth.clientId, "wrong"), GRANT],
        [tokenHeaders("other", oauth.clientSecret), GRANT],
        [{ ...FORM, authorization: "Basic !!!" }, GRANT],
        // In the form body instead of Basic auth: refused, as reported for the real service.
        [FORM, inBody],
      ];
      for (const [headers, body] of attempts) {
        const res = await postToken(agent, server.url, headers, body);
        expect(res.status).toBe(401);
        expect(res.json).toMatchObject({ error: "invalid_client" });
        expect(res.text).not.toContain(oauth.clientSecret);
      }
      expect(server.stats().tokensIssued).toBe(0);
    });
  });

  it("requires a form body with grant_type client_credentials and a scope", async () => {
    await withServer({ oauth }, async (server) => {
      const cases = [
        ["scope=read_issuer_securities", "invalid_request"],
        ["grant_type=&scope=read_issuer_securities", "invalid_request"],
        ["grant_type=authorization_code&scope=read_issuer_securities", "unsupported_grant_type"],
        ["grant_type=client_credentials", "invalid_request"],
        ["grant_type=client_credentials&scope=", "invalid_request"],
      ] as const;
      for (const [body, error] of cases) {
        const res = await postToken(agent, server.url, goodHeaders, body);
        expect(res.status, body).toBe(400);
        expect(res.json).toMatchObject({ error });
      }
      const asJson = { ...goodHeaders, "content-type": "application/json" };
      expect((await postToken(agent, server.url, asJson, JSON.stringify({ grant_type: "client_credentials" }))).status).toBe(400);
      const get = await fetchJson(agent, `${server.url}/o/access_token/`);
      expect(get.status).toBe(405);
      expect(get.headers.allow).toBe("POST");
    });
  });

  it("grants no scope when one requested scope is not registered, and such a token gets 403", async () => {
    await withServer({ oauth: { ...oauth, scopes: ["read_issuer_securities", "read_issuer_info"] } }, async (server) => {
      const mint = (scope: string) =>
        postToken(agent, server.url, goodHeaders, new URLSearchParams({ grant_type: "client_credentials", scope }).toString());
      const both = await mint("read_issuer_securities read_issuer_info");
      expect((both.json as { scope: string }).scope).toBe("read_issuer_securities read_issuer_info");
      const none = await mint("read_issuer_securities read_issuer_valuations");
      expect(none.status).toBe(200);
      expect((none.json as { scope: string }).scope).toBe("");
      const infoOnly = await mint("read_issuer_info");
      for (const res of [none, infoOnly]) {
        const api = await fetchJson(agent, `${server.url}${listPath("7", "restrictedStockUnits")}`, { headers: bearer(res) });
        expect(api.status).toBe(403);
        expect(api.json).toMatchObject({ code: 7, details: [{ reason: "INSUFFICIENT_SCOPE" }] });
      }
    });
  });

  it("expires tokens after their lifetime (injected clock)", async () => {
    let now = Date.UTC(2025, 0, 1, 12, 0, 0);
    await withServer({ oauth: { ...oauth, tokenTtlSeconds: 60 }, now: () => now }, async (server) => {
      const res = await postToken(agent, server.url, goodHeaders, GRANT);
      expect((res.json as { expires_in: string }).expires_in).toBe("60");
      const url = `${server.url}${listPath("7", "restrictedStockAwards")}`;
      now += 59_999;
      expect((await fetchJson(agent, url, { headers: bearer(res) })).status).toBe(200);
      now += 1;
      const expired = await fetchJson(agent, url, { headers: bearer(res) });
      expect(expired.status).toBe(401);
      expect(expired.json).toEqual(UNAUTHORIZED);
    });
  });

  it("accepts both a static token and minted tokens when both are configured", async () => {
    await withServer({ oauth, token: "static" }, async (server) => {
      const url = `${server.url}${listPath("7", "restrictedStockAwards")}`;
      expect((await fetchJson(agent, url, { headers: { authorization: "Bearer static" } })).status).toBe(200);
      expect((await fetchJson(agent, url, { headers: bearer(await postToken(agent, server.url, goodHeaders, GRANT)) })).status).toBe(200);
      expect((await fetchJson(agent, url)).status).toBe(401);
    });
  });

  it("is an unknown route when oauth is not configured", async () => {
    await withServer({}, async (server) => {
      const res = await postToken(agent, server.url, tokenHeaders("a", "b"), GRANT);
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ code: 5, message: "Resource not found" });
    });
    await withServer({ token: "static" }, async (server) => {
      expect((await postToken(agent, server.url, tokenHeaders("a", "b"), GRANT)).status).toBe(401);
    });
  });
});
