/**
 * SHA-1 of a short string, only as far as flag bucketing needs it: the first 60 bits of the
 * digest. Evaluating a request hashes once per flag (twice for variants), and node:crypto's
 * per-call cost (a native call, a hex string, two parseInts) was the largest single item of a
 * /flags request; this stays in JavaScript and returns the number directly. Equality with
 * node:crypto is tested on random input.
 */

// The padded message as big-endian 32-bit words, written straight from the characters: no byte
// buffer to fill and reassemble. Grown for long input, never shrunk.
let words = new Int32Array(64);
const H = new Int32Array(5);
let scratch = new Uint8Array(256);

/** ORs byte `value` into message byte `p` (big-endian within its word). */
function putByte(p: number, value: number): void {
  words[p >> 2] |= value << (24 - ((p & 3) << 3));
}

/**
 * ORs the characters of `text` into the message from byte `at` on; the new end, or -1 when
 * `text` holds a non-ASCII character (the caller then encodes the whole input as UTF-8).
 */
function append(text: string, at: number): number {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return -1;
    putByte(at + i, c);
  }
  return at + n;
}

/** The message from its UTF-8 bytes (any text); the byte length. */
function appendUtf8(text: string): number {
  if (text.length * 3 > scratch.length) scratch = new Uint8Array(text.length * 3 + 64);
  const length = Buffer.from(scratch.buffer, scratch.byteOffset, scratch.length).write(text, 0, 'utf8');
  for (let p = 0; p < length; p++) putByte(p, scratch[p]);
  return length;
}

/**
 * The compression function, unrolled: 80 rounds written out, the message schedule in 16 locals
 * and the five working variables renamed round by round instead of shifted. Written by a loop
 * (below) rather than by hand; as straight-line code it runs ~1.5x faster than the looped form,
 * and hashing was half of a 50-flag evaluation.
 */
function unrolledCompression(): (h: Int32Array, message: Int32Array, offset: number) => void {
  const K = ['0x5a827999', '0x6ed9eba1', '-0x70e44324', '-0x359d3e2a'];
  const names = ['a', 'b', 'c', 'd', 'e'];
  let rounds = '';
  for (let t = 0; t < 80; t++) {
    const w = `w${t & 15}`;
    rounds +=
      t < 16
        ? `${w} = M[o + ${t}];\n`
        : `x = w${(t + 13) & 15} ^ w${(t + 8) & 15} ^ w${(t + 2) & 15} ^ ${w}; ${w} = (x << 1) | (x >>> 31);\n`;
    // Round t's (a, b, c, d, e) are the names shifted t places: e takes the new value, b is rotated.
    const [a, b, c, d, e] = [0, 1, 2, 3, 4].map((i) => names[(i - (t % 5) + 5) % 5]);
    const f =
      t < 20 ? `((${b} & ${c}) | (~${b} & ${d}))` : t >= 40 && t < 60 ? `((${b} & ${c}) | (${b} & ${d}) | (${c} & ${d}))` : `(${b} ^ ${c} ^ ${d})`;
    rounds += `${e} = (((${a} << 5) | (${a} >>> 27)) + ${f} + ${e} + ${K[Math.floor(t / 20)]} + ${w}) | 0; ${b} = (${b} << 30) | (${b} >>> 2);\n`;
  }
  // 80 is a multiple of 5: after the last round every name holds its own variable again.
  const body = `let a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], x = 0;
    let ${Array.from({ length: 16 }, (_, i) => `w${i} = 0`).join(', ')};
    ${rounds}
    H[0] = (H[0] + a) | 0; H[1] = (H[1] + b) | 0; H[2] = (H[2] + c) | 0; H[3] = (H[3] + d) | 0; H[4] = (H[4] + e) | 0;`;
  return new Function('H', 'M', 'o', body) as (h: Int32Array, message: Int32Array, offset: number) => void;
}
const compress = unrolledCompression();

/**
 * The digest's first 60 bits of the concatenation `a + b + c + d`, as an exact integer-valued double
 * (h0 * 2^28 + the top 28 bits of h1). Taking the parts apart saves the caller building (and this
 * function flattening) a joined string per hash.
 */
export function sha1First60Bits(a: string, b = '', c = '', d = ''): number {
  const chars = a.length + b.length + c.length + d.length;
  // Up to 3 UTF-8 bytes per UTF-16 unit, plus padding and length: the words that could be needed.
  const capacity = ((chars * 3 + 72) >> 6) * 16 + 16;
  if (capacity > words.length) words = new Int32Array(capacity);
  // Only the blocks this input can touch need clearing.
  words.fill(0, 0, (((chars + 8) >> 6) + 1) * 16);
  let length = append(a, 0);
  if (length >= 0) length = append(b, length);
  if (length >= 0) length = append(c, length);
  if (length >= 0) length = append(d, length);
  if (length < 0) {
    words.fill(0, 0, capacity);
    length = appendUtf8(a + b + c + d);
  }
  const total = ((((length + 8) >>> 6) + 1) * 64) >> 2;
  putByte(length, 0x80);
  // Inputs here are far below 2^32 bits: the high length word stays zero.
  words[total - 1] = length * 8;
  H[0] = 0x67452301;
  H[1] = 0xefcdab89 | 0;
  H[2] = 0x98badcfe | 0;
  H[3] = 0x10325476;
  H[4] = 0xc3d2e1f0 | 0;
  for (let block = 0; block < total; block += 16) compress(H, words, block);
  return (H[0] >>> 0) * 268435456 + (H[1] >>> 4);
}
