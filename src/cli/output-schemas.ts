/**
 * The shapes of every machine-readable document ocf-sync writes, once: each `--json` document, the
 * run record and the export's `<name>.report.json`. `npm run schemas` writes each as
 * `schemas/<name>.schema.json` (shipped in the package); a test runs every command with `--json` and
 * checks its output against the schema, and that the files are what `npm run schemas` writes.
 * docs/output-formats.md lists them with an example each.
 */
import { z } from "zod";
import { PACKAGE_PROBLEM_CODES } from "../ocf/validate-package.js";
import { LINEAGE_READINGS } from "../ocf/security-ledger.js";
import { DIFFERENCE_CODES, FIGURE_NAMES } from "../reconcile/types.js";
import { RECORD_KINDS } from "../source/kinds.js";
import { DOCUMENT_STAMP_SHAPE } from "./document-stamp-schema.js";
import { RUN_RECORD_SCHEMA } from "./run-record-schema.js";

const count = z.number().int().min(0);
const decimal = z.string().regex(/^-?[0-9]+(\.[0-9]+)?$/).describe("an exact decimal, as a string");
const calendarDate = z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/).describe("YYYY-MM-DD");
const keysOf = <T extends Record<string, unknown>>(codes: T): [keyof T & string, ...(keyof T & string)[]] => Object.keys(codes) as [keyof T & string, ...(keyof T & string)[]];

/** Why a whole command failed (a usage error, a failure of the job): a stable code and one message. */
const failure = z.object({ code: z.string(), message: z.string() }).strict();

/** Input that cannot be checked or compared at all (no package, one that does not match its manifest). */
const unusable = z.object({ code: z.string(), message: z.string() }).strict();

const lineageUsed = z.object({ reading: z.enum(LINEAGE_READINGS), from: z.enum(["declared", "option", "default"]) }).strict();

const packageProblem = z
  .object({
    code: z.enum(keysOf(PACKAGE_PROBLEM_CODES)),
    file: z.string().describe("the package path of the file, such as Transactions.ocf.json"),
    itemId: z.string().optional().describe("the id of the object concerned"),
    jsonPath: z.string().describe("where in the file, such as $.items[3].quantity"),
    message: z.string(),
  })
  .strict();

/** `ocf-sync validate --json`. */
export const VALIDATE_DOCUMENT_SCHEMA = z
  .union([
    z
      .object({
        ...DOCUMENT_STAMP_SHAPE,
        path: z.string(),
        valid: z.boolean().describe("true when there is no problem (warnings do not count)"),
        problems: z.array(packageProblem),
        warnings: z.array(packageProblem),
        counts: z
          .object({
            files: count,
            objects: count,
            objectsByType: z.record(z.string(), count),
            uncheckedByType: z.record(z.string(), count).describe("transactions of OCF kinds whose fields ocf-sync does not check"),
            transactions: count,
            securities: count,
          })
          .strict(),
        lineage: lineageUsed,
      })
      .strict(),
    z.object({ ...DOCUMENT_STAMP_SHAPE, path: z.string(), valid: z.literal(false), unusable }).strict().describe("the package could not be read (exit status 2)"),
    z
      .object({ ...DOCUMENT_STAMP_SHAPE, path: z.string().nullable().describe("null when no PATH was given"), valid: z.literal(false), error: failure })
      .strict()
      .describe("a usage error or another failure of the command"),
  ])
  .describe("`ocf-sync validate --json`: the verdict on one package, every problem with its file, object and JSON path.");

const figures = z.partialRecord(z.enum(FIGURE_NAMES), decimal);
const vestingPoint = z.object({ date: calendarDate, vested: decimal }).strict();
const holdings = z.object({ shares: decimal, units: decimal }).strict();

const reconciliationReport = z
  .object({
    mode: z.enum(["source-vs-ocf", "ocf-vs-ocf"]),
    issuerId: z.string(),
    asOf: calendarDate,
    tolerance: decimal,
    labels: z.object({ expected: z.string(), actual: z.string() }).strict().describe("what each side is: the source or a package, by path or URL"),
    totals: z.object({ expected: figures, actual: figures }).strict(),
    grants: z.array(z.object({ key: z.string(), kind: z.enum(RECORD_KINDS).optional(), securityId: z.string().optional(), expected: figures, actual: figures }).strict()),
    holders: z.array(z.object({ stakeholderId: z.string(), expected: holdings, actual: holdings }).strict()),
    reading: lineageUsed,
    otherReading: lineageUsed.optional().describe("ocf-vs-ocf: the reading of the other package"),
    differences: z.array(
      z
        .object({
          section: z.enum(["source-vs-ocf", "ocf-vs-ocf", "source"]),
          code: z.enum(keysOf(DIFFERENCE_CODES)),
          issuerId: z.string(),
          kind: z.enum(RECORD_KINDS).optional(),
          recordId: z.string().optional(),
          securityId: z.string().optional(),
          field: z.string(),
          expected: z.string().nullable(),
          actual: z.string().nullable(),
          message: z.string(),
        })
        .strict(),
    ),
    vestingCurves: z.object({ expected: z.array(vestingPoint), actual: z.array(vestingPoint) }).strict(),
    notes: z.array(z.string()),
  })
  .strict();

