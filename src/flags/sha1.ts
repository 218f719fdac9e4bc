/**
 * SHA-1 of a short string, only as far as flag bucketing needs it: the first 60 bits of the
 * digest. Evaluating a request hashes once per flag (twice for variants), and node:crypto's
 * per-call cost (a native call, a hex string, two parseInts) was the largest single item of a
 * /flags request; this stays in JavaScript and returns the number directly. Equality with
 * node:crypto is tested on random input.
 */
const W = new Int32Array(80);
let bytes = new Uint8Array(256);

/** UTF-8 bytes of `text` into the shared buffer (ASCII inline, the rest through Buffer); the length. */
function encode(text: string): number {
  const n = text.length;
  if (n * 3 + 72 > bytes.length) bytes = new Uint8Array(n * 3 + 72);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).write(text, 0, 'utf8');
    bytes[i] = c;
  }
  return n;
}

const rotl = (x: number, n: number) => (x << n) | (x >>> (32 - n));

/** The digest's first 60 bits as an exact integer-valued double (h0 * 2^28 + the top 28 bits of h1). */
export function sha1First60Bits(text: string): number {
  const length = encode(text);
  const blocks = ((length + 8) >>> 6) + 1;
  const total = blocks * 64;
  bytes.fill(0, length, total);
  bytes[length] = 0x80;
  const bits = length * 8;
  // Inputs here are far below 2^32 bits: the high length word stays zero.
  bytes[total - 4] = bits >>> 24;
  bytes[total - 3] = (bits >>> 16) & 0xff;
  bytes[total - 2] = (bits >>> 8) & 0xff;
  bytes[total - 1] = bits & 0xff;

  let h0 = 0x67452301, h1 = 0xefcdab89 | 0, h2 = 0x98badcfe | 0, h3 = 0x10325476, h4 = 0xc3d2e1f0 | 0;
  for (let block = 0; block < total; block += 64) {
    for (let t = 0; t < 16; t++) {
      const o = block + t * 4;
      W[t] = (bytes[o] << 24) | (bytes[o + 1] << 16) | (bytes[o + 2] << 8) | bytes[o + 3];
    }
    for (let t = 16; t < 80; t++) W[t] = rotl(W[t - 3] ^ W[t - 8] ^ W[t - 14] ^ W[t - 16], 1);
    let a = h0, b = h1, c = h2, d = h3, e = h4;
    // Four loops, one per round function, rather than a branch per step.
    for (let t = 0; t < 20; t++) {
      const temp = (rotl(a, 5) + ((b & c) | (~b & d)) + e + 0x5a827999 + W[t]) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    for (let t = 20; t < 40; t++) {
      const temp = (rotl(a, 5) + (b ^ c ^ d) + e + 0x6ed9eba1 + W[t]) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    for (let t = 40; t < 60; t++) {
      const temp = (rotl(a, 5) + ((b & c) | (b & d) | (c & d)) + e - 0x70e44324 + W[t]) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    for (let t = 60; t < 80; t++) {
      const temp = (rotl(a, 5) + (b ^ c ^ d) + e - 0x359d3e2a + W[t]) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  return (h0 >>> 0) * 268435456 + (h1 >>> 4);
}
