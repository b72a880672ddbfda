/**
 * What every machine-readable document ocf-sync writes says of itself: the version that wrote it and
 * when (an ISO instant). One stamp for every `--json` document, run record and report file, so a person
 * or a program can tell which release made a document and how old it is without knowing its kind.
 */
import { ocfSyncVersion } from "./version.js";

/**
 * The two fields every document opens with; `renderReconciliationHtml` states them in its footer.
 *
 * @category Reconcile
 */
export interface DocumentStamp {
  /** The ocf-sync version that wrote the document, such as `0.1.0`. */
  ocfSyncVersion: string;
  /** When it was written, as an ISO 8601 instant in UTC (`2026-11-27T16:45:44.000Z`). */
  generatedAt: string;
}

/**
 * `document` with the stamp first: the running version and `generatedAt`, an instant (a `Date`, a
 * number of milliseconds, or an RFC 3339 string, such as the `--generated-at` a run was pinned to).
 */
export function stamped<T extends object>(document: T, generatedAt: Date | number | string): DocumentStamp & Omit<T, keyof DocumentStamp> {
  return { ...documentStamp(generatedAt), ...withoutStamp(document) };
}

/** The stamp alone, for a document that is not JSON (the HTML report states it in words). */
export function documentStamp(generatedAt: Date | number | string): DocumentStamp {
  return { ocfSyncVersion: ocfSyncVersion(), generatedAt: typeof generatedAt === "string" ? generatedAt : new Date(generatedAt).toISOString() };
}

function withoutStamp<T extends object>(document: T): Omit<T, keyof DocumentStamp> {
  const { ocfSyncVersion: _version, generatedAt: _at, ...rest } = document as T & Partial<DocumentStamp>;
  return rest;
}
