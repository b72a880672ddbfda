/**
 * StockClass objects: one per share class name the mapped records use (award classes and the RSU
 * settlement class). The source gives only a name, so everything else is a placeholder, said in the
 * class's `comments`: COMMON, one vote per share, seniority 1, and `initial_shares_authorized`
 * "NOT APPLICABLE" (the only OCF 1.2.0 value that does not claim a number or "UNLIMITED").
 */
import type { OcfStockClass } from "../ocf/schemas.js";
import { stockClassIdOf } from "./ids.js";
import { compareText } from "./order.js";
import type { RecordUses } from "./types.js";

/** The certificate prefix used when the labels do not agree on one. */
export const DEFAULT_ID_PREFIX = "CS-";

/**
 * The prefix the labels share (`"CS-201"`, `"CS-233"` → `"CS-"`): each label without its trailing
 * digits; `DEFAULT_ID_PREFIX` when there are no labels, a label has no prefix, or they disagree.
 */
export function idPrefixOf(labels: readonly string[]): string {
  const prefixes = new Set(labels.map((label) => label.replace(/[0-9]+$/, "")));
  const [only] = prefixes;
  return prefixes.size === 1 && only !== undefined && only !== "" ? only : DEFAULT_ID_PREFIX;
}

/** One StockClass per class name in `uses`, sorted by id. */
export function mapStockClasses(uses: readonly RecordUses[]): OcfStockClass[] {
  const labelsByName = new Map<string, string[]>();
  for (const use of uses) {
    for (const { name, labels } of use.stockClasses) {
      const known = labelsByName.get(name);
      if (known === undefined) labelsByName.set(name, [...labels]);
      else known.push(...labels);
    }
  }
  return [...labelsByName]
    .map(([name, labels]): OcfStockClass => ({
      object_type: "STOCK_CLASS",
      id: stockClassIdOf(name),
      name,
      class_type: "COMMON",
      default_id_prefix: idPrefixOf(labels),
      initial_shares_authorized: "NOT APPLICABLE",
      votes_per_share: "1",
      seniority: "1",
      comments: [
        "Placeholder class: the source gives only the share class name. class_type, votes_per_share, seniority and initial_shares_authorized are placeholders, not facts.",
        "default_id_prefix is taken from the labels of the securities in this class when they share one, else \"CS-\".",
      ],
    }))
    .sort((a, b) => compareText(a.id, b.id));
}
