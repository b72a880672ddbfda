/**
 * A share class id the issuer's records name two ways (two awards with one `shareClassId` and two
 * `shareClassName`s, or an award and the issuer profile disagreeing; issue 25, item 2). One id can
 * stand for one class only, so one name is chosen by a stated rule: the name the issuer profile gives
 * the id, else the name of the first award in canonical order (kind, then id). Every record of the id
 * is moved to that class (`renameClass`), with a warning and a manifest line naming the records and
 * the names. Under `strict` the choice is refused: the issuer fails with `MAPPING_CONFLICT`, as
 * before the rule.
 */
import type { RecordKind } from "../source/kinds.js";
import { mappingWarning, type MappingWarning } from "./errors.js";
import { quoted } from "./quote.js";
import type { IssuerProfile, RecordUses, StockClassUse } from "./types.js";

/** The names chosen for class ids named two ways, and what the package says about them. */
export interface SettledClassNames {
  /** Class id → the class name its records are moved to. */
  names: Map<string, string>;
  warnings: MappingWarning[];
  manifestComments: string[];
}

/** How many award ids a warning shows per name. */
const SHOWN = 5;

/**
 * Settles the class ids that `classUses` (the issuer's records' uses, tallied) give more than one key;
 * `undefined` when there are none. `records` lists every record with its uses in canonical order
 * (kind, then id); it is read only when an id is named two ways.
 */
export function settleClassNames(
  issuerId: string,
  profile: IssuerProfile | undefined,
  classUses: readonly StockClassUse[],
  records: () => Iterable<readonly [RecordKind, string, RecordUses]>,
): SettledClassNames | undefined {
  const keysOf = new Map<string, Set<string>>();
  for (const { id, key } of classUses) {
    if (id === undefined) continue;
    let keys = keysOf.get(id);
    if (keys === undefined) keysOf.set(id, (keys = new Set()));
    keys.add(key);
  }
  const twice = [...keysOf].filter(([, keys]) => keys.size > 1).map(([id]) => id);
  if (twice.length === 0) return undefined;
  // Per id, per name: the awards that give it (how many, the first few), in canonical order.
  const awardsOf = new Map<string, Map<string, { count: number; first: string[] }>>(twice.map((id) => [id, new Map()]));
  for (const [kind, recordId, uses] of records()) {
    if (kind !== "restrictedStockAward") continue;
    for (const use of uses.stockClasses) {
      const byName = use.id === undefined ? undefined : awardsOf.get(use.id);
      if (byName === undefined) continue;
      let entry = byName.get(use.key);
      if (entry === undefined) byName.set(use.key, (entry = { count: 0, first: [] }));
      entry.count += 1;
      if (entry.first.length < SHOWN) entry.first.push(recordId);
    }
  }
  const settled: SettledClassNames = { names: new Map(), warnings: [], manifestComments: [] };
  for (const id of twice.sort()) {
    const byName = awardsOf.get(id) ?? new Map<string, { count: number; first: string[] }>();
    const profileName = profile?.shareClasses?.[id]?.name;
    const [firstName, firstAwards] = [...byName][0] ?? [];
    const name = profileName ?? firstName ?? [...(keysOf.get(id) ?? [])].sort()[0] ?? id;
    settled.names.set(id, name);
    const named = [...byName].map(([key, { count, first }]) => `${quoted(key)} by restrictedStockAward ${first.map(quoted).join(", ")}${count > first.length ? ` and ${count - first.length} more` : ""}`);
    if (profileName !== undefined) named.push(`${quoted(profileName)} by the issuer profile`);
    const rule =
      profileName !== undefined
        ? "the name the issuer profile gives it"
        : `the name of the first award in canonical order (restrictedStockAward ${quoted(firstAwards?.first[0] ?? "")})`;
    const problem = `share class id ${quoted(id)} is named ${named.join("; ")}; one id is one class, so all its shares are put in ${quoted(name)}, ${rule}. The issuer profile's shareClasses.${id}.name (--issuer-profile) settles it; --strict refuses the choice.`;
    settled.warnings.push(mappingWarning("STOCK_CLASS_NAME_CHOSEN", { issuerId, path: `options.issuerProfile.shareClasses.${id}.name` }, problem));
    settled.manifestComments.push(`Class name chosen, not a fact: ${problem}`);
  }
  return settled;
}
