/**
 * The last step of every mapping: each object built is checked against ocf-sync's OCF 1.2.0 schemas,
 * and an object that fails is a `MAPPING_INVALID_OUTPUT` error naming the source record, so that an
 * invalid object never reaches a file.
 */
import { isValidOcfObject, validateOcfObject } from "../ocf/schemas.js";
import { checkLineage, type Lineage } from "../ocf/security-ledger.js";
import type { OcfTransaction } from "../ocf/types.js";
import { MappingError, type MappingLocation } from "./errors.js";

/** Throws `MAPPING_INVALID_OUTPUT` at `location` for the first object that fails the schemas. */
export function assertValidOcf(location: MappingLocation, objects: Iterable<{ id: string; object_type: string }>): void {
  for (const object of objects) {
    // The quick yes/no first: nearly every object passes, and only a failure needs the issues.
    if (isValidOcfObject(object)) continue;
    const verdict = validateOcfObject(object);
    if (verdict.ok) continue;
    const issues = verdict.issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
    throw new MappingError(
      "MAPPING_INVALID_OUTPUT",
      location,
      `the ${object.object_type} ${JSON.stringify(object.id)} built from it is not valid OCF 1.2.0 (${issues})`,
      { value: object },
    );
  }
}

/**
 * Throws `MAPPING_INVALID_LINEAGE` at `location` when one record's transactions do not read
 * consistently under `lineage` (the rules `ocf-sync validate` applies to a package: nothing after a
 * security ends, balances that exist and match, nothing consumed beyond what is outstanding). The
 * mapping is built to satisfy them; this is the net under it, so that a record the rules reject is
 * quarantined on its own instead of failing its whole package at validation. A warning of the rules
 * (`RELEASED_BEFORE_VESTED`: validate still calls such a package valid, and the mapping warns of it
 * itself) is no reason to quarantine.
 */
export function assertConsistentLineage(location: MappingLocation, transactions: readonly OcfTransaction[], lineage: Lineage): void {
  const findings = checkLineage(transactions, { reading: lineage });
  const problems = findings.filter((finding) => finding.severity === "problem");
  const first = problems[0];
  if (first === undefined) return;
  const all = problems.map((p) => `${p.object.object_type} ${JSON.stringify(p.object.id)} ${p.jsonPath}: ${p.message} [${p.code}]`).join("; ");
  throw new MappingError("MAPPING_INVALID_LINEAGE", location, `the transactions built from it do not read consistently as ${lineage} (${all})`, { value: first.object });
}
