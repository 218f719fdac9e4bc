import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectionHosts } from '../adapters/eventstore/connection';
import { DataDirError } from '../store/data-dir';
import type { EventLogSpec } from './event-log';

/** Names, in DATA_DIR, the log that the read models there were folded from (absent: the SQLite log beside them). */
const FILE = 'event-log.json';

type LogIdentity =
  | {
      kind: 'postgres';
      /** host:port/database, without credentials. */
      server: string;
      schema: string;
    }
  | {
      kind: 'eventstore';
      /** The connection string's hosts (host:port, comma-separated), without credentials. */
      server: string;
      streamPrefix: string;
    };

function identityOf(spec: Exclude<EventLogSpec, { kind: 'sqlite' }>): LogIdentity {
  if (spec.kind === 'eventstore') return { kind: 'eventstore', server: connectionHosts(spec.url), streamPrefix: spec.streamPrefix };
  const url = new URL(spec.url);
  return { kind: 'postgres', server: `${url.hostname}:${url.port || '5432'}${url.pathname}`, schema: spec.schema };
}

function readIdentity(path: string): LogIdentity {
  try {
    const id = JSON.parse(readFileSync(path, 'utf8')) as LogIdentity;
    if (id?.kind === 'postgres' && typeof id.server === 'string' && typeof id.schema === 'string') return id;
    if (id?.kind === 'eventstore' && typeof id.server === 'string' && typeof id.streamPrefix === 'string') return id;
  } catch {
    // reported below
  }
  throw new DataDirError(`${path} does not name an event log; restore it or move the data directory away`);
}

const describe = (id: LogIdentity) => (id.kind === 'postgres' ? `the PostgreSQL log ${id.server} schema ${id.schema}` : `the KurrentDB log ${id.server}${id.streamPrefix ? ` streams ${id.streamPrefix}*` : ''}`);
const sameLog = (a: LogIdentity, b: LogIdentity) => describe(a) === describe(b);

/**
 * Read models hold checkpoints, positions in one particular log: folded from one log and then fed
 * another, they would skip that log's first events and show the first log's data. So DATA_DIR
 * records which log it belongs to, and a start on another log is refused.
 */
export function claimDataDir(dataDir: string, spec: EventLogSpec): void {
  const path = join(dataDir, FILE);
  const recorded = existsSync(path) ? readIdentity(path) : null;
  if (spec.kind === 'sqlite') {
    if (recorded) throw new DataDirError(`DATA_DIR ${dataDir} holds read models of ${describe(recorded)}, not of an SQLite log: set EVENT_LOG to that log, or use another DATA_DIR`);
    return;
  }
  const wanted = identityOf(spec);
  if (recorded) {
    if (!sameLog(recorded, wanted)) {
      throw new DataDirError(`DATA_DIR ${dataDir} holds read models of ${describe(recorded)}, not of ${describe(wanted)}: use another DATA_DIR`);
    }
    return;
  }
  const leftovers = ['events.sqlite', 'readmodels.sqlite', 'analytics.sqlite'].filter((f) => existsSync(join(dataDir, f)));
  if (leftovers.length) {
    throw new DataDirError(`DATA_DIR ${dataDir} holds an SQLite install (${leftovers.join(', ')}), not read models of ${describe(wanted)}: use another DATA_DIR`);
  }
  writeFileSync(path, JSON.stringify(wanted) + '\n', { mode: 0o600 });
}
