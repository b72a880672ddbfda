/**
 * The connection options every command that talks to the API shares (declared in `command-options.ts`):
 * base URL, auth and the client's limits, read and checked. Secrets may come from the environment so
 * they stay out of shell history and `ps`.
 */
import type { ApiClientOptions } from "../client/create-client.js";
import { isClientConfigError } from "../client/errors.js";
import { createRateLimiter } from "../client/rate-limiter.js";
import { parseBaseUrl } from "../client/paths.js";
import { redactUrl, type Redactor } from "../redaction.js";
import { createRedisRateLimiter, quotaKey } from "../client/redis-rate-limiter.js";
import { parseRedisUrl } from "../client/resp-client.js";
import { parseInteger, parsePositiveNumber } from "./args.js";
import { CLIENT_FLAGS } from "./command-options.js";
import { UsageError } from "./io.js";
import type { QuotaShare } from "./shard-flags.js";

export const CLIENT_FLAGS_HELP = `Connection:
  --base-url URL           the API's root, e.g. https://api.carta.com (required; the requests add
                           /v1alpha1/..., so the URL has none; or set OCF_SYNC_BASE_URL)
  --token TOKEN            static bearer token; better: set OCF_SYNC_TOKEN
  --token-url URL          OAuth2 client-credentials token URL, with --client-id and --client-secret
                           (or OCF_SYNC_TOKEN_URL)
  --client-id ID           OAuth2 client id (or OCF_SYNC_CLIENT_ID)
  --client-secret SECRET   OAuth2 client secret; better: set OCF_SYNC_CLIENT_SECRET
  --scope SCOPE            OAuth2 scope, repeatable (default read_issuer_securities)
  --rate-per-second N      the credential's quota per second (default 10, the service's); fractions
                           too (2.5, 0.5). With --shard each shard takes the part its issuers
                           are of the list: 25 of 80 issuers pace to 25/80 of the rates
  --rate-per-minute N      the same per minute (default 300, the service's)
  --rate-limiter URL       share one quota between every process of the credential through Redis,
                           e.g. redis://127.0.0.1:6379/0 (then --shard does not split the rates);
                           or set OCF_SYNC_RATE_LIMITER
  --max-attempts N         attempts per request, retries included (default 6)
  --timeout-ms N           the most one attempt may take, from connecting to the last byte of the
                           body, and the longest wait to connect, for the headers or for more of
                           the body (default: 120000 for the whole attempt, 10000 to connect,
                           30000 for the headers and for each pause in the body)`;

/** C0 controls (newline, carriage return, tab, NUL, ...), DEL and C1 controls: none belongs in a token. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

function describeControl(code: number): string {
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  const names: Record<number, string> = { 0x0a: "a newline", 0x0d: "a carriage return", 0x09: "a tab", 0x00: "a NUL" };
  return `${names[code] ?? "a control character"} (${hex})`;
}

type ClientFlagValues = {
  [K in keyof typeof CLIENT_FLAGS]?: (typeof CLIENT_FLAGS)[K] extends { multiple: true } ? string[] : string;
};

/**
 * Builds client options from flags and environment; a usage error for anything missing or
 * contradictory. `share` is this process's part of the credential's quota when shards split it with
 * no shared limiter: its issuers among all of them (see {@link quotaShare}), so the shards finish
 * together and never exceed the quota between them.
 */
