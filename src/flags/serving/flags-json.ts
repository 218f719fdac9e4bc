import { flagDetail } from '../responses';
import type { EvaluateAllResult, FlagEvaluation } from '../types';

// Evaluations are shared objects, one per flag and outcome (see evaluate.ts), so each `"key":{...}`
// fragment is serialised once per evaluation object and reused while the flag is unchanged.
const fragments = new WeakMap<FlagEvaluation, string>();

function fragment(e: FlagEvaluation): string {
  let text = fragments.get(e);
  if (text === undefined) {
    text = `${JSON.stringify(e.key)}:${JSON.stringify(flagDetail(e))}`;
    fragments.set(e, text);
  }
  return text;
}

/**
 * The `/flags` v2 body (without the config block) as JSON text, equal to
 * `JSON.stringify(flagsResponse(result, 2, {requestId}))`: the hot path's answer without building and
 * serialising a 50-entry object per request, joined from fragments serialised once.
 *
 * Text, not bytes: the socket encodes it as it writes, as it does any route's JSON. An ~11 KB Buffer
 * per answer (even cut from a shared slab) is memory outside the JavaScript heap, and with the
 * young generation `npm start` gives the heap, the thousands of answers between two scavenges
 * added up to enough of it for V8 to start full collections, in bursts, under load.
 */
export function flagsV2Body(result: EvaluateAllResult, requestId: string): string {
  const list = result.list ?? Object.values(result.flags);
  let body = '{"flags":{';
  for (let i = 0; i < list.length; i++) body += i ? `,${fragment(list[i])}` : fragment(list[i]);
  return `${body}},"errorsWhileComputingFlags":${result.errorsWhileComputingFlags},"requestId":${JSON.stringify(requestId)}}`;
}
