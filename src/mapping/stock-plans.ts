/**
 * StockPlan objects: one per plan name the mapped grants use. The source has no plan endpoint, so
 * `initial_shares_reserved` comes from the issuer profile's `stockPlans`, else it is the sum granted
 * under the plan in this export (a lower bound and a placeholder, said in the plan's comments and in
 * the manifest's), and `stock_class_ids` are the classes its grants deliver.
 */
import type { OcfStockPlan } from "../ocf/schemas.js";
import { sumDecimalStrings } from "../decimal.js";
import { compact } from "../source/wire.js";
import { MappingError } from "./errors.js";
import { stockClassIdOf, stockPlanIdOf } from "./ids.js";
import { compareText } from "../ocf/order.js";
import type { IssuerProfile } from "./types.js";
import type { PlanUse } from "./uses-tally.js";

/** The plans of an issuer, and the ids of those whose reserve is a placeholder. */
export interface MappedStockPlans {
  stockPlans: OcfStockPlan[];
  placeholderReserves: string[];
  /** The plans none of whose grants names a class: their `stock_class_ids` is the class chosen for them. */
  classChosenFor: string[];
}

/** The plans none of whose grants names a share class (units without `shareClassId` that deliver nothing). */
export function plansWithoutClass(plans: readonly PlanUse[]): string[] {
  const named = new Set(plans.filter((p) => p.stockClassKey !== undefined).map((p) => p.name));
  return [...new Set(plans.filter((p) => !named.has(p.name)).map((p) => p.name))].sort(compareText);
}

/**
 * One StockPlan per plan name of the records' plan uses (see `UsesTally`), sorted by id. A plan none
 * of whose grants names a class gets `chosenClassKey` (see `issuerObjectsOf`); without one, it is a
 * `MappingError` (strict mode).
 */
export function mapStockPlans(issuerId: string, plans: readonly PlanUse[], profile: IssuerProfile | undefined, chosenClassKey?: string): MappedStockPlans {
  const byName = new Map<string, { quantities: string[]; grants: number; classIds: Set<string> }>();
  for (const plan of plans) {
    const entry = byName.get(plan.name) ?? { quantities: [], grants: 0, classIds: new Set<string>() };
    entry.quantities.push(plan.quantity);
    entry.grants += plan.grants;
    if (plan.stockClassKey !== undefined) entry.classIds.add(stockClassIdOf(plan.stockClassKey));
    byName.set(plan.name, entry);
  }
  const placeholderReserves: string[] = [];
  const classChosenFor: string[] = [];
  const stockPlans = [...byName].map(([name, { quantities, grants, classIds }]): OcfStockPlan => {
    const given = profile?.stockPlans?.[name];
    const id = stockPlanIdOf(name);
    const reserve = given?.initialSharesReserved;
    if (reserve === undefined) placeholderReserves.push(id);
    if (classIds.size === 0) {
      if (chosenClassKey === undefined) {
        throw new MappingError(
          "MAPPING_MISSING_VALUE",
          { issuerId, path: "options.settlementStockClassName" },
          `stock plan ${JSON.stringify(name)}: none of its ${grants} grant${grants === 1 ? "" : "s"} names a share class (units without a shareClassId), but OCF needs the plan's stock_class_ids; --strict refuses to choose one: name it with --settlement-class NAME`,
        );
      }
      classIds.add(stockClassIdOf(chosenClassKey));
      classChosenFor.push(id);
    }
    return compact({
      object_type: "STOCK_PLAN" as const,
      id,
      plan_name: name,
      board_approval_date: given?.boardApprovalDate,
      stockholder_approval_date: given?.stockholderApprovalDate,
      initial_shares_reserved: reserve ?? sumDecimalStrings(quantities),
      stock_class_ids: [...classIds].sort(compareText),
      comments:
        reserve === undefined
          ? [
              `initial_shares_reserved is a placeholder and a lower bound: the sum of the quantities of the ${grants} grant${grants === 1 ? "" : "s"} made under this plan in this export; the source does not give the plan's reserve (give it in the issuer profile's stockPlans).`,
            ]
          : undefined,
    });
  });
  stockPlans.sort((a, b) => compareText(a.id, b.id));
  placeholderReserves.sort(compareText);
  classChosenFor.sort(compareText);
  return { stockPlans, placeholderReserves, classChosenFor };
}