export function clientOptionsFromFlags(
  values: ClientFlagValues,
  env: Readonly<Record<string, string | undefined>>,
  { redactor, share }: { redactor?: Redactor | undefined; share?: QuotaShare | undefined } = {},
): ApiClientOptions {
  // Each value by where it came from, so that a mistake names the flag or variable to change.
  const fromWhere = (flag: keyof typeof CLIENT_FLAGS, variable: string): string =>
    values[flag] !== undefined ? `--${flag}` : `${variable} (from the environment)`;
  const baseUrl = values["base-url"] ?? env.OCF_SYNC_BASE_URL;
  if (baseUrl === undefined || baseUrl === "") throw new UsageError("--base-url is required (or set OCF_SYNC_BASE_URL)");
  const baseUrlName = fromWhere("base-url", "OCF_SYNC_BASE_URL");
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http");
  } catch {
    throw new UsageError(`${baseUrlName} must be an http(s) URL, got ${JSON.stringify(redactUrl(baseUrl))}`);
  }
  try {
    parseBaseUrl(baseUrl);
  } catch (error) {
    // The client's own check, in the words of the command line: --base-url (or the variable), not the option baseUrl.
    if (!isClientConfigError(error)) throw error;
    throw new UsageError(error.message.replace(/^baseUrl\b/, baseUrlName), { code: error.code, cause: error });
  }
  const token = values.token ?? env.OCF_SYNC_TOKEN;
  const clientId = values["client-id"] ?? env.OCF_SYNC_CLIENT_ID;
  const clientSecret = values["client-secret"] ?? env.OCF_SYNC_CLIENT_SECRET;
  const tokenUrl = values["token-url"] ?? env.OCF_SYNC_TOKEN_URL;
  // A secret holding a control character (often a newline pasted or read from a file with it) cannot
  // be sent in a header: refused here, naming where it came from, never its value.
  const secrets = [
    { value: token, name: fromWhere("token", "OCF_SYNC_TOKEN") },
    { value: clientId, name: fromWhere("client-id", "OCF_SYNC_CLIENT_ID") },
    { value: clientSecret, name: fromWhere("client-secret", "OCF_SYNC_CLIENT_SECRET") },
  ];
  for (const { value, name } of secrets) {
    const at = value === undefined ? -1 : value.search(CONTROL_CHARACTER);
    if (at < 0) continue;
    throw new UsageError(`${name} holds ${describeControl(value!.charCodeAt(at))} at character ${at + 1} of ${value!.length}; remove it (the value is not printed)`);
  }
  // The client adds the tokens it mints to the redactor the command's output is redacted with.
  const options: ApiClientOptions = { baseUrl, ...(redactor === undefined ? {} : { redactor }) };
  const oauth = [
    { value: tokenUrl, name: fromWhere("token-url", "OCF_SYNC_TOKEN_URL"), flag: "--token-url" },
    { value: clientId, name: fromWhere("client-id", "OCF_SYNC_CLIENT_ID"), flag: "--client-id" },
    { value: clientSecret, name: fromWhere("client-secret", "OCF_SYNC_CLIENT_SECRET"), flag: "--client-secret" },
  ];
  const given = oauth.filter((part) => part.value !== undefined && part.value !== "");
  if (given.length > 0) {
    if (token !== undefined && token !== "") {
      throw new UsageError(
        `give either a bearer token or OAuth2 client credentials, not both: got ${fromWhere("token", "OCF_SYNC_TOKEN")} and ${given.map((part) => part.name).join(", ")}`,
      );
    }
    if (given.length < oauth.length || tokenUrl === undefined || clientId === undefined || clientSecret === undefined) {
      const missing = oauth.filter((part) => !given.includes(part)).map((part) => part.flag);
      throw new UsageError(
        `OAuth2 needs all three of --token-url, --client-id and --client-secret (or their OCF_SYNC_* variables): ${missing.join(" and ")} missing, given ${given.map((part) => part.name).join(", ")}`,
      );
    }
    for (const scope of values.scope ?? []) {
      if (/\s/.test(scope)) throw new UsageError(`--scope takes one scope without spaces (repeat --scope for more), got ${JSON.stringify(scope)}`);
    }
    options.auth = {
      type: "oauth2",
      tokenUrl,
      clientId,
      clientSecret,
      ...(values.scope === undefined ? {} : { scopes: values.scope }),
    };
  } else {
    if (values.scope !== undefined) throw new UsageError("--scope is for OAuth2 client credentials (--token-url, --client-id, --client-secret); a bearer token has its scopes already");
    if (token !== undefined && token !== "") options.auth = { type: "bearer", token };
  }
  const perSecond = parsePositiveNumber("rate-per-second", values["rate-per-second"], 10_000) ?? 10;
  const perMinute = parsePositiveNumber("rate-per-minute", values["rate-per-minute"], 600_000) ?? 300;
  const redisUrl = values["rate-limiter"] ?? env.OCF_SYNC_RATE_LIMITER;
  if (redisUrl !== undefined && redisUrl !== "") {
    try {
      parseRedisUrl(redisUrl);
    } catch (error) {
      throw new UsageError(`${fromWhere("rate-limiter", "OCF_SYNC_RATE_LIMITER")} ${error instanceof Error ? error.message : String(error)}`);
    }
    // One quota for every process of the credential, whatever the shards: nothing to split.
    options.rateLimit = createRedisRateLimiter({ url: redisUrl, key: quotaKey(options), perSecond, perMinute });
  } else if (share !== undefined || values["rate-per-second"] !== undefined || values["rate-per-minute"] !== undefined) {
    const { part, whole } = share ?? { part: 1, whole: 1 };
    const rateLimit = { perSecond: (perSecond * part) / whole, perMinute: (perMinute * part) / whole };
    try {
      createRateLimiter(rateLimit);
      options.rateLimit = rateLimit;
    } catch (error) {
      if (!isClientConfigError(error)) throw error;
      throw new UsageError(
        `this shard's part of the rates (${part}/${whole} of ${perSecond}/s and ${perMinute}/min) is too small to pace: share one quota with --rate-limiter instead`,
      );
    }
  }
  const maxAttempts = parseInteger("max-attempts", values["max-attempts"], { min: 1, max: 100 });
  if (maxAttempts !== undefined) options.retry = { maxAttempts };
  const timeoutMs = parseInteger("timeout-ms", values["timeout-ms"], { min: 1, max: 3_600_000 });
  if (timeoutMs !== undefined) options.timeouts = { connectMs: timeoutMs, headersMs: timeoutMs, bodyMs: timeoutMs, attemptMs: timeoutMs };
  return options;
}
