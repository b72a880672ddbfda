/**
 * Crafted valid and invalid objects (reference §11.4 and the edges of each primitive): our zod schemas
 * accept every valid one unchanged and reject every invalid one with an issue at the field that is
 * wrong. The conformance suite checks that the official JSON Schemas give the same verdict on every
 * one of them, and pins the few places where we are deliberately stricter.
 */
import { describe, expect, it } from "vitest";
import { validateOcfFile, validateOcfObject } from "../../../src/ocf/schemas.js";
import { describeConformance } from "../../helpers/conformance.js";
import { validateFileWithOfficialSchemas, validateWithOfficialSchemas } from "../../helpers/official-ocf.js";
import {
  EXAMPLE_OBJECT_TYPES,
  example,
  exampleManifest,
  exampleWithout,
} from "../../helpers/ocf-examples.js";

interface Case {
  name: string;
  value: unknown;
  /** For invalid cases: the path our first issue must point at. */
  path?: string;
}

const vestingTerms = (condition: Record<string, unknown>) =>
  example("VESTING_TERMS", {
    vesting_conditions: [{ id: "only", trigger: { type: "VESTING_START_DATE" }, next_condition_ids: [], ...condition }],
  });

const monthly = (period: Record<string, unknown>) =>
  vestingTerms({
    quantity: "0",
    trigger: { type: "VESTING_SCHEDULE_RELATIVE", relative_to_condition_id: "start", period },
  });

const stockPlan = (changes: Record<string, unknown>, ...without: string[]) => {
  const plan = example("STOCK_PLAN", changes);
  for (const key of without) delete plan[key];
  return plan;
};

const withQuantity = (quantity: unknown) => example("TX_STOCK_ISSUANCE", { quantity });
const withDate = (date: unknown) => example("TX_STOCK_ACCEPTANCE", { date });

