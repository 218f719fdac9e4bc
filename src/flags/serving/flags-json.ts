import { flagDetail } from '../responses';
import type { EvaluateAllResult, FlagEvaluation } from '../types';

// A flag's detail for one outcome never changes while its version does not, and a flag has few
// outcomes (variants x reasons), so each `"key":{...}` fragment is serialised once and reused. The
// outcome is looked up by parts (served value, reason code, condition index), each an interned
// string or a small number, so a lookup builds no key string. The reason's description follows
// from its code and index, the payload from the flag's version and the variant.
type ByReason = Map<string, (Buffer | undefined)[]>;
interface Outcomes {
  version: number;
  off: ByReason;
  on: ByReason;
  variants: Map<string, ByReason>;
}
const byFlag = new Map<number, Outcomes>();
const MAX_FLAGS = 20_000;

function fragment(e: FlagEvaluation): Buffer {
  let flag = byFlag.get(e.id);
  if (flag === undefined || flag.version !== e.version) {
    if (byFlag.size >= MAX_FLAGS) byFlag.clear();
    byFlag.set(e.id, (flag = { version: e.version, off: new Map(), on: new Map(), variants: new Map() }));
  }
  let byReason: ByReason | undefined;
  if (!e.enabled) byReason = flag.off;
  else if (e.variant === null) byReason = flag.on;
  else if ((byReason = flag.variants.get(e.variant)) === undefined) flag.variants.set(e.variant, (byReason = new Map()));
  let byCondition = byReason.get(e.reason.code);
  if (byCondition === undefined) byReason.set(e.reason.code, (byCondition = []));
  const slot = e.reason.condition_index === null ? 0 : e.reason.condition_index + 1;
  return (byCondition[slot] ??= Buffer.from(`${JSON.stringify(e.key)}:${JSON.stringify(flagDetail(e))}`));
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
