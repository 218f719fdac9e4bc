import { createHash } from 'node:crypto';

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export const qualifiedName = (schema: string, table: string) => `${quoteIdent(schema)}.${quoteIdent(table)}`;

/** Column, SQL type, and the type it is read as from the JSON payload of an insert. */
const COLUMNS: readonly (readonly [name: string, ddlType: string, recordsetType: string])[] = [
  ['uuid', 'TEXT', 'text'],
  ['event', 'TEXT', 'text'],
  ['properties', 'JSONB', 'jsonb'],
  ['elements', 'JSONB', 'jsonb'],
  ['set', 'JSONB', 'jsonb'],
  ['set_once', 'JSONB', 'jsonb'],
  ['distinct_id', 'TEXT', 'text'],
  ['team_id', 'INTEGER', 'integer'],
  ['ip', 'TEXT', 'text'],
  ['site_url', 'TEXT', 'text'],
  ['timestamp', 'TIMESTAMP WITH TIME ZONE', 'timestamptz'],
];

export const COLUMN_NAMES = COLUMNS.map(([name]) => name);

/**
 * PostHog's column set. Strings are TEXT rather than PostHog's VARCHAR(200), so an unusually
 * long event name or distinct id cannot fail a whole run.
 */
export function createTableSql(schema: string, table: string): string {
  const columns = COLUMNS.map(([name, type]) => `  ${quoteIdent(name)} ${type}`).join(',\n');
  return `CREATE TABLE IF NOT EXISTS ${qualifiedName(schema, table)} (\n${columns}\n)`;
}

/** Index names share the 63-byte identifier limit, so long table names are shortened with a hash. */
export function uuidIndexName(table: string): string {
  const name = `${table}_uuid_key`;
  if (Buffer.byteLength(name) <= 63) return name;
  const hash = createHash('sha256').update(table).digest('hex').slice(0, 8);
  return `${table.slice(0, 40)}_${hash}_uuid_key`;
}

export function createUuidIndexSql(schema: string, table: string): string {
  return `CREATE UNIQUE INDEX IF NOT EXISTS ${quoteIdent(uuidIndexName(table))} ON ${qualifiedName(schema, table)} ("uuid")`;
}

/** Whether any plain unique index covers exactly `uuid`, as ON CONFLICT ("uuid") requires. */
export const HAS_UUID_UNIQUE_INDEX_SQL = `
  SELECT 1 FROM pg_index i
  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
  WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indnatts = 1
    AND i.indpred IS NULL AND a.attname = 'uuid'
  LIMIT 1`;

/**
 * One statement per chunk, all rows in a single JSON parameter: no 65535-parameter limit, one
 * parse on the server, and ON CONFLICT makes a re-executed run insert nothing twice.
 */
export function insertSql(schema: string, table: string): string {
  const names = COLUMN_NAMES.map(quoteIdent).join(', ');
  const recordset = COLUMNS.map(([name, , type]) => `${quoteIdent(name)} ${type}`).join(', ');
  return (
    `INSERT INTO ${qualifiedName(schema, table)} (${names}) ` +
    `SELECT ${names} FROM jsonb_to_recordset($1::jsonb) AS r(${recordset}) ` +
    `ON CONFLICT ("uuid") DO NOTHING`
  );
}
