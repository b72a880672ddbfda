/**
 * Parsing one raw record (as found in a list page or a get response) into a typed record, or into a
 * `SourceRecordError` that names every issue. Warnings (unknown fields, negative decimals, …) come back
 * with the record; the caller decides whether to log, count or fail on them.
 */
import { compiledSchema } from "../zod-compiled.js";
import { z } from "zod";
import { describeValue } from "../errors.js";
import type { RecordKind } from "./kinds.js";
import {
  FIELD_NOTES,
  RECORD_SCHEMAS,
  type ParsedRecord,
  type RestrictedStockAward,
  type RestrictedStockUnit,
  type VestingEvent,
} from "./records.js";
import {
  SourceRecordError,
  UNKNOWN_FIELD_MESSAGE,
  describeRecord,
  formatPath,
  sourceWarning,
  type SourceIssue,
  type SourcePath,
  type SourceWarning,
  type SourceWarningCode,
} from "./errors.js";
import { isJsonObject, type WireNote } from "./wire.js";
import { DEFAULT_JSON_LIMITS, checkJsonLimits, describeBreach, type JsonLimits } from "./json-limits.js";
import { readPlainRecord } from "./plain-record.js";

/**
 * What a record is parsed against.
 *
 * @category Source
 */
export interface ParseContext {
  /** The issuer the record was requested for; a record naming another issuer is rejected. */
  issuerId: string;
  /** Limits on the record's JSON, checked before anything else. @default DEFAULT_JSON_LIMITS */
  limits?: JsonLimits;
}

/** A parsed record and what is worth telling about it. */
export interface ParseResult<T> {
  record: T;
  warnings: SourceWarning[];
}

/**
 * The record's id as far as it can be read from raw input, for reporting a record that failed (an id
 * sent as a number is rendered as text). Not a validated id: use the parsed record's `id` for anything
 * else.
 */
export function recordIdOf(raw: unknown): string | undefined {
  const id = isJsonObject(raw) ? raw["id"] : undefined;
  if (typeof id === "string" && id !== "") return id;
  if (typeof id === "number" && Number.isFinite(id)) return String(id);
  return undefined;
}

/**
 * Parses a raw record of the given kind.
 *
 * @throws {SourceRecordError} listing every issue of the record (code `SOURCE_RECORD_INVALID`), or
 *   naming where it breaks a limit on its JSON (`SOURCE_RECORD_TOO_DEEP`, `SOURCE_RECORD_TOO_LARGE`).
 * @example
 * ```ts
 * import { readFile } from "node:fs/promises";
 * import { parseRecord, type RecordKind } from "ocf-sync";
 * // pulled.ndjson: a record's exact JSON per line, as `ocf-sync pull --issuer 7 --out pulled.ndjson` backs it up
 * const [first = ""] = (await readFile("pulled.ndjson", "utf8")).split("\n");
 * const line = JSON.parse(first) as { kind: RecordKind; issuerId: string; record: unknown };
 * const { parsed, warnings } = parseRecord(line.kind, line.record, { issuerId: line.issuerId });
 * console.log(parsed.kind, parsed.record.id, warnings);
 * ```
 *
 * @category Source
 */
export function parseRecord(
  kind: RecordKind,
  raw: unknown,
  ctx: ParseContext,
): { parsed: ParsedRecord; warnings: SourceWarning[] } {
  return parseKind(kind, raw, ctx, true);
}

/**
 * Parses a raw record with the zod schemas alone, never by `readPlainRecord`: what `parseRecord`
 * gives for every record. For the tests that hold the plain-record reader to it.
 */
export function parseRecordBySchema(kind: RecordKind, raw: unknown, ctx: ParseContext): { parsed: ParsedRecord; warnings: SourceWarning[] } {
  return parseKind(kind, raw, ctx, false);
}

function parseKind(kind: RecordKind, raw: unknown, ctx: ParseContext, plain: boolean): { parsed: ParsedRecord; warnings: SourceWarning[] } {
  if (kind === "restrictedStockAward") {
    const { record, warnings } = parseWith(kind, RECORD_SCHEMAS.restrictedStockAward, raw, ctx, plain);
    return { parsed: { kind, record }, warnings };
  }
  const { record, warnings } = parseWith(kind, RECORD_SCHEMAS.restrictedStockUnit, raw, ctx, plain);
  return { parsed: { kind, record }, warnings };
}

/**
 * Parses a raw restricted stock award.
 *
 * @throws {SourceRecordError} listing every issue of the record.
 */
export function parseAward(raw: unknown, ctx: ParseContext): ParseResult<RestrictedStockAward> {
  return parseWith("restrictedStockAward", RECORD_SCHEMAS.restrictedStockAward, raw, ctx, true);
}

/**
 * Parses a raw restricted stock unit.
 *
 * @throws {SourceRecordError} listing every issue of the record.
 */
