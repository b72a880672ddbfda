/**
 * ocf-sync's public surface: every name a library user may import, listed explicitly.
 *
 * @example
 * import { createApiClient, pullIssuers } from "ocf-sync";
 * const client = createApiClient({ baseUrl: "https://api.carta.com", auth: { type: "bearer", token } });
 * for await (const result of pullIssuers(client, ["144361"])) console.log(result);
 */

// Errors, logging, exact numbers and dates
export { OcfSyncError, isOcfSyncError } from "./errors.js";
export type { Logger } from "./logger.js";
export { silentLogger } from "./logger.js";
export { Dec, DecimalError, formatDecimal, normalizeSourceDecimal, parseSourceDecimal, toOcfNumeric } from "./decimal.js";
export type { DecimalString } from "./decimal.js";
export { DateFormatError, isCalendarDate, parseCalendarDate, parseUtcDateTime } from "./dates.js";
export type { CalendarDate, UtcDateTime } from "./dates.js";

// The HTTP client
export { createApiClient, defaultUserAgent } from "./client/create-client.js";
export type { ApiClient, ApiClientOptions, ApiResponse, ClientEvent, ClientStats, TimeoutOptions } from "./client/create-client.js";
export type { Clock } from "./client/clock.js";
export { createRateLimiter } from "./client/rate-limiter.js";
export type { RateLimiter, RateLimiterOptions } from "./client/rate-limiter.js";
export type { RetryOptions } from "./client/retry-timing.js";
export { getRecord, listRecordsPage } from "./client/endpoints.js";
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

// Source records: schemas and parsing
export { RECORD_KINDS } from "./source/kinds.js";
export type { RecordKind } from "./source/kinds.js";
export { parseAward, parseRecord, parseUnit, recordIdOf } from "./source/parse.js";
export { parseGetEnvelope, parseListEnvelope } from "./source/envelopes.js";
export {
  SourceEnvelopeError,
  SourceRecordError,
  isSourceEnvelopeError,
  isSourceRecordError,
} from "./source/errors.js";
export type { SourceIssue, SourceWarning, SourceWarningCode } from "./source/errors.js";
export { RECORD_SCHEMAS, RestrictedStockAwardWire, RestrictedStockUnitWire, SPEC_FIELDS } from "./source/records.js";
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

// Pulling
export { MAX_PAGE_SIZE, PaginationError, listPages } from "./pull/paginate.js";
export type { ListOptions, ListPage } from "./pull/paginate.js";
export { getAward, getUnit, pullIssuer, streamIssuerRecords } from "./pull/pull-issuer.js";
export type { FetchedRecord, IssuerPull, OnInvalid, PullItem, PullOptions, PulledRecord, QuarantinedRecord } from "./pull/pull-issuer.js";
export { pullIssuers } from "./pull/pull-issuers.js";
export type { IssuerPullResult, PullManyOptions } from "./pull/pull-issuers.js";
export type { PullEvent } from "./pull/events.js";
export { issuerPullToNdjson } from "./pull/ndjson.js";
export type { NdjsonRecordLine } from "./pull/ndjson.js";

// OCF 1.2.0: the project's own types and runtime schemas
export { OCF_VERSION, validateOcfFile, validateOcfObject } from "./ocf/schemas.js";
export type {
  OcfEquityCompensationAcceptance,
  OcfEquityCompensationCancellation,
  OcfEquityCompensationIssuance,
  OcfEquityCompensationRelease,
  OcfFile,
  OcfIssue,
  OcfIssuer,
  OcfManifest,
  OcfStakeholder,
  OcfStockAcceptance,
  OcfStockCancellation,
  OcfStockClass,
  OcfStockIssuance,
  OcfStockPlan,
  OcfStockPlanReturnToPool,
  OcfTransaction,
  OcfValidationResult,
  OcfVestingCondition,
  OcfVestingEvent,
  OcfVestingStart,
  OcfVestingTerms,
} from "./ocf/schemas.js";

// The embedded sample API (demo and tests)
export { loadSampleData } from "./sample-server/data.js";
export type { SampleData } from "./sample-server/data.js";
export { startSampleServer } from "./sample-server/server.js";
export type { SampleServer, SampleServerOptions } from "./sample-server/server.js";

// Atomic files
export { createAtomicWriteStream, writeFileAtomic } from "./io/atomic-file.js";

