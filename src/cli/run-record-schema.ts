/**
 * The run record's shape, once: the TypeScript type, the check `ocf-sync summarize` reads records
 * with, and `schemas/run-record.schema.json` (generated from it by `npm run schemas`, with the other
 * documents' in output-schemas.ts; a test fails when the file differs) all come from this schema.
 */
import { z } from "zod";
import { DOCUMENT_STAMP_SHAPE } from "./document-stamp-schema.js";

/** The `format` of a run record; a reader checks it before anything else. */
export const RUN_RECORD_FORMAT = "ocf-sync.run/1";

const count = z.number().int().min(0);

const failure = z
  .object({
    code: z.string().describe("the stable code, such as API_NOT_FOUND"),
    message: z.string(),
    hint: z.string().optional().describe("what a person can do about it, where a short hint helps"),
  })
  .strict();

const objectRef = z.object({ objectType: z.string(), id: z.string() }).strict();

const changeCounts = z.object({ created: count, changed: count, removed: count }).strict();

const issuer = z
  .object({
    issuerId: z.string(),
    status: z.enum(["ok", "failed"]),
    retry: z.boolean().describe("the issuer failed on a cause a new run may get past (the API unreachable, slow, refusing with 429 or failing with 5xx, a lock, the deadline); false when it failed on its data or access, or did not fail"),
    package: z
      .object({
        name: z.string(),
        folder: z.string(),
        zip: z.string().nullable(),
        report: z.string().nullable(),
        written: z.boolean().describe("whether this run wrote it; false when an export resumed it (--resume) or a sync found it current"),
        validated: z.boolean().nullable().describe("whether it was re-read and every package check run before it was put in place; null when this run did not write it"),
        bytes: count.nullable().describe("the size of its files; null when this run did not write it"),
      })
      .strict()
      .nullable()
      .describe("the package written or kept current; null when the issuer failed"),
    counts: z
      .object({ awards: count, units: count, transactions: count, warnings: count, quarantined: count })
      .strict()
      .nullable()
      .describe("source records and what they became; null when the issuer failed (or, in a sync, its package was already current)"),
    error: failure.nullable(),
    sync: z
      .object({
        pass: z.enum(["full", "incremental"]),
        reason: z.string(),
        modifiedAfter: z.string().nullable().describe("an incremental pass: the records modified after this instant were pulled; null for a full pass"),
        cursor: z.string().nullable().describe("the high-water mark after the pass"),
        created: count,
        changed: count,
        removed: count,
        unchanged: count,
        objectTypes: z
          .record(z.string(), changeCounts)
          .describe("the counts of each OCF object type that had a change, by object_type"),
        objects: z
          .object({
            created: z.array(objectRef),
            changed: z.array(objectRef.extend({ fields: z.array(z.string()) }).strict()),
            removed: z.array(objectRef),
            limit: count.describe("the most objects each list names"),
            leftOut: changeCounts.describe("how many objects each list leaves out: its count less the objects it names; sync --changes FILE names every one"),
          })
          .strict()
          .describe("the first OCF objects created, changed (with the fields that changed) and removed, by object type then id: at most `limit` of each, the rest counted in `leftOut`"),
        records: z
          .object({ pulled: count, pages: count, reread: count, created: count, modified: count, removed: count, unchanged: count })
          .strict()
          .describe("the source records the pass pulled (pages, re-reads of the overlap window) and what changed among them"),
      })
      .strict()
      .optional()
      .describe("sync only: the pass and the OCF objects it changed"),
  })
  .strict();

/** The run record of `export` and `sync`: their `--json` document and their `--summary FILE`. */
export const RUN_RECORD_SCHEMA = z
  .object({
    ...DOCUMENT_STAMP_SHAPE,
    format: z.literal(RUN_RECORD_FORMAT),
    tool: z.object({ name: z.literal("ocf-sync"), version: z.string() }).strict(),
    command: z.enum(["export", "sync"]),
    startedAt: z.string().datetime(),
    endedAt: z.string().datetime(),
    durationMs: count,
    shard: z.object({ index: count, count: z.number().int().min(1) }).strict().nullable().describe("0-based index and count of the shard this run did; null when it did every issuer"),
    outDir: z.string().nullable(),
    requests: z
      .object({ sent: count, rateLimited: count.describe("429 responses"), retried: count, tokenRequests: count })
      .strict()
      .nullable()
      .describe("API requests of the run, token requests counted apart; null when the job failed before its client ran"),
    outcome: z.enum(["ok", "issuers-failed", "job-failed"]),
    exitStatus: z.number().int().describe("0 ok, 1 an issuer failed on its data or access, 2 usage, 75 retry the job, 130 or 143 a signal"),
    counts: z.object({ issuers: count, ok: count, failed: count }).strict(),
    issuers: z.array(issuer).describe("failed issuers first, then the others, each group in the order given"),
    error: failure.nullable().describe("why the job failed as a whole; null when it ran"),
  })
  .strict()
  .describe("What one run of `ocf-sync export` or `ocf-sync sync` did: its --json document and its --summary FILE; `ocf-sync summarize` merges several.");

export type RunRecord = z.infer<typeof RUN_RECORD_SCHEMA>;
export type RunIssuer = RunRecord["issuers"][number];
