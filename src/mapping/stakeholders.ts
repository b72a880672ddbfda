/**
 * Stakeholder objects for every stakeholder the mapped records name. The source gives only ids, so a
 * stakeholder gets its name from the caller's directory, or a placeholder name (reported once per
 * issuer, listing the ids).
 */
import type { OcfStakeholder } from "../ocf/schemas.js";
import { compact } from "../source/wire.js";
import { mappingWarning, type MappingWarning } from "./errors.js";
import { stakeholderIdOf } from "./ids.js";
import { compareText } from "./order.js";
import type { StakeholderEntry } from "./types.js";

/** One Stakeholder per distinct source stakeholder id, sorted by OCF id. */
export function mapStakeholders(
  issuerId: string,
  sourceIds: Iterable<string>,
  directory: ReadonlyMap<string, StakeholderEntry> | undefined,
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
