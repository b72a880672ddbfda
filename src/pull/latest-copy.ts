/**
 * The choice between copies of one record (a record listed twice in one pass, or backups appended to
 * one another): the copy modified last wins, and of two modified at the same time the later one. What
 * is kept per record is its key, where its copy went and that copy's modification time, never the copy.
 */
export class LatestCopies {
  private readonly seen = new Map<string, { slot: number; modified: string }>();

  /**
   * Offers a copy of the record `key`, modified at `modified` (an ISO timestamp, or "" when unknown):
   * `place` is called with `undefined` for a record not seen before (it returns the slot it put it in),
   * with the earlier copy's slot when this copy replaces it, and not at all when the earlier copy was
   * modified later.
   */
  offer(key: string, modified: string, place: (slot: number | undefined) => number): void {
    const earlier = this.seen.get(key);
    if (earlier === undefined) {
      this.seen.set(key, { slot: place(undefined), modified });
    } else if (earlier.modified <= modified) {
      place(earlier.slot);
      earlier.modified = modified;
    }
  }
}
