/**
 * ocf-sync's public API: every name a library user may import, listed explicitly and documented in
 * docs/library.md. Anything not listed here is internal and may change in any release. The
 * public types never mention a dependency's types (zod, undici, decimal.js): quantities and amounts are
 * decimal strings, dates are `YYYY-MM-DD` strings, OCF objects are plain interfaces.
 *
 * @example
 * ```ts
 * import { createApiClient, exportIssuers } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * for await (const result of exportIssuers(client, ["144361"], { outDir: "out", zip: true })) console.log(result);
 * await client.close();
 * ```
 *
 * The embedded sample API, for tests of code built on ocf-sync, is `ocf-sync/testing` (src/testing.ts).
 *
 * @packageDocumentation
 * @module ocf-sync
 */

// Errors and logging
export {
  DeadlineExceededError,
  FileSystemError,
  InterruptedError,
  OcfSyncError,
  isDeadlineExceededError,
  isFileSystemError,
  isInterruptedError,
  isOcfSyncError,
} from "./errors.js";
export { API_ERROR_CODES, MAPPING_ERROR_CODES, NETWORK_ERROR_CODES, OCF_READ_ERROR_CODES, OCF_SYNC_ERROR_CODES } from "./error-codes.js";
export type { OcfSyncErrorCode } from "./error-codes.js";
export type { Logger } from "./logger.js";
export type { CalendarDate, UtcDateTime } from "./dates.js";
export { DecimalError } from "./decimal.js";
export type { DecimalString } from "./decimal.js";

// The HTTP client: authentication, retries, the rate limiter
export { createApiClient } from "./client/create-client.js";
export type { ApiClient, ApiClientOptions, ApiResponse, ClientEvent, ClientStats, GetJsonOptions, HttpDispatcher, TimeoutOptions } from "./client/create-client.js";
export type { AuthOptions } from "./client/auth.js";
export { createRedactor, type Redactor } from "./redaction.js";
export type { Clock } from "./client/clock.js";
export { createRateLimiter, quotaWindow } from "./client/rate-limiter.js";
export type { PauseReason, QuotaWindow, RateLimitPermit, RateLimiter, RateLimiterOptions } from "./client/rate-limiter.js";
export { createRedisRateLimiter, quotaKey } from "./client/redis-rate-limiter.js";
export type { RedisRateLimiter, RedisRateLimiterOptions } from "./client/redis-rate-limiter.js";
export type { RetryOptions } from "./client/retry-timing.js";
export {
  AbortedError,
  ApiError,
  AuthError,
  ClientConfigError,
  InvalidIdentifierError,
  InvalidJsonError,
  NetworkError,
  ResponseTooLargeError,
  isAbortedError,
  isApiError,
  isAuthError,
  isClientConfigError,
  isInvalidIdentifierError,
  isInvalidJsonError,
  isNetworkError,
  isResponseTooLargeError,
} from "./client/errors.js";
export type { ApiErrorCode, AuthFailure, ErrorBodyInfo, NetworkErrorCode, RequestContext } from "./client/errors.js";

// Source records: pulling and parsing
export { getAward, getUnit, pullIssuer, streamIssuerRecords } from "./pull/pull-issuer.js";
export type { FetchedRecord, IssuerPull, OnInvalid, PullItem, PullOptions, PulledRecord, QuarantinedRecord } from "./pull/pull-issuer.js";
export { pullIssuers } from "./pull/pull-issuers.js";
export type { IssuerPullResult, PullManyOptions } from "./pull/pull-issuers.js";
export type { PullEvent } from "./pull/events.js";
export { PaginationError } from "./pull/paginate.js";
export { parseRecord } from "./source/parse.js";
export type { ParseContext } from "./source/parse.js";
export type { JsonLimits } from "./source/json-limits.js";
export { RECORD_KINDS } from "./source/kinds.js";
export type { RecordKind } from "./source/kinds.js";
export { SourceEnvelopeError, SourceRecordError, isSourceEnvelopeError, isSourceRecordError } from "./source/errors.js";
export type { SourceIssue, SourceWarning, SourceWarningCode } from "./source/errors.js";
export type { Money } from "./source/wire.js";
export type {
  ParsedRecord,
  PrecededBy,
  PrecededBySecurity,
  RestrictedStockAward,
  RestrictedStockUnit,
  Settlement,
  VestingEvent,
  VestingSchedule,
} from "./source/records.js";

// Mapping to OCF 1.2.0 (pure functions; mappings/ holds the field-level policy)
export { mapIssuer } from "./mapping/map-issuer.js";
export type { IssuerRecords } from "./mapping/map-issuer.js";
export { mapAward } from "./mapping/award.js";
export type { RecordMappingContext } from "./mapping/grant.js";
export { mapUnit } from "./mapping/unit.js";
export type { ShareClassDirectory } from "./mapping/share-classes.js";
export { MAPPING_WARNING_CODES, MappingError, isMappingError } from "./mapping/errors.js";
export type { MappingErrorCode, MappingLocation, MappingWarning, MappingWarningCode, RecordRef } from "./mapping/errors.js";
export type {
  DeliveredShares,
  IssuerProfile,
  Lineage,
  MapIssuerOptions,
  MappedIssuer,
  MappedRecord,
  MappingOptions,
  QuarantinedMapping,
  RecordUses,
  ShareClassProfile,
  StakeholderEntry,
  StockClassUse,
  StockPlanProfile,
  UnvestedTranche,
} from "./mapping/types.js";
export type { AccumulatedIssuer } from "./mapping/accumulator.js";