const INVALID_OBJECTS: Case[] = [
  { name: "RSU without expiration_date", value: exampleWithout("TX_EQUITY_COMPENSATION_ISSUANCE", "expiration_date"), path: "$.expiration_date" },
  {
    name: "RSU without termination_exercise_windows",
    value: exampleWithout("TX_EQUITY_COMPENSATION_ISSUANCE", "termination_exercise_windows"),
    path: "$.termination_exercise_windows",
  },
  { name: "RSU with vestings: []", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { vestings: [] }), path: "$.vestings" },
  { name: "stock issuance with vestings: []", value: example("TX_STOCK_ISSUANCE", { vestings: [] }), path: "$.vestings" },
  { name: "OPTION without exercise_price", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "OPTION" }), path: "$.exercise_price" },
  { name: "OPTION_ISO without exercise_price", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "OPTION_ISO" }), path: "$.exercise_price" },
  { name: "CSAR without base_price", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "CSAR" }), path: "$.base_price" },
  { name: "lower-case compensation_type", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "rsu" }), path: "$.compensation_type" },
  { name: "expiration_date as a date-time", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { expiration_date: "2025-01-01T00:00:00Z" }), path: "$.expiration_date" },
  { name: "stock issuance without stock_legend_ids", value: exampleWithout("TX_STOCK_ISSUANCE", "stock_legend_ids"), path: "$.stock_legend_ids" },
  { name: "stock issuance without custom_id", value: exampleWithout("TX_STOCK_ISSUANCE", "custom_id"), path: "$.custom_id" },
  { name: "stock issuance without share_price", value: exampleWithout("TX_STOCK_ISSUANCE", "share_price"), path: "$.share_price" },
  { name: "lower-case issuance_type", value: example("TX_STOCK_ISSUANCE", { issuance_type: "rsa" }), path: "$.issuance_type" },
  { name: 'currency "usd"', value: example("TX_STOCK_ISSUANCE", { share_price: { amount: "1", currency: "usd" } }), path: "$.share_price.currency" },
  { name: "currency of 4 letters", value: example("TX_STOCK_REPURCHASE", { price: { amount: "1", currency: "USDX" } }), path: "$.price.currency" },
  { name: "monetary with an extra key", value: example("TX_STOCK_REPURCHASE", { price: { amount: "1", currency: "USD", per: "share" } }), path: "$.price.per" },
  { name: "null-valued optional key", value: example("TX_STOCK_ISSUANCE", { stock_plan_id: null }), path: "$.stock_plan_id" },
  { name: "vesting tranche with an extra key", value: example("TX_STOCK_ISSUANCE", { vestings: [{ date: "2016-01-01", amount: "1", note: "x" }] }), path: "$.vestings[0].note" },
  { name: "release without release_price", value: exampleWithout("TX_EQUITY_COMPENSATION_RELEASE", "release_price"), path: "$.release_price" },
  { name: "release with balance_security_id", value: example("TX_EQUITY_COMPENSATION_RELEASE", { balance_security_id: "rest" }), path: "$.balance_security_id" },
  { name: "release without settlement_date", value: exampleWithout("TX_EQUITY_COMPENSATION_RELEASE", "settlement_date"), path: "$.settlement_date" },
  { name: "return to pool without reason_text", value: exampleWithout("TX_STOCK_PLAN_RETURN_TO_POOL", "reason_text"), path: "$.reason_text" },
  { name: "return to pool without stock_plan_id", value: exampleWithout("TX_STOCK_PLAN_RETURN_TO_POOL", "stock_plan_id"), path: "$.stock_plan_id" },
  { name: "cancellation without reason_text", value: exampleWithout("TX_STOCK_CANCELLATION", "reason_text"), path: "$.reason_text" },
  { name: "RSU cancellation without quantity", value: exampleWithout("TX_EQUITY_COMPENSATION_CANCELLATION", "quantity"), path: "$.quantity" },
  { name: "retraction with a quantity", value: example("TX_STOCK_RETRACTION", { quantity: "1" }), path: "$.quantity" },
  { name: "retraction with balance_security_id", value: example("TX_EQUITY_COMPENSATION_RETRACTION", { balance_security_id: "b" }), path: "$.balance_security_id" },
  { name: "repurchase without price", value: exampleWithout("TX_STOCK_REPURCHASE", "price"), path: "$.price" },
  { name: "acceptance without security_id", value: exampleWithout("TX_STOCK_ACCEPTANCE", "security_id"), path: "$.security_id" },
  { name: "vesting start without vesting_condition_id", value: exampleWithout("TX_VESTING_START", "vesting_condition_id"), path: "$.vesting_condition_id" },
  { name: "vesting acceleration without reason_text", value: exampleWithout("TX_VESTING_ACCELERATION", "reason_text"), path: "$.reason_text" },
  { name: "transfer with resulting_security_ids: []", value: example("TX_STOCK_TRANSFER", { resulting_security_ids: [] }), path: "$.resulting_security_ids" },
  { name: "transfer with a repeated resulting security", value: example("TX_EQUITY_COMPENSATION_TRANSFER", { resulting_security_ids: ["a", "a"] }), path: "$.resulting_security_ids[1]" },
  { name: "vesting condition with portion and quantity", value: vestingTerms({ quantity: "0", portion: { numerator: "1", denominator: "4" } }), path: "$.vesting_conditions[0]" },
  { name: "vesting condition with neither portion nor quantity", value: vestingTerms({}), path: "$.vesting_conditions[0]" },
  { name: "vesting condition without next_condition_ids", value: example("VESTING_TERMS", { vesting_conditions: [{ id: "a", quantity: "0", trigger: { type: "VESTING_EVENT" } }] }), path: "$.vesting_conditions[0].next_condition_ids" },
  { name: 'vesting condition with id ""', value: vestingTerms({ id: "", quantity: "0" }), path: "$.vesting_conditions[0].id" },
  { name: "vesting condition with repeated next ids", value: vestingTerms({ quantity: "0", next_condition_ids: ["x", "x"] }), path: "$.vesting_conditions[0].next_condition_ids[1]" },
  { name: "portion with an extra key", value: vestingTerms({ portion: { numerator: "1", denominator: "4", of: "all" } }), path: "$.vesting_conditions[0].portion.of" },
  { name: "month period without day_of_month", value: monthly({ length: 1, type: "MONTHS", occurrences: 12 }), path: "$.vesting_conditions[0].trigger.period.day_of_month" },
  { name: "period type YEARS", value: monthly({ length: 1, type: "YEARS", occurrences: 4 }), path: "$.vesting_conditions[0].trigger.period.type" },
  { name: "day period with day_of_month", value: monthly({ length: 30, type: "DAYS", occurrences: 12, day_of_month: "01" }), path: "$.vesting_conditions[0].trigger.period.day_of_month" },
  { name: "period of negative length", value: monthly({ length: -1, type: "DAYS", occurrences: 1 }), path: "$.vesting_conditions[0].trigger.period.length" },
  { name: "period with zero occurrences", value: monthly({ length: 1, type: "DAYS", occurrences: 0 }), path: "$.vesting_conditions[0].trigger.period.occurrences" },
  { name: "period of fractional length", value: monthly({ length: 1.5, type: "DAYS", occurrences: 1 }), path: "$.vesting_conditions[0].trigger.period.length" },
  { name: "day_of_month 29 without the suffix", value: monthly({ length: 1, type: "MONTHS", occurrences: 1, day_of_month: "29" }), path: "$.vesting_conditions[0].trigger.period.day_of_month" },
  { name: "relative trigger without relative_to_condition_id", value: vestingTerms({ quantity: "0", trigger: { type: "VESTING_SCHEDULE_RELATIVE", period: { length: 1, type: "DAYS", occurrences: 1 } } }), path: "$.vesting_conditions[0].trigger.relative_to_condition_id" },
  { name: "absolute trigger without date", value: vestingTerms({ quantity: "0", trigger: { type: "VESTING_SCHEDULE_ABSOLUTE" } }), path: "$.vesting_conditions[0].trigger.date" },
  { name: "start trigger with a date", value: vestingTerms({ quantity: "0", trigger: { type: "VESTING_START_DATE", date: "2020-01-01" } }), path: "$.vesting_conditions[0].trigger.date" },
  { name: "vesting terms without conditions", value: example("VESTING_TERMS", { vesting_conditions: [] }), path: "$.vesting_conditions" },
  { name: "unknown allocation_type", value: example("VESTING_TERMS", { allocation_type: "ROUND" }), path: "$.allocation_type" },
  { name: "stock plan with both class id forms", value: stockPlan({ stock_class_id: "class-common" }), path: "$" },
  { name: "stock plan with neither class id form", value: stockPlan({}, "stock_class_ids"), path: "$" },
  { name: "stock plan with stock_class_ids: []", value: stockPlan({ stock_class_ids: [] }), path: "$.stock_class_ids" },
  { name: "stakeholder with contact_info: {}", value: example("STAKEHOLDER", { contact_info: {} }), path: "$.contact_info" },
  { name: "stakeholder primary_contact without a method", value: example("STAKEHOLDER", { primary_contact: { name: { legal_name: "A" } } }), path: "$.primary_contact" },
  { name: "stakeholder primary_contact without a name", value: example("STAKEHOLDER", { primary_contact: { emails: [] } }), path: "$.primary_contact.name" },
  { name: "stakeholder name without legal_name", value: example("STAKEHOLDER", { name: { first_name: "Pat" } }), path: "$.name.legal_name" },
  { name: "unknown stakeholder_type", value: example("STAKEHOLDER", { stakeholder_type: "PERSON" }), path: "$.stakeholder_type" },
  { name: "phone number without spaces", value: example("STAKEHOLDER", { contact_info: { phone_numbers: [{ phone_type: "HOME", phone_number: "+16122342345" }] } }), path: "$.contact_info.phone_numbers[0].phone_number" },
  { name: "phone number with a 4-digit middle group", value: example("STAKEHOLDER", { contact_info: { phone_numbers: [{ phone_type: "HOME", phone_number: "+44 20 7946 0958" }] } }), path: "$.contact_info.phone_numbers[0].phone_number" },
  { name: "email address without a host", value: example("STAKEHOLDER", { contact_info: { emails: [{ email_type: "OTHER", email_address: "pat@" }] } }), path: "$.contact_info.emails[0].email_address" },
  { name: "lower-case country", value: example("ISSUER", { country_of_formation: "us" }), path: "$.country_of_formation" },
  { name: "subdivision of 4 characters", value: example("ISSUER", { country_subdivision_of_formation: "CALI" }), path: "$.country_subdivision_of_formation" },
  { name: "authorized shares as a number", value: example("ISSUER", { initial_shares_authorized: 1000 }), path: "$.initial_shares_authorized" },
  { name: 'authorized shares "unlimited"', value: example("STOCK_CLASS", { initial_shares_authorized: "unlimited" }), path: "$.initial_shares_authorized" },
  { name: "issuer without formation_date", value: exampleWithout("ISSUER", "formation_date"), path: "$.formation_date" },
  { name: "stock class without seniority", value: exampleWithout("STOCK_CLASS", "seniority"), path: "$.seniority" },
  { name: "stock class conversion right with an extra key", value: example("STOCK_CLASS", { conversion_rights: [{ conversion_mechanism: { type: "RATIO_CONVERSION", conversion_price: { amount: "1", currency: "USD" }, ratio: { numerator: "1", denominator: "1" }, rounding_type: "NORMAL" }, extra: true }] }), path: "$.conversion_rights[0].extra" },
  { name: "legend without text", value: exampleWithout("STOCK_LEGEND_TEMPLATE", "text"), path: "$.text" },
  { name: "valuation of an unknown type", value: example("VALUATION", { valuation_type: "OTHER" }), path: "$.valuation_type" },
  { name: "comments that are not strings", value: example("TX_STOCK_ACCEPTANCE", { comments: [1] }), path: "$.comments[0]" },
  { name: 'Numeric "1e3"', value: withQuantity("1e3"), path: "$.quantity" },
  { name: 'Numeric ".5"', value: withQuantity(".5"), path: "$.quantity" },
  { name: 'Numeric "5."', value: withQuantity("5."), path: "$.quantity" },
  { name: 'Numeric "1,000"', value: withQuantity("1,000"), path: "$.quantity" },
  { name: 'Numeric " 1"', value: withQuantity(" 1"), path: "$.quantity" },
  { name: "Numeric with 11 decimal places", value: withQuantity("1000.00000000001"), path: "$.quantity" },
  { name: "Numeric as a JSON number", value: withQuantity(1000), path: "$.quantity" },
  { name: "Numeric in a vesting amount", value: example("TX_STOCK_ISSUANCE", { vestings: [{ date: "2016-01-01", amount: "1e3" }] }), path: "$.vestings[0].amount" },
  { name: "Date 2023-02-29", value: withDate("2023-02-29"), path: "$.date" },
  { name: "Date 2022-02-30", value: withDate("2022-02-30"), path: "$.date" },
  { name: "Date 2022-13-01", value: withDate("2022-13-01"), path: "$.date" },
  { name: "Date 2022-1-1", value: withDate("2022-1-1"), path: "$.date" },
  { name: "Date with a time", value: withDate("2022-01-01T00:00:00Z"), path: "$.date" },
  { name: "missing date", value: exampleWithout("TX_STOCK_ACCEPTANCE", "date"), path: "$.date" },
  { name: "missing id", value: exampleWithout("STAKEHOLDER", "id"), path: "$.id" },
  { name: "unknown object_type", value: example("TX_STOCK_ACCEPTANCE", { object_type: "TX_STOCK_EXPIRY" }), path: "$.object_type" },
  { name: "missing object_type", value: exampleWithout("TX_STOCK_ACCEPTANCE", "object_type"), path: "$.object_type" },
  { name: "an array", value: [example("TX_STOCK_ACCEPTANCE")], path: "$" },
  { name: "null", value: null, path: "$" },
  ...EXAMPLE_OBJECT_TYPES.map((objectType) => ({
    name: `${objectType} with an unknown key`,
    value: example(objectType, { custom_field: "x" }),
    path: "$.custom_field",
  })),
];

