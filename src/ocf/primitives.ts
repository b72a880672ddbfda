/**
 * OCF 1.2.0 primitive value types (`types/*` in the official schemas) as zod schemas and TypeScript
 * types. Written from the schema rules, not generated: every object here is closed
 * (`additionalProperties: false` becomes `z.strictObject`) and optional keys are truly optional
 * (`exactOptional`), so a `null` or `undefined` where OCF expects an absent key is rejected as OCF
 * rejects it.
 */
import { z } from "zod";
import { isCalendarDate } from "../dates.js";

/** OCF `Numeric`: a fixed-point decimal string with at most 10 fractional digits (`"1500"`, `"+5"`, `"0.25"`). */
export type OcfNumeric = string;

/** The exact pattern of OCF `Numeric` (`types/Numeric`). No exponent, no leading `.`, no thousands separator. */
export const OCF_NUMERIC_PATTERN = /^[+-]?[0-9]+(\.[0-9]{1,10})?$/;

export const OcfNumericSchema = z
  .string()
  .regex(OCF_NUMERIC_PATTERN, {
    message: 'must be an OCF Numeric: a fixed-point decimal string with at most 10 decimal places, like "1500" or "0.25"',
  });

/**
 * OCF `Date`: a real calendar day as `YYYY-MM-DD` (JSON Schema `format: "date"`). Year 0000, which
 * ajv-formats lets through, is rejected: no cap table event happened then and `isCalendarDate` is the
 * project's single rule for calendar dates.
 */
export const OcfDateSchema = z
  .string()
  .refine(isCalendarDate, { message: "must be a real calendar date of the form YYYY-MM-DD" });

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * True when `text` is an RFC 3339 `date-time` with an explicit zone (`Z` or `±hh:mm`), such as
 * `2024-01-01T00:00:00Z` or `2022-03-22T01:23:45-06:00`. A date alone or a local time without a zone
 * is not one. A leap second (`:60`) is accepted only at 23:59 UTC, as RFC 3339 §5.7 allows.
 */
export function isRfc3339DateTime(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (m === null) return false;
  const [, date = "", hh = "", mm = "", ss = "", , sign, zh = "0", zm = "0"] = m;
  if (!isCalendarDate(date)) return false;
  const hour = Number(hh);
  const minute = Number(mm);
  const second = Number(ss);
  const zoneHour = Number(zh);
  const zoneMinute = Number(zm);
  if (hour > 23 || minute > 59 || second > 60 || zoneHour > 23 || zoneMinute > 59) return false;
  if (second < 60) return true;
  const direction = sign === "-" ? -1 : 1;
  const utcMinutes = (((hour * 60 + minute - direction * (zoneHour * 60 + zoneMinute)) % 1440) + 1440) % 1440;
  return utcMinutes === 23 * 60 + 59;
}

/** RFC 3339 date-time with a zone offset (JSON Schema `format: "date-time"`), used by the manifest. */
export const OcfDateTimeSchema = z.string().refine(isRfc3339DateTime, {
  message: 'must be an RFC 3339 date-time with a zone offset, like "2024-07-31T12:00:00Z"',
});

/** ISO 4217 alphabetic currency code in upper case (`"USD"`; `"usd"` is invalid). */
export const OcfCurrencyCodeSchema = z
  .string()
  .regex(/^[A-Z]{3}$/, { message: 'must be an upper-case ISO 4217 currency code, like "USD"' });

/** ISO 3166-1 alpha-2 country code in upper case (`"US"`). */
export const OcfCountryCodeSchema = z
  .string()
  .regex(/^[A-Z]{2}$/, { message: 'must be an upper-case ISO 3166-1 alpha-2 country code, like "US"' });

/** ISO 3166-2 subdivision code without the country prefix: 1 to 3 upper-case letters or digits (`"DE"`). */
export const OcfCountrySubdivisionCodeSchema = z
  .string()
  .regex(/^[A-Z0-9]{1,3}$/, { message: 'must be 1 to 3 upper-case letters or digits, like "DE"' });

/** An MD5 digest as 32 hexadecimal digits (either case). */
export const OcfMd5Schema = z
  .string()
  .regex(/^[a-fA-F0-9]{32}$/, { message: "must be an MD5 digest of 32 hexadecimal digits" });

/** An amount of money in a currency: `{ amount: Numeric, currency: CurrencyCode }`. */
export const OcfMonetarySchema = z.strictObject({
  amount: OcfNumericSchema,
  currency: OcfCurrencyCodeSchema,
});
export type OcfMonetary = z.output<typeof OcfMonetarySchema>;

