/**
 * One issuer's pass of a sync: pull (everything, or what changed since the cursor minus the overlap
 * window), store the records, write the package from the store when it is behind, and tell what
 * changed. See `sync.ts` for the whole job and `store.ts` for what is kept.
 *
 * What a pass costs follows what changed:
 *
 * - nothing changed: the filtered list requests, the re-read records of the overlap window checked
 *   against the store's recent list (no shard read, no record parsed), and the state file (its
 *   counters). Nothing is mapped, no package or shard file is read or written. When the previous
 *   pass found nothing changed either, a page that comes back byte for byte as it got it is only
 *   hashed, not even decoded (`unchangedPages` in the state);
 * - some records changed: those are parsed and mapped, the shards they fall in are rewritten, and the
 *   package is written from the stored mappings of all records (its bytes change, so it is written
 *   whole); the change set compares the stored mappings of the shards that differ;
 * - the mapping code or options changed: every stored record is mapped again from its stored JSON,
 *   with no request beyond the pass's own.
 *
 * A pass commits twice: the records (cursor, store), then the package. A pass that fails after the
 * first commit (an invalid record under `onInvalid: "fail"`, a package that fails validation, a full
 * disk) keeps its records: the next run pulls only what changed since, and writes the package.
 */
import { access } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { ApiClient } from "../client/create-client.js";
import { epochMsToUtcDateTime, parseUtcDateTime, toFilterDateTime, utcDateTimeToEpochMs, utcNowRfc3339, type UtcDateTime } from "../dates.js";
import { exportIssuerOfJob, rawLastModified, type IssuerExport, type MappedRecordItem } from "../export/export-issuer.js";
import { exportDigest } from "../export/resume.js";
import { mapGrant, type AccumulatedIssuer } from "../mapping/accumulator.js";
import { keepDeliveredShares } from "../mapping/delivered-shares.js";
import { isMappingError } from "../mapping/errors.js";
import type { ShareClassDirectory } from "../mapping/share-classes.js";
import type { MappedRecord, MappingOptions } from "../mapping/types.js";
import { PACKAGE_FILE_NAMES } from "../ocf/package-files.js";
import { packageNameFor } from "../ocf/package-folder.js";
import type { PullEvent } from "../pull/events.js";
import { duplicateRecordWarning, issuerPages, recordItems, type PullItem } from "../pull/pull-issuer.js";
import { SourceRecordError, type SourceWarning } from "../source/errors.js";
import { keepableJson } from "../source/json-limits.js";
import type { RecordKind } from "../source/kinds.js";
import { parseRecord, recordIdOf } from "../source/parse.js";
import type { ParsedRecord, RestrictedStockAward } from "../source/records.js";
import { ChangeTally, diffStoredPackages, type OcfChangeSummary } from "./change-set.js";
import { PassClassNames } from "./class-names.js";
import { RecordTally } from "./record-changes.js";
import { type DirectoryJson, digestOf, mappingDigest } from "../export/fingerprint.js";
import { snapshotFolderOf, UNCHANGED_PAGES_LIMIT, type IssuerPackageState, type IssuerStore, type IssuerSyncState, type SyncState, type UnchangedPage } from "./state.js";
import {
  Staging,
  hashRaw,
  headFileName,
  listFolder,
  mergeStaged,
  readHead,
  readRecent,
  readShard,
  readShardMappings,
  recentFileName,
  recordKey,
  removeAllBut,
  shardCountFor,
  shardFiles,
  writeHead,
  writeRecent,
  type MergeResult,
  type RecordHeader,
  type StoredRecord,
} from "./store.js";
import type { IssuerSyncResult, PassPlan, SyncEvent, SyncOptions } from "./types.js";

/**
 * Default of `overlapSeconds`: five minutes of late-committed changes are re-read on every pass.
 *
 * @category Sync
 */
export const DEFAULT_OVERLAP_SECONDS = 300;
/**
 * Default of `fullEvery`: with nightly syncs, a full pass (which sees deletions) once a week.
 *
 * @category Sync
 */
export const DEFAULT_FULL_EVERY = 7;

/** The `lastModifiedDatetimeAfter` of an incremental pass: the cursor minus the overlap, to the second. */
function windowStart(cursor: string, overlapSeconds: number): string {
  // The filter takes whole seconds and is inclusive: truncating down never skips a record.
  return toFilterDateTime(epochMsToUtcDateTime(utcDateTimeToEpochMs(cursor) - overlapSeconds * 1000));
}

