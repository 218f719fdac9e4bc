import { progressBar } from './progress';

/** A rebuild's progress callback drawing events folded, with the share of the log's positions done. */
export function foldProgress(label: string) {
  const bar = progressBar(label);
  let events = 0;
  let fraction = 0;
  return {
    onProgress: (position: number, head: number, records: number) => {
      events += records;
      fraction = head > 0 ? position / head : 1;
      bar.update(events, fraction);
    },
    done: () => bar.done(events, fraction),
  };
}
