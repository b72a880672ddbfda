/**
 * Issue 25, item 3: a hostile server echoes the credentials in use, transformed (cut to its second
 * half, JSON-escaped, written wholly as \uXXXX escapes, URL-encoded once and twice, base64 and
 * base64url of `Bearer <token>` and of `id:secret`), in error bodies, in headers and in record
 * fields (a field the OCF keeps, an unknown field, a record's id). No run of 8 characters of any
 * credential reaches any output: standard error, standard output (`--json` included), and every file
 * the commands wrote (packages, zips read entry by entry, reports, quarantine, NDJSON, sync state),
 * read back and decoded (percent-decoding, JSON escapes, every base64 run) before searching.
 * Real loopback servers; the CLI in-process, and once as a child process.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { captureIo } from "../../helpers/capture.js";
import { runCliProcess } from "../../helpers/cli-process.js";
import { hostileSampleApi } from "../../helpers/hostile-handlers.js";
import { reply } from "../../helpers/loopback-server.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

const TOKEN = "Tok9f2A/c+e41BzQ7rX/u8Lp+Wm3Vd6";
const CLIENT_ID = "client-7";
const CLIENT_SECRET = "Sec77x/Q+wLm3kR9+tZp/Hy4";
const ACCESS_TOKEN = "acc-4Hq+Zt9/Lm2Wx7Pe8Rk3/Ns6";
const REFRESH_TOKEN = "ref-9Dv/Qs4+Kc8Ty1Mb5Jw0+Gz2";
const URL_KEY = "urlkey-5Fh8Nq2Xc7Lb";
const SECRETS = [TOKEN, CLIENT_SECRET, ACCESS_TOKEN, REFRESH_TOKEN, URL_KEY];

const base64 = (text: string): string => Buffer.from(text).toString("base64");
const escapedWhole = (text: string): string => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");

/** Every transformed form of `secret` the server echoes, as text (before it is put in JSON). */
function echoes(secret: string): string[] {
  return [
    secret,
    secret.slice(Math.floor(secret.length / 2)),
    secret.toLowerCase(),
    secret.replaceAll("/", "\\/").replaceAll("+", "\\u002B"),
    escapedWhole(secret),
    encodeURIComponent(secret),
    encodeURIComponent(encodeURIComponent(secret)),
    base64(`Bearer ${secret}`),
    Buffer.from(`Bearer ${secret}`).toString("base64url"),
    base64(`${CLIENT_ID}:${secret}`),
  ];
}

/** Every echo of every credential the server saw, in one line. */
function echoLine(seen: readonly string[]): string {
  return seen.flatMap(echoes).join(" | ");
}

/**
 * `text` and what it reads as once decoded: percent-decoded once and twice, JSON escapes undone, and
 * every run that looks like base64 or base64url decoded.
 */
