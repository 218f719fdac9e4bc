import { countingEvents } from '../app';
import { progressBar } from './progress';

/**
 * A rebuild's progress callbacks drawing events folded, with the share of the log's positions done:
 * `onProgress` takes each batch folded here, `onCounted` the counts a replay thread reports. While
 * `hold(true)` (another progress line is being drawn), it counts without drawing.
 */
export function foldProgress(label: string) {
  const bar = progressBar(label);
  let events = 0;
  let fraction = 0;
  let held = false;
  const onCounted = (position: number, head: number, count: number) => {
    events += count;
    fraction = head > 0 ? position / head : 1;
    if (!held) bar.update(events, fraction);
  };
  return {
    onProgress: countingEvents(onCounted),
    onCounted,
    hold: (on: boolean) => (held = on),
    done: () => bar.done(events, fraction),
  };
}
