/**
 * The names a sync's awards give share class ids, kept between passes (`IssuerStore.classNames`): a
 * unit, or an award that gives only a class id, is in the class an award of the issuer names by that
 * id (mapping/share-classes.ts), and a sync maps it without the other awards at hand.
 *
 * Only an award the mapping takes names a class, as in export (the accumulator learns names from the
 * awards it keeps): a quarantined award contributes nothing, so that sync and export write the same
 * package from the same records (issue 25, item 2). A name is kept with one award that gives it
 * (`classNamedBy`); when that award changes so that it no longer does (it is quarantined now, names
 * another class, or none), the store is searched for another award that gives the id a name, and
 * without one the name goes.
 */
import type { IssuerStore } from "./state.js";

/** The class an award names: its `shareClassId` and `shareClassName`. */
export interface NamedClass {
  id: string;
  name: string;
}

/** Finds, among the stored awards but `except`, one that names each of `ids`: id → [name, award id]. */
export type FindClassNamers = (ids: ReadonlySet<string>, except: ReadonlySet<string>) => Promise<Map<string, [name: string, awardId: string]>>;

/** The class names of one pass: those stored, then what the awards pulled in the pass name. */
export class PassClassNames {
  private readonly names: Map<string, string>;
  private readonly namedBy: Map<string, string>;
  /** The names as stored before the pass: a change means mappings made with them are stale. */
  private readonly before: string;
  /** Per award pulled in the pass, the class it names now (`undefined`: none, or it was quarantined). */
  private readonly pulled = new Map<string, NamedClass | undefined>();

  /** `fresh`: a full pass, which learns every name anew from what it pulls. */
  constructor(store: IssuerStore | undefined, fresh: boolean) {
    this.before = canonical(Object.entries(store?.classNames ?? {}));
    this.names = new Map(fresh ? [] : Object.entries(store?.classNames ?? {}));
    this.namedBy = new Map(fresh ? [] : Object.entries(store?.classNamedBy ?? {}));
  }

  /** The name awards give a class id, as far as known. */
  nameOf(id: string): string | undefined {
    return this.names.get(id);
  }

  /** An award pulled in the pass, with the class it names if the mapping takes it. */
  pulledAward(awardId: string, named: NamedClass | undefined): void {
    this.pulled.set(awardId, named);
  }

  /**
   * Takes in what the pulled awards name, and drops (or finds another award for) each name whose award
   * no longer gives it. Whether the names differ from those stored: every stored mapping is then made
   * again, so that no record keeps a class the awards no longer give it. Called once, when the pull
   * is done: it then forgets the awards pulled (one entry per award), which the rest of the pass
   * (merge, package, change set) does not need.
   */
  async settle(findNamers: FindClassNamers): Promise<boolean> {
    const namedNow = new Set<string>();
    for (const [awardId, named] of this.pulled) {
      if (named === undefined) continue;
      this.names.set(named.id, named.name);
      this.namedBy.set(named.id, awardId);
      namedNow.add(named.id);
    }
    // A state of an earlier version keeps no award per name: any pulled award may have been it.
    const orphans = new Set<string>();
    for (const id of this.names.keys()) {
      if (namedNow.has(id)) continue;
      const awardId = this.namedBy.get(id);
      if (awardId === undefined ? this.pulled.size > 0 : this.pulled.has(awardId)) orphans.add(id);
    }
    if (orphans.size > 0) {
      const found = await findNamers(orphans, new Set(this.pulled.keys()));
      for (const id of orphans) {
        const namer = found.get(id);
        if (namer === undefined) {
          this.names.delete(id);
          this.namedBy.delete(id);
        } else {
          this.names.set(id, namer[0]);
          this.namedBy.set(id, namer[1]);
        }
      }
    }
    this.pulled.clear();
    return canonical([...this.names]) !== this.before;
  }

  /** What the store keeps of them (nothing when no award names a class). */
  toStore(): Pick<IssuerStore, "classNames" | "classNamedBy"> {
    if (this.names.size === 0) return {};
    const sorted = <T>(map: Map<string, T>): Record<string, T> => Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return { classNames: sorted(this.names), classNamedBy: sorted(this.namedBy) };
  }
}

function canonical(entries: [string, string][]): string {
  return JSON.stringify(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
