/**
 * StockClass objects: one per share class the mapped records use (see `share-classes.ts` for how a
 * record's class is keyed). The source gives a class at most a name and an id, so every other field
 * comes from the issuer profile's `shareClasses` (keyed by name or by `shareClassId`) or is a
 * placeholder: COMMON, one vote per share, seniority 1, and `initial_shares_authorized`
 * "NOT APPLICABLE" (the only OCF 1.2.0 value that does not claim a number or "UNLIMITED"). Each
 * placeholder is said in the class's comments, and the list of them in the manifest's comments.
 */
import type { OcfStockClass } from "../ocf/schemas.js";
import { compact } from "../source/wire.js";
import { mappingWarning, type MappingWarning } from "./errors.js";
import { stockClassIdOf } from "./ids.js";
import { compareText } from "../ocf/order.js";
import { UNSTATED_CLASS_NAME, UNSTATED_SETTLEMENT_CLASS_KEY } from "./share-classes.js";
import type { IssuerProfile, ShareClassProfile, StockClassUse } from "./types.js";

/** The certificate prefix used when the labels do not agree on one. */
export const DEFAULT_ID_PREFIX = "CS-";

/**
 * The prefix the labels share (`"CS-201"`, `"CS-233"` → `"CS-"`): each label without its trailing
 * digits; `DEFAULT_ID_PREFIX` when there are no labels, a label has no prefix, or they disagree.
 */
export function idPrefixOf(labels: readonly string[]): string {
  const prefixes = new Set(labels.map(labelPrefix));
  const [only] = prefixes;
  return prefixes.size === 1 && only !== undefined && only !== "" ? only : DEFAULT_ID_PREFIX;
}

/**
 * A label without its trailing digits (`"CS-201"` → `"CS-"`). `idPrefixOf` depends on labels only
 * through these, and a prefix is its own prefix, so a list of prefixes stands for the labels.
 */
export function labelPrefix(label: string): string {
  return label.replace(/[0-9]+$/, "");
}

/** The stock classes of an issuer, with what is a placeholder in them. */
export interface MappedStockClasses {
  stockClasses: OcfStockClass[];
  /** Per class id, the fields that are placeholders (for the manifest's comments). */
  placeholders: { id: string; fields: string[] }[];
  warnings: MappingWarning[];
}

/** One StockClass per class key of the records' class uses (see `UsesTally`), sorted by id. */
export function mapStockClasses(issuerId: string, classUses: readonly StockClassUse[], profile: IssuerProfile | undefined, unstated_: { holdsAwards?: boolean } = {}): MappedStockClasses {
  const byKey = new Map<string, { name: string | undefined; ids: Set<string>; labels: string[] }>();
  for (const { key, name, id, labels } of classUses) {
    let entry = byKey.get(key);
    if (entry === undefined) byKey.set(key, (entry = { name, ids: new Set(), labels: [] }));
    if (entry.name === undefined && name !== undefined) entry.name = name;
    if (id !== undefined) entry.ids.add(id);
    entry.labels.push(...labels);
  }
  const warnings: MappingWarning[] = [];
  const placeholders: MappedStockClasses["placeholders"] = [];
  const stockClasses = [...byKey].map(([key, { name, ids, labels }]): OcfStockClass => {
    const sourceIds = [...ids].sort(compareText);
    const given: ShareClassProfile = profile?.shareClasses?.[key] ?? sourceIds.map((id) => profile?.shareClasses?.[id]).find((p) => p !== undefined) ?? {};
    const id = stockClassIdOf(key);
    const fields: string[] = [];
    const comments: string[] = [];
    // An award that gives only a class id does not name the class (share-classes.ts): the profile may, by the id.
    const resolvedName = name ?? given.name ?? sourceIds.map((id) => profile?.shareClasses?.[id]?.name).find((n) => n !== undefined);
    const unstated = key === UNSTATED_SETTLEMENT_CLASS_KEY;
    if (unstated) {
      // The whole class stands for a fact the source leaves out (share-classes.ts).
      fields.push("name");
      comments.push(
        unstated_.holdsAwards === true
          ? "Placeholder class, not a fact: the source does not give the class of the shares of awards that name no share class (shareClassName, shareClassId) or of those delivered by the settlements of units that name none (shareClassId), and the issuer's records name no one class to put them in. --settlement-class NAME (option settlementStockClassName) settles it."
          : "Placeholder class, not a fact: the source does not give the class of the shares delivered by the settlements of units that name no share class (shareClassId), and the issuer's records name no one class to put them in. --settlement-class NAME (option settlementStockClassName) settles it.",
      );
    }
    if (resolvedName === undefined) {
      fields.push("name");
      warnings.push(
        mappingWarning(
          "PLACEHOLDER_STOCK_CLASS",
          { issuerId, path: `options.issuerProfile.shareClasses.${key}` },
          `share class id ${JSON.stringify(key)} is named by no award of the issuer and not by the issuer profile; its stock class is named "Share class ${key}", a placeholder`,
        ),
      );
    }
    if (sourceIds.length > 1) {
      warnings.push(
        mappingWarning(
          "STOCK_CLASS_IDS_MERGED",
          { issuerId },
          `share class ${JSON.stringify(resolvedName ?? key)} has ${sourceIds.length} shareClassIds (${sourceIds.map((i) => JSON.stringify(i)).join(", ")}); they become one OCF stock class, since class names are unique within an issuer`,
        ),
      );
    }
    if (given.classType === undefined) fields.push("class_type");
    if (given.authorizedShares === undefined) fields.push("initial_shares_authorized");
    if (given.votesPerShare === undefined) fields.push("votes_per_share");
    if (given.seniority === undefined) fields.push("seniority");
    if (sourceIds.length > 0) comments.push(`Source share class id${sourceIds.length === 1 ? "" : "s"}: ${sourceIds.join(", ")} (shareClassId).`);
    if (fields.length > 0) {
      comments.push(
        `Placeholders, not facts: ${fields.join(", ")} (${unstated ? "the source does not give this class" : `the source gives only the share class ${resolvedName === undefined ? "id" : "name"}`}; give them in the issuer profile's shareClasses).`,
      );
      placeholders.push({ id, fields });
    }
    if (given.idPrefix === undefined) comments.push(`default_id_prefix is taken from the labels of the securities in this class when they share one, else "${DEFAULT_ID_PREFIX}".`);
    return compact({
      object_type: "STOCK_CLASS" as const,
      id,
      name: unstated && unstated_.holdsAwards === true ? UNSTATED_CLASS_NAME : (resolvedName ?? `Share class ${key}`),
      class_type: given.classType ?? ("COMMON" as const),
      default_id_prefix: given.idPrefix ?? idPrefixOf(labels),
      initial_shares_authorized: given.authorizedShares ?? "NOT APPLICABLE",
      board_approval_date: given.boardApprovalDate,
      votes_per_share: given.votesPerShare ?? "1",
      par_value: given.parValue,
      seniority: given.seniority ?? "1",
      comments,
    });
  });
  stockClasses.sort((a, b) => compareText(a.id, b.id));
  placeholders.sort((a, b) => compareText(a.id, b.id));
  return { stockClasses, placeholders, warnings };
}
