/**
 * What `grantBasics` (grant.ts) checks of every grant, in a file of its own: the lineage and the
 * payouts take it, and grant.ts takes their results, so it sits below all three.
 */
import type { CalendarDate } from "../dates.js";
import type { Dec, DecimalString } from "../decimal.js";
import type { RecordContext } from "./record-context.js";

/** The values every grant needs, checked once. */
export interface GrantBasics {
  ctx: RecordContext;
  security: string;
  customId: string;
  /** The source's `stakeholderId`. */
  sourceStakeholderId: string;
  /** The OCF stakeholder id. */
  stakeholderId: string;
  issueDate: CalendarDate;
  /** The grant's quantity as OCF Numeric (what its issuance says). */
  quantity: DecimalString;
  /** The same quantity as an exact value (`RecordContext.exact`), for sums and comparisons. */
  exactQuantity: Dec;
}
