/**
 * Deterministic OCF ids, derived from the source's ids only (never from positions in a response, a
 * clock or a random source), so that the same records always give the same ids and the same bytes
 * and exports diff cleanly. Source ids are used as they are: OCF ids are free strings, and these ids
 * never become file paths. `mappings/README.md` lists the scheme.
 */
import type { RecordKind } from "../source/kinds.js";

/** The prefix of a grant's security id: `rsa` for awards, `rsu` for units. */
const SECURITY_PREFIX: Readonly<Record<RecordKind, string>> = {
  restrictedStockAward: "rsa",
  restrictedStockUnit: "rsu",
};

/** The security id of a grant: `rsa-<id>` or `rsu-<id>`. */
export function securityIdOf(kind: RecordKind, recordId: string): string {
  return `${SECURITY_PREFIX[kind]}-${recordId}`;
}

/** The transactions of one security, each `<security id>-<suffix>`. */
export const txIds = {
  issuance: (security: string) => `${security}-issuance`,
  acceptance: (security: string) => `${security}-acceptance`,
  cancellation: (security: string) => `${security}-cancellation`,
  forfeiture: (security: string) => `${security}-forfeiture`,
  expiry: (security: string) => `${security}-expiry`,
  returnToPool: (security: string) => `${security}-return-to-pool`,
  vestingStart: (security: string) => `${security}-vesting-start`,
  vestingEvent: (security: string, conditionKey: string) => `${security}-vesting-event-${conditionKey}`,
  /** `n` is 1-based in the canonical order of settlements (see `order.ts`). */
  release: (security: string, n: number) => `${security}-release-${n}`,
} as const;

/** The security of the shares delivered by the n-th settlement of a unit: `<security>-settlement-<n>`. */
export function settlementSecurityIdOf(unitSecurity: string, n: number): string {
  return `${unitSecurity}-settlement-${n}`;
}

/** The security of the shares sold to cover taxes in the n-th settlement of a unit: `<security>-settlement-<n>-sold`. */
export function soldSecurityIdOf(unitSecurity: string, n: number): string {
  return `${unitSecurity}-settlement-${n}-sold`;
}

/**
 * The balance security of a grant: what remains after a partial cancellation, as a new issuance
 * (`<security>-balance`). A grant has one cancellation event, so at most one balance.
 */
export function balanceSecurityIdOf(security: string): string {
  return `${security}-balance`;
}

/**
 * The stakeholder holding the shares sold to cover taxes: the buyers on the market, whom the source
 * does not name. Its id cannot be a source stakeholder's (those are all `stakeholder-<id>`).
 */
export const SELL_TO_COVER_STAKEHOLDER_ID = "market-sell-to-cover";

/** `stakeholder-<stakeholderId>`. */
export function stakeholderIdOf(sourceStakeholderId: string): string {
  return `stakeholder-${sourceStakeholderId}`;
}

/**
 * `stock-class-<key>`: the key is the class name when it is known, else the source's `shareClassId`
 * (see `StockClassUse`).
 */
export function stockClassIdOf(key: string): string {
  return `stock-class-${key}`;
}

/** `stock-plan-<plan name>`. The name is the only key the source gives for a plan. */
export function stockPlanIdOf(name: string): string {
  return `stock-plan-${name}`;
}

/** `vesting-terms-<security id>`: VestingTerms are built per grant, from its own events. */
export function vestingTermsIdOf(security: string): string {
  return `vesting-terms-${security}`;
}

/** `issuer-<issuerId>`. */
export function issuerObjectIdOf(issuerId: string): string {
  return `issuer-${issuerId}`;
}

/** The source issuer id ocf-sync wrote into an OCF issuer id (`issuer-7` is "7"); undefined for another id. */
export function sourceIssuerIdOf(issuerObjectId: string): string | undefined {
  const prefix = issuerObjectIdOf("");
  return issuerObjectId.startsWith(prefix) && issuerObjectId !== prefix ? issuerObjectId.slice(prefix.length) : undefined;
}

/** The id of the start node of every VestingTerms graph ocf-sync builds. */
export const VESTING_START_CONDITION_ID = "vesting-start";

/**
 * The key of a vesting event inside its grant: its source id, or `index-<n>` (its 1-based position
 * in the canonical event order) when the service sent no id. Condition ids are `event-<key>`.
 */
export function vestingConditionIdOf(eventKey: string): string {
  return `event-${eventKey}`;
}
