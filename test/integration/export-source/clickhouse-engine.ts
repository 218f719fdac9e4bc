import { randomBytes } from 'node:crypto';
import { foldOutputs } from '../../../projections/analytics/fold-outputs';
import type { ClickHouseConnection } from '../../../src/adapters/clickhouse/connection';
import type { ClickHouseConfig } from '../../../src/adapters/clickhouse/http-client';
import { clickhouseExportSource, readModelPersons } from '../../../src/adapters/clickhouse/export-source';
import { clickhouseFoldedAnalytics } from '../../../src/adapters/clickhouse/folded';
import type { EventLog } from '../../../src/store/event-log';
import type { EngineUnderTest } from './contract';
import { sqliteEngine } from './sqlite-engine';

/** A ClickHouse engine as the export tests reach it: a connection to a database of that name, and one outside any. */
export interface ClickHouseTarget {
  connect(database: string): ClickHouseConnection;
  admin: ClickHouseConnection;
  /** A server's address for a database (none for chDB): the source encodes JSONLines runs on a thread with its own connection. */
  server?(database: string): ClickHouseConfig;
}

/**
 * SQLite read models (what the contract's runner folds into, and where persons are read), and a
 * ClickHouse database of its own that `caughtUp` feeds as the service's analytics fold does: the
 * fold's outputs, batch by batch, persons then events. The export source reads ClickHouse.
 */
export async function clickhouseEngine(target: ClickHouseTarget): Promise<EngineUnderTest> {
  const readModels = await sqliteEngine();
  const database = `chexport_${randomBytes(6).toString('hex')}`;
  const client = target.connect(database);
  const analytics = clickhouseFoldedAnalytics(client);
  await analytics.open();
  let position = 0;
  return {
    store: readModels.store,
    // Statements of 3 rows: the contract's runs span several, whatever the batch size. Every run,
    // however small, is encoded on three threads where the engine is a server.
    source: clickhouseExportSource(client, readModelPersons(readModels.store.session), { pageRows: 3, server: target.server?.(database), encodedMinRows: 0, threads: 3 }),
    encodes: target.server !== undefined,
    async caughtUp(log: EventLog) {
      for (;;) {
        const records = await log.readAll({ afterPosition: position, maxCount: 500 });
        if (records.length === 0) return;
        const last = records[records.length - 1].position;
        const { events, persons } = await foldOutputs(readModels.store.session, records, last);
        if (persons.length > 0) await analytics.persons.map(persons);
        if (events.length > 0) await analytics.sink.append(events, last);
        position = last;
      }
    },
    async close() {
      await target.admin.serverCommand(`DROP DATABASE IF EXISTS ${database}`);
      await client.close?.();
      await readModels.close();
    },
  };
}
