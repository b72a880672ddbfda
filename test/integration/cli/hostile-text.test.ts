/**
 * Text from the server never reaches the terminal raw: an API error body, a record's id and a record's
 * value carrying escape sequences (ESC[2J clears the screen, ESC]0;… retitles it), carriage returns,
 * line feeds (a forged log line), C1 controls (U+009B is a CSI), U+2028 and a bidirectional override.
 * Every command runs as a child process against a real loopback server; what it prints is escaped
 * (`\u001b`), still readable, and has no raw control character but the line feeds that end lines.
 */
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCliProcess, type CliRun } from "../../helpers/cli-process.js";
import { hostileSampleApi } from "../../helpers/hostile-handlers.js";
import { reply } from "../../helpers/loopback-server.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

/** An id has at most 50 characters. */
const HOSTILE_ID = "2210\u001b[2J\rX\n\u009b1m\u202e";
const HOSTILE = "\u001b]0;owned\u0007\u001b[2J\rforged\nerror: issuer \"9\" exported \u009b31m\u202eexe.txt\u2028end";
/** What a terminal would obey: every C0 but the line feed, DEL, C1, U+2028/2029, bidirectional overrides. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The hostile text as it is shown, escaped (in text and in JSON alike). */
const SHOWN = "\\u001b]0;owned\\u0007\\u001b[2J\\u000dforged\\u000aerror: issuer";
const SHOWN_IN_JSON = "\\u001b]0;owned\\u0007\\u001b[2J\\rforged\\nerror: issuer";

const dir = temporaryFolder("ocf-sync-hostile-text-");

/**
 * The sample API, but issuer "7"'s records carry the hostile text in a value that is warned about
 * (an unknown field's) and in an award's id, and issuer "9" is refused with it as the error's message
 * and reason.
 */
const hostileUrl = hostileSampleApi(async (request, res, upstream) => {
  if (request.url.startsWith("/v1alpha1/issuers/9/")) {
    reply(400, { code: 3, message: HOSTILE, details: [{ reason: `BAD${HOSTILE}` }] })(request, res, 0);
    return;
  }
  const answer = await upstream();
  const body = answer.body
    .replaceAll("Gifted to family trust", JSON.stringify(HOSTILE).slice(1, -1))
    .replaceAll('"id":"2210"', `"id":${JSON.stringify(HOSTILE_ID)}`);
  reply(answer.status, body)(request, res, 0);
});
async function run(...args: string[]): Promise<CliRun> {
  const result = await runCliProcess(args, { cwd: dir() });
  expect(result.stdout).not.toMatch(RAW_CONTROL);
  expect(result.stderr).not.toMatch(RAW_CONTROL);
  return result;
}

function lines(text: string): string[] {
  return text.split("\n").filter((line) => line !== "");
}

describe("server text with escape sequences, CR, LF and bidi overrides", () => {
  it("pull: the error body, the record's id and value are escaped in log lines and NDJSON", async () => {
    const result = await run("pull", "--base-url", hostileUrl(), "--issuer", "7", "--issuer", "9", "--log", "plain");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: issuer "9" failed: GET /v1alpha1/issuers/9/`);
    expect(result.stderr).toContain(SHOWN);
    expect(result.stderr).toContain("\\u009b31m\\u202eexe.txt\\u2028end");
    // The NDJSON is the same JSON: the record's id as the server sent it.
    const ids = lines(result.stdout).map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).toContain(HOSTILE_ID);
    // No forged line: every line of standard error is one the CLI wrote.
    expect(result.stderr.split("\n").filter((line) => line.startsWith("error: issuer \"9\" exported"))).toEqual([]);
  });

  it("pull --log json: the lines are JSON with the text escaped, C1 and bidi included", async () => {
    const result = await run("pull", "--base-url", hostileUrl(), "--issuer", "9", "--log", "json");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(SHOWN_IN_JSON);
    const failure = lines(result.stderr).map((line) => JSON.parse(line) as { msg: string }).find((line) => line.msg.includes("owned"));
    expect(failure?.msg).toContain(HOSTILE);
  });

  it("export and its summary, the --json document, validate and reconcile (text and HTML)", async () => {
    const exported = await run("export", "--base-url", hostileUrl(), "--issuer", "7", "--issuer", "9", "--out", "out", "--on-invalid", "quarantine", "--as-of", "2025-06-30");
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain(SHOWN);
    const json = await run("export", "--base-url", hostileUrl(), "--issuer", "9", "--out", "out-json", "--json");
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain("owned");
    expect(json.stdout).toContain(SHOWN_IN_JSON);

    expect(await readdir(join(dir(), "out"))).toContain("7");
    const validated = await run("validate", "out/7");
    expect(validated.stdout).toContain("out/7");
    const pulled = await run("pull", "--base-url", hostileUrl(), "--issuer", "7", "--out", "7.ndjson");
    expect(pulled.code).toBe(0);
    // The source now differs from the package for the award with the hostile id: reconcile names it.
    const source = join(dir(), "7.ndjson");
    const changed = (await readFile(source, "utf8"))
      .split("\n")
      .map((line) => (line !== "" && (JSON.parse(line) as { id: string }).id === HOSTILE_ID ? line.replace('"quantity":{"value":"16000"}', '"quantity":{"value":"16001"}') : line))
      .join("\n");
    expect(changed).toContain('"quantity":{"value":"16001"}');
    await writeFile(source, changed);
    const reconciled = await run("reconcile", "--source", "7.ndjson", "out/7", "--as-of", "2025-06-30", "--html", "7.html");
    expect(reconciled.code).toBe(1);
    expect(reconciled.stdout).toContain("2210\\u001b[2J\\u000dX\\u000a\\u009b1m\\u202e");
    const html = await readFile(join(dir(), "7.html"), "utf8");
    expect(html).not.toMatch(RAW_CONTROL);
    expect(html).toContain("2210\\u001b[2J");
  });

  it("sync: the log lines and the change set", async () => {
    const result = await run("sync", "--base-url", hostileUrl(), "--issuer", "7", "--issuer", "9", "--out", "synced", "--state", "synced.json", "--as-of", "2025-06-30");
    expect(result.code).toBe(1);
    expect(`${result.stdout}${result.stderr}`).toContain(SHOWN);
  });
});

describe("a failure line", () => {
  it("shows the C1 and bidi characters of a value it quotes escaped, its own line breaks kept", async () => {
    // JSON.stringify, which quotes the value, escapes C0 but not these.
    const result = await run("export", "--base-url", hostileUrl(), "--issuer", "7", "--out", "o", "--as-of", "\u009b2J\u202e");
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`ocf-sync export: --as-of takes a real date YYYY-MM-DD, got "\\u009b2J\\u202e"\nRun 'ocf-sync export --help' for the options.\n`);
  });
});
