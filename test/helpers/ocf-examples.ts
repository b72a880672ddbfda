/**
 * Small valid OCF 1.2.0 objects, one per object type ocf-sync models, for tests that change one field
 * and check the verdict. Each call returns a fresh copy that a test may mutate.
 */

const usd = (amount: string) => ({ amount, currency: "USD" });

const EXAMPLES = {
  ISSUER: {
    object_type: "ISSUER",
    id: "issuer-7",
    legal_name: "Example Inc.",
    formation_date: "2015-01-01",
    country_of_formation: "US",
  },
  STAKEHOLDER: {
    object_type: "STAKEHOLDER",
    id: "sh-6113",
    name: { legal_name: "Pat Example" },
    stakeholder_type: "INDIVIDUAL",
  },
  STOCK_CLASS: {
    object_type: "STOCK_CLASS",
    id: "class-common",
    name: "Common Stock",
    class_type: "COMMON",
    default_id_prefix: "CS-",
    initial_shares_authorized: "10000000",
    votes_per_share: "1",
    seniority: "1",
  },
  STOCK_PLAN: {
    object_type: "STOCK_PLAN",
    id: "plan-2015",
    plan_name: "2015 Equity Incentive Plan",
    initial_shares_reserved: "1000000",
    stock_class_ids: ["class-common"],
  },
  STOCK_LEGEND_TEMPLATE: {
    object_type: "STOCK_LEGEND_TEMPLATE",
    id: "legend-1",
    name: "Securities Act legend",
    text: "THE SHARES HAVE NOT BEEN REGISTERED.",
  },
  VESTING_TERMS: {
    object_type: "VESTING_TERMS",
    id: "4yr-1yr-cliff",
    name: "4 years, 1 year cliff",
    description: "25% after 12 months, then 1/48 monthly",
    allocation_type: "CUMULATIVE_ROUNDING",
    vesting_conditions: [
      { id: "start", quantity: "0", trigger: { type: "VESTING_START_DATE" }, next_condition_ids: ["cliff"] },
      {
        id: "cliff",
        portion: { numerator: "12", denominator: "48" },
        trigger: {
          type: "VESTING_SCHEDULE_RELATIVE",
          relative_to_condition_id: "start",
          period: { length: 12, type: "MONTHS", occurrences: 1, day_of_month: "VESTING_START_DAY_OR_LAST_DAY_OF_MONTH" },
        },
        next_condition_ids: ["monthly"],
      },
      {
        id: "monthly",
        portion: { numerator: "1", denominator: "48" },
        trigger: {
          type: "VESTING_SCHEDULE_RELATIVE",
          relative_to_condition_id: "cliff",
          period: { length: 1, type: "MONTHS", occurrences: 36, day_of_month: "VESTING_START_DAY_OR_LAST_DAY_OF_MONTH" },
        },
        next_condition_ids: [],
      },
    ],
  },
  VALUATION: {
    object_type: "VALUATION",
    id: "409a-2015",
    price_per_share: usd("1.25"),
    effective_date: "2015-03-01",
    stock_class_id: "class-common",
    valuation_type: "409A",
  },
  TX_STOCK_ISSUANCE: {
    object_type: "TX_STOCK_ISSUANCE",
    id: "rsa-77-issuance",
    security_id: "rsa-77",
    date: "2015-06-01",
    custom_id: "CS-16",
    stakeholder_id: "sh-6113",
    security_law_exemptions: [],
    stock_class_id: "class-common",
    share_price: usd("0.01"),
    quantity: "20000",
    stock_legend_ids: [],
    issuance_type: "RSA",
    stock_plan_id: "plan-2015",
    vestings: [
      { date: "2016-06-01", amount: "5000" },
      { date: "2017-06-01", amount: "15000" },
    ],
  },
  TX_EQUITY_COMPENSATION_ISSUANCE: {
    object_type: "TX_EQUITY_COMPENSATION_ISSUANCE",
    id: "rsu-8550-issuance",
    security_id: "rsu-8550",
    date: "2015-06-01",
    custom_id: "ES-136",
    stakeholder_id: "sh-6113",
    security_law_exemptions: [],
    compensation_type: "RSU",
    quantity: "1500",
    expiration_date: null,
    termination_exercise_windows: [],
  },
  TX_VESTING_START: {
    object_type: "TX_VESTING_START",
    id: "rsa-77-vesting-start",
    security_id: "rsa-77",
    date: "2015-06-01",
    vesting_condition_id: "start",
  },
  TX_VESTING_EVENT: {
    object_type: "TX_VESTING_EVENT",
    id: "rsa-77-milestone",
    security_id: "rsa-77",
    date: "2016-01-15",
    vesting_condition_id: "milestone",
  },
  TX_VESTING_ACCELERATION: {
    object_type: "TX_VESTING_ACCELERATION",
    id: "rsa-77-acceleration",
    security_id: "rsa-77",
    date: "2016-02-01",
    quantity: "1000",
    reason_text: "Change of control",
  },
  TX_EQUITY_COMPENSATION_RELEASE: {
    object_type: "TX_EQUITY_COMPENSATION_RELEASE",
    id: "rsu-8550-release-1",
    security_id: "rsu-8550",
    date: "2016-06-01",
    settlement_date: "2016-06-03",
    release_price: usd("4.10"),
    quantity: "375",
    resulting_security_ids: ["rsu-8550-shares-1"],
  },
  TX_STOCK_CANCELLATION: {
    object_type: "TX_STOCK_CANCELLATION",
    id: "rsa-77-cancellation",
    security_id: "rsa-77",
    date: "2016-09-01",
    quantity: "15000",
    reason_text: "Unvested shares forfeited on termination",
  },
  TX_EQUITY_COMPENSATION_CANCELLATION: {
    object_type: "TX_EQUITY_COMPENSATION_CANCELLATION",
    id: "rsu-8550-cancellation",
    security_id: "rsu-8550",
    date: "2016-09-01",
    quantity: "1125",
    reason_text: "Forfeited on termination",
  },
  TX_STOCK_REPURCHASE: {
    object_type: "TX_STOCK_REPURCHASE",
    id: "rsa-77-repurchase",
    security_id: "rsa-77",
    date: "2016-09-01",
    price: usd("0.01"),
    quantity: "15000",
  },
  TX_STOCK_RETRACTION: {
    object_type: "TX_STOCK_RETRACTION",
    id: "rsa-77-retraction",
    security_id: "rsa-77",
    date: "2015-06-02",
    reason_text: "Granted in error",
  },
  TX_EQUITY_COMPENSATION_RETRACTION: {
    object_type: "TX_EQUITY_COMPENSATION_RETRACTION",
    id: "rsu-8550-retraction",
    security_id: "rsu-8550",
    date: "2015-06-02",
    reason_text: "Never accepted",
  },
  TX_STOCK_PLAN_RETURN_TO_POOL: {
    object_type: "TX_STOCK_PLAN_RETURN_TO_POOL",
    id: "rsu-8550-return",
    security_id: "rsu-8550",
    date: "2016-09-01",
    stock_plan_id: "plan-2015",
    quantity: "1125",
    reason_text: "Forfeited units back to the pool",
  },
  TX_STOCK_ACCEPTANCE: {
    object_type: "TX_STOCK_ACCEPTANCE",
    id: "rsa-77-acceptance",
    security_id: "rsa-77",
    date: "2015-06-05",
  },
  TX_EQUITY_COMPENSATION_ACCEPTANCE: {
    object_type: "TX_EQUITY_COMPENSATION_ACCEPTANCE",
    id: "rsu-8550-acceptance",
    security_id: "rsu-8550",
    date: "2015-06-05",
  },
  TX_STOCK_TRANSFER: {
    object_type: "TX_STOCK_TRANSFER",
    id: "rsa-77-transfer",
    security_id: "rsa-77",
    date: "2017-01-01",
    quantity: "5000",
    resulting_security_ids: ["rsa-77-t1"],
  },
  TX_EQUITY_COMPENSATION_TRANSFER: {
    object_type: "TX_EQUITY_COMPENSATION_TRANSFER",
    id: "rsu-8550-transfer",
    security_id: "rsu-8550",
    date: "2017-01-01",
    quantity: "375",
    resulting_security_ids: ["rsu-8550-t1"],
  },
} as const;

export type ExampleObjectType = keyof typeof EXAMPLES;

/** Every object type that has an example. */
export const EXAMPLE_OBJECT_TYPES = Object.keys(EXAMPLES) as ExampleObjectType[];

/** A fresh, mutable copy of the valid example of `objectType`, with `changes` applied on top. */
export function example(objectType: ExampleObjectType, changes: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...(structuredClone(EXAMPLES[objectType]) as Record<string, unknown>), ...changes };
}

/** A copy of the example without the named keys. */
export function exampleWithout(objectType: ExampleObjectType, ...keys: string[]): Record<string, unknown> {
  const copy = example(objectType);
  for (const key of keys) delete copy[key];
  return copy;
}

/** A fresh, minimal valid manifest (reference §2.3), with `changes` applied on top. */
export function exampleManifest(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    file_type: "OCF_MANIFEST_FILE",
    ocf_version: "1.2.0",
    issuer: example("ISSUER"),
    as_of: "2024-07-30",
    generated_at: "2024-07-31T12:00:00Z",
    stock_plans_files: [],
    stock_legend_templates_files: [],
    stock_classes_files: [],
    vesting_terms_files: [],
    valuations_files: [],
    transactions_files: [],
    stakeholders_files: [],
    ...changes,
  };
}
