/**
 * A growable list of numbers without boxing, for the per-record tables of the streaming mapper and of
 * the line files it keeps (src/mapping/accumulator.ts, src/io/file-lines.ts).
 */

/** A list of numbers in a typed array that doubles as it fills (4 or 8 bytes a number, no boxing). */
export class NumberList<A extends Float64Array | Int32Array | Uint32Array> {
  private items: A;
  length = 0;

  constructor(private readonly make: (size: number) => A) {
    this.items = make(1024);
  }

  push(value: number): void {
    if (this.length === this.items.length) {
      const grown = this.make(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = value;
  }

  at(index: number): number {
    if (index < 0 || index >= this.length) throw new RangeError(`index ${index} out of 0..${this.length - 1}`);
    return this.items[index] as number;
  }
}
