/**
 * Stakeholder objects for every stakeholder the mapped records name. The source gives only ids, so a
 * stakeholder gets its name from the caller's directory, or a placeholder name (reported once per
 * issuer, listing the ids).
 */
import type { OcfStakeholder } from "../ocf/schemas.js";
import { compact } from "../source/wire.js";
import { mappingWarning, type MappingWarning } from "./errors.js";
import { SELL_TO_COVER_STAKEHOLDER_ID, stakeholderIdOf } from "./ids.js";
import { compareText } from "../ocf/order.js";
import type { StakeholderEntry } from "./types.js";

/**
 * The holder of the shares sold to cover taxes in RSU settlements: their buyers on the market, whom
 * the source does not name (settlement.ts).
 */
export const SELL_TO_COVER_STAKEHOLDER: OcfStakeholder = {
  object_type: "STAKEHOLDER",
  id: SELL_TO_COVER_STAKEHOLDER_ID,
  name: { legal_name: "Sell-to-cover buyers (market)" },
  stakeholder_type: "INSTITUTION",
  comments: [
    "Stands for whoever bought the shares sold to cover taxes in RSU settlements (saleQuantity): those shares were issued and are outstanding, but the source does not say who holds them.",
  ],
};

/**
 * One Stakeholder per distinct source stakeholder id, sorted by OCF id, and the sell-to-cover
 * stakeholder when settlements sold shares.
 */
export function mapStakeholders(
  issuerId: string,
  sourceIds: Iterable<string>,
  directory: ReadonlyMap<string, StakeholderEntry> | undefined,
  extra: { soldToCover?: boolean } = {},
): { stakeholders: OcfStakeholder[]; warnings: MappingWarning[] } {
  // By OCF id; every OCF id is the same prefix and the source id, so the source ids give that order.
  const ids = [...new Set(sourceIds)].sort(compareText);
  const placeholders: string[] = [];
  const stakeholders = ids.map((sourceId): OcfStakeholder => {
    const entry = directory?.get(sourceId);
    if (entry === undefined) placeholders.push(sourceId);
    return compact({
      object_type: "STAKEHOLDER" as const,
      id: stakeholderIdOf(sourceId),
      name: entry === undefined
        ? { legal_name: `Stakeholder ${sourceId}` }
        : compact({ legal_name: entry.legalName, first_name: entry.firstName, last_name: entry.lastName }),
      stakeholder_type: entry?.type ?? "INDIVIDUAL",
      issuer_assigned_id: sourceId,
      current_relationship: entry?.currentRelationship,
      comments: entry === undefined
        ? ["Placeholder name and stakeholder_type: the source gives only the stakeholder id (issuer_assigned_id)."]
        : undefined,
    });
  });
  // Ids of the market stakeholder and of source stakeholders cannot meet ("stakeholder-" prefix), and
  // "market-…" sorts before "stakeholder-…", so the list stays in id order.
  if (extra.soldToCover === true) stakeholders.unshift(SELL_TO_COVER_STAKEHOLDER);
  const warnings = placeholders.length === 0
    ? []
    : [
        mappingWarning(
          "PLACEHOLDER_STAKEHOLDERS",
          { issuerId, path: "options.stakeholders" },
          `${placeholders.length} stakeholder${placeholders.length === 1 ? " is" : "s are"} not in the stakeholder directory and get placeholder names: ${placeholders.map((id) => JSON.stringify(id)).join(", ")}`,
        ),
      ];
  return { stakeholders, warnings };
}
