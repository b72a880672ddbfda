/**
 * The last step of every mapping: each object built is checked against ocf-sync's OCF 1.2.0 schemas,
 * and an object that fails is a `MAPPING_INVALID_OUTPUT` error naming the source record, so that an
 * invalid object never reaches a file.
 */
import { isValidOcfObject, validateOcfObject } from "../ocf/schemas.js";
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