export function parseUnit(raw: unknown, ctx: ParseContext): ParseResult<RestrictedStockUnit> {
  return parseWith("restrictedStockUnit", RECORD_SCHEMAS.restrictedStockUnit, raw, ctx, true);
}

function parseWith<T extends { vestingEvents: VestingEvent[] }>(
  kind: RecordKind,
  schema: z.ZodType<T>,
  raw: unknown,
  ctx: ParseContext,
  plain: boolean,
): ParseResult<T> {
  const limits = ctx.limits ?? DEFAULT_JSON_LIMITS;
  if (plain) {
    // The common record, read by hand (exactly the schema's output; see plain-record.ts). It walks only
    // the schema's own depth, so it needs no limit check first. `kind` names `schema`, so the record is a `T`.
    const record = readPlainRecord(kind, raw, limits) as T | undefined;
    if (record !== undefined && issuerMismatch(raw, ctx.issuerId) === undefined) return { record, warnings: [] };
  }
  const recordId = recordIdOf(raw);
  // First, before any walk that recurses (zod, the warning walk, and later JSON.stringify).
  const breach = checkJsonLimits(raw, limits);
  if (breach !== undefined) {
    const { path, pathText, message } = describeBreach(breach);
    const code = breach.kind === "depth" ? "SOURCE_RECORD_TOO_DEEP" : "SOURCE_RECORD_TOO_LARGE";
    throw new SourceRecordError({ issuerId: ctx.issuerId, kind, recordId, code, issues: [{ path, pathText, value: undefined, message }] });
  }
  const result = compiledSchema(schema).safeParse(raw, { reportInput: true });
  const issues = result.success ? [] : issuesFromZod(result.error.issues, []);
  const issuerIssue = issuerMismatch(raw, ctx.issuerId);
  // One issue per field: an issuerId the schema already rejected is not also reported as a mismatch.
  if (issuerIssue !== undefined && !issues.some((i) => i.pathText === "issuerId")) issues.push(issuerIssue);
  if (!result.success || issues.length > 0) {
    throw new SourceRecordError({ issuerId: ctx.issuerId, kind, recordId, issues });
  }
  const notes: Note[] = [];
  collectNotes(notePlan(schema), raw, [], notes);
  notes.push(...vestingNotes(result.data.vestingEvents));
  const subject = describeRecord(kind, recordId, ctx.issuerId);
  const warnings = notes.map((note) => sourceWarning({ ...note, issuerId: ctx.issuerId, kind, recordId, subject }));
  return { record: result.data, warnings };
}


/** A record of another issuer in this issuer's response would be filed under the wrong cap table. */
function issuerMismatch(raw: unknown, issuerId: string): SourceIssue | undefined {
  const value = isJsonObject(raw) ? raw["issuerId"] : undefined;
  // A missing, empty or non-string issuerId is left to the schema (all fields are optional).
  if (typeof value !== "string" || value === "" || value === issuerId) return undefined;
  return {
    path: ["issuerId"],
    pathText: "issuerId",
    value,
    message: `${describeValue(value)} is not the issuer the record was requested for (${describeValue(issuerId)})`,
  };
}

const ARTICLE: Readonly<Record<string, string>> = { array: "an array", object: "an object" };

function expectedText(expected: string): string {
  return ARTICLE[expected] ?? `a ${expected}`;
}

function issue(path: (string | number)[], value: unknown, message: string): SourceIssue {
  return { path, pathText: formatPath(path), value, message };
}

/**
 * Turns zod issues into `SourceIssue`s with messages that name the value. A union (`currencyCode`,
 * string or `{ value }`) reports the issues of the one shape the value had, not one per shape.
 */
function issuesFromZod(zodIssues: readonly z.core.$ZodIssue[], prefix: (string | number)[]): SourceIssue[] {
  const out: SourceIssue[] = [];
  for (const zodIssue of zodIssues) {
    const path = [...prefix, ...zodIssue.path.map((part) => (typeof part === "symbol" ? String(part) : part))];
    const value = zodIssue.input;
    if (zodIssue.code === "invalid_union") {
      const isWrongShape = (branch: z.core.$ZodIssue[]): boolean =>
        branch.every((i) => i.code === "invalid_type" && i.path.length === 0);
      const matching = zodIssue.errors.filter((branch) => !isWrongShape(branch));
      if (matching.length === 1 && matching[0] !== undefined) {
        out.push(...issuesFromZod(matching[0], path));
        continue;
      }
      const expected = zodIssue.errors.flatMap((branch) =>
        branch.flatMap((i) => (i.code === "invalid_type" && i.path.length === 0 ? [expectedText(i.expected)] : [])),
      );
      out.push(issue(path, value, `${describeValue(value)} is not ${expected.join(" or ")}`));
    } else if (zodIssue.code === "invalid_type") {
      out.push(issue(path, value, `${describeValue(value)} is not ${expectedText(zodIssue.expected)}`));
    } else if (zodIssue.code === "custom") {
      out.push(issue(path, value, zodIssue.message));
    } else {
      out.push(issue(path, value, `${describeValue(value)}: ${zodIssue.message}`));
    }
  }
  return out;
}

