import { afterEach, describe, expect, it } from "vitest";
import { type ApiClient, type ApiClientOptions, createApiClient } from "../../../src/client/create-client.js";
import { type AuthError, isAbortedError, isAuthError } from "../../../src/client/errors.js";
import { collectingLogger } from "../../helpers/collecting-logger.js";
import { failure } from "../../helpers/expect-failure.js";
import { type Handler, type LoopbackServer, type RecordedRequest, reply, startLoopbackServer } from "../../helpers/loopback-server.js";
import { until } from "../../helpers/spawn-cli.js";
import { SteppingClock } from "../../helpers/virtual-clock.js";

const CLIENT_ID = "client-abc";
const CLIENT_SECRET = "s3cr3t-Value-xyz";
const TOKEN_PATH = "/o/access_token/";

/** A token response handler; `n` counts token requests from 1. */
type TokenReply = (n: number, request: RecordedRequest) => { status: number; body: unknown; held?: Promise<void> };

/** Grants `tok-<n>` for an hour; with `held`, answers once `held(n)` resolves (a gate the test opens, never a delay). */
const grant =
  (extra: Record<string, unknown> = {}, held?: (n: number) => Promise<void>): TokenReply =>
  (n) => ({
    status: 200,
    body: { access_token: `tok-${n}`, expires_in: 3600, scope: "read_issuer_securities", token_type: "Bearer", ...extra },
    ...(held === undefined ? {} : { held: held(n) }),
  });

/** A gate: `opened` resolves once `open()` is called. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** One loopback server playing both the token endpoint and the API. */
interface World {
  server: LoopbackServer;
  tokenRequests: RecordedRequest[];
  apiRequests: RecordedRequest[];
}

const open: { servers: LoopbackServer[]; clients: ApiClient[] } = { servers: [], clients: [] };
afterEach(async () => {
  await Promise.all(open.clients.splice(0).map((c) => c.close()));
  await Promise.all(open.servers.splice(0).map((s) => s.close()));
});

async function world(token: TokenReply, api: Handler = reply(200, { ok: true })): Promise<World> {
  const tokenRequests: RecordedRequest[] = [];
  const apiRequests: RecordedRequest[] = [];
  const server = await startLoopbackServer(async (request, res, index) => {
    if (request.method === "POST" && request.url === TOKEN_PATH) {
      tokenRequests.push(request);
      const answer = token(tokenRequests.length, request);
      if (answer.held !== undefined) await answer.held;
      await reply(answer.status, answer.body)(request, res, index);
      return;
    }
    apiRequests.push(request);
    await api(request, res, index);
  });
  open.servers.push(server);
  return { server, tokenRequests, apiRequests };
}

function clientOf(w: World, options: Partial<ApiClientOptions> & { scopes?: readonly string[]; grantType?: string } = {}): { client: ApiClient; clock: SteppingClock } {
  const clock = new SteppingClock();
  const { scopes, grantType, ...rest } = options;
  const client = createApiClient({
    baseUrl: w.server.url,
    auth: {
      type: "oauth2",
      tokenUrl: `${w.server.url}${TOKEN_PATH}`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      ...(scopes === undefined ? {} : { scopes }),
      ...(grantType === undefined ? {} : { grantType }),
    },
    rateLimit: false,
    clock,
    random: () => 0.5,
    ...rest,
  });
  open.clients.push(client);
  return { client, clock };
}

/** Answers 401 (google.rpc.Status) unless the request carries one of `accepted`. */
function acceptOnly(...accepted: string[]): Handler {
  return (request, res, index) => {
    const ok = accepted.includes(String(request.headers["authorization"]));
    const body = ok
      ? { ok: true }
      : { code: 16, message: "Unauthorized", details: [{ "@type": "type.googleapis.com/x.ErrorInfo", reason: "MISSING_OR_INVALID_ACCESS_TOKEN" }] };
    return reply(ok ? 200 : 401, body)(request, res, index);
  };
}

