/**
 * StockPlan objects: one per plan name the mapped grants use. The source has no plan endpoint, so
 * `initial_shares_reserved` is the sum granted under the plan in this export (a lower bound, said in
 * the plan's `comments`), and `stock_class_ids` are the classes its grants deliver.
 */
import type { OcfStockPlan } from "../ocf/schemas.js";
import { sumDecimalStrings } from "../decimal.js";
import { stockClassIdOf, stockPlanIdOf } from "./ids.js";
import { compareText } from "./order.js";
import type { RecordUses } from "./types.js";

/** One StockPlan per plan name in `uses`, sorted by id. */
export function mapStockPlans(uses: readonly RecordUses[]): OcfStockPlan[] {
  const byName = new Map<string, { quantities: string[]; classIds: Set<string> }>();
  for (const { plan } of uses) {
    if (plan === undefined) continue;
    const entry = byName.get(plan.name) ?? { quantities: [], classIds: new Set<string>() };
    entry.quantities.push(plan.quantity);
    entry.classIds.add(stockClassIdOf(plan.stockClassName));
    byName.set(plan.name, entry);
  }
  return [...byName]
    .map(([name, { quantities, classIds }]): OcfStockPlan => ({
      object_type: "STOCK_PLAN",
      id: stockPlanIdOf(name),
      plan_name: name,
      initial_shares_reserved: sumDecimalStrings(quantities),
      stock_class_ids: [...classIds].sort(compareText),
      comments: [
        `initial_shares_reserved is a lower bound: the sum of the quantities of the ${quantities.length} grant${quantities.length === 1 ? "" : "s"} made under this plan in this export; the source does not give the plan's reserve.`,
      ],
    }))
    .sort((a, b) => compareText(a.id, b.id));
}
