import { createHash } from 'node:crypto';
import type pg from 'pg';

/** Where one log lives: a PostgreSQL schema, so several logs (and parallel tests) share a database. */
export interface LogNames {
  schema: string;
  /** `"schema".events`, quoted once here so no query builds identifiers from input. */
  events: string;
  /** Idempotency keys of keyed appends, each with its append's result. */
  appendKeys: string;
  appendFn: string;
  /** LISTEN/NOTIFY channel that wakes live subscriptions (a hint only: they also poll). */
  channel: string;
  /** Key of the transaction-level advisory lock that serialises appends to this log. */
  lockKey: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function logNames(schema: string): LogNames {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid event log schema name: ${schema}`);
  const q = `"${schema}"`;
  // A signed 64-bit key derived from the schema: two logs in one database do not serialise each other.
  const lockKey = createHash('sha256').update(`event-log:${schema}`).digest().readBigInt64BE(0).toString();
  return { schema, events: `${q}.events`, appendKeys: `${q}.append_keys`, appendFn: `${q}.append_events`, channel: `event_log_${schema}`.slice(0, 63), lockKey };
}

/*
 * Why appends are serialised and positions are max + 1 (design (b) of the brief, not Emmett's xmin filter):
 *
 * Readers resume from one integer position, so a row must never become visible below a position a
 * reader has already passed. Every append takes one transaction-level advisory lock before it reads
 * max(position), and holds it until its commit has finished. PostgreSQL makes a commit visible
 * before it releases the transaction's locks: CommitTransaction() in src/backend/access/transam/xact.c
 * calls RecordTransactionCommit(), then ProcArrayEndTransaction() ("must be done _before_ releasing
 * locks we hold"), and only then ResourceOwnerRelease(RESOURCE_RELEASE_LOCKS). So the next appender
 * gets the lock only once every lower position is visible to any new snapshot, and any snapshot sees
 * a prefix of the log: there is no gap to skip, head() is plain max(position), positions are dense
 * (an append that fails rolls back and the next one reuses its numbers, which nobody has seen).
 *
 * Emmett's design (xid8 per row, read below pg_snapshot_xmin) lets appends run in parallel but
 * needs a (txid, position) checkpoint, which the port's single numeric position cannot carry, and
 * any long transaction anywhere in the cluster stalls every reader. Serialising costs parallelism,
 * but each append is one round trip (this function) holding the lock for one multi-row insert and
 * its commit, and ingestion appends up to 10,000 events at once, so the lock is taken per batch.
 *
 * Within the lock, the expected-revision check cannot race; the unique (stream_id, revision) index
 * is the backstop should that ever change (a violation is reported as a conflict).
 *
 * The function must run in READ COMMITTED, where each statement takes a fresh snapshot: the
 * max(position) read after the lock must see the previous appender's commit. The adapter's
 * connections pin default_transaction_isolation for that reason, and the function refuses to run
 * under another level rather than hand out a position twice.
 */
function ddl(n: LogNames): string {
  return `
CREATE SCHEMA IF NOT EXISTS "${n.schema}";
CREATE TABLE IF NOT EXISTS ${n.events} (
  position bigint PRIMARY KEY,
  stream_id text NOT NULL,
  revision bigint NOT NULL,
  type text NOT NULL,
  schema_version integer NOT NULL,
  data text NOT NULL,
  event_id text NOT NULL,
  recorded_at text NOT NULL,
  project_id bigint,
  actor text NOT NULL,
  causation_id text,
  correlation_id text,
  hash text
);
-- A log made before the hash chain is upgraded in place: its records keep no hash, and the chain
-- starts with the next append.
ALTER TABLE ${n.events} ADD COLUMN IF NOT EXISTS hash text;
CREATE UNIQUE INDEX IF NOT EXISTS events_stream_revision ON ${n.events} (stream_id, revision);
CREATE TABLE IF NOT EXISTS ${n.appendKeys} (
  key text PRIMARY KEY,
  stream_id text NOT NULL,
  current_revision bigint NOT NULL,
  first_position bigint NOT NULL,
  last_position bigint NOT NULL
);
-- Earlier append functions (before the chain; the chain without idempotency keys; keys without the
-- chain): replaced by the one below, so a process of such a version cannot append unchained or
-- unkeyed records, and no overload is ambiguous to read about.
DROP FUNCTION IF EXISTS ${n.appendFn}(text, text, text[], integer[], text[], text[], text, bigint, text, text, text, text, text[], text[]);
DROP FUNCTION IF EXISTS ${n.appendFn}(text, text, text[], integer[], text[], text[], text, bigint, text, text, text, text);
DROP FUNCTION IF EXISTS ${n.appendFn}(text, text, text[], integer[], text[], text[], text, bigint, text, text, text);
CREATE OR REPLACE FUNCTION ${n.appendFn}(
  p_stream text, p_expected text,
  p_types text[], p_versions integer[], p_data text[], p_ids text[],
  p_recorded_at text, p_project_id bigint, p_actor text, p_causation text, p_correlation text,
  p_stream_json text, p_heads text[], p_tails text[], p_key text,
  OUT current_revision bigint, OUT conflict boolean, OUT first_position bigint, OUT last_position bigint, OUT duplicate boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
  n integer := cardinality(p_types);
  base bigint;
  prev text;
  hashes text[] := '{}';
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'event log appends need READ COMMITTED, not %', current_setting('transaction_isolation');
  END IF;
  PERFORM pg_advisory_xact_lock(${n.lockKey});
  duplicate := false;
  IF p_key IS NOT NULL THEN
    -- Under the lock: a key is recorded by the append that commits it, and seen by every later one.
    SELECT k.current_revision, k.first_position, k.last_position INTO current_revision, first_position, last_position
    FROM ${n.appendKeys} k WHERE k.key = p_key;
    IF FOUND THEN
      duplicate := true;
      conflict := false;
      RETURN;
    END IF;
  END IF;
  SELECT max(revision) INTO current_revision FROM ${n.events} WHERE stream_id = p_stream;
  conflict := NOT CASE
    WHEN p_expected = 'any' THEN true
    WHEN p_expected = 'no_stream' THEN current_revision IS NULL
    WHEN p_expected = 'stream_exists' THEN current_revision IS NOT NULL
    ELSE current_revision IS NOT DISTINCT FROM p_expected::bigint
  END;
  IF conflict THEN
    RETURN;
  END IF;
  -- The predecessor's hash is read under the lock: no other append can chain onto it meanwhile.
  SELECT e.position, e.hash INTO first_position, prev FROM ${n.events} e ORDER BY e.position DESC LIMIT 1;
  first_position := coalesce(first_position, 0) + 1;
  last_position := first_position + n - 1;
  base := coalesce(current_revision, -1);
  -- src/store/hash-chain.ts: the caller encoded each record's parts around its revision and data
  -- (p_stream_json, p_heads, p_tails); here they are spliced into the canonical text and chained.
  prev := coalesce(prev, '');
  FOR i IN 1..n LOOP
    prev := encode(sha256(convert_to('["' || prev || '",' || p_stream_json || ',' || (base + i) || ','
                                     || p_heads[i] || ',' || p_data[i] || ',' || p_tails[i] || ']', 'UTF8')), 'hex');
    hashes[i] := prev;
  END LOOP;
  INSERT INTO ${n.events} (position, stream_id, revision, type, schema_version, data, event_id,
                           recorded_at, project_id, actor, causation_id, correlation_id, hash)
  SELECT first_position + u.i - 1, p_stream, base + u.i, u.t, u.v, u.d, u.id,
         p_recorded_at, p_project_id, p_actor, p_causation, p_correlation, u.h
  FROM unnest(p_types, p_versions, p_data, p_ids, hashes) WITH ORDINALITY AS u(t, v, d, id, h, i);
  current_revision := coalesce(current_revision, -1) + n;
  IF p_key IS NOT NULL THEN
    INSERT INTO ${n.appendKeys} (key, stream_id, current_revision, first_position, last_position)
    VALUES (p_key, p_stream, current_revision, first_position, last_position);
  END IF;
  -- Delivered at commit, never on rollback: a wake-up hint for live subscriptions.
  PERFORM pg_notify('${n.channel}', last_position::text);
END
$fn$;
`;
}

/** Creates the log's schema, table and append function; safe when several processes start at once. */
export async function migrate(client: pg.ClientBase, names: LogNames): Promise<void> {
  await client.query('BEGIN');
  try {
    // CREATE … IF NOT EXISTS is not safe against a concurrent twin: one migration at a time.
    await client.query(`SELECT pg_advisory_xact_lock(${names.lockKey} # 1)`);
    await client.query(ddl(names));
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
