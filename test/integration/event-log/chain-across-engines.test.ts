import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventStoreEventLog } from '../../../src/adapters/eventstore';
import { PostgresEventLog } from '../../../src/adapters/postgres/event-log';
import { OFF_THREAD_APPEND_CHARS, SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import type { EventLog } from '../../../src/store/event-log';
import { KurrentStandIn } from '../../support/kurrent-stand-in';
import { reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { tempDir } from '../../support/temp-dir';

const USER = await reachablePgUser();
const schemas = USER ? pgSchemas(USER, 'chain_engines') : null;
afterAll(() => schemas?.dropAll());

const now = () => new Date('2026-11-29T06:00:00.000Z');

/** The same history through each engine: small appends, a prepared ingestion record large enough for SQLite's writer thread, several streams and contexts. */
async function history(log: EventLog): Promise<string | null> {
  const events = Array.from({ length: 2_000 }, (_, i) => ({ event: '$pageview', distinct_id: `u-${i % 17}`, properties: { i, pad: 'é'.repeat(600), url: `https://e.com/${i}` } }));
  const data = { events };
  const serialized = JSON.stringify(data);
  expect(serialized.length).toBeGreaterThan(OFF_THREAD_APPEND_CHARS);
  await log.append('project-1', [{ type: 'ProjectCreated', data: { id: 1, name: 'P "1"' }, eventId: 'e-1' }], { expectedRevision: 'no_stream', context: { actor: { type: 'cli' }, projectId: 1 } });
  await log.append('ingest-1', [{ type: 'EventsCaptured', data, serialized, eventId: 'e-2' }], { context: { actor: { type: 'project_key', projectId: 1 }, projectId: 1, correlationId: 'req-9' } });
  await log.append('project-1', [{ type: 'ProjectSettingsChanged', data: { changes: { name: 'P2' } }, eventId: 'e-3', schemaVersion: 2 }, { type: 'Noted', data: [1, 2.5, null], eventId: 'e-4' }], {
    expectedRevision: 0,
    context: { actor: { type: 'user', id: 4, keyId: 'k' }, projectId: 1, causationId: 'c' },
  });
  const head = await log.chainHead();
  await log.close();
  return head.hash;
}

describe('one history, one head hash on every engine', () => {
  it('SQLite, PostgreSQL and KurrentDB (stand-in) agree', async () => {
    const heads: Record<string, string | null> = {};
    heads.sqlite = await history(new SqliteEventLog(join(tempDir('chain-engines-'), 'events.sqlite'), { now }));
    heads.kurrent = await history(EventStoreEventLog.over(new KurrentStandIn().client(), { now }));
    if (schemas) heads.postgres = await history(await PostgresEventLog.open({ connection: schemas.connection, schema: schemas.fresh(), now }));
    else if (process.env.CI === 'true') throw new Error('PostgreSQL is unreachable');
    expect(heads.sqlite).toMatch(/^[0-9a-f]{64}$/);
    for (const [engine, head] of Object.entries(heads)) expect(head, engine).toBe(heads.sqlite);
  });
});
