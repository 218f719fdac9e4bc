import type { RecordedEvent } from '../../../streams';
import { LogBuilder } from './helpers';

/**
 * Merge shapes a batch can carry, as captured events in log order. `pairs` is the chain a hostile
 * /batch/ used (issue 21): each pair of fresh ids makes a person, then the grown person is merged
 * INTO the new pair, so re-pointing the merged person's ids at every merge costs the square.
 */
export function mergeShape(shape: string, n: number, log = new LogBuilder()): RecordedEvent[] {
  const merge = (into: string, other: string, properties: Record<string, unknown> = {}) =>
    log.capture('$merge_dangerously', into, { alias: other, ...properties });
  const out: RecordedEvent[] = [];
  switch (shape) {
    case 'chain-down': // c_i into c_{i-1}: each merge adds a fresh id to the one person
      out.push(log.capture('$pageview', 'c_0'));
      for (let i = 1; i < n; i++) out.push(merge(`c_${i - 1}`, `c_${i}`));
      break;
    case 'chain-up': // c_{i-1} into c_i
      out.push(log.capture('$pageview', 'c_0'));
      for (let i = 1; i < n; i++) out.push(merge(`c_${i}`, `c_${i - 1}`));
      break;
    case 'known-up': // every id a person of its own first, then the grown person merged into the next
      for (let i = 0; i < n; i++) out.push(log.capture('$pageview', `c_${i}`, { $set: { [`p${i % 7}`]: i } }));
      for (let i = 1; i < n; i++) out.push(merge(`c_${i}`, `c_${i - 1}`));
      break;
    case 'known-down':
      for (let i = 0; i < n; i++) out.push(log.capture('$pageview', `c_${i}`, { $set_once: { first: i } }));
      for (let i = 1; i < n; i++) out.push(merge(`c_${i - 1}`, `c_${i}`));
      break;
    case 'pairs':
      for (let k = 0; k < n / 2; k++) {
        out.push(merge(`b_${k}`, `a_${k}`, { $set: { [`k${k % 5}`]: k } }));
        if (k > 0) out.push(merge(`a_${k}`, `b_${k - 1}`));
      }
      break;
    case 'star-in': // spokes with persons merged into one hub
      out.push(log.capture('$pageview', 'hub'));
      for (let i = 0; i < n; i++) out.push(log.capture('$pageview', `s_${i}`));
      for (let i = 0; i < n; i++) out.push(merge('hub', `s_${i}`));
      break;
    case 'star-out': // the hub's grown person merged into each spoke in turn
      out.push(log.capture('$pageview', 'hub'));
      for (let i = 0; i < n; i++) out.push(log.capture('$pageview', `s_${i}`));
      for (let i = 0; i < n; i++) out.push(merge(`s_${i}`, i === 0 ? 'hub' : `s_${i - 1}`));
      break;
    case 'tree': // pairs, then pairs of pairs, ... (a balanced merge tree)
      for (let i = 0; i < n; i++) out.push(log.capture('$pageview', `t_${i}`));
      for (let step = 1; step < n; step *= 2) for (let i = 0; i + step < n; i += 2 * step) out.push(merge(`t_${i + step}`, `t_${i}`));
      break;
    case 'identify': // $identify only merges persons nobody identified: some of these are refused
      for (let i = 0; i < n; i++) out.push(log.capture('$pageview', `anon_${i}`));
      for (let i = 0; i < n; i++) out.push(log.capture('$identify', `user_${i % 5}`, { $anon_distinct_id: `anon_${i}`, $set: { n: i } }));
      for (let i = 1; i < n; i++) out.push(log.capture('$identify', `anon_${i}`, { $anon_distinct_id: `anon_${i - 1}` }));
      break;
    case 'alias': // $create_alias both ways, merging into persons that were merged away before
      for (let i = 0; i < n; i++) out.push(log.capture('$create_alias', `x_${i}`, { alias: `y_${i}` }));
      for (let i = 1; i < n; i++) out.push(log.capture('$create_alias', `y_${i}`, { alias: `x_${i - 1}` }));
      for (let i = 0; i < n; i++) out.push(log.capture('$pageview', i % 2 ? `x_${i}` : `y_${i}`, { $set: { seen: i } }));
      break;
    default:
      throw new Error(`unknown merge shape ${shape}`);
  }
  return out;
}

export const MERGE_SHAPES = ['chain-down', 'chain-up', 'known-up', 'known-down', 'pairs', 'star-in', 'star-out', 'tree', 'identify', 'alias'];

/**
 * The events as one EventsCaptured record at `position` (what one /batch/ request appends). A
 * `uuidSpace` digit replaces the first of each uuid, so records built by separate LogBuilders (whose
 * uuids all count from 1) are no re-sends of one another.
 */
export function asRecord(events: readonly RecordedEvent[], position = 1, uuidSpace = ''): RecordedEvent {
  const data = events.map((e) => e.data as { uuid: string });
  return {
    ...events[0],
    position,
    type: 'EventsCaptured',
    data: { events: uuidSpace ? data.map((d) => ({ ...d, uuid: uuidSpace + d.uuid.slice(1) })) : data },
  };
}
