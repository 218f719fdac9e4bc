import { describe, expect, it } from 'vitest';
import type { BatchExportRow, RunRow } from '../../../projections/exports';
import { afterAnalyticsFold } from '../../../src/app/analytics-export-source';
import type { ExportSource, RunRows } from '../../../src/exports/worker/export-source';

const rows: RunRows = { total: 0, batches: async function* () {}, close: async () => {} };
const exp = {} as BatchExportRow;
const run = {} as RunRow;

/** A fold at `folded` that reaches `head` when `reach` is called. */
function fold(folded: number) {
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { fold: { folded, waitFor: () => reached }, reach };
}

describe('an export source after the analytics fold', () => {
  it('opens the run once the fold has reached the log head', async () => {
    const opened: number[] = [];
    const source: ExportSource = async () => (opened.push(1), rows);
    const { fold: f, reach } = fold(3);
    const wrapped = afterAnalyticsFold({ head: async () => 7 }, f, source, 5000);
    const run1 = wrapped(exp, run);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(opened).toEqual([]);
    reach();
    await expect(run1).resolves.toBe(rows);
    expect(opened).toEqual([1]);
  });

  it('fails the run, positions said, when the fold does not get there in time', async () => {
    const source: ExportSource = async () => rows;
    const wrapped = afterAnalyticsFold({ head: async () => 7 }, fold(3).fold, source, 30);
    await expect(wrapped(exp, run)).rejects.toThrow('the analytics store has folded the log to position 3, not yet to 7, after 0.03 s');
  });
});
