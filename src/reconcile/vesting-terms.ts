/**
 * What a VestingTerms relative trigger and allocation type mean in dates and whole shares (ocf-1.2.0.md
 * §6.7 and §8; OCF `enums/AllocationType`, `types/vesting/VestingPeriodInMonths`): calendar arithmetic on
 * `YYYY-MM-DD` strings (no `Date`, no time zone) and the rounding of tranches a `portion` gives.
 */
import { daysInMonth, type CalendarDate } from "../dates.js";
import { Dec } from "../decimal.js";

/** A tranche of a walked schedule; `portion` when its amount is a portion of the grant (rounded by the allocation type). */
export interface WalkedTranche {
  date: CalendarDate;
  amount: Dec;
  portion: boolean;
}

function parts(date: CalendarDate): [number, number, number] {
  return [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))];
}

function formatDate(year: number, month: number, day: number): CalendarDate {
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): CalendarDate {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return formatDate(era * 400 + yoe + (month <= 2 ? 1 : 0), month, day);
}

/**
 * The dates a relative trigger fires on: `occurrences` times, every `length` days or calendar months
 * after `base` (the date the condition it is relative to fired). Months land on the `day_of_month` the
 * period names (`"01"`…`"28"`, `"29_OR_LAST_DAY_OF_MONTH"`, …, `"VESTING_START_DAY_OR_LAST_DAY_OF_MONTH"`:
 * the vesting start's day, or the month's last day when it has fewer). `undefined` for a period it
 * cannot read.
 */
export function relativeDates(period: Readonly<Record<string, unknown>>, base: CalendarDate, vestingStart: CalendarDate): CalendarDate[] | undefined {
  const { length, occurrences, type } = period;
  if (typeof length !== "number" || !Number.isInteger(length) || length < 0) return undefined;
  if (typeof occurrences !== "number" || !Number.isInteger(occurrences) || occurrences < 1 || occurrences > 100_000) return undefined;
  const [year, month, day] = parts(base);
  const dates: CalendarDate[] = [];
  if (type === "DAYS") {
    const from = daysFromCivil(year, month, day);
    for (let k = 1; k <= occurrences; k++) dates.push(civilFromDays(from + k * length));
    return dates;
  }
  if (type !== "MONTHS") return undefined;
  const wanted = dayOfMonth(period.day_of_month, parts(vestingStart)[2]);
  if (wanted === undefined) return undefined;
  for (let k = 1; k <= occurrences; k++) {
    const index = year * 12 + (month - 1) + k * length;
    const y = Math.floor(index / 12);
    const m = (index % 12) + 1;
    dates.push(formatDate(y, m, Math.min(wanted, daysInMonth(y, m))));
  }
  return dates;
}

/** The day a month period lands on before it is cut to the month's length. */
function dayOfMonth(rule: unknown, startDay: number): number | undefined {
  if (rule === "VESTING_START_DAY_OR_LAST_DAY_OF_MONTH") return startDay;
  if (typeof rule !== "string") return undefined;
  const fixed = /^(0[1-9]|1[0-9]|2[0-8])$/.exec(rule);
  if (fixed !== null) return Number(fixed[1]);
  const orLast = /^(29|30|31)_OR_LAST_DAY_OF_MONTH$/.exec(rule);
  return orLast === null ? undefined : Number(orLast[1]);
}

/**
 * The tranches with the amounts that portions give rounded to whole shares as `allocationType` says
 * (OCF's example, 18 shares in 4 tranches: cumulative rounding 5-4-5-4, cumulative round down 4-5-4-5,
 * front loaded 5-5-4-4, back loaded 4-4-5-5, front loaded to a single tranche 6-4-4-4, back loaded to
 * a single tranche 4-4-4-6, fractional 4.5 each). Fixed quantities are exact and left as they are;
 * an allocation type it does not know leaves everything exact.
 */
export function allocate(tranches: readonly WalkedTranche[], allocationType: unknown): WalkedTranche[] {
  // A portion such as 1/48 is cut at Dec's 200 significant digits: 250 + 3 × 1000/48 comes out as
  // 312.4999…, not 312.5. Settled to 100 places it is exact again (a fraction of small terms is a
  // half or a whole exactly, or far from one), so rounding and flooring see the true value.
  const settle = (d: Dec): Dec => d.toDecimalPlaces(100, Dec.ROUND_HALF_EVEN);
  const out = tranches.map((t) => ({ ...t }));
  const portions = out.filter((t) => t.portion);
  if (portions.length === 0) return out;
  if (allocationType === "CUMULATIVE_ROUNDING" || allocationType === "CUMULATIVE_ROUND_DOWN") {
    const round = (d: Dec): Dec => (allocationType === "CUMULATIVE_ROUNDING" ? d.toDecimalPlaces(0, Dec.ROUND_HALF_UP) : d.floor());
    let exact = new Dec(0);
    let given = new Dec(0);
    for (const t of portions) {
      exact = exact.plus(t.amount);
      const upTo = round(settle(exact));
      t.amount = upTo.minus(given);
      given = upTo;
    }
    return out;
  }
  const loaded = ["FRONT_LOADED", "BACK_LOADED", "FRONT_LOADED_TO_SINGLE_TRANCHE", "BACK_LOADED_TO_SINGLE_TRANCHE"];
  if (typeof allocationType !== "string" || !loaded.includes(allocationType)) return out;
  const total = settle(portions.reduce((sum, t) => sum.plus(t.amount), new Dec(0)));
  for (const t of portions) t.amount = settle(t.amount).floor();
  let left = total.minus(portions.reduce((sum, t) => sum.plus(t.amount), new Dec(0)));
  const order = allocationType.startsWith("FRONT") ? portions : [...portions].reverse();
  if (allocationType.endsWith("SINGLE_TRANCHE")) {
    const first = order[0] as WalkedTranche;
    first.amount = first.amount.plus(left);
    return out;
  }
  for (const t of order) {
    if (left.lt(1)) break;
    t.amount = t.amount.plus(1);
    left = left.minus(1);
  }
  // A fraction left over (a schedule whose portions do not add up to whole shares) stays on the first tranche in order.
  if (!left.isZero()) (order[0] as WalkedTranche).amount = (order[0] as WalkedTranche).amount.plus(left);
  return out;
}
