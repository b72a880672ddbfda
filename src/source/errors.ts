/**
 * Errors and warnings of the wire boundary. A record that cannot be parsed fails alone, with every one
 * of its issues named (issuer, record, field path and value); a response whose envelope is broken fails
 * its request. Warnings are data, returned to the caller, never logged from here.
 */
import { SOURCE_RECORD_ERROR_CODES } from "../error-codes.js";
import { OcfSyncError, describeValue, isOcfSyncError } from "../errors.js";
import type { RecordKind } from "./kinds.js";

/** A path into a JSON value: object keys and array indexes. */
export type SourcePath = readonly (string | number)[];

/**
 * One thing wrong with a record.
 *
 * @category Source
 */
export interface SourceIssue {
  /** Where, e.g. `["vestingEvents", 2, "vestDate", "value"]`; empty for the record itself. */
  path: (string | number)[];
  /** The same path as text, e.g. `vestingEvents[2].vestDate.value`; `""` for the record itself. */
  pathText: string;
  /** The offending value as received (`undefined` when it is missing). */
  value: unknown;
  /** What is wrong, usually naming the value: `"2023-02-30" is not a real calendar date`. */
  message: string;
}

/**
 * What a warning is about.
 *
 * @category Source
 */
export type SourceWarningCode =
  /** A key the schema does not know, at any depth; it is ignored. */
  | "UNKNOWN_FIELD"
  /** A decimal below zero, which the wire pattern allows but no quantity or price should be. */
  | "NEGATIVE_DECIMAL"
  /** A date-time with more than six fractional digits, truncated to microseconds. */
  | "DATETIME_TRUNCATED"
  /** An enum value this version does not know; it is kept as sent. */
  | "UNKNOWN_ENUM_VALUE"
  /** A vesting event with a `vestedQuantity` but without `vested: true` (`vested` defaults to false). */
  | "VESTED_QUANTITY_WITHOUT_VESTED"
  /** An empty or white-space-only share class reference (`shareClassName`, `shareClassId`), taken as absent. */
  | "BLANK_VALUE"
  /** The same record id listed twice in one pass; raised by the pull layer, not by parsing. */
  | "DUPLICATE_RECORD"
  /**
   * A value held a credential in use (the server echoed the token or client secret): it was replaced
   * with `[REDACTED]` as it arrived, before anything read it. Raised by the envelope, not by parsing.
   */
  | "SECRET_REDACTED";

/**
 * Something worth telling about a record or envelope that still parsed.
 *
 * @category Source
 */
export interface SourceWarning {
  code: SourceWarningCode;
  issuerId: string;
  kind: RecordKind;
  /** The record concerned; absent for an envelope warning or a record without a usable id. */
  recordId?: string;
  /** Where, as text (`vestingEvents[1].foo`). */
  path: string;
  /** The value found there. */
  value?: unknown;
  /** A complete sentence naming the record, the path and the value. */
  message: string;
}

/** The message of a `SECRET_REDACTED` warning. */
export const SECRET_REDACTED_MESSAGE =
  "held a credential in use (the server echoed the token or client secret); it was replaced with [REDACTED] before the record was read, and the record was read so";

/** The message of an `UNKNOWN_FIELD` warning. */
export const UNKNOWN_FIELD_MESSAGE = (value: unknown): string =>
  `unknown field, ignored (value ${describeValue(value, 40)})`;

/** Renders a path as `vestingEvents[2].vestDate.value`; keys that are not identifiers are quoted. */
export function formatPath(path: SourcePath): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) text += text === "" ? part : `.${part}`;
    else text += `[${JSON.stringify(part)}]`;
  }
  return text;
}

/** `restrictedStockAward "1191" of issuer "7"`: the subject of every record message. */
export function describeRecord(kind: RecordKind, recordId: string | undefined, issuerId: string): string {
  const id = recordId === undefined ? "(no id)" : describeValue(recordId);
  return `${kind} ${id} of issuer ${describeValue(issuerId)}`;
}

/** `path: message`, or the message alone for the record itself. */
function located(pathText: string, message: string): string {
  return pathText === "" ? message : `${pathText}: ${message}`;
}

/** The `code` of a `SourceRecordError`. */
export type SourceRecordErrorCode = (typeof SOURCE_RECORD_ERROR_CODES)[number];

/**
 * Thrown when a record fails its schema. Carries every issue found, not only the first.
 *
 * @category Errors
 */
export class SourceRecordError extends OcfSyncError {
  declare readonly code: SourceRecordErrorCode;
  readonly issuerId: string;
  readonly kind: RecordKind;
  /** The record's id when one could be read (best effort), for reporting. */
  readonly recordId: string | undefined;
  readonly issues: SourceIssue[];

  constructor(details: { issuerId: string; kind: RecordKind; recordId: string | undefined; issues: SourceIssue[]; code?: SourceRecordErrorCode }) {
    const { issuerId, kind, recordId, issues } = details;
    const list = issues.map((issue) => located(issue.pathText, issue.message)).join("; ");
    super(details.code ?? "SOURCE_RECORD_INVALID", `${describeRecord(kind, recordId, issuerId)}: ${list}`);
    this.name = "SourceRecordError";
    this.issuerId = issuerId;
    this.kind = kind;
    this.recordId = recordId;
    this.issues = issues;
  }
}

/**
 * Thrown when a list or get response body does not have the documented envelope (source-api.md §4).
 *
 * @category Errors
 */
export class SourceEnvelopeError extends OcfSyncError {
  declare readonly code: "SOURCE_ENVELOPE_INVALID";
  readonly issuerId: string;
  readonly kind: RecordKind;
  /** The request path whose response was malformed. */
  readonly path: string;

  constructor(details: { issuerId: string; kind: RecordKind; path: string; problem: string }) {
    const { issuerId, kind, path, problem } = details;
    const subject = `response of GET ${path} (${kind}, issuer ${describeValue(issuerId)})`;
    super("SOURCE_ENVELOPE_INVALID", `${subject}: ${problem}`);
    this.name = "SourceEnvelopeError";
    this.issuerId = issuerId;
    this.kind = kind;
    this.path = path;
  }
}

/**
 * True for a `SourceRecordError` (any of its codes), also across two loaded copies of the package.
 *
 * @category Errors
 */
export function isSourceRecordError(error: unknown): error is SourceRecordError {
  return isOcfSyncError(error) && (SOURCE_RECORD_ERROR_CODES as readonly string[]).includes(error.code);
}

/**
 * True for a `SourceEnvelopeError`, also across two loaded copies of the package.
 *
 * @category Errors
 */
export function isSourceEnvelopeError(error: unknown): error is SourceEnvelopeError {
  return isOcfSyncError(error) && error.code === "SOURCE_ENVELOPE_INVALID";
}

/**
 * Builds a warning with its full message. `subject` names what the warning is about (a record via
 * `describeRecord`, or a response); `recordId` is left out when unknown.
 */
export function sourceWarning(details: {
  code: SourceWarningCode;
  issuerId: string;
  kind: RecordKind;
  recordId: string | undefined;
  subject: string;
  path: SourcePath;
  value: unknown;
  message: string;
}): SourceWarning {
  const { code, issuerId, kind, recordId, subject, path, value, message } = details;
  const pathText = formatPath(path);
  return {
    code,
    issuerId,
    kind,
    ...(recordId === undefined ? {} : { recordId }),
    path: pathText,
    value,
    message: `${subject}: ${located(pathText, message)}`,
  };
}
