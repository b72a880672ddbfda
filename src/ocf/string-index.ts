/**
 * An exact, compact set of strings that numbers its members 0, 1, 2, … in the order they are added:
 * the keys live as UTF-8 bytes in one growing buffer and the hash table in typed arrays, so a member
 * costs its bytes plus about 16 bytes, and no JavaScript object. For what a streaming check must
 * remember of every object of a package (ids, security ids), where a `Map` of strings would cost
 * five to ten times as much and make memory grow with the package.
 */

const EMPTY = 0;

/** A string with a lone surrogate has no UTF-8 form (TextEncoder would write U+FFFD for it, merging distinct strings). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** FNV-1a over UTF-16 code units, 32 bits. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function grown<T extends Uint8Array | Uint32Array>(array: T, needed: number): T {
  if (needed <= array.length) return array;
  let length = array.length;
  while (length < needed) length = Math.ceil(length * 1.5) + 16;
  const copy = new (array.constructor as new (length: number) => T)(length);
  copy.set(array);
  return copy;
}

export class StringIndex {
  private bytes = new Uint8Array(1 << 12);
  private used = 0;
  /** Where each member's bytes end (they start where the previous one's end). */
  private ends = new Uint32Array(256);
  private hashes = new Uint32Array(256);
  /** Open addressing, linear probing: member index + 1, or EMPTY. */
  private slots = new Uint32Array(512);
  private scratch = new Uint8Array(256);
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  /** Members without a UTF-8 form (lone surrogates): rare, kept as they are. */
  private readonly odd = new Map<string, number>();
  private readonly oddKeys = new Map<number, string>();
  /** Number of members. */
  size = 0;

  /** The index of `key`, or -1 when it is not a member. */
  indexOf(key: string): number {
    if (LONE_SURROGATE.test(key)) return this.odd.get(key) ?? -1;
    return this.find(hashOf(key), this.encode(key));
  }

  has(key: string): boolean {
    return this.indexOf(key) !== -1;
  }

  /** Adds `key` if it is not a member; returns its index either way. */
  add(key: string): number {
    if (LONE_SURROGATE.test(key)) return this.addOdd(key);
    const hash = hashOf(key);
    const length = this.encode(key);
    const existing = this.find(hash, length);
    if (existing !== -1) return existing;
    if ((this.size + 1) * 4 > this.slots.length * 3) this.rehash();
    const index = this.size++;
    this.bytes = grown(this.bytes, this.used + length);
    this.bytes.set(this.scratch.subarray(0, length), this.used);
    this.used += length;
    this.ends = grown(this.ends, this.size);
    this.hashes = grown(this.hashes, this.size);
    this.ends[index] = this.used;
    this.hashes[index] = hash;
    this.place(index, this.slots);
    return index;
  }

  private addOdd(key: string): number {
    const existing = this.odd.get(key);
    if (existing !== undefined) return existing;
    // Numbered like the others, with no bytes and no slot.
    const index = this.size++;
    this.ends = grown(this.ends, this.size);
    this.hashes = grown(this.hashes, this.size);
    this.ends[index] = this.used;
    this.odd.set(key, index);
    this.oddKeys.set(index, key);
    return index;
  }

  /** The index of the member whose bytes are in the scratch buffer, or -1. */
  private find(hash: number, length: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const found = this.slots[slot] as number;
      if (found === EMPTY) return -1;
      if (this.hashes[found - 1] === hash && this.equals(found - 1, length)) return found - 1;
    }
  }

  private place(index: number, slots: Uint32Array): void {
    const mask = slots.length - 1;
    let slot = (this.hashes[index] as number) & mask;
    while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    slots[slot] = index + 1;
  }

  /** The member numbered `index`. */
  keyAt(index: number): string {
    const odd = this.oddKeys.get(index);
    if (odd !== undefined) return odd;
    const start = index === 0 ? 0 : (this.ends[index - 1] as number);
    return this.decoder.decode(this.bytes.subarray(start, this.ends[index]));
  }

  /** Encodes `key` into the scratch buffer; returns its length in bytes. */
  private encode(key: string): number {
    // UTF-8 takes at most three bytes per UTF-16 code unit.
    if (key.length * 3 > this.scratch.length) this.scratch = new Uint8Array(key.length * 3);
    return this.encoder.encodeInto(key, this.scratch).written;
  }

  private equals(index: number, length: number): boolean {
    const start = index === 0 ? 0 : (this.ends[index - 1] as number);
    if ((this.ends[index] as number) - start !== length) return false;
    const { bytes, scratch } = this;
    for (let i = 0; i < length; i++) if (bytes[start + i] !== scratch[i]) return false;
    return true;
  }

  private rehash(): void {
    const slots = new Uint32Array(this.slots.length * 2);
    for (let index = 0; index < this.size; index++) if (!this.oddKeys.has(index)) this.place(index, slots);
    this.slots = slots;
  }
}