const VALID_OBJECTS: Case[] = [
  ...EXAMPLE_OBJECT_TYPES.map((objectType) => ({ name: `the ${objectType} example`, value: example(objectType) })),
  { name: "RSU with an expiration date", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { expiration_date: "2025-06-01" }) },
  { name: "RSU with the legacy object_type", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { object_type: "TX_PLAN_SECURITY_ISSUANCE" }) },
  { name: "release with the legacy object_type", value: example("TX_EQUITY_COMPENSATION_RELEASE", { object_type: "TX_PLAN_SECURITY_RELEASE" }) },
  { name: "cancellation with the legacy object_type", value: example("TX_EQUITY_COMPENSATION_CANCELLATION", { object_type: "TX_PLAN_SECURITY_CANCELLATION" }) },
  { name: "RSU with both stock_plan_id and stock_class_id", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { stock_plan_id: "p", stock_class_id: "c" }) },
  { name: "RSU with an exercise_price", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { exercise_price: { amount: "0", currency: "USD" } }) },
  { name: "option with its exercise price", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "OPTION_NSO", exercise_price: { amount: "1.5", currency: "USD" }, option_grant_type: "NSO", early_exercisable: false }) },
  { name: "SSAR with its base price", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { compensation_type: "SSAR", base_price: { amount: "2", currency: "EUR" } }) },
  { name: "RSU with termination windows and vestings", value: example("TX_EQUITY_COMPENSATION_ISSUANCE", { termination_exercise_windows: [{ reason: "INVOLUNTARY_DEATH", period: 12, period_type: "YEARS" }], vestings: [{ date: "2016-06-01", amount: "1500" }], vesting_terms_id: "4yr-1yr-cliff" }) },
  { name: "release with resulting_security_ids: []", value: example("TX_EQUITY_COMPENSATION_RELEASE", { resulting_security_ids: [] }) },
  { name: "partial cancellation with a balance security", value: example("TX_STOCK_CANCELLATION", { balance_security_id: "rsa-77-b" }) },
  { name: "stock issuance with every optional field", value: example("TX_STOCK_ISSUANCE", { vesting_terms_id: "t", cost_basis: { amount: "200", currency: "USD" }, board_approval_date: "2015-05-01", stockholder_approval_date: "2015-05-02", consideration_text: "cash", share_numbers_issued: [{ starting_share_number: "1", ending_share_number: "20000" }], comments: ["83(b) filed"], security_law_exemptions: [{ description: "Rule 701", jurisdiction: "US" }] }) },
  { name: 'Numeric "+5"', value: withQuantity("+5") },
  { name: 'Numeric "-5"', value: withQuantity("-5") },
  { name: 'Numeric "0"', value: withQuantity("0") },
  { name: "Numeric with leading zeros", value: withQuantity("007") },
  { name: "Numeric with 10 decimal places", value: withQuantity("1000.0000000001") },
  { name: "Date 2024-02-29", value: withDate("2024-02-29") },
  { name: "Date 2000-02-29", value: withDate("2000-02-29") },
  { name: "stock plan with the deprecated stock_class_id", value: stockPlan({ stock_class_id: "class-common" }, "stock_class_ids") },
  { name: "stock plan with every optional field", value: stockPlan({ board_approval_date: "2015-01-01", stockholder_approval_date: "2015-02-01", default_cancellation_behavior: "RETURN_TO_POOL", comments: [] }) },
  { name: "stakeholder with contact_info emails: []", value: example("STAKEHOLDER", { contact_info: { emails: [] } }) },
  { name: "stakeholder with phone extensions", value: example("STAKEHOLDER", { contact_info: { phone_numbers: [{ phone_type: "HOME", phone_number: "+1 617 333 4444 ext. 100" }, { phone_type: "BUSINESS", phone_number: "+44 20 794 6095 extension 2" }] } }) },
  { name: "stakeholder with every optional field", value: example("STAKEHOLDER", { issuer_assigned_id: "E-1", current_relationship: "EX_EMPLOYEE", primary_contact: { name: { legal_name: "A B", first_name: "A", last_name: "B" }, emails: [{ email_type: "BUSINESS", email_address: "a.b+x@mail.example.com" }] }, addresses: [{ address_type: "LEGAL", country: "US", country_subdivision: "CA", city: "SF", street_suite: "1 Main", postal_code: "94105" }], tax_ids: [{ tax_id: "123", country: "US" }] }) },
  { name: 'issuer with "UNLIMITED" authorized shares', value: example("ISSUER", { initial_shares_authorized: "UNLIMITED", dba: "Ex", country_subdivision_of_formation: "DE" }) },
  { name: 'stock class with "NOT APPLICABLE" authorized shares', value: example("STOCK_CLASS", { initial_shares_authorized: "NOT APPLICABLE" }) },
  { name: "stock class conversion right without its type", value: example("STOCK_CLASS", { conversion_rights: [{ conversion_mechanism: { type: "RATIO_CONVERSION", conversion_price: { amount: "1", currency: "USD" }, ratio: { numerator: "1", denominator: "1" }, rounding_type: "FLOOR" }, converts_to_future_round: false }] }) },
  { name: "vesting condition vesting a fixed quantity of 0", value: vestingTerms({ quantity: "0" }) },
  { name: "remainder portion on an event trigger", value: vestingTerms({ portion: { numerator: "1", denominator: "1", remainder: true }, trigger: { type: "VESTING_EVENT" }, description: "double trigger" }) },
  { name: "absolute trigger", value: vestingTerms({ quantity: "100", trigger: { type: "VESTING_SCHEDULE_ABSOLUTE", date: "2020-02-29" } }) },
  { name: "day period of length 0", value: monthly({ length: 0, type: "DAYS", occurrences: 1 }) },
  { name: "month period on day 28", value: monthly({ length: 1, type: "MONTHS", occurrences: 48, day_of_month: "28" }) },
  { name: "month period on the 31st or last day", value: monthly({ length: 3, type: "MONTHS", occurrences: 4, day_of_month: "31_OR_LAST_DAY_OF_MONTH" }) },
  { name: "valuation with every optional field", value: example("VALUATION", { provider: "Firm", board_approval_date: "2015-03-02", stockholder_approval_date: "2015-03-03", comments: ["x"] }) },
];