// OCF 1.2.0: the project's own types and validation
export { OCF_VERSION, validateOcfFile, validateOcfObject } from "./ocf/schemas.js";
export type { OcfIssue, OcfValidationResult } from "./ocf/schemas.js";
export type * from "./ocf/types.js";

// OCF packages: writing, reading, validating
export { OcfPackageError, buildPackageFiles } from "./ocf/package-files.js";
export type { OcfPackageFiles, PackageContent, PackageFile, PackageFileOptions } from "./ocf/package-files.js";
export type { WrittenPackageFile } from "./ocf/package-writer.js";
export { ZipTooLargeError, packageNameFor } from "./ocf/package-folder.js";
export { PackageUnusableError } from "./ocf/package-reader.js";
export type { ReadOcfPackageOptions } from "./ocf/package-reader.js";
export { OcfReadError, isOcfReadError, readOcfPackage } from "./ocf/typed-reader.js";
export type { OcfObjectOfFileType, OcfPackageFileEntry, OcfPackageReader, OcfReadErrorCode, ReadObjectsOptions } from "./ocf/typed-reader.js";
export { PACKAGE_PROBLEM_CODES, validatePackageAt } from "./ocf/validate-package.js";
export type { LineageUsed, PackageCounts, PackageProblem, PackageProblemCode, PackageValidationReport, ValidatePackageAtOptions } from "./ocf/validate-package.js";
export { LEDGER_PROBLEM_CODES, LINEAGE_READINGS, checkLineage, declaredLineage } from "./ocf/security-ledger.js";
export type { CheckLineageOptions, LedgerProblemCode, LedgerSeverity, LineageProblem } from "./ocf/security-ledger.js";

// Exporting: pull, map, validate and write one package per issuer
export { ExportValidationError, exportIssuer } from "./export/export-issuer.js";
export type { ExportEvent, ExportOptions, ExportQuarantine, IssuerExport, MappedRecordItem } from "./export/export-issuer.js";
export { exportIssuers, shardIndexOf, shardOf } from "./export/export-issuers.js";
export { SHARD_INVALID, parseShard, shardFromEnvironment, shardOfIndex } from "./export/shard.js";
export type { Shard } from "./export/shard.js";
export type { ExportManyOptions, IssuerExportResult } from "./export/export-issuers.js";
export { OutputLockedError } from "./export/output-lock.js";

// Reconciliation: source against OCF, OCF against OCF, the source's own consistency
export { checkSourceConsistency } from "./reconcile/consistency.js";
export { PackageIntegrityError, loadPackageObjects, loadSourceFromApi, loadSourceFromNdjson, reconcileApiWithOcf, reconcileNdjsonWithOcf } from "./reconcile/load.js";
export { reconcileOcfWithOcf } from "./reconcile/ocf-vs-ocf.js";
export { SourceReconciliation, reconcileSourceWithOcf } from "./reconcile/source-vs-ocf.js";
export { replayPackage } from "./reconcile/replay.js";
export type { ReplayedPackage, ReplayedSecurity } from "./reconcile/replay.js";
export { ReconcileInputError } from "./reconcile/package-objects.js";
export type { JsonRecord, PackageObjects } from "./reconcile/package-objects.js";
export { reconciliationCsv, renderReconciliationText, reportAgrees } from "./reconcile/render.js";
export type { TableRenderer } from "./reconcile/render.js";
export { renderReconciliationHtml } from "./reconcile/html.js";
export type { DocumentStamp } from "./document-stamp.js";
export { DIFFERENCE_CODES, FIGURE_NAMES } from "./reconcile/types.js";
export type {
  Difference,
  DifferenceCode,
  DifferenceSection,
  FigureName,
  Figures,
  GrantRow,
  HolderRow,
  QuarantinedSourceRecord,
  ReconcileOptions,
  ReconciliationReport,
  SourceIssuer,
  Tranche,
  VestingPoint,
} from "./reconcile/types.js";
export { NdjsonFormatError } from "./pull/ndjson.js";

// Incremental sync
export { DEFAULT_FULL_EVERY, DEFAULT_OVERLAP_SECONDS, sync } from "./sync/sync.js";
export type { IssuerSyncResult, PassPlan, SourceRecordRef, SyncEvent, SyncOptions, SyncedPackage } from "./sync/sync.js";
export { CHANGE_SAMPLE_LIMIT } from "./sync/change-tally.js";
export { diffPackageObjects, summarizeChangeSet } from "./sync/change-set.js";
export type { PackageObjectMap } from "./sync/change-set.js";
export type { ChangedOcfObject, OcfChangeCounts, OcfChangeSet, OcfChangeSummary, OcfObjectChange, OcfObjectRef } from "./sync/change-set.js";
export type { RecordChange, RecordChangeCounts, RecordChangeSummary } from "./sync/record-changes.js";
export { SyncLockedError } from "./sync/lock.js";
export type { LockOwner, StaleLock } from "./sync/lock.js";
export type { StaleLockReason } from "./io/lock-file.js";
export { SyncStateError, readSyncState } from "./sync/state.js";
export type { FullPassReason, IssuerPackageState, IssuerStore, IssuerSyncState, SyncState, UnchangedPage, UnreadableIssuerState } from "./sync/state.js";
export { SyncStoreError } from "./sync/store.js";

// Object storage (sync's s3Out and s3State)
export { S3ClientMissingError, S3RequestError } from "./io/s3-location.js";
export type { ObjectStorageOptions } from "./io/s3-location.js";
