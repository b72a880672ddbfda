/**
 * What a pass changed among an issuer's source records. The merge of a pass (`mergeStaged`) finds each
 * record created, modified or removed shard by shard, comparing the records pulled with those the
 * previous pass stored there, and yields it at once; `RecordTally` keeps of them only counts and a
 * bounded sample (`RecordChangeSummary`), as `ChangeTally` does of the objects.
 */
import type { RecordKind } from "../source/kinds.js";
import { BoundedTally, CHANGE_SAMPLE_LIMIT, compareKeys } from "./change-tally.js";

/**
 * A source record by kind and id.
 *
 * @category Sync
 */
export interface RecordRef {
  kind: RecordKind;
  id: string | undefined;
}

/**
 * What happened to one source record in a pass: created, modified (its content differs from the
 * stored copy's) or removed (a full pass no longer found it).
 *
 * @category Sync
 */
export type RecordChange = { change: "created" | "modified" | "removed" } & RecordRef;

/**
 * How many records were created, modified and removed.
 *
 * @category Sync
 */
export interface RecordChangeCounts {
  created: number;
  modified: number;
  /** Only a full pass can tell: records of the previous pass the service no longer lists. */
  removed: number;
}

/**
 * What a pass changed among an issuer's source records, in a size that does not grow with the issuer:
 * counts, counts per record kind, and at most {@link CHANGE_SAMPLE_LIMIT} records of each list, with
 * how many each list left out. Every change comes as a `record-changed` event of the sync.
 *
 * @example
 * ```ts
 * import { createApiClient, sync } from "ocf-sync";
 * const client = createApiClient({ baseUrl: process.env.CARTA_BASE_URL ?? "https://api.carta.com", auth: { type: "bearer", token: process.env.CARTA_TOKEN ?? "" } });
 * for await (const event of sync(client, ["7"], { outDir: "synced", stateFile: "synced/sync-state.json" })) {
 *   if (event.type !== "records-changed") continue;
 *   const { records } = event;
 *   console.log(`${records.created} new, ${records.byKind.restrictedStockUnit?.created ?? 0} of them units`);
 *   if (records.leftOut.modified > 0) console.log(`the first ${records.sample.modified.length} modified records only`);
 * }
 * await client.close();
 * ```
 *
 * @category Sync
 */
export interface RecordChangeSummary extends RecordChangeCounts {
  /** Records stored before and after with the same content. */
  unchanged: number;
  /** The counts of each record kind that had a change, in order of kind. */
  byKind: Partial<Record<RecordKind, RecordChangeCounts>>;
  /** The first records of each list, by kind then id: at most {@link CHANGE_SAMPLE_LIMIT} each. */
  sample: { created: RecordRef[]; modified: RecordRef[]; removed: RecordRef[] };
  /** How many records of each list `sample` leaves out: its count minus its sample's length. */
  leftOut: RecordChangeCounts;
}

function compareRecordRefs(a: RecordRef, b: RecordRef): number {
  return compareKeys(`${a.kind}\u0000${a.id ?? ""}`, `${b.kind}\u0000${b.id ?? ""}`);
}

/** Counts record changes one at a time and keeps the first `limit` of each list (by kind, then id). */
export class RecordTally {
  private readonly tally: BoundedTally<RecordChange["change"], RecordRef>;

  constructor(limit: number = CHANGE_SAMPLE_LIMIT) {
    this.tally = new BoundedTally(["created", "modified", "removed"], compareRecordRefs, limit);
  }

  add(change: RecordChange): void {
    this.tally.add(change.change, change.kind, { kind: change.kind, id: change.id });
  }

  /** How many records of a list were added so far. */
  count(change: RecordChange["change"]): number {
    return this.tally.count(change);
  }

  /** The summary, with the number of records that did not change. */
  summary(unchanged: number): RecordChangeSummary {
    const { counts, byGroup, sample, leftOut } = this.tally.summary();
    return { ...counts, unchanged, byKind: byGroup, sample, leftOut };
  }
}
