import { flagDetail } from '../responses';
import type { EvaluateAllResult, FlagEvaluation } from '../types';

// A flag's detail for one outcome never changes while its version does not, and a flag has few
// outcomes (variants x reasons), so each `"key":{...}` fragment is serialised once and reused. The
// outcome key leaves out what follows from the rest: the reason's description (from its code and
// index) and the payload (from the flag's version and the variant).
const byFlag = new Map<number, { version: number; outcomes: Map<string, string> }>();
const MAX_FLAGS = 20_000;

function fragment(e: FlagEvaluation): string {
  let flag = byFlag.get(e.id);
  if (flag === undefined || flag.version !== e.version) {
    if (byFlag.size >= MAX_FLAGS) byFlag.clear();
    byFlag.set(e.id, (flag = { version: e.version, outcomes: new Map() }));
  }
  const outcome = `${e.enabled ? (e.variant === null ? '1' : `v${e.variant}`) : '0'}|${e.reason.code}|${e.reason.condition_index}`;
  let hit = flag.outcomes.get(outcome);
  if (hit === undefined) {
    hit = `${JSON.stringify(e.key)}:${JSON.stringify(flagDetail(e))}`;
    flag.outcomes.set(outcome, hit);
  }
  return hit;
}

/**
 * The `/flags` v2 body (without the config block) as JSON text, equal to
 * `JSON.stringify(flagsResponse(result, 2, {requestId}))`: the hot path's answer without building and
 * serialising a 50-entry object per request.
 */
export function flagsV2Json(result: EvaluateAllResult, requestId: string): string {
  const list = result.list ?? Object.values(result.flags);
  let body = '{"flags":{';
  for (let i = 0; i < list.length; i++) body += (i ? ',' : '') + fragment(list[i]);
  return `${body}},"errorsWhileComputingFlags":${result.errorsWhileComputingFlags},"requestId":${JSON.stringify(requestId)}}`;
}
