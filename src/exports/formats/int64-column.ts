const TWO_32 = 4294967296;

/**
 * A nullable 64-bit integer column filled from JS numbers without allocating a BigInt per row:
 * values are written as little-endian 32-bit halves into the buffer Arrow will read as int64.
 * Safe for |v| < 2^53, which covers microsecond timestamps until the year 2255.
 */
export class Int64Column {
  private words = new Uint32Array(2048);
  private validity = new Uint8Array(128);
  length = 0;
  nullCount = 0;

  push(value: number | null): void {
    if (this.length * 2 >= this.words.length) this.grow();
    const i = this.length++;
    if (value === null) {
      this.nullCount++;
      return;
    }
    const hi = Math.floor(value / TWO_32);
    this.words[2 * i] = value - hi * TWO_32;
    this.words[2 * i + 1] = hi >>> 0;
    this.validity[i >> 3] |= 1 << (i & 7);
  }

  /** Hands the filled buffers over; the column starts empty again. */
  take(): { values: BigInt64Array; nullBitmap: Uint8Array | undefined; nullCount: number; length: number } {
    const taken = {
      values: new BigInt64Array(this.words.buffer, 0, this.length),
      nullBitmap: this.nullCount > 0 ? this.validity.subarray(0, (this.length + 7) >> 3) : undefined,
      nullCount: this.nullCount,
      length: this.length,
    };
    this.words = new Uint32Array(this.words.length);
    this.validity = new Uint8Array(this.validity.length);
    this.length = 0;
    this.nullCount = 0;
    return taken;
  }

  private grow(): void {
    const words = new Uint32Array(this.words.length * 2);
    words.set(this.words);
    this.words = words;
    const validity = new Uint8Array(this.validity.length * 2);
    validity.set(this.validity);
    this.validity = validity;
  }
}