const manifestWithout = (key: string) => {
  const manifest = exampleManifest();
  delete manifest[key];
  return manifest;
};

const REQUIRED_FILE_LISTS = [
  "stock_plans_files",
  "stock_legend_templates_files",
  "stock_classes_files",
  "vesting_terms_files",
  "valuations_files",
  "transactions_files",
  "stakeholders_files",
];

const file = (md5: string) => ({ filepath: "./Transactions.ocf.json", md5 });

const INVALID_FILES: Case[] = [
  { name: 'manifest with ocf_version "1.1.0"', value: exampleManifest({ ocf_version: "1.1.0" }), path: "$.ocf_version" },
  ...REQUIRED_FILE_LISTS.map((key) => ({ name: `manifest without ${key}`, value: manifestWithout(key), path: `$.${key}` })),
  { name: "manifest without issuer", value: manifestWithout("issuer"), path: "$.issuer" },
  { name: "manifest without as_of", value: manifestWithout("as_of"), path: "$.as_of" },
  { name: "manifest generated_at date-only", value: exampleManifest({ generated_at: "2024-01-01" }), path: "$.generated_at" },
  { name: "manifest generated_at without a zone", value: exampleManifest({ generated_at: "2024-01-01T00:00:00" }), path: "$.generated_at" },
  { name: "manifest generated_at at hour 24", value: exampleManifest({ generated_at: "2024-01-01T24:00:00Z" }), path: "$.generated_at" },
  { name: "manifest generated_at on 2023-02-29", value: exampleManifest({ generated_at: "2023-02-29T00:00:00Z" }), path: "$.generated_at" },
  { name: "manifest with a short md5", value: exampleManifest({ transactions_files: [file("abc")] }), path: "$.transactions_files[0].md5" },
  { name: "manifest file entry with an extra key", value: exampleManifest({ transactions_files: [{ ...file("a".repeat(32)), size: 1 }] }), path: "$.transactions_files[0].size" },
  { name: "manifest with an extra key", value: exampleManifest({ producer: "ocf-sync" }), path: "$.producer" },
  { name: "manifest with an invalid issuer", value: exampleManifest({ issuer: example("ISSUER", { country_of_formation: "USA" }) }), path: "$.issuer.country_of_formation" },
  { name: "manifest with the issuer's object_type wrong", value: exampleManifest({ issuer: example("ISSUER", { object_type: "STAKEHOLDER" }) }), path: "$.issuer.object_type" },
  { name: "items file without items", value: { file_type: "OCF_STAKEHOLDERS_FILE" }, path: "$.items" },
  { name: "items file with an extra key", value: { file_type: "OCF_STAKEHOLDERS_FILE", items: [], version: 1 }, path: "$.version" },
  { name: "stakeholders file holding a stock class", value: { file_type: "OCF_STAKEHOLDERS_FILE", items: [example("STOCK_CLASS")] }, path: "$.items[0].object_type" },
  { name: "transactions file holding an invalid RSU", value: { file_type: "OCF_TRANSACTIONS_FILE", items: [example("TX_STOCK_ACCEPTANCE"), exampleWithout("TX_EQUITY_COMPENSATION_ISSUANCE", "expiration_date")] }, path: "$.items[1].expiration_date" },
  { name: "transactions file holding a stakeholder", value: { file_type: "OCF_TRANSACTIONS_FILE", items: [example("STAKEHOLDER")] }, path: "$.items[0].object_type" },
  { name: "stock plans file with a plan naming no class", value: { file_type: "OCF_STOCK_PLANS_FILE", items: [stockPlan({}, "stock_class_ids")] }, path: "$.items[0]" },
  { name: "unknown file_type", value: { file_type: "OCF_WIDGETS_FILE", items: [] }, path: "$.file_type" },
];

