/**
 * A server that echoes a credential back transformed (upper- or lower-cased, URL- or form-encoded,
 * base64, cut short) into error bodies and headers: none of those forms reaches an error, a log line
 * or the CLI's output. Real loopback servers; the CLI run in-process and as a child process.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { createApiClient } from "../../../src/client/create-client.js";
import { captureIo } from "../../helpers/capture.js";
import { collectingLogger } from "../../helpers/collecting-logger.js";
import { type Handler, type LoopbackServer, startLoopbackServer } from "../../helpers/loopback-server.js";
import { spawnCli } from "../../helpers/spawn-cli.js";

const TOKEN = "Tok-9f2A/c+e 41Bz";
const CLIENT_SECRET = "Sec-77x/Q+w=Lm 3k";

/**
 * Every form the tests echo, and so every form that must not come out. The HTTP Basic credentials
 * (base64 of `client-id:secret`) are the client secret's form only: a bearer token is never sent so.
 */
function forms(secret: string): string[] {
  const basic = secret === CLIENT_SECRET ? [Buffer.from(`client-id:${secret}`).toString("base64")] : [];
  return [
    ...basic,
    secret,
    secret.toUpperCase(),
    secret.toLowerCase(),
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    Buffer.from(secret).toString("base64"),
    secret.slice(0, 9),
  ];
}

/** Echoes every form of `secret` into the body and the headers of an error answer. */
function echoForms(status: number, secret: string, shape: "status" | "oauth"): Handler {
  return (_request, res) => {
    const echoed = forms(secret).join(" | ");
    const body = JSON.stringify(
      shape === "status" ? { code: 16, message: `credential not accepted: ${echoed}` } : { error: "invalid_client", error_description: `bad secret: ${echoed}` },
    );
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "www-authenticate": `Bearer error="invalid_token", error_description="${encodeURIComponent(secret)}"`,
      "x-debug-credential": Buffer.from(secret).toString("base64"),
    });
    res.end(body);
  };
}

function expectNoForm(text: string, secret: string): void {
  const lower = text.toLowerCase();
  for (const form of forms(secret)) expect(lower, `${form} leaked`).not.toContain(form.toLowerCase());
}

let dir: string;
const servers: LoopbackServer[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-secret-forms-"));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function serve(handler: Handler): Promise<LoopbackServer> {
  const server = await startLoopbackServer(handler);
  servers.push(server);
  return server;
}

describe("a server echoing a credential in other forms", () => {
  it("bearer token echoed in a 401 and a retried 500: the client's errors and logs hold none of its forms", async () => {
    for (const status of [401, 500]) {
      const server = await serve(echoForms(status, TOKEN, "status"));
      const logger = collectingLogger();
      const client = createApiClient({ baseUrl: server.url, auth: { type: "bearer", token: TOKEN }, rateLimit: false, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 }, logger });
      const error = await client.getJson(["v1alpha1", "issuers", "7", "restrictedStockAwards"]).catch((e: unknown) => e);
      await client.close();
      expect(error).toMatchObject({ code: status === 401 ? "API_UNAUTHORIZED" : "API_SERVER_ERROR" });
      expect((error as Error).message).toContain("[REDACTED]");
      expectNoForm(`${(error as Error).message} ${JSON.stringify(error)} ${JSON.stringify(logger.lines)}`, TOKEN);
    }
  });

  it("client secret echoed by the token endpoint: the CLI's output holds none of its forms (in-process and as a process)", async () => {
    const server = await serve(echoForms(401, CLIENT_SECRET, "oauth"));
    const args = ["pull", "--base-url", server.url, "--token-url", `${server.url}/o/access_token/`, "--client-id", "client-id", "--issuer", "7", "--log", "json"];
    const io = captureIo(dir, { OCF_SYNC_CLIENT_SECRET: CLIENT_SECRET });
    expect(await runCli(args, io)).toBe(1);
    expect(io.stderr.text).toContain("AUTH_FAILED");
    expectNoForm(io.stderr.text + io.stdout.text, CLIENT_SECRET);

    const child = await spawnCli(args, { env: { OCF_SYNC_CLIENT_SECRET: CLIENT_SECRET } }).exited;
    expect(child.code).toBe(1);
    expectNoForm(child.stderr + child.stdout, CLIENT_SECRET);
  });

  it("a token echoed in a field of a good answer (an unknown field, warned about) is redacted from the CLI's lines too", async () => {
    const server = await serve((request, res) => {
      const kind = request.url.includes("restrictedStockAwards") ? "restrictedStockAwards" : "restrictedStockUnits";
      const body = JSON.stringify({ [kind]: [], debugEcho: `auth was ${TOKEN.toUpperCase()}` });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
    const io = captureIo(dir, { OCF_SYNC_TOKEN: TOKEN });
    expect(await runCli(["pull", "--base-url", server.url, "--issuer", "7", "--log", "plain", "--out", join(dir, "echo.ndjson")], io)).toBe(0);
    expect(io.stderr.text).toContain("debugEcho: unknown field, ignored");
    expectNoForm(io.stderr.text, TOKEN);
  });

  it("a token echoed in a good answer's body and headers: the caller gets them redacted, and where", async () => {
    // Wholly as \uXXXX escapes in the JSON: the parsed value is the token itself.
    const escaped = [...TOKEN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
    const server = await serve((_request, res) => {
      const body = `{"restrictedStockAwards":[{"id":"1","transferNote":"sent ${escaped}"},{"id":"2","note":"fine"}],"debug":"${Buffer.from(`Bearer ${TOKEN}`).toString("base64")}"}`;
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-echo": encodeURIComponent(encodeURIComponent(TOKEN)) });
      res.end(body);
    });
    const client = createApiClient({ baseUrl: server.url, auth: { type: "bearer", token: TOKEN }, rateLimit: false });
    const response = await client.getJson(["v1alpha1", "issuers", "7", "restrictedStockAwards"]);
    await client.close();
    expect(response.redacted).toEqual([["restrictedStockAwards", 0, "transferNote"], ["debug"]]);
    expect(response.body).toMatchObject({ restrictedStockAwards: [{ id: "1", transferNote: "sent [REDACTED]" }, { id: "2", note: "fine" }] });
    expect(response.headers["x-echo"]).toBe("[REDACTED]");
    expectNoForm(JSON.stringify(response), TOKEN);
  });

  it("a token endpoint granting a scope that echoes the client secret: the client's log lines hold none of its forms", async () => {
    const server = await serve((request, res) => {
      const body = JSON.stringify(
        request.url.startsWith("/o/") ? { access_token: "minted-5e1f9a2b7c", token_type: "Bearer", expires_in: 3600, scope: forms(CLIENT_SECRET).join(" ") } : { restrictedStockAwards: [] },
      );
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
    const logger = collectingLogger();
    const client = createApiClient({ baseUrl: server.url, auth: { type: "oauth2", tokenUrl: `${server.url}/o/token/`, clientId: "client-id", clientSecret: CLIENT_SECRET }, rateLimit: false, logger });
    await client.getJson(["v1alpha1", "issuers", "7", "restrictedStockAwards"]);
    await client.close();
    const lines = JSON.stringify(logger.lines);
    expect(lines).toContain("granted without some requested scopes");
    expect(lines).toContain("[REDACTED]");
    expectNoForm(lines, CLIENT_SECRET);
  });
});
