/**
 * What a streaming check keeps of every security of a package, in typed arrays: its issuance (kind,
 * date, quantity, vesting terms, where it is) and its chain state between transactions
 * (`security-ledger.ts`). Strings that many securities share (kinds, dates, quantities, file names)
 * are stored once and referred to by number; security ids live in a `StringIndex`. A security costs
 * a few dozen bytes instead of the several hundred a `Map` of objects would, so that checking a
 * package's lineage takes memory that barely grows with the package.
 */
import type { CalendarDate } from "../dates.js";
import type { DecimalString } from "../decimal.js";
import { SecurityChain, freshChainState, type ChainEnd, type ChainState, type LedgerIssuance, type Lineage } from "./security-ledger.js";
import { StringIndex } from "./string-index.js";

/** One number for each distinct string. */
class Codes {
  private readonly byValue = new Map<string, number>();
  private readonly values: string[] = [];
  code(value: string): number {
    let code = this.byValue.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.byValue.set(value, code);
      this.values.push(value);
    }
    return code;
  }
  value(code: number): string {
    return this.values[code] as string;
  }
}

const OVER_CONSUMED = 1;
const OVER_RETURNED = 2;
const DAY_ACTED = 4;
const DAY_ENDED = 8;

/** An issuance as the table gives it back, with where it is. */
export interface TabledIssuance extends LedgerIssuance {
  readonly vestingTermsId: string | undefined;
  readonly file: string;
  readonly itemIndex: number;
}

/** What `add` takes of an issuance. */
export interface IssuanceFields {
  type: string;
  date?: CalendarDate | undefined;
  quantity?: DecimalString | undefined;
  vestingTermsId?: string | undefined;
  /** Packed by `vestingSchedule`. */
  vestings?: string | undefined;
  file: string;
  itemIndex: number;
}

/** A security's issuance as the table holds it, each field read when asked for. */
class IssuanceView implements TabledIssuance {
  constructor(
    private readonly table: SecurityTable,
    private readonly index: number,
  ) {}
  get securityId(): string {
    return this.table.securityIdAt(this.index);
  }
  get type(): string {
    return this.table.field("type", this.index) as string;
  }
  get date(): CalendarDate | undefined {
    return this.table.optional("date", this.index) as CalendarDate | undefined;
  }
  get quantity(): DecimalString | undefined {
    return this.table.optional("quantity", this.index);
  }
  get vestingTermsId(): string | undefined {
    return this.table.optional("terms", this.index);
  }
  /** The tranches not walked yet (see `SecurityTable`); a chain that starts again needs the issuance's own. */
  get vestings(): string | undefined {
    return this.table.vestingsOf(this.index);
  }
  get file(): string {
    return this.table.field("file", this.index) as string;
  }
  get itemIndex(): number {
    return this.table.field("item", this.index) as number;
  }
}

export class SecurityTable {
  private readonly ids = new StringIndex();
  private readonly codes = new Codes();
  private capacity = 1024;
  // Issuance. Optional strings are stored as code + 1, 0 meaning absent.
  private type = new Uint32Array(this.capacity);
  private date = new Uint32Array(this.capacity);
  private quantity = new Uint32Array(this.capacity);
  private terms = new Uint32Array(this.capacity);
  private file = new Uint32Array(this.capacity);
  private item = new Uint32Array(this.capacity);
  /** Chain state, only for securities that have had a transaction: slot + 1 per security, 0 for none. */
  private chainSlot = new Uint32Array(this.capacity);
  private chains = 0;
  private chainCapacity = 256;
  private flags = new Uint8Array(this.chainCapacity);
  private lastDate = new Uint32Array(this.chainCapacity);
  private lastRank = new Uint8Array(this.chainCapacity);
  private used = new Uint32Array(this.chainCapacity);
  private returnable = new Uint32Array(this.chainCapacity);
  private returned = new Uint32Array(this.chainCapacity);
  // Of a security with `vestings`: released so far and vested so far (codes).
  private released = new Uint32Array(this.chainCapacity);
  private vested = new Uint32Array(this.chainCapacity);
  private readonly ends = new Map<number, ChainEnd>();
  /**
   * The `vestings` of the equity compensation issuances that have them (a release is checked against
   * them), by security index, in `vestingSchedule`'s short form: the tranches not walked yet (a chain
   * walks them as its releases come, and `save` keeps what is left: `""` once they all are).
   */
  private readonly vestings = new Map<number, string>();

  get size(): number {
    return this.ids.size;
  }

  /** The index of the security, or -1. */
  indexOf(securityId: string): number {
    return this.ids.indexOf(securityId);
  }

  has(securityId: string): boolean {
    return this.ids.has(securityId);
  }

  /** Adds a security by its first issuance; `undefined` when it is already there (a second issuance). */
  add(securityId: string, fields: IssuanceFields): number | undefined {
    const before = this.ids.size;
    const index = this.ids.add(securityId);
    if (index < before) return undefined;
    if (index >= this.capacity) this.grow();
    const optional = (value: string | undefined): number => (value === undefined ? 0 : this.codes.code(value) + 1);
    this.type[index] = this.codes.code(fields.type);
    this.date[index] = optional(fields.date);
    this.quantity[index] = optional(fields.quantity);
    this.terms[index] = optional(fields.vestingTermsId);
    this.file[index] = this.codes.code(fields.file);
    this.item[index] = fields.itemIndex;
    if (fields.vestings !== undefined) this.vestings.set(index, fields.vestings);
    return index;
  }