/** A person's or an organisation's name; `legal_name` is the only required part. */
export const OcfNameSchema = z.strictObject({
  legal_name: z.string(),
  first_name: z.string().exactOptional(),
  last_name: z.string().exactOptional(),
});
export type OcfName = z.output<typeof OcfNameSchema>;

export const EMAIL_TYPES = ["PERSONAL", "BUSINESS", "OTHER"] as const;

/*
 * The same address syntax ajv-formats checks for `format: "email"` in its full mode (local part of
 * RFC 5322 atoms joined by dots, a dotted host name), so that an address passes here exactly when it
 * passes the official validator.
 */
const EMAIL_ADDRESS =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

export const OcfEmailSchema = z.strictObject({
  email_type: z.enum(EMAIL_TYPES),
  email_address: z.string().regex(EMAIL_ADDRESS, { message: "must be an email address" }),
});
export type OcfEmail = z.output<typeof OcfEmailSchema>;

export const PHONE_TYPES = ["HOME", "MOBILE", "BUSINESS", "OTHER"] as const;

/** ITU-T E.123 international form as OCF restricts it: `+1 612 234 2345`, optionally `ext. 100`. */
const PHONE_NUMBER = /^\+\d{1,3}\s\d{2,3}\s\d{2,3}\s\d{4}(\s(ext.|extension)\s\d+)?$/u;

export const OcfPhoneSchema = z.strictObject({
  phone_type: z.enum(PHONE_TYPES),
  phone_number: z
    .string()
    .regex(PHONE_NUMBER, { message: 'must be an E.123 international number, like "+1 612 234 2345"' }),
});
export type OcfPhone = z.output<typeof OcfPhoneSchema>;

export const ADDRESS_TYPES = ["LEGAL", "CONTACT", "OTHER"] as const;

export const OcfAddressSchema = z.strictObject({
  address_type: z.enum(ADDRESS_TYPES),
  street_suite: z.string().exactOptional(),
  city: z.string().exactOptional(),
  country_subdivision: OcfCountrySubdivisionCodeSchema.exactOptional(),
  country: OcfCountryCodeSchema,
  postal_code: z.string().exactOptional(),
});
export type OcfAddress = z.output<typeof OcfAddressSchema>;

export const OcfTaxIdSchema = z.strictObject({
  tax_id: z.string(),
  country: OcfCountryCodeSchema,
});
export type OcfTaxId = z.output<typeof OcfTaxIdSchema>;

const contactMethods = {
  phone_numbers: z.array(OcfPhoneSchema).exactOptional(),
  emails: z.array(OcfEmailSchema).exactOptional(),
};

/**
 * Runs an object-level rule even when some field of the object is already invalid, so that one pass
 * reports every problem. The rule then sees the raw object and must only test keys for presence.
 */
export const EVEN_IF_FIELDS_FAIL = {
  when: (payload: { value: unknown }) => typeof payload.value === "object" && payload.value !== null,
};

/** The compiled twin of each `withObjectRule` schema, compiled on first use. */
const TWINS = new WeakMap<z.ZodType, () => z.ZodType>();

/**
 * An object schema with a rule across its fields (one of two keys, a price that a type requires) that
 * runs even when a field already failed (`EVEN_IF_FIELDS_FAIL`), so that one pass reports every problem.
 *
 * zod's compiler (`z.compile`) refuses a rule with such a condition, which would keep these objects,
 * and every object or file that holds them, on zod's interpreter: about a third of the mapping's time
 * went there. So the schema carries a compiled fast path (`z.withParser`): a twin with the same fields
 * and the same rule, run the ordinary way (only once every field has passed). Both accept exactly the
 * same values: when every field passes both run the rule, and otherwise both reject. Any value the
 * twin rejects is parsed again by the full schema, so issues are always the full schema's. The twin
 * is compiled on first use, because compiling costs milliseconds a program that never checks OCF
 * should not pay. `test/property/ocf-compiled.property.test.ts` checks the two paths agree.
 */
export function withObjectRule<S extends z.ZodObject>(
  fields: S,
  rule: (value: z.output<S>, ctx: z.RefinementCtx<z.output<S>>) => void,
): S {
  let twin: S | undefined;
  const compiledTwin = (): S => (twin ??= z.compile(fields.superRefine(rule)));
  const schema = z.withParser(fields.superRefine(rule, EVEN_IF_FIELDS_FAIL), (input) => {
    // Not an object: the twin would reject it too. Answered first because a compiled parent calls
    // this for every optional key of this type, present or not.
    if (typeof input !== "object" || input === null) return z.INVALID;
    const parsed = compiledTwin().safeParse(input);
    return parsed.success ? parsed.data : z.INVALID;
  });
  TWINS.set(schema, compiledTwin);
  return schema;
}

