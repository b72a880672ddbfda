/**
 * A performance event that pays out above its target (source-api.md §9.8: `vestedQuantity` above
 * `targetQuantity`, up to `maxQuantity`), for awards and units alike.
 *
 * The grant's `quantity` is then its target: its tranches as paid add up to more than it holds, which
 * no OCF security can vest. The payout above target is a new issuance of the grant to the same holder,
 * dated the event's vest date: security `<security>-payout-<event key>`, of the excess, in the same
 * class and plan at the same price, fully vested (it vested when it was issued). The event vests its
 * target on the grant's own security. So every reader computes the source's figures with no
 * convention of ocf-sync's: one that sums `vestings` or walks VestingTerms gets the target on the
 * grant and the excess on the payout (vested = the event's `vestedQuantity`), and one that computes
 * holdings (issued − released − cancelled) gets the grant's quantity plus the payout from its date on.
 *
 * Why not the other forms: an issuance at the maximum with the unearned part cancelled would end the
 * grant's security at the vest date (OCF's documents), and the grant's own cancellation would then be
 * a second one, on a balance; an issuance of quantity + excess on the grant's date would count the
 * payout as outstanding before it was earned. A new issuance adds what was earned when it was earned,
 * and leaves the grant's chain (balance, releases, cancellation) as it is.
 *
 * A unit's settlements release first from the payouts issued by their date (in date order: a payout
 * is vested), then from the grant's own chain, so that what stays on the grant is what the source
 * still has to vest or settle: one settlement may become two releases, the first (on the payout)
 * naming the shares delivered, the second (on the grant's own chain) none. A grant whose quantity already holds
 * every tranche as paid (its quantity is the maximum) is mapped as before: nothing is split.
 *
 * The events' quantities are read as exact values (the mapping's `RecordContext.exact`, which hands
 * back the values the vesting parses; reconcile's parser), and the excess, the sums and the split are
 * computed on those. They become OCF Numeric in `RecordContext.numeric`, as every quantity of the
 * mapping does. Each is a sum or a difference of the paid events' `targetQuantity` and
 * `vestedQuantity`, the settlements' `releaseQuantity` and the grant's `quantity`, so it needs more
 * than 10 decimal places only when one of those does: `planPayouts` checks a paid event's two fields
 * as sent (the others are checked where they are written), and a value OCF cannot hold is a
 * `MAPPING_DECIMAL_PRECISION` error naming that field and the record's text, before the grant's chain is built.
 */
import { Dec, type DecimalString, formatDecimal, sumExact, ZERO } from "../decimal.js";
import type { CalendarDate } from "../dates.js";
import type { OcfTransaction } from "../ocf/schemas.js";
import type { VestingEvent } from "../source/records.js";
import type { GrantBasics } from "./grant-basics.js";
import { txIds } from "./ids.js";
import type { IssuancePart } from "./lineage.js";
import { compareVestingEvents, sortIfNeeded } from "./order.js";
import { quoted } from "./quote.js";
import type { RecordContext } from "./record-context.js";
import type { MappedSettlement } from "./settlement.js";
import { plannedAmountOf, type GrantVesting } from "./vesting.js";

/** The payout above target of one performance event. */
export interface Payout {
  event: VestingEvent;
  /** The event's id, else `index-<n>` in canonical order (as its vesting condition is named). */
  key: string;
  security: string;
  date: CalendarDate;
  excess: Dec;
  /** The excess as OCF Numeric: the payout's issuance quantity. */
  quantity: string;
  /** The event's `targetQuantity` (the record's text): what it vests on the grant's own security. */
  target: DecimalString;
}

/** The grant's vesting with each payout's event vesting its target, and the payouts. */
export interface PlannedPayouts {
  /** What `buildGrantChain` vests the grant's own security with. */
  vesting: GrantVesting;
  payouts: Payout[];
}

const PAYOUT_INFIX = "-payout-";

/** The security of a payout above target (`<security>-payout-<event key>`). */
export function payoutSecurityIdOf(security: string, eventKey: string): string {
  return `${security}${PAYOUT_INFIX}${eventKey}`;
}

/**
 * The security whose payout above target `securityId` is (`<security>-payout-<event key>`), among the
 * securities `isGrant` accepts: the longest such prefix, or undefined when `securityId` names none.
 * Reconcile links a payout to its grant so (OCF has no field for the link).
 */
export function payoutOwnerOf(securityId: string, isGrant: (id: string) => boolean): string | undefined {
  for (let at = securityId.lastIndexOf(PAYOUT_INFIX); at > 0; at = securityId.lastIndexOf(PAYOUT_INFIX, at - 1)) {
    const owner = securityId.slice(0, at);
    if (isGrant(owner)) return owner;
  }
  return undefined;
}