/** `ocf-sync reconcile --json`. */
export const RECONCILE_DOCUMENT_SCHEMA = z
  .union([
    z.object({ ...DOCUMENT_STAMP_SHAPE, agree: z.boolean(), reports: z.array(reconciliationReport) }).strict(),
    z.object({ ...DOCUMENT_STAMP_SHAPE, agree: z.literal(false), unusable }).strict().describe("the input could not be reconciled (exit status 2)"),
    z.object({ ...DOCUMENT_STAMP_SHAPE, agree: z.literal(false), error: failure }).strict().describe("a usage error or another failure (the API's too)"),
  ])
  .describe("`ocf-sync reconcile --json`: whether the two sides agree, and the report of each comparison.");

const runIssuer = RUN_RECORD_SCHEMA.shape.issuers.element;
const requests = RUN_RECORD_SCHEMA.shape.requests;

/** `ocf-sync summarize --json`. */
export const SUMMARIZE_DOCUMENT_SCHEMA = z
  .union([
    z
      .object({
        ...DOCUMENT_STAMP_SHAPE,
        runs: z.array(
          z
            .object({
              file: z.string(),
              command: z.enum(["export", "sync"]),
              shard: RUN_RECORD_SCHEMA.shape.shard,
              outcome: RUN_RECORD_SCHEMA.shape.outcome,
              exitStatus: z.number().int(),
              startedAt: z.string().datetime(),
              endedAt: z.string().datetime(),
              issuers: count,
              failed: count,
              requests,
              error: failure.nullable(),
            })
            .strict(),
        ),
        missingShards: z.array(count).describe("shards of the job (0-based) with no record, where the records agree on a shard count"),
        counts: z.object({ issuers: count, ok: count, failed: count }).strict(),
        requests: z.object({ sent: count, rateLimited: count, retried: count }).strict(),
        issuers: z.array(runIssuer.extend({ run: z.string().describe("the record this entry comes from") }).strict()).describe("each issuer's latest entry, failed first"),
        exitStatus: z.number().int(),
      })
      .strict(),
    z.object({ ...DOCUMENT_STAMP_SHAPE, error: failure }).strict().describe("a usage error or a record that cannot be read"),
  ])
  .describe("`ocf-sync summarize --json`: run records merged (the shards of one job), an issuer's latest run counting.");

const warning = z
  .looseObject({ code: z.string(), issuerId: z.string(), message: z.string() })
  .describe("a warning of the source (with kind, recordId, path, value) or of the mapping (with record, path)");

/** `<out>/<name>.report.json`, beside each package an export writes. */
export const EXPORT_REPORT_SCHEMA = z
  .object({
    ...DOCUMENT_STAMP_SHAPE,
    issuerId: z.string(),
    job: z.string().describe("a digest of everything the package depends on besides the source data (--resume reads it)"),
    validated: z.boolean().describe("whether the package was re-read and every package check run before it was put in place"),
    package: z.string().describe("the package folder's name"),
    zip: z.string().nullable(),
    counts: z.object({ awards: count, units: count, transactions: count, warnings: count, quarantined: count }).strict(),
    files: z.array(z.object({ path: z.string(), md5: z.string().regex(/^[0-9a-f]{32}$/), bytes: count }).strict()),
    warnings: z.array(warning),
    quarantined: z.array(
      z
        .object({
          kind: z.enum(RECORD_KINDS),
          recordId: z.string().optional().describe("absent when the record has no usable id"),
          code: z.string().describe("SOURCE_RECORD_INVALID or a MAPPING_* code"),
          message: z.string(),
          issues: z.array(z.looseObject({ path: z.array(z.union([z.string(), z.number()])), pathText: z.string(), message: z.string() })).optional(),
          raw: z.unknown().optional().describe("the record as the API sent it"),
          deliveredShares: z.object({ kept: z.array(z.string()), notKept: z.array(z.string()) }).strict().optional(),
        })
        .strict(),
    ),
  })
  .strict()
  .describe("The report beside each package `ocf-sync export` and `ocf-sync sync` write: counts, files, warnings, quarantined records. Its generatedAt is the package's generated_at.");

/** Every document, by the file its JSON Schema is written to. */
export const OUTPUT_SCHEMAS = [
  { file: "run-record.schema.json", id: "urn:ocf-sync:schema:run-record:1", title: "ocf-sync run record", schema: RUN_RECORD_SCHEMA },
  { file: "validate.schema.json", id: "urn:ocf-sync:schema:validate:1", title: "ocf-sync validate --json", schema: VALIDATE_DOCUMENT_SCHEMA },
  { file: "reconcile.schema.json", id: "urn:ocf-sync:schema:reconcile:1", title: "ocf-sync reconcile --json", schema: RECONCILE_DOCUMENT_SCHEMA },
  { file: "summarize.schema.json", id: "urn:ocf-sync:schema:summarize:1", title: "ocf-sync summarize --json", schema: SUMMARIZE_DOCUMENT_SCHEMA },
  { file: "export-report.schema.json", id: "urn:ocf-sync:schema:export-report:1", title: "ocf-sync export report (<name>.report.json)", schema: EXPORT_REPORT_SCHEMA },
] as const;

/** The JSON Schema of one document, as `schemas/<file>` holds it. */
export function jsonSchemaOf(entry: (typeof OUTPUT_SCHEMAS)[number]): Record<string, unknown> {
  return { ...z.toJSONSchema(entry.schema), $id: entry.id, title: entry.title };
}