interface Note {
  code: SourceWarningCode;
  path: SourcePath;
  value: unknown;
  message: string;
}

/** The schema that decides the shape of a value: through optional, nullable and transform steps. */
function structural(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      // `.transform()` makes a pipe from the schema that reads the input to the transform.
      current = current.in as z.ZodType;
    } else {
      return current;
    }
  }
}

/**
 * What the warning walk needs to know about one schema, worked out once per schema. Asking zod at
 * every value (`instanceof` on a zod class is a trait lookup, `.shape` a lazy getter) cost more than
 * the parse itself, for answers that never change.
 */
interface NotePlan {
  /** The `FIELD_NOTES` check of this very schema. */
  check: ((raw: unknown) => WireNote | undefined) | undefined;
  /** Its structural node: the known fields of an object, the element of an array, or the object option of a union. */
  node:
    | { type: "object"; fields: ReadonlyMap<string, NotePlan> }
    | { type: "array"; element: NotePlan }
    | { type: "union"; objectOption: NotePlan }
    | undefined;
}

const NOTE_PLANS = new WeakMap<z.ZodType, NotePlan>();

function notePlan(schema: z.ZodType): NotePlan {
  const cached = NOTE_PLANS.get(schema);
  if (cached !== undefined) return cached;
  const plan: NotePlan = { check: FIELD_NOTES.get(schema), node: undefined };
  // Cached before its children are planned, so that a schema that contains itself would end.
  NOTE_PLANS.set(schema, plan);
  const node = structural(schema);
  if (node instanceof z.ZodObject) {
    const shape: Readonly<Record<string, z.ZodType>> = node.shape;
    const fields = new Map(Object.entries(shape).map(([key, field]) => [key, notePlan(field)] as const));
    plan.node = { type: "object", fields };
  } else if (node instanceof z.ZodArray) {
    plan.node = { type: "array", element: notePlan(node.element as z.ZodType) };
  } else if (node instanceof z.ZodUnion) {
    const objectOption = (node.options as z.ZodType[]).find((option) => structural(option) instanceof z.ZodObject);
    if (objectOption !== undefined) plan.node = { type: "union", objectOption: notePlan(objectOption) };
  }
  return plan;
}

/**
 * Walks a raw value that parsed successfully alongside its schema's plan, collecting unknown keys at
 * every depth and the notes of `FIELD_NOTES`. Planning from the schemas themselves means a field added
 * to a schema is known here at once. `path` is one array pushed and popped on the way (copied only for
 * a note), because a fresh path per value was most of the walk's cost.
 */
function collectNotes(plan: NotePlan, raw: unknown, path: (string | number)[], notes: Note[]): void {
  if (raw === undefined || raw === null) return;
  const note = plan.check?.(raw);
  if (note !== undefined) notes.push({ ...note, path: [...path, ...note.path] });
  const node = plan.node;
  if (node === undefined) return;
  if (node.type === "object") {
    if (!isJsonObject(raw)) return;
    for (const key of Object.keys(raw)) {
      const value = raw[key];
      const field = node.fields.get(key);
      if (field !== undefined) {
        path.push(key);
        collectNotes(field, value, path, notes);
        path.pop();
      } else {
        notes.push({ code: "UNKNOWN_FIELD", path: [...path, key], value, message: UNKNOWN_FIELD_MESSAGE(value) });
      }
    }
  } else if (node.type === "array") {
    if (!Array.isArray(raw)) return;
    for (let index = 0; index < raw.length; index++) {
      path.push(index);
      collectNotes(node.element, raw[index], path, notes);
      path.pop();
    }
  } else if (isJsonObject(raw)) {
    collectNotes(node.objectOption, raw, path, notes);
  }
}

/**
 * `vested` defaults to `false` when absent (proto3 leaves out false), and `vestedQuantity` is set only
 * once an event has vested (source-api.md §9.6, §9.8); both together mean the default was wrong.
 */
function vestingNotes(events: readonly VestingEvent[]): Note[] {
  return events.flatMap((event, index): Note[] =>
    event.vestedQuantity !== undefined && !event.vested
      ? [
          {
            code: "VESTED_QUANTITY_WITHOUT_VESTED",
            path: ["vestingEvents", index, "vested"],
            value: event.vested,
            message: `vestedQuantity ${describeValue(event.vestedQuantity)} is set but the event is not marked vested`,
          },
        ]
      : [],
  );
}