const VALID_FILES: Case[] = [
  { name: "minimal manifest", value: exampleManifest() },
  { name: "manifest generated_at with microseconds and an offset", value: exampleManifest({ generated_at: "2024-01-01T00:00:00.123456+02:00" }) },
  { name: "manifest generated_at with a negative offset", value: exampleManifest({ generated_at: "2022-03-22T01:23:45-06:00" }) },
  { name: "manifest generated_at with lower-case t and z", value: exampleManifest({ generated_at: "2022-03-22t01:23:45z" }) },
  { name: "manifest generated_at on a leap second", value: exampleManifest({ generated_at: "2016-12-31T23:59:60Z" }) },
  { name: "manifest with an upper-case md5 and comments", value: exampleManifest({ transactions_files: [file("ABCDEF0123456789ABCDEF0123456789")], comments: ["x"] }) },
  { name: "manifest with financings and documents lists", value: exampleManifest({ financings_files: [], documents_files: [file("0".repeat(32))] }) },
  { name: "empty valuations file", value: { file_type: "OCF_VALUATIONS_FILE", items: [] } },
  { name: "empty legends file", value: { file_type: "OCF_STOCK_LEGEND_TEMPLATES_FILE", items: [] } },
  { name: "valuations file", value: { file_type: "OCF_VALUATIONS_FILE", items: [example("VALUATION")] } },
  { name: "stakeholders file", value: { file_type: "OCF_STAKEHOLDERS_FILE", items: [example("STAKEHOLDER")] } },
  { name: "stock classes file", value: { file_type: "OCF_STOCK_CLASSES_FILE", items: [example("STOCK_CLASS")] } },
  { name: "stock plans file", value: { file_type: "OCF_STOCK_PLANS_FILE", items: [example("STOCK_PLAN")] } },
  { name: "vesting terms file", value: { file_type: "OCF_VESTING_TERMS_FILE", items: [example("VESTING_TERMS")] } },
  {
    name: "transactions file with one of each transaction",
    value: { file_type: "OCF_TRANSACTIONS_FILE", items: EXAMPLE_OBJECT_TYPES.filter((t) => t.startsWith("TX_")).map((t) => example(t)) },
  },
];