describe("OAuth2 client credentials", () => {
  it("posts HTTP Basic credentials and the form body, then sends the token as Bearer", async () => {
    const w = await world(grant());
    const { client } = clientOf(w);
    await client.getJson(["x"]);
    const [mint] = w.tokenRequests;
    expect(mint?.headers["authorization"]).toBe(`Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`);
    expect(mint?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(mint?.body).toBe("grant_type=client_credentials&scope=read_issuer_securities");
    expect(w.apiRequests[0]?.headers["authorization"]).toBe("Bearer tok-1");
  });

  it("sends the configured grant type and space-separated scopes", async () => {
    const w = await world(grant({ scope: "read_issuer_securities read_issuer_info" }));
    const { client } = clientOf(w, { scopes: ["read_issuer_securities", "read_issuer_info"], grantType: "CLIENT_CREDENTIALS" });
    await client.getJson(["x"]);
    const form = new URLSearchParams(w.tokenRequests[0]?.body);
    expect(form.get("grant_type")).toBe("CLIENT_CREDENTIALS");
    expect(form.get("scope")).toBe("read_issuer_securities read_issuer_info");
  });

  it("caches the token across calls", async () => {
    const w = await world(grant());
    const { client } = clientOf(w);
    await client.getJson(["a"]);
    await client.getJson(["b"]);
    expect(w.tokenRequests).toHaveLength(1);
    expect(w.apiRequests.map((r) => r.headers["authorization"])).toEqual(["Bearer tok-1", "Bearer tok-1"]);
    expect(client.stats().tokenRequests).toBe(1);
  });

  it("mints once for many concurrent calls", async () => {
    const mint = gate();
    const w = await world(grant({}, () => mint.opened));
    const { client } = clientOf(w);
    const calls = Promise.all(Array.from({ length: 8 }, (_, i) => client.getJson([`r${i}`])));
    await until(() => w.tokenRequests.length === 1);
    mint.open();
    await calls;
    expect(w.tokenRequests).toHaveLength(1);
    expect(new Set(w.apiRequests.map((r) => r.headers["authorization"]))).toEqual(new Set(["Bearer tok-1"]));
  });

  it.each([
    ["a number: 60 s before expiry", 3600, 3_540_000],
    ["a numeric string, short-lived: at half-life", "100", 50_000],
  ])("reads expires_in as %s", async (_label, expiresIn, refreshAfterMs) => {
    const w = await world(grant({ expires_in: expiresIn }));
    const { client, clock } = clientOf(w);
    await client.getJson(["x"]);
    clock.nowMs += refreshAfterMs - 1;
    await client.getJson(["x"]);
    expect(w.tokenRequests).toHaveLength(1);
    clock.nowMs += 1;
    await client.getJson(["x"]);
    expect(w.tokenRequests).toHaveLength(2);
    expect(w.apiRequests.map((r) => r.headers["authorization"])).toEqual(["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]);
  });

  it("after a 401, mints once more and retries once", async () => {
    const w = await world(grant(), acceptOnly("Bearer tok-2"));
    const { client } = clientOf(w);
    const response = await client.getJson(["x"]);
    expect(response.attempts).toBe(2);
    expect(w.tokenRequests).toHaveLength(2);
    expect(w.apiRequests.map((r) => r.headers["authorization"])).toEqual(["Bearer tok-1", "Bearer tok-2"]);
  });

  it("fails after the one re-mint when the new token is rejected too", async () => {
    const w = await world(grant(), acceptOnly());
    const { client, clock } = clientOf(w);
    const error = await failure(client.getJson(["x"]));
    expect(error.code).toBe("API_UNAUTHORIZED");
    expect(error.message).toBe(
      "GET /x failed with 401 UNAUTHENTICATED (MISSING_OR_INVALID_ACCESS_TOKEN): Unauthorized after 2 attempts; a newly minted token was rejected too",
    );
    expect(w.tokenRequests).toHaveLength(2);
    expect(w.apiRequests).toHaveLength(2);
    expect(clock.sleeps).toEqual([]);
  });

  it("concurrent 401s with the same token share one re-mint", async () => {
    // tok-1 works for /warm only; the five calls all go out with it, all get a 401, and need one new token.
    const api: Handler = (request, res, index) =>
      (request.url === "/warm" ? acceptOnly("Bearer tok-1") : acceptOnly("Bearer tok-2"))(request, res, index);
    // The re-mint is answered only once all five calls have come with tok-1 (and been refused).
    const w: World = await world(grant({}, (n) => (n === 1 ? Promise.resolve() : until(() => w.apiRequests.length === 6))), api);
    const { client } = clientOf(w);
    await client.getJson(["warm"]);
    await Promise.all(Array.from({ length: 5 }, (_, i) => client.getJson([`r${i}`])));
    expect(w.tokenRequests).toHaveLength(2);
    const sent = w.apiRequests.map((r) => r.headers["authorization"]);
    expect(sent.filter((a) => a === "Bearer tok-1")).toHaveLength(6);
    expect(sent.filter((a) => a === "Bearer tok-2")).toHaveLength(5);
  });

  it("refuses a token granted with an empty scope, before any data call", async () => {
    const w = await world(grant({ scope: "" }));
    const { client } = clientOf(w);
    const error = (await failure(client.getJson(["x"]))) as AuthError;
    expect(isAuthError(error)).toBe(true);
    expect(error.failure).toBe("EMPTY_SCOPE");
    expect(error.message).toContain("every data call would be answered 403");
    expect(error.message).toContain('"read_issuer_securities"');
    expect(w.apiRequests).toHaveLength(0);
  });

  it("reports a token endpoint 401 with status and OAuth error code, without retrying", async () => {
    const w = await world(() => ({ status: 401, body: { error: "invalid_client", error_description: "Client authentication failed." } }));
    const { client } = clientOf(w);
    const error = (await failure(client.getJson(["x"]))) as AuthError;
    expect(error).toMatchObject({ code: "AUTH_FAILED", failure: "TOKEN_ENDPOINT_STATUS", status: 401, oauthError: "invalid_client", retryable: false });
    expect(error.message).toBe(
      `OAuth2 token request to ${w.server.url}${TOKEN_PATH} failed with 401 invalid_client: Client authentication failed.; check the client id and secret, and that they belong to this environment (playground credentials fail against production)`,
    );
    expect(w.tokenRequests).toHaveLength(1);
    expect(w.apiRequests).toHaveLength(0);
  });

  it("retries a token endpoint 503 as part of the call", async () => {
    const w = await world((n, request) => (n === 1 ? { status: 503, body: "busy" } : grant()(n, request)));
    const { client, clock } = clientOf(w);
    const response = await client.getJson(["x"]);
    expect(response.attempts).toBe(2);
    expect(clock.sleeps).toEqual([250]);
    expect(w.apiRequests.map((r) => r.headers["authorization"])).toEqual(["Bearer tok-2"]);
  });

  it.each([
    [{ access_token: "" }, "has no access_token"],
    [{ expires_in: "soon" }, 'expires_in "soon" is not a positive number of seconds'],
    [{ expires_in: 0 }, "expires_in 0 is not a positive number of seconds"],
    [{ token_type: "mac" }, 'token_type "mac" is not Bearer'],
  ])("rejects an unusable token response %j", async (extra, text) => {
    const w = await world(grant(extra));
    const { client } = clientOf(w);
    const error = (await failure(client.getJson(["x"]))) as AuthError;
    expect(error.failure).toBe("INVALID_TOKEN_RESPONSE");
    expect(error.message).toContain(text);
  });

  it("warns, without failing, when some requested scopes were not granted", async () => {
    const w = await world(grant({ scope: "read_issuer_securities" }));
    const logger = collectingLogger();
    const { client } = clientOf(w, { scopes: ["read_issuer_securities", "read_issuer_info"], logger });
    await client.getJson(["x"]);
    expect(logger.lines.filter((l) => l.level === "warn").map((l) => l.fields)).toEqual([
      { tokenUrl: `${w.server.url}${TOKEN_PATH}`, requested: ["read_issuer_securities", "read_issuer_info"], granted: ["read_issuer_securities"] },
    ]);
  });

  it("one caller aborting does not cancel the mint others wait for", async () => {
    const mint = gate();
    const w = await world(grant({}, () => mint.opened));
    const { client } = clientOf(w);
    const controller = new AbortController();
    const aborted = client.getJson(["a"], undefined, { signal: controller.signal });
    const patient = client.getJson(["b"]);
    await until(() => w.tokenRequests.length === 1);
    controller.abort();
    expect(isAbortedError(await failure(aborted))).toBe(true);
    mint.open();
    expect((await patient).status).toBe(200);
    expect(w.tokenRequests).toHaveLength(1);
    expect(w.apiRequests.map((r) => r.url)).toEqual(["/b"]);
  });
});