/** A performance event paid above its target: its vest date, its target and what it paid above it (`vestedQuantity − targetQuantity`). */
export interface PaidAboveTarget {
  event: VestingEvent;
  date: CalendarDate;
  /** The record's text. */
  target: DecimalString;
  /** The record's text of `vestedQuantity`. */
  vested: DecimalString;
  excess: Dec;
}

/**
 * The events, in the order given, that a grant of `quantity` pays out as new issuances (see the module
 * comment): vested performance events whose `vestedQuantity` is above their `targetQuantity`, when the
 * events, each as paid, add up to more than the quantity (`asPaid`); `undefined` otherwise. What the
 * mapping issues, and what reconcile reads a record to have issued. `exact` reads a quantity of the
 * record as an exact value.
 */
export function eventsPaidAboveTarget(events: readonly VestingEvent[], quantity: DecimalString, exact: (text: DecimalString) => Dec): { asPaid: Dec; paid: PaidAboveTarget[] } | undefined {
  const paid: PaidAboveTarget[] = [];
  for (const event of events) {
    const { vestedQuantity, targetQuantity, vestDate } = event;
    if (!event.performanceCondition || !event.vested || vestedQuantity === undefined || targetQuantity === undefined || vestDate === undefined) continue;
    const vested = exact(vestedQuantity);
    const target = exact(targetQuantity);
    if (vested.lte(target)) continue;
    paid.push({ event, date: vestDate, target: targetQuantity, vested: vestedQuantity, excess: vested.minus(target) });
  }
  // Most grants have no event paid above its target: they need no sum.
  if (paid.length === 0) return undefined;
  // Every event counts, those never earned too: the quantity is the grant's plan, not what is left of it.
  const asPaid = sumExact(events.map((e) => {
    const amount = plannedAmountOf(e);
    return amount === undefined ? ZERO : exact(amount);
  }));
  return asPaid.gt(exact(quantity)) ? { asPaid, paid } : undefined;
}

/**
 * The payouts above target of a grant whose tranches as paid add up to more than its quantity (see
 * the module comment), each with a `PERFORMANCE_ABOVE_TARGET` warning; none otherwise.
 */
export function planPayouts(basics: GrantBasics, vesting: GrantVesting): PlannedPayouts {
  const { ctx } = basics;
  const above = eventsPaidAboveTarget(vesting.events, basics.quantity, (text) => ctx.exact(text));
  if (above === undefined) return { vesting, payouts: [] };
  const { asPaid, paid } = above;
  const paidOf = new Map(paid.map((p) => [p.event, p]));
  const payouts: Payout[] = [];
  const ordered = sortIfNeeded([...vesting.events], compareVestingEvents);
  ordered.forEach((event, position) => {
    const found = paidOf.get(event);
    if (found === undefined) return;
    const key = event.id ?? `index-${position + 1}`;
    const path = `vestingEvents[${vesting.events.indexOf(event)}]`;
    const quantity = payoutQuantity(ctx, path, found);
    const payout = { event, key, security: payoutSecurityIdOf(basics.security, key), date: found.date, excess: found.excess, quantity, target: found.target };
    ctx.warn(
      "PERFORMANCE_ABOVE_TARGET",
      `${path}.vestedQuantity`,
      `is ${event.vestedQuantity}, above the targetQuantity ${found.target} (maxQuantity ${event.maxQuantity ?? "not reported"}), and the grant's tranches as paid add up to ${formatDecimal(asPaid)}, more than its quantity ${basics.quantity}: the event vests its target on ${basics.security}, and the ${quantity} above it are a new issuance to the holder, ${payout.security}, on ${payout.date}`,
    );
    payouts.push(payout);
  });
  if (payouts.length === 0) return { vesting, payouts };
  // The grant's own security vests each such event's target; the source's sums are checked on the
  // events as sent (`sumsOf`), not on the targets.
  const atTarget = new Map(payouts.map((p) => [p.event, { ...p.event, vestedQuantity: p.target }]));
  return { vesting: { ...vesting, events: vesting.events.map((e) => atTarget.get(e) ?? e), sumsOf: vesting.events }, payouts };
}

/**
 * The OCF Numeric of a payout above target, at `path` (the event's, `vestingEvents[i]`). The event's
 * `targetQuantity` (which the grant's own security vests in place of its `vestedQuantity`) and its
 * `vestedQuantity` are checked as sent, the target first: a value OCF cannot hold is an error naming
 * its own field and text, not the excess computed from it, nor `vestedQuantity` for the target. Both
 * fitting, their difference fits too.
 */
function payoutQuantity(ctx: RecordContext, path: string, paid: PaidAboveTarget): string {
  ctx.numeric(paid.target, `${path}.targetQuantity`);
  ctx.numeric(paid.vested, `${path}.vestedQuantity`);
  return ctx.numeric(paid.excess, `${path}.vestedQuantity`);
}