/**
 * The compiled twin of a schema made by `withObjectRule` (else `undefined`): it accepts exactly the
 * values the schema accepts, so a yes/no check can run it alone, without building the parsed copy
 * that the schema's own fast path returns. Its issues are not the schema's: never report them.
 */
export function compiledTwinOf(schema: z.ZodType): z.ZodType | undefined {
  return TWINS.get(schema)?.();
}

/** OCF requires at least one of the two keys (an `anyOf`); empty lists still count as present. */
function requireAContactMethod(value: { phone_numbers?: unknown; emails?: unknown }, ctx: z.RefinementCtx): void {
  if (value.phone_numbers === undefined && value.emails === undefined) {
    ctx.addIssue({ code: "custom", message: "needs phone_numbers or emails (or both)", path: [] });
  }
}

/** Contact details of an individual stakeholder: phone numbers and/or emails. `{}` is invalid. */
export const OcfContactInfoWithoutNameSchema = withObjectRule(z.strictObject(contactMethods), requireAContactMethod);
export type OcfContactInfoWithoutName = z.output<typeof OcfContactInfoWithoutNameSchema>;

/** A named contact person (e.g. for an institution) with phone numbers and/or emails. */
export const OcfContactInfoSchema = withObjectRule(z.strictObject({ name: OcfNameSchema, ...contactMethods }), requireAContactMethod);
export type OcfContactInfo = z.output<typeof OcfContactInfoSchema>;

/** A securities-law exemption an issuance relies on, both parts free text. */
export const OcfSecurityExemptionSchema = z.strictObject({
  description: z.string(),
  jurisdiction: z.string(),
});
export type OcfSecurityExemption = z.output<typeof OcfSecurityExemptionSchema>;

/**
 * A whole number as JSON Schema `type: "integer"` means it: any number without a fractional part.
 * These are counts of days, months or occurrences, never quantities or money.
 */
export const OcfIntegerSchema = z.number().refine(Number.isInteger, { message: "must be a whole number" });

export const TERMINATION_WINDOW_TYPES = [
  "VOLUNTARY_OTHER",
  "VOLUNTARY_GOOD_CAUSE",
  "VOLUNTARY_RETIREMENT",
  "INVOLUNTARY_OTHER",
  "INVOLUNTARY_DEATH",
  "INVOLUNTARY_DISABILITY",
  "INVOLUNTARY_WITH_CAUSE",
] as const;

export const PERIOD_TYPES = ["DAYS", "MONTHS", "YEARS"] as const;

/** How long after a kind of termination an equity-compensation award can still be exercised. */
export const OcfTerminationWindowSchema = z.strictObject({
  reason: z.enum(TERMINATION_WINDOW_TYPES),
  period: OcfIntegerSchema,
  period_type: z.enum(PERIOD_TYPES),
});
export type OcfTerminationWindow = z.output<typeof OcfTerminationWindowSchema>;

/** An inclusive, 1-based range of share certificate numbers. */
export const OcfShareNumberRangeSchema = z.strictObject({
  starting_share_number: OcfNumericSchema,
  ending_share_number: OcfNumericSchema,
});
export type OcfShareNumberRange = z.output<typeof OcfShareNumberRangeSchema>;

/** One dated vesting tranche of a security (`vestings[]`, new in OCF 1.2.0). */
export const OcfVestingSchema = z.strictObject({
  date: OcfDateSchema,
  amount: OcfNumericSchema,
});
export type OcfVesting = z.output<typeof OcfVestingSchema>;

/** A reference from the manifest to one file of the package, with the MD5 of its bytes. */
export const OcfFileReferenceSchema = z.strictObject({
  filepath: z.string(),
  md5: OcfMd5Schema,
});
export type OcfFileReference = z.output<typeof OcfFileReferenceSchema>;

/** Free-text notes; every OCF object may carry them. */
export const OcfCommentsSchema = z.array(z.string());

/** A list of strings in which no value repeats (JSON Schema `uniqueItems`). */
export function uniqueStrings(): z.ZodArray<z.ZodString> {
  return z.array(z.string()).superRefine((values, ctx) => {
    const seen = new Set<string>();
    values.forEach((value, index) => {
      if (seen.has(value)) ctx.addIssue({ code: "custom", message: "repeats an earlier entry of the list", path: [index] });
      seen.add(value);
    });
  });
}
