import { repairBase64 } from './base64';
import { Lz64TooLarge, lz64Decompress } from './lz64';

/** What inflating an lz64 body gives, on whichever thread it ran. */
export type Lz64Outcome = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'corrupt' };

/**
 * lz-string's base64 text (as clients send it, `+` possibly turned into spaces) to the JSON text,
 * stopping once the output passes `maxBytes`. Shared by the inline path and the lz64 thread so
 * both refuse exactly the same inputs.
 */
export function inflateLz64Text(text: string, maxBytes: number): Lz64Outcome {
  let inflated: string | null;
  try {
    inflated = lz64Decompress(repairBase64(text), maxBytes);
  } catch (error) {
    if (error instanceof Lz64TooLarge) return { ok: false, reason: 'too_large' };
    throw error;
  }
  if (inflated === null || inflated === '') return { ok: false, reason: 'corrupt' };
  // The cap counted UTF-16 units; UTF-8 can be longer, and the limit is in bytes.
  if (Buffer.byteLength(inflated) > maxBytes) return { ok: false, reason: 'too_large' };
  return { ok: true, text: inflated };
}
