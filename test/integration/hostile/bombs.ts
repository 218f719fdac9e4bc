import { gzipSync } from 'node:zlib';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * An lz-string base64 body that inflates to about `codes²/2` characters of 'A': one literal, then
 * codes that each name the entry about to be created (previous + its first char), so every code
 * adds one character more than the last. Written bit by bit as lz-string's decoder reads them;
 * compressing 64 MiB with lz-string itself would take minutes.
 */
export function lz64Bomb(codes: number): string {
  const bits: number[] = [];
  const write = (value: number, count: number) => {
    for (let i = 0; i < count; i++) bits.push((value >> i) & 1);
  };
  write(0, 2); // an 8-bit literal
  write(65, 8); // 'A'
  let dictionaryLength = 4;
  let enlargeIn = 4;
  let numBits = 3;
  for (let i = 0; i < codes; i++) {
    write(dictionaryLength, numBits);
    dictionaryLength++;
    enlargeIn--;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  }
  write(2, numBits); // end of stream
  while (bits.length % 6 !== 0) bits.push(0);
  let text = '';
  for (let i = 0; i < bits.length; i += 6) {
    let value = 0;
    for (let j = 0; j < 6; j++) value = (value << 1) | bits[i + j];
    text += ALPHABET[value];
  }
  return `${text}==`;
}

/** `megabytes` MiB of zeros, gzipped (about a thousandth of that). */
export const gzipBomb = (megabytes: number): Buffer => gzipSync(Buffer.alloc(megabytes * 1024 * 1024), { level: 9 });
