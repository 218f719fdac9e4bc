// The event log bench's PostgreSQL half (`npm run bench -- log --store postgres`): the same appends
// and catch-up reads against the PostgreSQL adapter, plus concurrent 1-event appenders, since that
// adapter serialises appends.
import { PostgresEventLog } from '../../src/adapters/postgres/event-log';
import type { NewEvent } from '../../streams';
import { reachablePgUser } from '../support/postgres';
import { pgSchemas } from '../support/postgres-schema';
import { timedAsync } from './_report';

const ctx = { actor: { type: 'system' as const }, projectId: 1 };

export async function postgresLogRows(
  batches: NewEvent[][],
  single: number,
  payload: (i: number) => unknown,
): Promise<Record<string, string | number>[] | null> {
  const user = await reachablePgUser();
  if (!user) return null;
  const schemas = pgSchemas(user, 'bench_log');
  const open = (schema: string, maxConnections = 4) => PostgresEventLog.open({ connection: schemas.connection, schema, maxConnections });
  const rows: Record<string, string | number>[] = [];
  const total = batches.reduce((n, b) => n + b.length, 0);
  const batched = schemas.fresh();
  try {
    {
      const log = await open(batched);
      const { seconds } = await timedAsync(async () => {
        for (const b of batches) await log.append('ingest-1', b, { context: ctx });
      });
      rows.push({ case: 'postgres log.append, 1000-event batches', events: total, seconds, 'events/s': Math.round(total / seconds), 'appends/s': Math.round(batches.length / seconds) });
      await log.close();
    }
    {
      const log = await open(schemas.fresh());
      const { seconds } = await timedAsync(async () => {
        for (let i = 0; i < single; i++) await log.append(`s-${i % 100}`, [{ type: 'EventCaptured', data: payload(i) }], { context: ctx });
      });
      rows.push({ case: 'postgres log.append, 1-event appends', events: single, seconds, 'events/s': Math.round(single / seconds), 'appends/s': Math.round(single / seconds) });
      await log.close();
    }
    {
      // Eight connections appending at once: the lock serialises them, but their round trips overlap.
      const schema = schemas.fresh();
      const logs = await Promise.all(Array.from({ length: 8 }, () => open(schema, 1)));
      const each = Math.ceil(single / 8);
      const { seconds } = await timedAsync(() =>
        Promise.all(
          logs.map(async (log, w) => {
            for (let i = 0; i < each; i++) await log.append(`w-${w}`, [{ type: 'EventCaptured', data: payload(i) }], { context: ctx });
          }),
        ),
      );
      const n = each * 8;
      rows.push({ case: 'postgres log.append, 1-event appends, 8 connections', events: n, seconds, 'events/s': Math.round(n / seconds), 'appends/s': Math.round(n / seconds) });
      await Promise.all(logs.map((l) => l.close()));
    }
    for (const maxBytes of [undefined, 4_000_000]) {
      const log = await open(batched);
      const { result: n, seconds } = await timedAsync(async () => {
        let count = 0;
        let after = 0;
        for (;;) {
          const batch = await log.readAll({ afterPosition: after, maxCount: 2000, maxBytes });
          if (!batch.length) break;
          count += batch.length;
          after = batch[batch.length - 1].position;
        }
        return count;
      });
      const label = maxBytes ? `2000/batch, maxBytes ${maxBytes / 1e6} MB` : '2000/batch';
      rows.push({ case: `postgres catch-up readAll (${label})`, events: n, seconds, 'events/s': Math.round(n / seconds) });
      await log.close();
    }
  } finally {
    await schemas.dropAll();
  }
  return rows;
}
