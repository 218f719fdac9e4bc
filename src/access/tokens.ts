import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function base62(length: number): string {
  // Rejection sampling keeps every character equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export const newProjectToken = () => `phc_${base62(43)}`;
export const newPersonalKey = () => `phx_${base62(47)}`;

/** Keys are long random strings, so one sha256 is enough to make the stored value useless to a thief. */
export const hashKey = (key: string) => `sha256$${createHash('sha256').update(key).digest('hex')}`;

export const maskKey = (key: string) => `${key.slice(0, 4)}...${key.slice(-4)}`;
