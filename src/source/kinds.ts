/**
 * The two record families the service exposes. The names are the service's own JSON keys, so they
 * double as the envelope keys of get responses and, pluralised, of list responses.
 *
 * @category Source
 */
export const RECORD_KINDS = ["restrictedStockAward", "restrictedStockUnit"] as const;
/**
 * The two kinds of source record: restricted stock awards and restricted stock units.
 *
 * @category Source
 */
export type RecordKind = (typeof RECORD_KINDS)[number];

/** The collection segment of the URL path and the array key of a list response. */
export const COLLECTION_OF: Readonly<Record<RecordKind, "restrictedStockAwards" | "restrictedStockUnits">> = {
  restrictedStockAward: "restrictedStockAwards",
  restrictedStockUnit: "restrictedStockUnits",
};

/** A short human label: "award" or "unit". */
export const LABEL_OF: Readonly<Record<RecordKind, "award" | "unit">> = {
  restrictedStockAward: "award",
  restrictedStockUnit: "unit",
};