const SUITES = [
  { what: "objects", invalid: INVALID_OBJECTS, valid: VALID_OBJECTS, ours: validateOcfObject, official: validateWithOfficialSchemas },
  { what: "files", invalid: INVALID_FILES, valid: VALID_FILES, ours: validateOcfFile, official: validateFileWithOfficialSchemas },
];

describe.each(SUITES)("crafted $what: ocf-sync's verdict", ({ invalid, valid, ours }) => {
  it.each(invalid)("invalid: $name", ({ value, path }) => {
    const verdict = ours(value);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.issues.map((i) => i.path)).toContain(path);
  });

  it.each(valid)("valid: $name", ({ value }) => {
    expect(ours(value)).toEqual({ ok: true, value });
  });
});

/*
 * Where ajv-formats is laxer than RFC 3339 / the project's calendar-date rule, we are deliberately
 * stricter: ocf-sync never writes these forms, and accepting them on read would let a non-RFC 3339
 * manifest through. These are the only known disagreements, and they are pinned here.
 */
const STRICTER_GENERATED_AT = [
  ["a zone without a colon", "2024-01-01T00:00:00+0200"],
  ["an hour-only zone", "2024-01-01T00:00:00+02"],
  ["a space instead of T", "2024-01-01 00:00:00Z"],
] as const;
const YEAR_ZERO = example("TX_STOCK_ACCEPTANCE", { date: "0000-01-01" });