/**
 * Decides an issuer's pass from its state. Exported for tests.
 *
 * @param previous the issuer's state, `undefined` before its first pass
 * @param storeFound whether the records the state names are all there
 */
export function planPass(
  previous: IssuerSyncState | undefined,
  storeFound: boolean,
  options: { full?: boolean; fullEvery?: number; overlapSeconds?: number },
): PassPlan {
  const fullEvery = options.fullEvery ?? DEFAULT_FULL_EVERY;
  const overlapSeconds = options.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
  if (previous === undefined) return { pass: "full", reason: "first-run" };
  if (previous.store === undefined) return { pass: "full", reason: "state-upgraded" };
  if (!storeFound) return { pass: "full", reason: "snapshot-missing" };
  if (options.full === true) return { pass: "full", reason: "requested" };
  if (previous.fullPending === true) return { pass: "full", reason: "interrupted-full" };
  if (fullEvery > 0 && previous.incrementalSinceFull + 1 >= fullEvery) return { pass: "full", reason: "periodic" };
  if (previous.cursor === null) return { pass: "full", reason: "no-cursor" };
  return { pass: "incremental", reason: "incremental", modifiedAfter: windowStart(previous.cursor, overlapSeconds) };
}

/** The files of the store an issuer's state names: its shards, recent list, and the package's shards and head. */
export function storeFilesOf(issuer: IssuerSyncState): Set<string> {
  const files = new Set<string>();
  if (issuer.store !== undefined) {
    for (const file of shardFiles(issuer.store.shards)) files.add(file);
    if (issuer.store.recent !== 0) files.add(recentFileName(issuer.store.recent));
  }
  if (issuer.package !== undefined) {
    for (const file of shardFiles(issuer.package.shards)) files.add(file);
    files.add(headFileName(issuer.package.generation));
  }
  return files;
}

