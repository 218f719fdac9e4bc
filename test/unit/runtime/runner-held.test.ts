import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import type { SqlSession } from '../../../src/store/sql';
import { openFiles, recorder, until, type Noted } from './runner-harness';

/**
 * A laned projection that holds `maxHeldEvents` unapplied events stops the reading: two lanes of
 * events of a full slice each apply two events a round, while a read brings four.
 */
function setup() {
  const f = openFiles();
  for (let n = 1; n <= 12; n++) f.note({ n, lane: n % 2 ? 'a' : 'b' });
  const trace: string[] = [];
  const readAll = f.log.readAll.bind(f.log);
  f.log.readAll = (options) => {
    trace.push(`read ${options?.afterPosition}`);
    return readAll(options);
  };
  const laned = recorder({
    name: 'laned',
    lane: (event: RecordedEvent) => (event.data as Noted).lane!,
    parts: () => 10_000,
    async apply(event: RecordedEvent, db: SqlSession) {
      await db.run('INSERT INTO seen (position, n) VALUES (?, ?)', event.position, event.position);
      trace.push(`${event.position}`);
    },
  });
  // A second projection without lanes: the laned one alone decides.
  return { f, trace, projections: [recorder({ name: 'plain', table: 'plain_seen' }), laned] };
}

// Reads of four; each round applies one event of each lane; at four held, rounds without reading.
const EXPECTED = ['read 0', '1', '2', 'read 4', '3', '4', '5', '6', 'read 8', '7', '8', '9', '10', '11', '12'];

describe('a laned projection holding many events', () => {
  it('stops the catch-up reading the log until it holds fewer than maxHeldEvents', async () => {
    const { f, trace, projections } = setup();
    const runner = f.runner(projections, { batchSize: 4, maxHeldEvents: 4 });
    await runner.catchUp();
    expect(trace).toEqual(EXPECTED);
    expect(runner.checkpoints()).toEqual({ plain: 12, laned: 12 });
  });

  it('stops the live loop reading the log the same way', async () => {
    const { f, trace, projections } = setup();
    const runner = f.runner(projections, { batchSize: 4, maxHeldEvents: 4, pollIntervalMs: 5 });
    runner.start();
    await until(() => runner.checkpoints().laned === 12);
    runner.stop();
    expect(trace.filter((t) => t !== 'read 12')).toEqual(EXPECTED);
  });
});
