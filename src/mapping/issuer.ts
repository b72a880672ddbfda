/**
 * The Issuer object (inline in the manifest). The source gives only the issuer's id, so the three
 * fields OCF requires are placeholders unless the caller's issuer profile supplies them; each
 * placeholder is said in the issuer's `comments` and reported as a warning.
 */
import type { CalendarDate } from "../dates.js";
import type { OcfIssuer } from "../ocf/schemas.js";
import { compact } from "../source/wire.js";
import { MappingError, mappingWarning, type MappingWarning } from "./errors.js";
import { issuerObjectIdOf } from "./ids.js";
import type { IssuerProfile } from "./types.js";

/** The country of formation used when the profile names none. */
export const PLACEHOLDER_COUNTRY = "US";

/**
 * Builds the Issuer. The formation-date placeholder is the earliest date found in the mapped records
 * (the company existed then), else `fallbackDate` (the package's `as_of`), else a `MappingError`
 * asking for `issuerProfile.formationDate`.
 */
export function mapIssuerObject(
  issuerId: string,
  profile: IssuerProfile | undefined,
  recordDates: readonly CalendarDate[],
  fallbackDate: CalendarDate | undefined,
): { issuer: OcfIssuer; warnings: MappingWarning[] } {
  const warnings: MappingWarning[] = [];
  const comments: string[] = [];
  const placeholder = (field: string, value: string, why: string): string => {
    warnings.push(mappingWarning("PLACEHOLDER_ISSUER", { issuerId, path: `options.issuerProfile.${field}` }, `is not given; the placeholder ${JSON.stringify(value)} is used (${why})`));
    comments.push(`Placeholder ${field}: ${JSON.stringify(value)} (${why}).`);
    return value;
  };
  const earliest = recordDates.reduce<CalendarDate | undefined>((min, date) => (min === undefined || date < min ? date : min), undefined);
  let formationDate = profile?.formationDate;
  if (formationDate === undefined) {
    const date = earliest ?? fallbackDate;
    if (date === undefined) {
      throw new MappingError(
        "MAPPING_MISSING_VALUE",
        { issuerId, path: "options.issuerProfile.formationDate" },
        "is not given, and the issuer has no records to take a placeholder date from; give it, or options.asOf",
      );
    }
    formationDate = placeholder(
      "formationDate",
      date,
      earliest === undefined ? "no record has a date; the package's as_of" : "the earliest date in the issuer's records",
    );
  }
  const issuer: OcfIssuer = compact({
    object_type: "ISSUER" as const,
    id: issuerObjectIdOf(issuerId),
    legal_name: profile?.legalName ?? placeholder("legalName", `Issuer ${issuerId}`, "the source gives only the issuer id"),
    dba: profile?.dba,
    formation_date: formationDate,
    country_of_formation: profile?.countryOfFormation ?? placeholder("countryOfFormation", PLACEHOLDER_COUNTRY, "the source does not say"),
    country_subdivision_of_formation: profile?.countrySubdivisionOfFormation,
    comments: [`Issuer id at the source: ${JSON.stringify(issuerId)}.`, ...comments],
  });
  return { issuer, warnings };
}
