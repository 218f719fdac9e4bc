import { isIP } from 'node:net';
import type pg from 'pg';
import { policyOf, type Destination, type ExportRecord } from '../destination';
import { eventFilter } from '../event-filter';
import { postgresConfigSchema, type PostgresConfig } from './postgres-config';
import { isTransientNetworkError } from '../network-errors';
import { toPostgresError } from './postgres-errors';
import { rowsPayload } from './postgres-rows';
import {
  HAS_UUID_UNIQUE_INDEX_SQL,
  createTableSql,
  createUuidIndexSql,
  insertSql,
  qualifiedName,
} from './postgres-sql';

/** Rows per INSERT: large enough to amortise round trips, small enough to keep payloads ~MBs. */
const ROWS_PER_INSERT = 2000;

/** A concurrent run may create the same table or index between our check and our CREATE. */
const ALREADY_EXISTS = new Set(['42P07', '23505']);

async function ensureTable(client: pg.Client, config: PostgresConfig, attempt = 0): Promise<void> {
  const { schema, table_name: table } = config;
  try {
    await client.query(createTableSql(schema, table));
    const existing = await client.query(HAS_UUID_UNIQUE_INDEX_SQL, [qualifiedName(schema, table)]);
    if (existing.rowCount === 0) await client.query(createUuidIndexSql(schema, table));
  } catch (err) {
    // Lost a race with a concurrent run: once more sees its table and index. A second 23505
    // means the table already holds duplicate uuids, which no retry fixes.
    const code = (err as { code?: string }).code;
    if (attempt > 0 || code === undefined || !ALREADY_EXISTS.has(code)) throw err;
    await ensureTable(client, config, attempt + 1);
  }
}

/**
 * Connects to the address the policy checked, not to the name (pg has no lookup hook): DNS
 * cannot answer differently between the check and the connect. TLS still names the host.
 */
function connect(Client: typeof pg.Client, config: PostgresConfig, address: string): pg.Client {
  return new Client({
    host: address,
    port: config.port,
    user: config.user,
    password: config.password,
    database: config.database,
    ssl: config.has_self_signed_cert ? { rejectUnauthorized: false, servername: isIP(config.host) ? undefined : config.host } : false,
    connectionTimeoutMillis: 10_000,
    application_name: 'eventful-analytics batch export',
  });
}

/**
 * Tries the checked addresses in the resolver's order (`localhost` may answer ::1 first while the
 * server listens on 127.0.0.1 only) until one connects; the last failure is reported.
 */
async function connectToFirst(config: PostgresConfig, addresses: readonly string[]): Promise<pg.Client> {
  // pg is loaded by the first Postgres export, not at start-up.
  const { Client } = (await import('pg')).default;
  let last: unknown;
  for (const address of addresses) {
    const client = connect(Client, config, address);
    // An idle client whose server goes away emits 'error'; unhandled it would crash the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
      return client;
    } catch (err) {
      await client.end().catch(() => undefined);
      last = err;
      if (!isTransientNetworkError(err)) break;
    }
  }
  throw last;
}

export const postgresDestination: Destination<PostgresConfig> = {
  type: 'Postgres',
  configSchema: postgresConfigSchema,
  secretFields: ['user', 'password'],
  targetFields: ['host', 'port', 'database'],
  async checkTarget(config, policy) {
    await policy.network.checkHost(config.host);
  },
  async write(config, ctx, batches) {
    const target = `${config.host}:${config.port}/${config.database} ${config.schema}.${config.table_name}`;
    const keep = eventFilter(config.include_events, config.exclude_events);
    let client: pg.Client;
    try {
      client = await connectToFirst(config, await policyOf(ctx).network.resolve(config.host));
    } catch (err) {
      throw toPostgresError(err, target);
    }
    const sql = insertSql(config.schema, config.table_name);
    let records = 0;
    let inserted = 0;
    try {
      await ensureTable(client, config);
      for await (const batch of batches) {
        const rows: ExportRecord[] = batch.filter(keep);
        for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
          const chunk = rows.slice(i, i + ROWS_PER_INSERT);
          const result = await client.query(sql, [rowsPayload(chunk)]);
          records += chunk.length;
          inserted += result.rowCount ?? 0;
        }
      }
    } catch (err) {
      throw toPostgresError(err, target);
    } finally {
      await client.end().catch(() => undefined);
    }
    const skipped = records - inserted;
    ctx.log('INFO', `Exported ${records} records to ${config.schema}.${config.table_name}` +
      (skipped > 0 ? ` (${skipped} already present from an earlier attempt)` : ''));
    return { recordsCompleted: records };
  },
};