/** The folder of an issuer's store. */
export function storeFolderOf(stateFile: string, issuerId: string): string {
  return join(snapshotFolderOf(stateFile), packageNameFor(issuerId));
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The header of a record that failed the API schema. */
function invalidHeader(kind: RecordKind, raw: unknown, hash: string): RecordHeader {
  const id = recordIdOf(raw);
  return { k: kind, ...(id === undefined ? {} : { i: id }), h: hash, m: rawLastModified(raw), s: "invalid" };
}

/**
 * A stored record with its mapping: from the parsed record when the pull has it, else parsed again
 * from its JSON. A record that fails parsing or mapping is stored flagged, with no mapping (a unit:
 * with the shares its settlements delivered, which the package keeps, `delivered-shares.ts`): the
 * package is written with it quarantined, or fails, as `onInvalid` says. A unit whose settled shares
 * are in a class the mapping chooses is stored as `mapUnit` maps it, marked: the export and the
 * change set move it to the class chosen for the package (`rebindSettlementClass`), so a change in
 * the issuer's classes never leaves it with a stale choice.
 */
function mapped(kind: RecordKind, rawJson: string, hash: string, context: { issuerId: string; options: MappingOptions; shareClasses?: ShareClassDirectory }, known?: { parsed: ParsedRecord; warnings: SourceWarning[] }): StoredRecord {
  const raw: unknown = JSON.parse(rawJson);
  let parse = known;
  if (parse === undefined) {
    try {
      const result = parseRecord(kind, raw, { issuerId: context.issuerId });
      parse = { parsed: result.parsed, warnings: result.warnings };
    } catch (error) {
      if (!(error instanceof SourceRecordError)) throw error;
      const header = invalidHeader(kind, raw, hash);
      return { key: recordKey(kind, header.i, hash), header, mapped: "", raw: rawJson };
    }
  }
  const { parsed, warnings } = parse;
  const header: RecordHeader = { k: kind, i: parsed.record.id, h: hash, m: parsed.record.lastModifiedDatetime ?? "", ...(warnings.length === 0 ? {} : { w: warnings }) };
  const key = recordKey(kind, parsed.record.id, hash);
  try {
    return { key, header, mapped: JSON.stringify(mapGrant(parsed, context)), raw: rawJson };
  } catch (error) {
    if (!isMappingError(error)) throw error;
    const kept = parsed.kind === "restrictedStockUnit" ? keepDeliveredShares(parsed.record, context)?.mapped : undefined;
    return { key, header: { ...header, s: "unmappable" }, mapped: kept === undefined ? "" : JSON.stringify(kept), raw: rawJson };
  }
}

/** The items an export writes the package from: each stored record, mapped or (if flagged) parsed again. */
async function* storedItems(storeDir: string, shards: readonly number[], issuerId: string, onInvalid: "fail" | "quarantine"): AsyncGenerator<PullItem | MappedRecordItem, void, undefined> {
  for (const [shard, generation] of shards.entries()) {
    if (generation === 0) continue;
    const records = await readShardMappings(storeDir, shard, generation);
    let withJson: StoredRecord[] | undefined;
    for (const [index, record] of records.entries()) {
      if (record.header.s === undefined && record.mapped !== "") {
        yield { type: "mapped", mapped: JSON.parse(record.mapped), lastModified: record.header.m, warnings: record.header.w ?? [] };
        continue;
      }
      withJson ??= await readShard(storeDir, shard, generation);
      yield* recordItems(record.header.k, JSON.parse((withJson[index] as StoredRecord).raw), issuerId, { onInvalid });
    }
  }
}

/** Among the stored awards but `except` (award ids), one that names each class id of `ids`, with its name. */
async function findClassNamers(storeDir: string, shards: readonly number[], ids: ReadonlySet<string>, except: ReadonlySet<string>): Promise<Map<string, [string, string]>> {
  const found = new Map<string, [string, string]>();
  for (const [shard, generation] of shards.entries()) {
    if (generation === 0) continue;
    for (const record of await readShardMappings(storeDir, shard, generation)) {
      const awardId = record.header.i;
      if (record.header.k !== "restrictedStockAward" || record.header.s !== undefined || record.mapped === "" || awardId === undefined || except.has(awardId)) continue;
      const [use] = (JSON.parse(record.mapped) as MappedRecord).uses.stockClasses;
      if (use?.id !== undefined && use.name !== undefined && ids.has(use.id) && !found.has(use.id)) found.set(use.id, [use.name, awardId]);
    }
    if (found.size === ids.size) break;
  }
  return found;
}

/** The pass's own warnings (records listed twice), then the stored items: what its package's report says. */
async function* passItems(warnings: readonly SourceWarning[], items: AsyncIterable<PullItem | MappedRecordItem>): AsyncGenerator<PullItem | MappedRecordItem, void, undefined> {
  for (const warning of warnings) yield { type: "warning", warning };
  yield* items;
}

/** Options of one issuer's pass: the sync's, resolved. */
/** `directoryJsonOf` serializes each stakeholder directory once a sync (every issuer's digests need it). */
/**
 * Where a sync keeps its packages: in `outDir` itself, or (object storage) elsewhere, each package
 * being written in `outDir` first and then put there.
 */
export interface PackageOutlet {
  /** Where package `name` is kept: its folder and its zip (`null` without one). */
  where(name: string, zip: boolean): { folder: string; zip: string | null };
  /** Whether package `name` is there whole (its zip too, when `zip`). */
  present(name: string, zip: boolean, signal: AbortSignal): Promise<boolean>;
  /** The package just written in `outDir`, put where it is kept; what it returns is reported. */
  place(written: IssuerExport, signal: AbortSignal): Promise<IssuerExport>;
}

/** Packages kept where they are written, in `outDir`. */
export function localOutlet(outDir: string): PackageOutlet {
  const where = (name: string, zip: boolean): { folder: string; zip: string | null } => ({
    folder: resolve(outDir, name),
    zip: zip ? resolve(outDir, `${name}.ocf.zip`) : null,
  });
  return {
    where,
    present: async (name, zip) => {
      const at = where(name, zip);
      return (await exists(join(at.folder, PACKAGE_FILE_NAMES.manifest))) && (at.zip === null || (await exists(at.zip)));
    },
    place: (written) => Promise.resolve(written),
  };
}

export type PassOptions = SyncOptions & { generatedAt: string; mappingCode: string; directoryJsonOf: DirectoryJson; signal: AbortSignal; outlet: PackageOutlet };

function replaceIssuerState(state: SyncState, next: IssuerSyncState): void {
  const index = state.issuers.findIndex((s) => s.issuerId === next.issuerId);
  if (index === -1) state.issuers.push(next);
  else state.issuers[index] = next;
}

/** One issuer's pass, as events; returns its result. Throws what fails it. */
export async function* syncIssuer(
  client: ApiClient,
  issuerId: string,
  state: SyncState,
  saveState: () => Promise<void>,
  options: PassOptions,
): AsyncGenerator<SyncEvent, IssuerSyncResult, undefined> {
  const { stateFile, signal } = options;
  const onInvalid = options.onInvalid ?? "fail";
  const name = packageNameFor(issuerId);
  const storeDir = storeFolderOf(stateFile, issuerId);
  const previous = state.issuers.find((s) => s.issuerId === issuerId);

  const profile = options.issuerProfileOf?.(issuerId) ?? options.issuerProfile;
  const directory = options.stakeholdersOf?.(issuerId) ?? options.stakeholders;
  const mappingOptions: MappingOptions = {
    ...(profile === undefined ? {} : { issuerProfile: profile }),
    ...(directory === undefined ? {} : { stakeholders: directory }),
    ...(options.settlementStockClassName === undefined ? {} : { settlementStockClassName: options.settlementStockClassName }),
    ...(options.lineage === undefined ? {} : { lineage: options.lineage }),
    ...(options.strict === undefined ? {} : { strict: options.strict }),
  };
  const mapping = mappingDigest(options.mappingCode, mappingOptions, options.directoryJsonOf);
  const { folder, zip } = options.outlet.where(name, options.zip === true);
  const build = digestOf([mapping, options.asOf ?? null, onInvalid, zip]);

  // What the state names must all be there to be used.
  const present = new Set(await listFolder(storeDir));
  const usable = (files: Iterable<string>): boolean => [...files].every((file) => present.has(file));
  const storeFound = previous?.store !== undefined && usable(shardFiles(previous.store.shards)) && (previous.store.recent === 0 || present.has(recentFileName(previous.store.recent)));
  // An entry of the state file that could not be read was set aside: the issuer starts afresh.
  const setAside = previous === undefined && state.unreadable?.some((entry) => entry.issuerId === issuerId) === true;
  const plan: PassPlan = setAside ? { pass: "full", reason: "state-unreadable" } : planPass(previous, storeFound, options);
  const store: IssuerStore | undefined = storeFound ? previous?.store : undefined;
  const priorPackage: IssuerPackageState | undefined =
    previous?.package !== undefined && usable([...shardFiles(previous.package.shards), headFileName(previous.package.generation)]) ? previous.package : undefined;

  if (plan.pass === "full" && previous !== undefined && previous.fullPending !== true) {
    // Without this mark, a full pass killed after its records were stored would be followed by an
    // incremental one that kept the deleted records.
    replaceIssuerState(state, { ...previous, fullPending: true });
    await saveState();
    yield { type: "state-saved", stateFile, issuerId, cursor: previous.cursor, fullPending: true, stage: "full-started" };
  }
  yield { type: "issuer-started", issuerId, ...plan };

  // Pull, staging every record the store does not already hold as it is.
  const remapAll = store !== undefined && store.mapping !== mapping;
  const checksStore = store !== undefined && !remapAll && plan.pass === "incremental";
  const recent = checksStore ? await readRecent(storeDir, store.recent) : new Map<string, { h: string; m: string }>();
  // The pages the previous pass found unchanged: the same bytes again are the same records, still held
  // as they are (a pass that stored anything kept none). Every page's digest is taken, to keep them
  // for the next pass when this one stores nothing either.
  const knownPages = checksStore ? new Map((previous?.unchangedPages ?? []).map(([digest, records, token]) => [digest, { records, nextPageToken: token ?? undefined }])) : undefined;
  const pagesSeen: UnchangedPage[] = [];
  // Without a store to compare with, every record is new: map it now (parsed once). Otherwise only
  // the records that turn out changed are mapped, in the merge.
  const mapNow = store === undefined || remapAll;
  // A unit delivers the class an award of the issuer names by its shareClassId (mapping/share-classes.ts):
  // the names come from the awards pulled now, on top of those the stored units were mapped with (a full
  // pass starts afresh). A unit whose class needs them is mapped once the pull is over, in the merge.
  const classNames = new PassClassNames(store, plan.pass === "full");
  const shareClasses: ShareClassDirectory = { nameOf: (id) => classNames.nameOf(id), complete: true };
  const context = { issuerId, options: mappingOptions, shareClasses };
  // So does an award that gives a class id but no name.
  const waitsForAwards = (parsed: ParsedRecord): boolean =>
    (parsed.kind === "restrictedStockUnit" || parsed.record.shareClassName === undefined) &&
    parsed.record.shareClassId !== undefined &&
    mappingOptions.issuerProfile?.shareClasses?.[parsed.record.shareClassId]?.name === undefined;
  const staging = await Staging.open(storeDir);
  let pulled = 0;
  let pages = 0;
  let reread = 0;
  let unchangedPages = 0;
  let highWater: UtcDateTime | undefined = previous?.cursor ?? undefined;
  // A record listed twice in this pass (the service changed while it was paged): the store keeps its
  // most recently modified copy, and the pass says so as `pull` and `export` do (DUPLICATE_RECORD).
  const listed = new Set<string>();
  const duplicates: SourceWarning[] = [];
  const pending: SyncEvent[] = [];
  const onEvent = (event: PullEvent): void => {
    if (event.type === "page-fetched") {
      pages += 1;
      pending.push(event);
    } else if (event.type === "record-quarantined" && onInvalid === "quarantine") {
      pending.push(event);
    }
  };
  try {
    for await (const page of issuerPages(client, issuerId, {
      ...(plan.pass === "incremental" ? { lastModifiedDatetimeAfter: plan.modifiedAfter } : {}),
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
      ...(knownPages === undefined ? {} : { knownPages }),
      signal,
      onEvent,
    })) {
      yield* pending.splice(0);
      const { kind } = page;
      if (page.digest !== undefined) pagesSeen.push([page.digest, page.known?.records ?? page.items.length, page.nextPageToken ?? null]);
      if (page.known !== undefined) {
        // Its records are those the previous pass re-read unchanged: re-read unchanged again.
        unchangedPages += 1;
        pulled += page.known.records;
        reread += page.known.records;
        continue;
      }
      for (const raw of page.items) {
        pulled += 1;
        const rawJson = storableJson(raw);
        const hash = hashRaw(rawJson);
        // Held as it is (a re-read of the overlap window): not even parsed.
        const id = recordIdOf(raw);
        if (id !== undefined) {
          const listedKey = recordKey(kind, id, hash);
          if (listed.has(listedKey)) duplicates.push(duplicateRecordWarning(issuerId, kind, id));
          else listed.add(listedKey);
        }
        if (id !== undefined && recent.get(recordKey(kind, id, hash))?.h === hash) {
          reread += 1;
          continue;
        }
        // Invalid records are stored like any other, so that a failing record does not cost the pull;
        // the package then quarantines it, or fails, as `onInvalid` says.
        const warnings: SourceWarning[] = [];
        for (const item of recordItems(kind, raw, issuerId, { onInvalid: "quarantine", onEvent })) {
          if (item.type === "warning") {
            warnings.push(item.warning);
          } else if (item.type === "quarantined") {
            const header = invalidHeader(kind, raw, hash);
            if (kind === "restrictedStockAward" && header.i !== undefined) classNames.pulledAward(header.i, undefined);
            await staging.add({ key: recordKey(kind, header.i, hash), header, mapped: "", raw: rawJson });
          } else {
            const modified = item.record.lastModifiedDatetime;
            if (modified !== undefined && (highWater === undefined || modified > highWater)) highWater = modified;
            const parsed = { parsed: { kind, record: item.record } as ParsedRecord, warnings };
            if (kind === "restrictedStockAward") {
              // An award that names its class is mapped now (its class needs no other record): only
              // one the mapping takes gives the id its name, as in export.
              const award = item.record as RestrictedStockAward;
              const { shareClassId: id, shareClassName: name } = award;
              const record = id === undefined || name === undefined ? undefined : mapped(kind, rawJson, hash, context, parsed);
              classNames.pulledAward(award.id, record?.header.s === undefined && id !== undefined && name !== undefined ? { id, name } : undefined);
              if (record !== undefined) {
                await staging.add(record);
                continue;
              }
            }
            await staging.add(
              mapNow && !waitsForAwards(parsed.parsed)
                ? mapped(kind, rawJson, hash, context, parsed)
                : { key: recordKey(kind, item.record.id, hash), header: { k: kind, i: item.record.id, h: hash, m: modified ?? "", ...(warnings.length === 0 ? {} : { w: warnings }) }, mapped: "", raw: rawJson },
            );
          }
        }
      }
    }
    yield* pending.splice(0);

    // The awards pulled may name a class anew, rename one or no longer name it: every stored mapping is
    // made again then, so that no unit keeps a class the awards no longer give it.
    const classNamesChanged = await classNames.settle((ids, except) => (store === undefined ? Promise.resolve(new Map()) : findClassNamers(storeDir, store.shards, ids, except)));
    const remapStored = remapAll || (store !== undefined && classNamesChanged);

    // Store: the shards the staged records fall in (none when nothing changed).
    const generation = (previous?.generation ?? 0) + 1;
    const previousCount = store?.shards.length;
    const estimate = (store === undefined || plan.pass === "full" ? 0 : (previous?.records ?? 0)) + staging.count;
    const target = shardCountFor(estimate);
    const shardCount = previousCount === undefined || target >= previousCount * 4 || target * 4 <= previousCount ? target : previousCount;
    const cursor = highWater ?? null;
    const recentFrom = cursor === null ? "~" : parseUtcDateTime(windowStart(cursor, options.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS));
    // Each record changed is said as its shard is merged, and only counted and sampled here.
    const recordTally = new RecordTally();
    let merged: MergeResult | undefined;
    if (store === undefined || staging.count > 0 || plan.pass === "full" || remapStored) {
      const merging = mergeStaged(staging, {
        storeDir,
        previous: store?.shards,
        previousRecords: store === undefined ? 0 : (previous?.records ?? 0),
        shardCount,
        generation,
        full: plan.pass === "full",
        remapAll: remapStored,
        map: (record) => mapped(record.header.k, record.raw, record.header.h, context),
        recentFrom,
        signal,
      });
      for (let step = await merging.next(); ; step = await merging.next()) {
        if (step.done === true) {
          merged = step.value;
          break;
        }
        recordTally.add(step.value);
        yield { type: "record-changed", issuerId, ...step.value };
      }
    }
    await staging.remove();
    const storeChanged = merged !== undefined && (merged.rewritten > 0 || store === undefined || remapStored);
    const total = merged?.records ?? previous?.records ?? 0;
    const records = recordTally.summary(total - recordTally.count("created") - recordTally.count("modified"));
    reread += merged?.unchangedPulled ?? 0;
    yield { type: "records-changed", issuerId, pass: plan.pass, pulled, pages, reread, unchangedPages, records, warnings: duplicates };

    let nextStore: IssuerStore;
    if (storeChanged && merged !== undefined) {
      const rewritten = new Set<number>();
      merged.shards.forEach((g, shard) => {
        if (g === generation) rewritten.add(shard);
      });
      const previousRecent = store === undefined || remapAll || shardCount !== previousCount ? new Map<string, { h: string; m: string }>() : recent.size > 0 ? recent : await readRecent(storeDir, store.recent);
      await writeRecent(storeDir, generation, { previous: previousRecent, rewrittenShards: rewritten, shardCount, added: merged.recent, from: recentFrom });
      nextStore = { shards: merged.shards, recent: generation, mapping, ...classNames.toStore() };
    } else {
      // The same names (else every record would have been mapped again), perhaps kept with other awards.
      nextStore = { ...(store as IssuerStore), ...classNames.toStore() };
    }
    const stored: IssuerSyncState = {
      issuerId,
      cursor,
      generation: storeChanged ? generation : (previous?.generation ?? generation),
      records: total,
      incrementalSinceFull: plan.pass === "full" ? 0 : (previous?.incrementalSinceFull ?? 0) + 1,
      lastPass: plan.pass,
      syncedAt: utcNowRfc3339(),
      store: nextStore,
      ...(priorPackage === undefined ? {} : { package: priorPackage }),
      // Only a pass that stored nothing: then every record of its pages is held as it was pulled.
      ...(knownPages !== undefined && staging.count === 0 && merged === undefined && pagesSeen.length <= UNCHANGED_PAGES_LIMIT ? { unchangedPages: pagesSeen } : {}),
    };
    replaceIssuerState(state, stored);
    await saveState();
    yield { type: "state-saved", stateFile, issuerId, cursor, fullPending: false, stage: "records" };

    const outcome = (changes: OcfChangeSummary, written: IssuerExport | undefined): IssuerSyncResult => ({
      issuerId,
      ok: true,
      ...plan,
      pulled,
      pages,
      reread,
      records,
      changes,
      package: { name, folder, zip: zip ?? undefined, rewritten: written !== undefined },
      export: written,
      cursor,
    });

    // The package: left as it is when it was written from these records with these options.
    const current =
      priorPackage !== undefined &&
      priorPackage.generation === stored.generation &&
      priorPackage.build === build &&
      priorPackage.folder === folder &&
      priorPackage.zip === zip &&
      (await options.outlet.present(name, zip !== null, signal));
    if (current) {
      // A pass that staged and stored nothing wrote nothing there: the folder is as the sync's start left it.
      if (merged !== undefined || staging.count > 0) await removeAllBut(storeDir, storeFilesOf(stored));
      yield { type: "package-unchanged", issuerId, folder, objects: priorPackage.objects };
      return outcome(new ChangeTally().summary(priorPackage.objects), undefined);
    }

    // A package written from unchanged records (other options, a deleted folder) still gets its own
    // generation, so that its head file never replaces the previous package's.
    const built = generation;
    const before = priorPackage === undefined ? undefined : { shards: priorPackage.shards, head: await readHead(storeDir, priorPackage.generation) };
    let head: AccumulatedIssuer | undefined;
    const { stateFile: _stateFile, outlet: _outlet, s3Out: _s3Out, s3State: _s3State, concurrency: _concurrency, full: _full, fullEvery: _fullEvery, overlapSeconds: _overlap, pageSize: _pageSize, issuerProfileOf: _profileOf, stakeholdersOf: _stakeholdersOf, mappingCode: _code, directoryJsonOf, ...exportOptions } = options;
    const packageOptions = { ...exportOptions, ...mappingOptions };
    const exported = await exportIssuerOfJob(
      client,
      issuerId,
      {
        ...packageOptions,
        records: passItems(duplicates, storedItems(storeDir, nextStore.shards, issuerId, onInvalid)),
        onMapped: (issuer) => {
          head = issuer;
        },
      },
      await exportDigest(client, packageOptions, directoryJsonOf),
    );
    // Before the state names it: a sync killed in between finds its package behind and writes it again.
    const written = await options.outlet.place(exported, signal);
    if (head === undefined) throw new Error("the export wrote a package without settling its issuer-level objects");
    const headFile = {
      issuer: head.issuer,
      stakeholders: head.stakeholders,
      stockClasses: head.stockClasses,
      stockPlans: head.stockPlans,
      withdrawn: head.withdrawn,
      ...(head.settlementClass === undefined ? {} : { settlementClass: head.settlementClass }),
      ...(head.classNames === undefined ? {} : { classNames: head.classNames }),
    };
    await writeHead(storeDir, built, headFile);
    // Every change said as it is found, and only counted and sampled here: a first pass creates every object.
    const tally = new ChangeTally();
    for await (const change of diffStoredPackages(storeDir, before, { shards: nextStore.shards, head: headFile }, { signal })) {
      tally.add(change);
      yield { type: "object-changed", issuerId, ...change };
    }
    const objectsBefore = priorPackage?.objects ?? 0;
    const objects = objectsBefore + tally.count("created") - tally.count("removed");
    const changes = tally.summary(objectsBefore - tally.count("removed") - tally.count("changed"));
    yield { type: "package-written", issuerId, folder: written.folder, zip: written.zip, transactions: written.transactions, changes, warnings: written.warnings };

    const done: IssuerSyncState = {
      ...stored,
      generation: built,
      package: { generation: built, shards: nextStore.shards, build, folder, zip, objects },
    };
    replaceIssuerState(state, done);
    await saveState();
    yield { type: "state-saved", stateFile, issuerId, cursor, fullPending: false, stage: "package" };
    await removeAllBut(storeDir, storeFilesOf(done));
    return outcome(changes, written);
  } finally {
    await staging.discard().catch(() => {});
  }
}

/**
 * A raw record's JSON text as the store keeps it: the record itself, or (when it is nested too deep for
 * `JSON.stringify`) its {@link keepableJson} cut, which parses to a record quarantined for the same reason.
 * The walk that finds the cut runs only for such a record.
 */
function storableJson(raw: unknown): string {
  try {
    return JSON.stringify(raw);
  } catch (error) {
    if (error instanceof RangeError) return JSON.stringify(keepableJson(raw));
    throw error;
  }
}
