import type { StakeholderEntry } from "../../src/mapping/types.js";

/** A stakeholder directory that counts the times it is read whole (its digest sorts and serializes its entries). */
export class CountingDirectory extends Map<string, StakeholderEntry> {
  reads = 0;
  override entries(): MapIterator<[string, StakeholderEntry]> {
    this.reads += 1;
    return super.entries();
  }
}
