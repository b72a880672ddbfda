/**
 * Every `code` an ocf-sync error can carry, in one list (the codes of one error class in a list of
 * their own, which the whole list spreads): the type of `OcfSyncError.code`, the codes a
 * per-issuer result, a `--json` document or a run record can name. docs/errors.md is generated from
 * this list and its comments (`npm run docs:errors`), and test/unit/error-codes.test.ts fails when a
 * code thrown anywhere in src/ is missing here, or a code here is thrown nowhere.
 */

/**
 * Codes of `ApiError`: one per HTTP status family the caller may want to tell apart.
 *
 * @category Errors
 */
export const API_ERROR_CODES = [
  /** The API answered 400. */
  "API_BAD_REQUEST",
  /** The API answered 401: the token is missing, wrong or expired. */
  "API_UNAUTHORIZED",
  /** The API answered 403: the credentials lack the scope or access. */
  "API_FORBIDDEN",
  /** The API answered 404: no such issuer or record. */
  "API_NOT_FOUND",
  /** The API answered 429 and retries did not get past it. */
  "API_RATE_LIMITED",
  /** The API answered 5xx and retries did not get past it. */
  "API_SERVER_ERROR",
  /** The API answered another status that is not success. */
  "API_HTTP_ERROR",
] as const;

/**
 * Codes of `NetworkError`.
 *
 * @category Errors
 */
export const NETWORK_ERROR_CODES = [
  /** No response: the connection was refused or reset, DNS failed, TLS did not agree. */
  "API_NETWORK_ERROR",
  /** A connect, headers or body timeout expired. */
  "API_TIMEOUT",
] as const;

/**
 * Codes of `SourceRecordError`: the record failed its schema, or broke a limit on its JSON
 * (`src/source/json-limits.ts`): nested too deep, or too large.
 */
export const SOURCE_RECORD_ERROR_CODES = [
  /** A record failed its schema; `issues` lists every problem, not only the first. */
  "SOURCE_RECORD_INVALID",
  /** A record's JSON is nested deeper than the limit. */
  "SOURCE_RECORD_TOO_DEEP",
  /** A record's JSON is larger than the limit. */
  "SOURCE_RECORD_TOO_LARGE",
] as const;

/**
 * Codes of `OcfReadError`: why `readOcfPackage` stopped reading a package.
 *
 * @category OCF
 */
export const OCF_READ_ERROR_CODES = [
  /** The manifest is not valid against ocf-sync's OCF 1.2.0 manifest schema. */
  "OCF_MANIFEST_INVALID",
  /** A file the manifest lists is missing, has an unsafe path, is over the size limit or cannot be read. */
  "OCF_FILE_UNREADABLE",
  /** A listed file is not UTF-8 JSON (or holds one value over the size limit). */
  "OCF_FILE_NOT_JSON",
  /** A listed file is not a JSON object with the `file_type` of its manifest list and an `items` list. */
  "OCF_WRONG_FILE_TYPE",
  /** A listed file's MD5 is not the one the manifest gives (its objects were yielded before this was known). */
  "OCF_MD5_MISMATCH",
  /** An object does not conform to its OCF 1.2.0 schema, or is not allowed in its file. */
  "OCF_OBJECT_INVALID",
] as const;

/**
 * Why a record or an option could not be mapped. Each is a stable `code` of `MappingError`.
 *
 * @category Errors
 */
export const MAPPING_ERROR_CODES = [
  /** A value OCF requires is absent from the record (issue date, quantity, price, …). */
  "MAPPING_MISSING_VALUE",
  /** A decimal needs more than the 10 places OCF `Numeric` allows (never rounded). */
  "MAPPING_DECIMAL_PRECISION",
  /** The record contradicts itself in a way no OCF object can carry (duplicate event ids, …). */
  "MAPPING_CONFLICT",
  /** Two records would produce the same OCF id, or the same record was given twice. */
  "MAPPING_ID_COLLISION",
  /** An option given to the mapping is not usable (an `asOf` that is not a date, …). */
  "MAPPING_INVALID_OPTION",
  /** The mapping built an object that fails the OCF 1.2.0 schemas; nothing invalid is returned. */
  "MAPPING_INVALID_OUTPUT",
  /** The record's transactions do not read consistently under the package's lineage (the rules of `ocf-sync validate`); nothing is returned. */
  "MAPPING_INVALID_LINEAGE",
] as const;

/**
 * Every stable error code of ocf-sync, each with its meaning (docs/errors.md lists them with the CLI's
 * exit status). Switch on an error's `code`; its subclass narrows it to its own codes.
 *
 * @category Errors
 */
