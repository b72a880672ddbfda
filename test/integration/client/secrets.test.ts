/**
 * No bearer token, access token or client secret may appear in any error message, error JSON, stack
 * or log line, even when a server echoes credentials back. Runs a set of failing scenarios against
 * real loopback servers and searches everything the client produced.
 */
import { describe, expect, it } from "vitest";
import { type ApiClientOptions, createApiClient } from "../../../src/client/create-client.js";
import { isOcfSyncError } from "../../../src/errors.js";
import { collectingLogger } from "../../helpers/collecting-logger.js";
import { type Handler, type RecordedRequest, hang, reply, resetConnection, startLoopbackServer } from "../../helpers/loopback-server.js";
import { until } from "../../helpers/spawn-cli.js";
import { SteppingClock } from "../../helpers/virtual-clock.js";

const BEARER = "BEARER-static-token-7f3a9c";
const CLIENT_SECRET = "client-secret-5b2e8d";
const ACCESS_TOKEN = "ACCESS-minted-token-1c4f6a";
const TOKEN_PATH = "/o/access_token/";
const BASIC = Buffer.from(`client-id:${CLIENT_SECRET}`).toString("base64");
// Some token endpoints take a key in the query: the URL is shown, its values are not.
const URL_SECRET = "url-secret-3d9a71";
const URL_KEY = "api-key-8e20bf";
const TOKEN_QUERY = `?client_secret=${URL_SECRET}&api_key=${URL_KEY}`;
const FORBIDDEN = [BEARER, CLIENT_SECRET, ACCESS_TOKEN, BASIC, URL_SECRET, URL_KEY];

/** Everything a request carried, echoed back: the worst a misbehaving server could do. */
function echo(status: number, shape: "status" | "flat" | "text" | "oauth"): Handler {
  return (request: RecordedRequest, res, index) => {
    const seen = `${String(request.headers["authorization"])} ${request.body} ${request.url}`;
    const body =
      shape === "status"
        ? { code: 16, message: `rejected ${seen}`, details: [{ reason: `BAD ${seen}` }] }
        : shape === "flat"
          ? { message: `limit for ${seen}` }
          : shape === "oauth"
            ? { error: `invalid_client ${seen}`, error_description: `bad credentials ${seen}` }
            : `<html>${seen}</html>`;
    return reply(status, body)(request, res, index);
  };
}

/** Text of everything an error exposes: message, stack, JSON form and the chain of causes. */
function errorTexts(error: unknown): string[] {
  const texts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth += 1) {
    if (current instanceof Error) texts.push(current.message, String(current.stack), String(current));
    texts.push(JSON.stringify(current) ?? "");
    current = current instanceof Error ? current.cause : undefined;
  }
  return texts;
}

interface Scenario {
  name: string;
  auth: "bearer" | "oauth2";
  /** Answers API requests. */
  api: Handler | readonly Handler[];
  /** Answers token requests (OAuth2 only). */
  token?: Handler | readonly Handler[];
  options?: Partial<ApiClientOptions>;
  /** Abort the call once the API has its request (the request then hangs). */
  abortInFlight?: boolean;
}

const granted = reply(200, { access_token: ACCESS_TOKEN, expires_in: 3600, scope: "read_issuer_securities", token_type: "Bearer" });

