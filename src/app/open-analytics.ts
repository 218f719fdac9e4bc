import { embeddedAnalytics } from '../../projections/analytics/embedded';
import { ChdbConnection } from '../adapters/clickhouse/chdb/connection';
import type { ClickHouseConnection } from '../adapters/clickhouse/connection';
import { clickhouseExportSource, readModelPersons } from '../adapters/clickhouse/export-source';
import { clickhouseFoldedAnalytics } from '../adapters/clickhouse/folded';
import { ClickHouseClient } from '../adapters/clickhouse/http-client';
import type { AnalyticsChoice, FoldedAnalyticsChoice } from '../config';
import type { ExportSource } from '../exports/worker/export-source';
import type { AnalyticsStore, FoldedAnalyticsStore } from '../store/analytics';
import type { ReadModelStore } from '../store/read-models';

/**
 * The analytics store the configuration names, as the read-model adapters are chosen here: the
 * read models' own events table (written inside the ingestion fold), or ClickHouse — a server or
 * chDB in this process — which is `folded`: fed from the log by a projection of its own
 * (analytics-fold.ts). On ClickHouse the batch exports read it too (`exportSource`, person
 * properties from the read models); with the embedded store they read the read models' events table.
 */
export function openAnalytics(
  choice: AnalyticsChoice | undefined,
  readModels: ReadModelStore,
): { store: AnalyticsStore; folded: FoldedAnalyticsStore | null; exportSource: ExportSource | null } {
  if (choice === undefined || choice.kind === 'embedded') return { store: embeddedAnalytics(readModels), folded: null, exportSource: null };
  const connection = connectionTo(choice);
  const folded = clickhouseFoldedAnalytics(connection);
  // On a server, large JSONLines runs are read and encoded on a thread with its own connection;
  // chDB's engine lives in this thread.
  const server = choice.kind === 'chdb' ? undefined : { url: choice.url, database: choice.database };
  return { store: folded, folded, exportSource: clickhouseExportSource(connection, readModelPersons(readModels.session), { server }) };
}

function connectionTo(choice: FoldedAnalyticsChoice): ClickHouseConnection {
  return choice.kind === 'chdb' ? new ChdbConnection(choice.path, choice.database) : new ClickHouseClient({ url: choice.url, database: choice.database });
}

/** Drops an analytics database (a replay's scratch copy). */
export async function dropAnalyticsDatabase(choice: FoldedAnalyticsChoice): Promise<void> {
  const connection = connectionTo({ ...choice, database: 'default' });
  try {
    await connection.serverCommand(`DROP DATABASE IF EXISTS ${choice.database}`);
  } finally {
    await connection.close?.();
  }
}