export const OCF_SYNC_ERROR_CODES = [
  // Any job
  /** A failure that is no ocf-sync error (a bug, most likely), wrapped: the original is its `cause`. */
  "UNEXPECTED",
  /** The job's deadline (`deadlineMs`, `--deadline`) passed; what was under way was stopped. */
  "DEADLINE_EXCEEDED",
  /** The process was asked to stop (SIGINT or SIGTERM). */
  "INTERRUPTED",
  /** A file or folder could not be read or written (missing, not writable, disk full, …); `errno` says why. */
  "FILE_SYSTEM_ERROR",
  /** A decimal is not a decimal number (a comma, a space, `NaN`, hex, …). */
  "DECIMAL_SYNTAX",
  /** A decimal's exponent is beyond ±60. */
  "DECIMAL_RANGE",
  /** A decimal needs more places than where it goes can hold; it is never rounded. */
  "DECIMAL_PRECISION",
  /** A date is not a real `YYYY-MM-DD` date, or a date-time not a UTC `YYYY-MM-DDThh:mm:ssZ`. */
  "DATE_FORMAT",

  // The HTTP client
  ...API_ERROR_CODES,
  ...NETWORK_ERROR_CODES,
  /** A success response whose body is not valid JSON (typically cut off in transit). */
  "API_INVALID_JSON",
  /** A response body larger than `maxResponseBytes`. */
  "API_RESPONSE_TOO_LARGE",
  /** The caller's `AbortSignal` fired. */
  "ABORTED",
  /** No OAuth2 token could be obtained; `failure` says why. */
  "AUTH_FAILED",
  /** An issuer or record id that cannot go in a request URL (empty, `.`, `..`, not valid Unicode). */
  "INVALID_IDENTIFIER",
  /** A client option or call argument out of range (a base URL with a query, a page size of 0, …). */
  "CLIENT_CONFIG_INVALID",
  /** A request was asked of a client already closed. */
  "CLIENT_CLOSED",
  /** The Redis of the shared rate limiter cannot be reached or failed under a command. */
  "RATE_LIMITER_UNAVAILABLE",

  // Source records
  ...SOURCE_RECORD_ERROR_CODES,
  /** A list or get response does not have the documented envelope. */
  "SOURCE_ENVELOPE_INVALID",
  /** The API gave a page token it had given before: paging would never end. */
  "PAGINATION_TOKEN_REPEATED",
  /** A list went on for more pages than the limit. */
  "PAGINATION_TOO_MANY_PAGES",
  /** A file is not the NDJSON `ocf-sync pull` writes; names the file and the line. */
  "NDJSON_INVALID",

  // Mapping
  ...MAPPING_ERROR_CODES,

  // OCF packages
  ...OCF_READ_ERROR_CODES,
  /** Package options that would make an invalid manifest (a `generatedAt` without a zone, …). */
  "OCF_PACKAGE_INVALID",
  /** The input is no OCF package at all: not a folder or zip, an unreadable zip, no manifest, a manifest not JSON. */
  "PACKAGE_UNUSABLE",
  /** A package too large to zip without Zip64 (over 4 GiB, or more than 65,535 files). */
  "ZIP64_UNSUPPORTED",

  // Export
  /** A package that was written failed validation; it was not put in place. */
  "EXPORT_PACKAGE_INVALID",
  /** Another export or sync is writing to the output folder (its lock is live). */
  "OUTPUT_LOCKED",
  /** A shard (`--shard`, `OCF_SYNC_SHARD`, the orchestrator's variables) missing, malformed or contradictory. */
  "SHARD_INVALID",
  /** An `s3://` location was given but `@aws-sdk/client-s3` is not installed. */
  "S3_CLIENT_MISSING",
  /** A request to object storage failed; `status` is its HTTP status when there was one. */
  "S3_REQUEST_FAILED",
  /** Another writer committed the same package, or another sync the same state, in object storage first. */
  "S3_COMMIT_CONFLICT",
  /** An `s3://` package without its commit marker, or whose objects changed since: not a complete package. */
  "S3_PACKAGE_INCOMPLETE",

  // Reconcile
  /** Input a reconciliation cannot work with: a package without its files, an NDJSON line that is no record, … */
  "RECONCILE_INPUT_UNUSABLE",
  /** A package whose files are not the ones its manifest describes; its figures cannot be trusted. */
  "PACKAGE_INTEGRITY_FAILED",

  // Sync
  /** Another sync is using this state (its lock is live). */
  "SYNC_LOCKED",
  /** The sync state file cannot be used; it is left as it is and the message says how to recover. */
  "SYNC_STATE_INVALID",
  /** A file of the sync's record store cannot be read back as written; delete its folder to pull the issuer again. */
  "SYNC_STORE_DAMAGED",

  // The sample API (ocf-sync/testing)
  /** `startSampleServer` was given options it cannot honour. */
  "SAMPLE_SERVER_OPTIONS",
  /** A sample data file the sample API cannot serve; names the file, the record and the field. */
  "SAMPLE_DATA_INVALID",

  // The command line
  /** The command was called wrongly (an unknown flag, a missing argument, …); printed by the CLI only. */
  "USAGE_ERROR",
] as const;

/**
 * A stable error code of ocf-sync: the type of `OcfSyncError.code`; see {@link OCF_SYNC_ERROR_CODES}.
 *
 * @category Errors
 */
export type OcfSyncErrorCode = (typeof OCF_SYNC_ERROR_CODES)[number];