const scenarios: Scenario[] = [
  { name: "401 echoing the token", auth: "bearer", api: echo(401, "status") },
  { name: "403 echoing the token", auth: "bearer", api: echo(403, "status") },
  { name: "400 raw text echo", auth: "bearer", api: echo(400, "text") },
  { name: "429 flat echo, retried", auth: "bearer", api: echo(429, "flat") },
  { name: "503 retried to the end", auth: "bearer", api: echo(503, "text") },
  { name: "invalid JSON quoting the token", auth: "bearer", api: (req, res, i) => reply(200, `${String(req.headers["authorization"])} {`)(req, res, i) },
  { name: "connection reset", auth: "bearer", api: resetConnection },
  { name: "header timeout", auth: "bearer", api: hang, options: { timeouts: { headersMs: 100 }, retry: { maxAttempts: 1 } } },
  { name: "aborted", auth: "bearer", api: hang, abortInFlight: true },
  { name: "token endpoint 401 echo", auth: "oauth2", api: reply(200, {}), token: echo(401, "oauth") },
  { name: "token endpoint 500 text echo", auth: "oauth2", api: reply(200, {}), token: echo(500, "text") },
  { name: "token endpoint reset", auth: "oauth2", api: reply(200, {}), token: resetConnection },
  {
    name: "token endpoint empty scope",
    auth: "oauth2",
    api: reply(200, {}),
    token: reply(200, { access_token: ACCESS_TOKEN, expires_in: 3600, scope: "" }),
  },
  { name: "token endpoint bad expires_in", auth: "oauth2", api: reply(200, {}), token: reply(200, { access_token: ACCESS_TOKEN, expires_in: ACCESS_TOKEN }) },
  { name: "API 401 after re-mint, echoing", auth: "oauth2", api: echo(401, "status"), token: granted },
  { name: "API 403 flat echo with minted token", auth: "oauth2", api: echo(403, "flat"), token: granted },
  { name: "API 503 text echo with minted token", auth: "oauth2", api: echo(503, "text"), token: granted },
];

async function run(scenario: Scenario, logger: ReturnType<typeof collectingLogger>): Promise<unknown> {
  const apiHandlers = Array.isArray(scenario.api) ? scenario.api : [scenario.api as Handler];
  const tokenHandlers = scenario.token === undefined ? [] : Array.isArray(scenario.token) ? scenario.token : [scenario.token as Handler];
  let apiCount = 0;
  let tokenCount = 0;
  const server = await startLoopbackServer((request, res, index) => {
    if (request.method === "POST" && request.url === `${TOKEN_PATH}${TOKEN_QUERY}`) {
      return tokenHandlers[Math.min(tokenCount++, tokenHandlers.length - 1)]!(request, res, index);
    }
    return apiHandlers[Math.min(apiCount++, apiHandlers.length - 1)]!(request, res, index);
  });
  const client = createApiClient({
    baseUrl: server.url,
    auth:
      scenario.auth === "bearer"
        ? { type: "bearer", token: BEARER }
        : { type: "oauth2", tokenUrl: `${server.url}${TOKEN_PATH}${TOKEN_QUERY}`, clientId: "client-id", clientSecret: CLIENT_SECRET },
    rateLimit: false,
    clock: new SteppingClock(),
    logger,
    retry: { maxAttempts: 3 },
    ...scenario.options,
  });
  const controller = new AbortController();
  try {
    const call = client.getJson(["v1alpha1", "issuers", "7", "restrictedStockAwards"], { pageSize: "50" }, { signal: controller.signal });
    if (scenario.abortInFlight === true) {
      await until(() => apiCount > 0);
      controller.abort(new Error("stop"));
    }
    await call;
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await client.close();
    await server.close();
  }
}

describe("secrets", () => {
  it("never appear in any error or log line across failing scenarios", async () => {
    const logger = collectingLogger();
    const errors: unknown[] = [];
    for (const scenario of scenarios) {
      const error = await run(scenario, logger);
      // Every scenario must fail with a typed error, or it would prove nothing.
      expect(isOcfSyncError(error), scenario.name).toBe(true);
      errors.push(error);
    }
    const texts = [...errors.flatMap(errorTexts), ...logger.lines.map((line) => `${line.message ?? ""} ${JSON.stringify(line.fields)}`)];
    expect(logger.lines.length).toBeGreaterThan(scenarios.length);
    for (const text of texts) {
      for (const secret of FORBIDDEN) expect(text).not.toContain(secret);
    }
    // The echoes did reach the messages, redacted: the search above looked at real server text.
    expect(texts.filter((t) => t.includes("[REDACTED]")).length).toBeGreaterThan(10);
    // The token URL is shown, with its query's names and without its values.
    const shownUrl = `${TOKEN_PATH}?client_secret=[REDACTED]&api_key=[REDACTED]`;
    expect(texts.filter((t) => t.includes(shownUrl)).length).toBeGreaterThan(3);
    expect(logger.lines.filter((line) => String(line.fields["tokenUrl"]).endsWith(shownUrl)).length).toBeGreaterThan(0);
  });
});
