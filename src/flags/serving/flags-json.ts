import { flagDetail } from '../responses';
import type { EvaluateAllResult, FlagEvaluation } from '../types';

// Evaluations are shared objects, one per flag and outcome (see evaluate.ts), so each `"key":{...}`
// fragment is serialised once per evaluation object and reused while the flag is unchanged.
const fragments = new WeakMap<FlagEvaluation, Buffer>();

function fragment(e: FlagEvaluation): Buffer {
  let bytes = fragments.get(e);
  if (bytes === undefined) {
    bytes = Buffer.from(`${JSON.stringify(e.key)}:${JSON.stringify(flagDetail(e))}`);
    fragments.set(e, bytes);
  }
  return bytes;
}

const OPEN = Buffer.from('{"flags":{');
const COMMA = 0x2c;
const SLAB_BYTES = 256 * 1024;

// Answers are cut from a shared slab, as Node's own Buffer pool does for small buffers: an ~11 KB
// answer is past that pool's limit, and one fresh allocation per request was a visible share of a
// request's cost (and of the collector's). A region is never written again once handed out; the
// slab is replaced when full and freed when its last answer is.
let slab = Buffer.allocUnsafe(SLAB_BYTES);
let used = 0;

/**
 * The `/flags` v2 body (without the config block) as UTF-8 JSON, equal to
 * `JSON.stringify(flagsResponse(result, 2, {requestId}))`: the hot path's answer without building and
 * serialising a 50-entry object per request. Fragments are kept encoded, so the answer is one copy
 * of bytes, neither measured nor encoded again on its way to the socket.
 */
export function flagsV2Body(result: EvaluateAllResult, requestId: string): Buffer {
  const list = result.list ?? Object.values(result.flags);
  const parts = list.map(fragment);
  const tail = `},"errorsWhileComputingFlags":${result.errorsWhileComputingFlags},"requestId":${JSON.stringify(requestId)}}`;
  let size = OPEN.length + parts.length + Buffer.byteLength(tail);
  for (const part of parts) size += part.length;
  if (used + size > slab.length) {
    slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, size));
    used = 0;
  }
  const start = used;
  slab.set(OPEN, used);
  used += OPEN.length;
  for (let i = 0; i < parts.length; i++) {
    if (i) slab[used++] = COMMA;
    slab.set(parts[i], used);
    used += parts[i].length;
  }
  used += slab.write(tail, used, 'utf8');
  return slab.subarray(start, used);
}
