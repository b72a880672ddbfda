/**
 * The options of every command, as node:util `parseArgs` takes them, in one table: each command parses
 * its arguments with its row, and a mistake can say which other commands take an option. Data only,
 * with no imports, so that any module of the command line can read it.
 */

/** The connection options of every command that talks to the API (see `client-flags.ts`). */
export const CLIENT_FLAGS = {
  "base-url": { type: "string" },
  token: { type: "string" },
  "token-url": { type: "string" },
  "client-id": { type: "string" },
  "client-secret": { type: "string" },
  scope: { type: "string", multiple: true },
  "rate-per-second": { type: "string" },
  "rate-per-minute": { type: "string" },
  "rate-limiter": { type: "string" },
  "max-attempts": { type: "string" },
  "timeout-ms": { type: "string" },
} as const;

/** The options `pull`, `export` and `sync` share (see `job-flags.ts`). */
export const JOB_FLAGS = {
  issuer: { type: "string", multiple: true },
  "issuers-file": { type: "string" },
  concurrency: { type: "string" },
  "on-invalid": { type: "string" },
  log: { type: "string" },
  deadline: { type: "string" },
} as const;

/** The options of the commands that write packages, `export` and `sync` (see `job-flags.ts`). */
export const PACKAGE_FLAGS = {
  out: { type: "string" },
  zip: { type: "boolean" },
  "as-of": { type: "string" },
  "issuer-profile": { type: "string" },
  stakeholders: { type: "string" },
  "settlement-class": { type: "string" },
  lineage: { type: "string" },
  strict: { type: "boolean" },
  "generated-at": { type: "string" },
  validate: { type: "string" },
  "no-validate": { type: "boolean" },
} as const;

/** Which slice of the issuer list a run takes (see `shard-flags.ts`). */
export const SHARD_FLAGS = {
  shard: { type: "string" },
  "shard-index": { type: "string" },
  "shard-count": { type: "string" },
} as const;

const HELP = { help: { type: "boolean", short: "h" } } as const;

export const COMMAND_OPTIONS = {
  demo: { out: { type: "string" }, ...HELP },
  export: { ...CLIENT_FLAGS, ...JOB_FLAGS, ...PACKAGE_FLAGS, ...SHARD_FLAGS, resume: { type: "boolean" }, json: { type: "boolean" }, summary: { type: "string" }, ...HELP },
  pull: { ...CLIENT_FLAGS, ...JOB_FLAGS, ...SHARD_FLAGS, out: { type: "string" }, "modified-after": { type: "string" }, "modified-before": { type: "string" }, ...HELP },
  reconcile: {
    ...CLIENT_FLAGS,
    source: { type: "string" },
    issuer: { type: "string" },
    against: { type: "string" },
    "as-of": { type: "string" },
    tolerance: { type: "string" },
    reader: { type: "string" },
    json: { type: "boolean" },
    csv: { type: "boolean" },
    html: { type: "string" },
    deadline: { type: "string" },
    ...HELP,
  },
  "serve-samples": {
    port: { type: "string" },
    "latency-ms": { type: "string" },
    faults: { type: "string" },
    "fault-rate": { type: "string" },
    seed: { type: "string" },
    quota: { type: "string" },
    token: { type: "string" },
    data: { type: "string" },
    ...HELP,
  },
  sync: {
    ...CLIENT_FLAGS,
    ...JOB_FLAGS,
    ...PACKAGE_FLAGS,
    ...SHARD_FLAGS,
    state: { type: "string" },
    full: { type: "boolean" },
    "full-every": { type: "string" },
    overlap: { type: "string" },
    json: { type: "boolean" },
    summary: { type: "string" },
    changes: { type: "string" },
    ...HELP,
  },
  summarize: { json: { type: "boolean" }, ...HELP },
  validate: { json: { type: "boolean" }, reader: { type: "string" }, ...HELP },
} as const;

export type CommandName = keyof typeof COMMAND_OPTIONS;
