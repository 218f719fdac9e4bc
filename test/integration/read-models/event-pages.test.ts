import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingestionQueries, INGESTION_TABLES } from '../../../projections/ingestion';
import { insertEvents, type EventRow } from '../../../projections/ingestion/events-table';
import { PostgresReadModelStore } from '../../../src/adapters/postgres/read-models';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import type { ReadModelStore } from '../../../src/store/read-models';
import { tempDir } from '../../support/temp-dir';
import { postgresForReadModels } from './folded-stores';

const PROJECT = 1;
const START = Date.parse('2024-03-01T00:00:00Z');

/** An event row at `second` seconds after START: few distinct times, so pages end inside runs of ties. */
const row = (second: number, event = 'listed'): EventRow => ({
  uuid: randomUUID(),
  projectId: PROJECT,
  event,
  distinctId: `u${second % 7}`,
  personId: null,
  timestamp: new Date(START + second * 1000).toISOString(),
  receivedAt: new Date(START).toISOString(),
  propertiesJson: '{}',
  elementsChain: '',
  groups: [null, null, null, null, null],
  historicalMigration: false,
  exposure: null,
});

type Lister = (store: ReadModelStore, limit: number, onPage: () => Promise<void>) => Promise<string[]>;

/** Follows the keyset cursor as the API's `next` links carry it. */
const byCursor: Lister = async (store, limit, onPage) => {
  const q = ingestionQueries(store.session);
  const listed: string[] = [];
  let cursor: { before: string; beforeUuid: string } | undefined;
  for (;;) {
    const rows = await q.events(PROJECT, { limit: limit + 1, ...cursor });
    const page = rows.slice(0, limit);
    listed.push(...page.map((e) => e.uuid));
    if (rows.length <= limit) return listed;
    const last = page[page.length - 1];
    cursor = { before: last.timestamp, beforeUuid: last.uuid };
    await onPage();
  }
};

/** The old `next` links: by offset. */
const byOffset: Lister = async (store, limit, onPage) => {
  const q = ingestionQueries(store.session);
  const listed: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const rows = await q.events(PROJECT, { limit: limit + 1, offset });
    listed.push(...rows.slice(0, limit).map((e) => e.uuid));
    if (rows.length <= limit) return listed;
    await onPage();
  }
};

async function withEvents(store: ReadModelStore, rows: EventRow[]) {
  await store.transaction(async (tx) => {
    await tx.createTables(INGESTION_TABLES);
    await insertEvents(tx, rows);
  });
}

/**
 * Pages through 600 events (60 distinct times) 25 at a time while, between pages, a batch of
 * events arrives: newer ones (the usual case), ones at the very time a page ended on, and older
 * ones (late or historical events).
 */
async function listWhileIngesting(store: ReadModelStore, list: Lister) {
  const existing = Array.from({ length: 600 }, (_, i) => row(i % 60));
  await withEvents(store, existing);
  let batch = 0;
  const arrive = async () => {
    batch++;
    await store.transaction((tx) => insertEvents(tx, [row(1000 + batch), row(59 - (batch % 60)), row(batch % 60), row(-batch)]));
  };
  return { existing: existing.map((e) => e.uuid), listed: await list(store, 25, arrive) };
}

function pagesContract(name: string, open: () => Promise<ReadModelStore>) {
  describe(`events list pages: ${name}`, () => {
    it('by the (timestamp, uuid) cursor, every event there at the start is listed exactly once while others arrive', async () => {
      const store = await open();
      const { existing, listed } = await listWhileIngesting(store, byCursor);
      expect(new Set(listed).size).toBe(listed.length);
      const seen = new Set(listed);
      expect(existing.filter((u) => !seen.has(u))).toEqual([]);
      await store.close();
    });

    it('by offset (what `next` carried before), the same arrivals repeat rows: the cursor test above can fail', async () => {
      const store = await open();
      const { listed } = await listWhileIngesting(store, byOffset);
      expect(new Set(listed).size).toBeLessThan(listed.length);
      await store.close();
    });

    it('the cursor pages a quiet table in the order of one read, ties broken by uuid descending', async () => {
      const store = await open();
      await withEvents(store, Array.from({ length: 130 }, (_, i) => row(i % 9)));
      const whole = (await ingestionQueries(store.session).events(PROJECT, { limit: 1000 })).map((e) => e.uuid);
      expect(await byCursor(store, 7, async () => {})).toEqual(whole);
      await store.close();
    });
  });
}

pagesContract('SQLite', async () => new SqliteReadModelStore(openSqlite(join(tempDir('event-pages-'), 'readmodels.sqlite'))));

const schemas = await postgresForReadModels('event_pages');
if (schemas !== null) pagesContract('PostgreSQL', () => PostgresReadModelStore.open({ connection: schemas.connection, schema: schemas.fresh(), maxConnections: 4 }));