  /** The issuance of security `index`, read from the table as it is asked for (its id is decoded only for a message). */
  issuance(index: number): TabledIssuance {
    return new IssuanceView(this, index);
  }

  /** @internal for `IssuanceView` */
  securityIdAt(index: number): string {
    return this.ids.keyAt(index);
  }

  /** @internal for `IssuanceView` */
  field(name: "type" | "file" | "item", index: number): string | number {
    if (name === "item") return this.item[index] as number;
    return this.codes.value((name === "type" ? this.type : this.file)[index] as number);
  }

  /** @internal for `IssuanceView`: an optional string field. */
  optional(name: "date" | "quantity" | "terms", index: number): string | undefined {
    const code = (name === "date" ? this.date : name === "quantity" ? this.quantity : this.terms)[index] as number;
    return code === 0 ? undefined : this.codes.value(code - 1);
  }

  /** @internal for `IssuanceView` */
  vestingsOf(index: number): string | undefined {
    return this.vestings.get(index);
  }

  /** The quantity issued of security `index`, when valid. */
  quantityOf(index: number): DecimalString | undefined {
    const code = this.quantity[index] as number;
    return code === 0 ? undefined : this.codes.value(code - 1);
  }

  /** The chain of security `index`, in the state its transactions so far left it. Call `save` after applying. */
  chain(index: number, reading: Lineage): SecurityChain {
    const slot = (this.chainSlot[index] as number) - 1;
    let state: ChainState;
    if (slot < 0) state = freshChainState();
    else {
      const flags = this.flags[slot] as number;
      state = {
        lastDate: this.codes.value(this.lastDate[slot] as number),
        lastRank: (this.lastRank[slot] as number) - 1,
        used: this.codes.value(this.used[slot] as number),
        returnable: this.codes.value(this.returnable[slot] as number),
        returned: this.codes.value(this.returned[slot] as number),
        overConsumed: (flags & OVER_CONSUMED) !== 0,
        overReturned: (flags & OVER_RETURNED) !== 0,
        end: this.ends.get(index),
        dayActed: (flags & DAY_ACTED) !== 0,
        dayEnded: (flags & DAY_ENDED) !== 0,
        released: this.codes.value(this.released[slot] as number),
        vested: this.codes.value(this.vested[slot] as number),
        toVest: undefined,
      };
    }
    return new SecurityChain(this.issuance(index), reading, state);
  }

  save(index: number, chain: SecurityChain): void {
    const { state } = chain;
    let slot = (this.chainSlot[index] as number) - 1;
    if (slot < 0) {
      if (this.chains === this.chainCapacity) this.growChains();
      slot = this.chains++;
      this.chainSlot[index] = slot + 1;
    }
    this.flags[slot] =
      (state.overConsumed ? OVER_CONSUMED : 0) | (state.overReturned ? OVER_RETURNED : 0) | (state.dayActed ? DAY_ACTED : 0) | (state.dayEnded ? DAY_ENDED : 0);
    this.lastDate[slot] = this.codes.code(state.lastDate);
    this.lastRank[slot] = state.lastRank + 1;
    this.used[slot] = this.codes.code(state.used);
    this.returnable[slot] = this.codes.code(state.returnable);
    this.returned[slot] = this.codes.code(state.returned);
    this.released[slot] = this.codes.code(state.released);
    this.vested[slot] = this.codes.code(state.vested);
    if (state.toVest !== undefined) this.vestings.set(index, state.toVest);
    if (state.end !== undefined) this.ends.set(index, state.end);
  }

  private grow(): void {
    const capacity = Math.ceil(this.capacity * 1.5);
    this.type = grown(this.type, capacity);
    this.date = grown(this.date, capacity);
    this.quantity = grown(this.quantity, capacity);
    this.terms = grown(this.terms, capacity);
    this.file = grown(this.file, capacity);
    this.item = grown(this.item, capacity);
    this.chainSlot = grown(this.chainSlot, capacity);
    this.capacity = capacity;
  }

  private growChains(): void {
    const capacity = Math.ceil(this.chainCapacity * 1.5);
    this.flags = grown(this.flags, capacity);
    this.lastDate = grown(this.lastDate, capacity);
    this.lastRank = grown(this.lastRank, capacity);
    this.used = grown(this.used, capacity);
    this.returnable = grown(this.returnable, capacity);
    this.returned = grown(this.returned, capacity);
    this.released = grown(this.released, capacity);
    this.vested = grown(this.vested, capacity);
    this.chainCapacity = capacity;
  }
}

/** A copy of `array` with room for `capacity` entries. */
function grown<T extends Uint32Array | Uint8Array>(array: T, capacity: number): T {
  const copy = new (array.constructor as new (length: number) => T)(capacity);
  copy.set(array);
  return copy;
}