function readings(text: string): string[] {
  const decode = (once: string): string => once.replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
  const unescape = (once: string): string =>
    once.replace(/\\u([0-9a-fA-F]{4})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(/\\(["\\/])/g, "$1");
  const plain = [text, decode(text), decode(decode(text)), unescape(text), unescape(decode(text)), decode(unescape(text))];
  const fromBase64 = plain.flatMap((reading) =>
    [...reading.matchAll(/[A-Za-z0-9+/_-]{12,}={0,2}/g)].map((run) => Buffer.from(run[0].replaceAll("-", "+").replaceAll("_", "/"), "base64").toString("latin1")),
  );
  return [...plain, ...fromBase64];
}

/** The runs of 8 characters of a credential (case aside) that `text` holds in any reading, with where. */
function leaks(where: string, text: string): string[] {
  const found: string[] = [];
  const lowered = readings(text).map((reading) => reading.toLowerCase());
  for (const secret of SECRETS) {
    for (let at = 0; at + 8 <= secret.length; at += 1) {
      const piece = secret.slice(at, at + 8).toLowerCase();
      if (lowered.some((reading) => reading.includes(piece))) found.push(`${where}: ${secret.slice(at, at + 8)}`);
    }
  }
  return [...new Set(found)];
}

/** Every file under `dir`, zips read entry by entry, as `[path, text]`. */
async function filesUnder(dir: string): Promise<[string, string][]> {
  const files: [string, string][] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path);
    files.push([path, bytes.toString("utf8")]);
    if (entry.name.endsWith(".zip")) {
      for (const [name, content] of Object.entries(unzipSync(bytes))) files.push([`${path}!${name}`, Buffer.from(content).toString("utf8")]);
    }
  }
  return files;
}

const dir = temporaryFolder("ocf-sync-secret-echoes-");

/** The credentials a request carried: its bearer token, or its Basic client secret. */
function credentialsOf(authorization: string | undefined): string[] {
  if (authorization?.startsWith("Bearer ") === true) return [authorization.slice("Bearer ".length)];
  if (authorization?.startsWith("Basic ") === true) return [Buffer.from(authorization.slice("Basic ".length), "base64").toString("utf8").split(":").slice(1).join(":")];
  return [];
}

/**
 * The sample API, echoing the credentials of each request: issuer "7"'s records carry them in a
 * field the package keeps (`transferNote`), in an unknown field, in a record's id, and in a quantity
 * (the record is then quarantined, kept whole in the report); issuer "9" is
 * refused with them in the error's body and headers. The token endpoint grants ACCESS_TOKEN with a
 * REFRESH_TOKEN.
 */
const hostileUrl = hostileSampleApi(async (request, res, upstream) => {
  const seen = credentialsOf(request.headers.authorization);
  if (request.url.startsWith("/o/token")) {
    reply(200, { access_token: ACCESS_TOKEN, refresh_token: REFRESH_TOKEN, token_type: "Bearer", expires_in: 3600, scope: "read_issuer_securities" })(request, res, 0);
    return;
  }
  const line = echoLine(seen);
  if (request.url.startsWith("/v1alpha1/issuers/9/")) {
    reply(401, { code: 16, message: `credential not accepted: ${line}`, details: [{ reason: `BAD ${line}` }] }, {
      "www-authenticate": `Bearer error="invalid_token", error_description="${seen.map((s) => encodeURIComponent(encodeURIComponent(s))).join(" ")}"`,
      "x-debug-credential": seen.map((s) => base64(`Bearer ${s}`)).join(" "),
    })(request, res, 0);
    return;
  }
  const answer = await upstream();
  const inJson = JSON.stringify(line).slice(1, -1);
  const body = answer.body
    .replaceAll('"Gifted to family trust"', `"Gifted to family trust ${inJson}","debugEcho":"${inJson}"`)
    .replaceAll('"id":"2210"', `"id":${JSON.stringify(seen[0]?.slice(0, 20) ?? "2210")}`)
    .replace('"quantity":{"value":"16000"}', `"quantity":{"value":"16000 ${inJson}"}`);
  reply(answer.status, body)(request, res, 0);
});

async function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIo(dir(), env);
  const code = await runCli(args, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const BEARER = { OCF_SYNC_TOKEN: TOKEN };
const OAUTH = { OCF_SYNC_CLIENT_ID: CLIENT_ID, OCF_SYNC_CLIENT_SECRET: CLIENT_SECRET };

describe("credentials echoed transformed by a hostile server", () => {
  it("reach no output of export, sync and pull (bearer token and OAuth2), nor any file they wrote", async () => {
    const tokenUrl = (): string => `${hostileUrl()}/o/token/?api_key=${URL_KEY}`;
    const runs = [
      ["export --json", ["export", "--base-url", hostileUrl(), "--issuer", "7", "--issuer", "9", "--out", "export-bearer", "--zip", "--on-invalid", "quarantine", "--as-of", "2025-06-30", "--json"], BEARER],
      ["export --log json", ["export", "--base-url", hostileUrl(), "--issuer", "7", "--issuer", "9", "--out", "export-log", "--on-invalid", "quarantine", "--as-of", "2025-06-30", "--log", "json"], BEARER],
      ["export, OAuth2", ["export", "--base-url", hostileUrl(), "--token-url", tokenUrl(), "--issuer", "7", "--issuer", "9", "--out", "export-oauth", "--zip", "--on-invalid", "quarantine", "--as-of", "2025-06-30", "--json"], OAUTH],
      ["sync --json", ["sync", "--base-url", hostileUrl(), "--issuer", "7", "--issuer", "9", "--out", "synced", "--state", "synced.json", "--on-invalid", "quarantine", "--as-of", "2025-06-30", "--json"], BEARER],
      ["sync, OAuth2", ["sync", "--base-url", hostileUrl(), "--token-url", tokenUrl(), "--issuer", "7", "--issuer", "9", "--out", "synced-oauth", "--state", "synced-oauth.json", "--as-of", "2025-06-30"], OAUTH],
      ["pull", ["pull", "--base-url", hostileUrl(), "--issuer", "7", "--issuer", "9", "--out", "pulled.ndjson", "--on-invalid", "quarantine", "--log", "plain"], BEARER],
      ["pull to standard output, OAuth2", ["pull", "--base-url", hostileUrl(), "--token-url", tokenUrl(), "--issuer", "7", "--issuer", "9", "--log", "json"], OAUTH],
    ] as const;
    const found: string[] = [];
    for (const [name, args, env] of runs) {
      const result = await run([...args], env);
      // Issuer 9 is refused in every run, so every run fails (1): and it did run.
      expect(result.code, `${name}: ${result.stderr}`).toBe(1);
      found.push(...leaks(`${name} stdout`, result.stdout), ...leaks(`${name} stderr`, result.stderr));
      // The echoes did reach the outputs, redacted: the search looked at the server's text.
      expect(`${result.stdout}${result.stderr}`, name).toContain("[REDACTED]");
    }
    const files = await filesUnder(dir());
    expect(files.filter(([path]) => path.endsWith(".report.json")).length).toBeGreaterThanOrEqual(2);
    expect(files.filter(([path]) => path.includes(".zip!")).length).toBeGreaterThan(2);
    for (const [path, text] of files) found.push(...leaks(path, text));
    expect(found).toEqual([]);
    // A record value that held a credential is kept redacted in the package, and its report says so.
    const report = files.find(([path]) => path.endsWith(join("export-bearer", "7.report.json")))?.[1] ?? "";
    expect(report).toContain("SECRET_REDACTED");
    expect((JSON.parse(report) as { quarantined: unknown[] }).quarantined.length).toBeGreaterThan(0);
  });

  it("as a child process: an issuer's error in the --json summary and on standard error", async () => {
    const result = await runCliProcess(["export", "--base-url", hostileUrl(), "--issuer", "9", "--out", "child", "--json"], { cwd: dir(), env: BEARER });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("[REDACTED]");
    expect([...leaks("stdout", result.stdout), ...leaks("stderr", result.stderr)]).toEqual([]);
  });

  it("a --base-url refused for its query names its keys, never their values", async () => {
    const result = await run(["export", "--base-url", `${hostileUrl()}/?api_key=${URL_KEY}&sig=${encodeURIComponent(TOKEN)}`, "--issuer", "7", "--out", "o", "--json"], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("api_key=[REDACTED]");
    expect([...leaks("stdout", result.stdout), ...leaks("stderr", result.stderr)]).toEqual([]);
  });
});
