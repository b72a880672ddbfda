/**
 * Test helpers for the sample server: a real HTTP client (undici) over loopback, and a pager that
 * follows `nextPageToken` the way a client must (source-api.md §5).
 */
import { Agent, request, type Dispatcher } from "undici";
import { afterAll, beforeAll } from "vitest";
import { startSampleServer, type SampleServer, type SampleServerOptions } from "../../../src/sample-server/server.js";

/** A response read in full. */
export interface Fetched {
  status: number;
  headers: Dispatcher.ResponseData["headers"];
  text: string;
  json: unknown;
}

/** One undici agent per test file; close it in `afterAll`. */
export function newAgent(): Agent {
  return new Agent({ connections: 8 });
}

/** A GET (or another method) whose body is read in full and parsed as JSON when it is JSON. */
export async function fetchJson(
  agent: Agent,
  url: string,
  options: { method?: "GET" | "POST" | "PUT" | "DELETE"; headers?: Record<string, string>; body?: string } = {},
): Promise<Fetched> {
  const res = await request(url, {
    dispatcher: agent,
    method: options.method ?? "GET",
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** The path of a list endpoint, with the ids escaped as a client must. */
export function listPath(issuerId: string, collection: "restrictedStockAwards" | "restrictedStockUnits"): string {
  return `/v1alpha1/issuers/${encodeURIComponent(issuerId)}/${collection}`;
}

/** The path of a get endpoint. */
export function getPath(issuerId: string, collection: "restrictedStockAwards" | "restrictedStockUnits", id: string): string {
  return `${listPath(issuerId, collection)}/${encodeURIComponent(id)}`;
}

/** Follows page tokens to the end; returns every page body. Fails on a repeated token or a non-200. */
export async function listPages(
  agent: Agent,
  baseUrl: string,
  issuerId: string,
  collection: "restrictedStockAwards" | "restrictedStockUnits",
  params: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const pages: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  let token: string | undefined;
  for (;;) {
    const query = new URLSearchParams(params);
    if (token !== undefined) query.set("pageToken", token);
    const qs = query.toString();
    const res = await fetchJson(agent, `${baseUrl}${listPath(issuerId, collection)}${qs === "" ? "" : `?${qs}`}`, { headers });
    if (res.status !== 200) throw new Error(`page ${pages.length + 1} of ${issuerId}/${collection}: HTTP ${res.status} ${res.text}`);
    const body = res.json as Record<string, unknown>;
    pages.push(body);
    const next = body.nextPageToken;
    if (next === undefined) return pages;
    if (typeof next !== "string" || next === "" || seen.has(next)) throw new Error(`bad nextPageToken ${String(next)}`);
    seen.add(next);
    token = next;
  }
}

/** The ids of the records of a page body. */
export function idsOf(page: Record<string, unknown>, collection: string): string[] {
  const records = (page[collection] ?? []) as { id: string }[];
  return records.map((r) => r.id);
}

/**
 * Starts a sample server (and an agent) for the whole file: `beforeAll` starts them, `afterAll`
 * closes them. Read `ctx.server` and `ctx.agent` inside tests only.
 */
export function useSampleServer(options: SampleServerOptions = {}): { server: SampleServer; agent: Agent } {
  const ctx = {} as { server: SampleServer; agent: Agent };
  beforeAll(async () => {
    ctx.server = await startSampleServer(options);
    ctx.agent = newAgent();
  });
  afterAll(async () => {
    await ctx.agent.close();
    await ctx.server.close();
  });
  return ctx;
}

/** Runs `run` against a fresh server, which is closed afterwards whatever happens. */
export async function withServer<T>(options: SampleServerOptions, run: (server: SampleServer) => Promise<T>): Promise<T> {
  const server = await startSampleServer(options);
  try {
    return await run(server);
  } finally {
    await server.close();
  }
}

/** `Authorization: Basic …` for a client id and secret. */
export const basicAuth = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

/** Headers of a well-formed token request. */
export const tokenHeaders = (id: string, secret: string): Record<string, string> => ({
  authorization: basicAuth(id, secret),
  "content-type": "application/x-www-form-urlencoded",
});

/** POSTs a form to the token endpoint. */
export function postToken(agent: Agent, baseUrl: string, headers: Record<string, string>, body: string): Promise<Fetched> {
  return fetchJson(agent, `${baseUrl}/o/access_token/`, { method: "POST", headers, body });
}
