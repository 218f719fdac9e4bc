/**
 * lz-string's `decompressFromBase64`, re-implemented so the output can be capped while it is
 * produced. LZ output grows quadratically in the number of codes, so a small body can expand
 * to terabytes: the library itself has no limit, hence this version.
 *
 * Output and failure cases match the library: `null` for corrupt input, `''` for input that
 * ends before its end marker.
 */
export class Lz64TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`lz64 output exceeds ${limit} code units`);
    this.name = 'Lz64TooLarge';
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
const SIX_BIT_VALUE = new Map<string, number>([...ALPHABET].map((ch, i) => [ch, i]));

/** Reads the input as a little-endian bit stream, 6 bits per base64 character, MSB first. */
class BitReader {
  private value: number;
  private mask = 32;
  index = 1;

  constructor(private readonly input: string) {
    this.value = this.sixBits(0);
  }

  read(bitCount: number): number {
    let bits = 0;
    for (let power = 1, n = 0; n < bitCount; n += 1, power *= 2) {
      const bit = this.value & this.mask;
      this.mask >>= 1;
      if (this.mask === 0) {
        this.mask = 32;
        this.value = this.sixBits(this.index);
        this.index += 1;
      }
      if (bit > 0) bits += power;
    }
    return bits;
  }

  private sixBits(position: number): number {
    // Unknown characters count as zero bits, as in the library.
    return SIX_BIT_VALUE.get(this.input.charAt(position)) ?? 0;
  }
}

const LITERAL_8 = 0;
const LITERAL_16 = 1;
const END = 2;

export function lz64Decompress(input: string, maxCodeUnits: number): string | null {
  if (input === '') return null;
  const reader = new BitReader(input);
  const dictionary: string[] = ['', '', ''];
  let enlargeIn = 4;
  let numBits = 3;

  const first = reader.read(2);
  if (first === END) return '';
  if (first !== LITERAL_8 && first !== LITERAL_16) return null;
  const firstChar = String.fromCharCode(reader.read(first === LITERAL_8 ? 8 : 16));
  dictionary[3] = firstChar;
  let previous = firstChar;
  const output: string[] = [firstChar];
  let produced = 1;

  for (;;) {
    if (reader.index > input.length) return '';
    let code = reader.read(numBits);
    if (code === LITERAL_8 || code === LITERAL_16) {
      dictionary.push(String.fromCharCode(reader.read(code === LITERAL_8 ? 8 : 16)));
      code = dictionary.length - 1;
      enlargeIn -= 1;
    } else if (code === END) {
      return output.join('');
    }
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits += 1;
    }

    let entry: string;
    if (code < dictionary.length && dictionary[code] !== '') entry = dictionary[code];
    else if (code === dictionary.length) entry = previous + previous.charAt(0);
    else return null;

    produced += entry.length;
    if (produced > maxCodeUnits) throw new Lz64TooLarge(maxCodeUnits);
    output.push(entry);

    dictionary.push(previous + entry.charAt(0));
    enlargeIn -= 1;
    previous = entry;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits += 1;
    }
  }
}