// Reading and validating OCF packages (folders or .ocf.zip)
export { PackageUnusableError, openOcfPackage, readOcfPackage, readOcfPackageFromFiles } from "./ocf/package-reader.js";
export type { LoadedOcfPackage, OpenedOcfPackage, StreamedFileContent } from "./ocf/package-reader.js";
export { PACKAGE_PROBLEM_CODES, validateOcfPackage, validatePackageAt } from "./ocf/validate-package.js";
export type {
  LineageUsed,
  PackageProblem,
  PackageProblemCode,
  PackageValidationReport,
  ValidatePackageAtOptions,
  ValidatePackageOptions,
} from "./ocf/validate-package.js";
export { LEDGER_PROBLEM_CODES, LINEAGE_READINGS, checkLineage, declaredLineage } from "./ocf/security-ledger.js";
export type { CheckLineageOptions, LedgerProblemCode, LineageProblem, LineageReading } from "./ocf/security-ledger.js";

// Mapping to OCF 1.2.0 (pure; see mappings/ for the field-level policy)
export { mapIssuer } from "./mapping/map-issuer.js";
export type { IssuerRecords } from "./mapping/map-issuer.js";
export { mapAward } from "./mapping/award.js";
export { DEFAULT_SETTLEMENT_STOCK_CLASS_NAME, mapUnit } from "./mapping/unit.js";
export { IssuerMappingAccumulator } from "./mapping/accumulator.js";
export type { AccumulatedIssuer, AddOutcome, SourceGrant } from "./mapping/accumulator.js";
export { MAPPING_ERROR_CODES, MAPPING_WARNING_CODES, MappingError, isMappingError } from "./mapping/errors.js";
export type { MappingErrorCode, MappingWarning, MappingWarningCode } from "./mapping/errors.js";
export type {
  IssuerProfile,
  MapIssuerOptions,
  MappedIssuer,
  MappedRecord,
  MappingOptions,
  QuarantinedMapping,
  StakeholderEntry,
} from "./mapping/types.js";

// Writing packages
export { DEFAULT_MAX_PACKAGE_FILE_BYTES, PACKAGE_FILE_NAMES, buildPackageFiles, packageFileName, serializeOcfJson } from "./ocf/package-files.js";
export type { OcfPackageFiles, PackageContent, PackageFile, PackageFileOptions } from "./ocf/package-files.js";
export { StreamingPackageWriter } from "./ocf/package-writer.js";
export type { FinishedPackage, PackageHead, PackageWriterOptions, WrittenPackageFile } from "./ocf/package-writer.js";
export { ZipTooLargeError, commitPackageFolder, packageNameFor, recoverPackageFolders, writePackageZip } from "./ocf/package-folder.js";

// Exporting: pull + map + validate + write, per issuer
export { ExportValidationError, exportIssuer } from "./export/export-issuer.js";
export type { ExportEvent, ExportOptions, ExportQuarantine, IssuerExport } from "./export/export-issuer.js";
export { exportIssuers, shardIndexOf, shardOf } from "./export/export-issuers.js";
export type { ExportManyOptions, IssuerExportResult } from "./export/export-issuers.js";

// Reconciliation: source against OCF, OCF against OCF, and the source's own consistency
export { reconcileSourceWithOcf } from "./reconcile/source-vs-ocf.js";
export { matchSecurities, reconcileOcfWithOcf } from "./reconcile/ocf-vs-ocf.js";
export { checkSourceConsistency } from "./reconcile/consistency.js";
export { ReconcileInputError, packageObjects } from "./reconcile/package-objects.js";
export type { PackageObjects } from "./reconcile/package-objects.js";
export { replayPackage } from "./reconcile/replay.js";
export { loadPackageObjects, loadSourceFromApi, loadSourceFromNdjson } from "./reconcile/load.js";
export { reconciliationCsv, renderReconciliationText } from "./reconcile/render.js";
export { renderReconciliationHtml } from "./reconcile/html.js";
export { DIFFERENCE_CODES, FIGURE_NAMES } from "./reconcile/types.js";
export type { Difference, DifferenceCode, FigureName, Figures, ReconcileOptions, ReconciliationReport } from "./reconcile/types.js";
export { NdjsonFormatError, readPulledNdjson } from "./pull/ndjson.js";
export type { PulledIssuerRecords } from "./pull/ndjson.js";
export { terminalSafe } from "./errors.js";

// Incremental sync: keep packages current with only the changes
export { DEFAULT_FULL_EVERY, DEFAULT_OVERLAP_SECONDS, sync } from "./sync/sync.js";
export type { IssuerSyncResult, RecordChanges, SyncEvent, SyncOptions } from "./sync/sync.js";
export { diffPackageObjects } from "./sync/change-set.js";
export type { ChangedOcfObject, OcfChangeSet, OcfObjectRef } from "./sync/change-set.js";
export { SyncLockedError } from "./sync/lock.js";
export { SyncStateError, readSyncState } from "./sync/state.js";
export type { IssuerSyncState, SyncState } from "./sync/state.js";
