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
  return `${head(result)}${tail(result, requestId)}`;
}

function head(result: EvaluateAllResult): string {
  const list = result.list ?? Object.values(result.flags);
  let body = '{"flags":{';
  for (let i = 0; i < list.length; i++) body += i ? `,${fragment(list[i])}` : fragment(list[i]);
  return body;
}

const tail = (result: EvaluateAllResult, requestId: string) =>
  `},"errorsWhileComputingFlags":${result.errorsWhileComputingFlags},"requestId":${JSON.stringify(requestId)}}`;

/** The same body in two parts: the bytes before the request id, shared, and the rest. */
export class FlagsV2Parts {
  constructor(
    readonly head: Buffer,
    readonly tail: string,
  ) {}
}

const heads = new WeakMap<EvaluateAllResult, Buffer>();

/**
 * `flagsV2Body` as bytes made once per result and the request's own ending, for results that are
 * answered again and again (those the answer memo holds): the socket then writes the head as it
 * is. As text, every answer was measured (`npm run bench -- decide`, CPU profile) re-encoding its
 * ~11 KB: first to count its UTF-8 length, then to write it, a sixth of the request's time. Only for
 * remembered results: a head per one-off result would be the per-answer Buffer the note above
 * rules out.
 */
export function flagsV2Parts(result: EvaluateAllResult, requestId: string): FlagsV2Parts {
  let bytes = heads.get(result);
  if (bytes === undefined) heads.set(result, (bytes = Buffer.from(head(result))));
  return new FlagsV2Parts(bytes, tail(result, requestId));
}
