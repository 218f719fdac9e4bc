import type { Refusal, SliceOutcome } from './batch-slices';
import type { FormHints, FormOutcome } from './form-body';

/** Between the event loop and a decode thread (see decode-thread.ts): inflate gzip or lz64, slice a large batch, or decode a large form. */
export type ToDecodeThread =
  | { id: number; job: 'gunzip'; bytes: Uint8Array; maxBytes: number }
  | { id: number; job: 'lz64'; text: string; maxBytes: number }
  | { id: number; job: 'slice'; bytes: Uint8Array }
  | { id: number; job: 'form'; bytes: Uint8Array; hints: FormHints };

export type FromDecodeThread =
  | { id: number; ok: true; bytes: Uint8Array }
  | { id: number; ok: false; refusal: Refusal }
  | { id: number; ok: false; reason: 'too_large' | 'corrupt' }
  | { id: number; ok: true; sliced: SliceOutcome }
  | { id: number; ok: true; form: FormOutcome }
  | { id: number; ok: false; reason: 'failed'; detail: string };