/** What a grant takes from its plan: its quantity and its payouts above target (`undefined` without payouts). */
export function grantedWithPayouts(basics: GrantBasics, payouts: readonly Payout[]): DecimalString | undefined {
  // Sources already checked (the quantity in grantBasics, the payouts in planPayouts): the sum fits.
  return payouts.length === 0 ? undefined : basics.ctx.numeric(sumExact([basics.exactQuantity, ...payouts.map((p) => p.excess)]), "quantity");
}

/** What the payouts above target add to the grant's quantity (0 without payouts). */
export function paidAboveTarget(payouts: readonly Payout[]): Dec {
  return sumExact(payouts.map((p) => p.excess));
}

/** The comment the grant's issuance carries about its payouts. */
export function payoutComment(basics: GrantBasics, payouts: readonly Payout[]): string[] {
  if (payouts.length === 0) return [];
  const parts = payouts.map((p) => `${p.event.id === undefined ? "(no id)" : quoted(p.event.id)} vested ${p.event.vestedQuantity} on ${p.date} against a target of ${p.target}: ${p.quantity} on ${p.security}`);
  return [
    `Performance paid above target (the grant's quantity ${basics.quantity} is its target): each event vests its target on this security, and what it paid above the target is a new issuance to the holder on its vest date, fully vested: ${parts.join("; ")}.`,
  ];
}

/** The issuance part of a payout: the builder of the grant's issuances makes it an issuance of its type. */
export function payoutPart(basics: GrantBasics, payout: Payout): IssuancePart {
  return {
    txId: txIds.issuance(payout.security),
    security: payout.security,
    date: payout.date,
    customId: `${basics.customId}-payout-${payout.key}`,
    quantity: payout.quantity,
    vesting: { transactions: [], issuanceComments: [] },
    comments: [
      `Payout above target of ${basics.security}: performance event ${payout.event.id === undefined ? "(no id)" : quoted(payout.event.id)} vested ${payout.event.vestedQuantity} on ${payout.date} against a target of ${payout.target} (maxQuantity ${payout.event.maxQuantity ?? "not reported"}); the grant vests the target, and these ${payout.quantity} are what it paid above it. Fully vested: they vested when issued.`,
    ],
  };
}

/**
 * Which security each settlement releases from when the grant has payouts (see the module comment):
 * the settlements for the grant's own chain (a settlement's release cut to what is left for the
 * grant's own security), and the releases on the payouts (with the shares delivered, when nothing of
 * the settlement is left for the grant's own security). Without payouts, the settlements as they are.
 * The parts of a settlement are written through `ctx` at the settlement's `releaseQuantity`: they are
 * differences of its gross and the payouts' excesses, both already checked, and so fit.
 */
export function splitReleases(ctx: RecordContext, settlements: readonly MappedSettlement[], payouts: readonly Payout[]): { own: MappedSettlement[]; onPayouts: OcfTransaction[] } {
  if (payouts.length === 0) return { own: [...settlements], onPayouts: [] };
  const payoutLeft = new Map(payouts.map((p) => [p, p.excess]));
  const own: MappedSettlement[] = [];
  const onPayouts: OcfTransaction[] = [];
  for (const s of settlements) {
    let rest = s.gross;
    const parts: { security: string; quantity: DecimalString }[] = [];
    for (const p of payouts) {
      if (rest.isZero() || p.date > s.date) continue;
      const left = payoutLeft.get(p) ?? ZERO;
      const take = rest.lte(left) ? rest : left;
      if (take.isZero()) continue;
      payoutLeft.set(p, left.minus(take));
      rest = rest.minus(take);
      parts.push({ security: p.security, quantity: ctx.numeric(take, s.path) });
    }
    if (parts.length === 0) {
      own.push(s);
      continue;
    }
    const restText = ctx.numeric(rest, s.path);
    const from = [...parts.map((p) => `${p.quantity} from ${p.security}`), ...(rest.isZero() ? [] : [`${restText} from ${s.release.security_id}`])];
    const comments = [...(s.release.comments ?? []), `Settlement ${s.n} released ${s.grossText} units in all: ${from.join(", ")} (the payouts above target first: they are vested).`];
    parts.forEach((part, i) => {
      const resulting = i === 0 ? s.release.resulting_security_ids : [];
      onPayouts.push({ ...s.release, id: txIds.release(part.security, s.n), security_id: part.security, quantity: part.quantity, resulting_security_ids: resulting, comments });
    });
    onPayouts.push(...s.issuances);
    // What is left is released from the grant's own chain, with no share of its own to name.
    if (!rest.isZero()) own.push({ ...s, gross: rest, grossText: restText, issuances: [], release: { ...s.release, quantity: restText, resulting_security_ids: [], comments } });
  }
  return { own, onPayouts };
}