describe("where we are stricter than ajv-formats", () => {
  it.each(STRICTER_GENERATED_AT)("rejects generated_at with %s", (_label, generatedAt) => {
    expect(validateOcfFile(exampleManifest({ generated_at: generatedAt })).ok).toBe(false);
  });

  it("rejects the calendar date 0000-01-01", () => {
    expect(validateOcfObject(YEAR_ZERO).ok).toBe(false);
  });
});

describeConformance("the official OCF 1.2.0 schemas agree on every crafted case", () => {
  describe.each(SUITES)("crafted $what", ({ invalid, valid, official }) => {
    it.each(invalid)("invalid: $name", ({ value }) => {
      expect(official(value).valid).toBe(false);
    });

    it.each(valid)("valid: $name", ({ value }) => {
      expect(official(value).errors).toEqual([]);
    });
  });

  describe("deliberate, pinned disagreements (the official schemas accept what we reject)", () => {
    it.each(STRICTER_GENERATED_AT)("generated_at with %s", (_label, generatedAt) => {
      expect(validateFileWithOfficialSchemas(exampleManifest({ generated_at: generatedAt })).valid).toBe(true);
    });

    it("the calendar date 0000-01-01", () => {
      expect(validateWithOfficialSchemas(YEAR_ZERO).valid).toBe(true);
    });
  });
});
