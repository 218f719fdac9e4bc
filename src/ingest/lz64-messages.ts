/** Between the event loop and an lz64 thread (see lz64-thread.ts). */
export interface ToLz64Thread {
  id: number;
  text: string;
  maxBytes: number;
}

export type FromLz64Thread =
  | { id: number; ok: true; bytes: Uint8Array }
  | { id: number; ok: false; reason: 'too_large' | 'corrupt' }
  | { id: number; ok: false; reason: 'failed'; detail: string };
