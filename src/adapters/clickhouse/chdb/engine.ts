import { mkdirSync } from 'node:fs';
import { chdbSessionClass, type ChdbSession } from './module';

/**
 * chDB opens one data directory per process, and one session runs one statement at a time. So a
 * process holds one engine per directory, shared by every connection on it (the live analytics
 * store and a replay's scratch database beside it), and the engine runs statements in turn: the
 * database a statement's unqualified names mean is the session's current one (`USE`), switched
 * between two statements, never under one.
 */
export class ChdbEngine {
  private session: Promise<ChdbSession> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private current: string | null = null;
  private users = 0;

  constructor(readonly path: string) {}

  /** Runs `sql` in `database` (null: outside any), after every statement sent before it. */
  query(database: string | null, sql: string, format?: string): Promise<string> {
    return this.turn(async (session) => {
      if (database !== null && database !== this.current) {
        await session.queryAsync(`USE ${database}`);
        this.current = database;
      }
      // A statement outside any database may drop the current one: the next says USE again.
      if (database === null) this.current = null;
      return (await session.queryAsync(sql, format === undefined ? undefined : { format })).text();
    });
  }

  /** Rows as JSONEachRow text into `database`.`table`. */
  insert(database: string, table: string, values: string): Promise<void> {
    return this.turn(async (session) => {
      await session.insert({ table: `${database}.${table}`, values, format: 'JSONEachRow' });
    });
  }

  /** One more user: the session stays open until each has let go. */
  acquire(): void {
    this.users++;
  }

  /** A user lets go; the last one closes the session (another process may then open the directory). */
  async release(): Promise<void> {
    if (--this.users > 0) return;
    const session = this.session;
    this.session = null;
    this.current = null;
    engines.delete(this.path);
    if (session) {
      await this.queue.catch(() => undefined);
      (await session.catch(() => null))?.close();
    }
  }

  private turn<T>(work: (session: ChdbSession) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => work(await this.open()));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private open(): Promise<ChdbSession> {
    this.session ??= (async () => {
      const Session = await chdbSessionClass();
      mkdirSync(this.path, { recursive: true, mode: 0o700 });
      // 64-bit integers as JSON strings, as a ClickHouse server answers over HTTP by default.
      return new Session(this.path, { connectionArgs: ['--output_format_json_quote_64bit_integers=1'] });
    })();
    this.session.catch(() => (this.session = null));
    return this.session;
  }
}

const engines = new Map<string, ChdbEngine>();

/** The process's engine on `path` (chDB refuses a second directory while one is open). */
export function chdbEngine(path: string): ChdbEngine {
  const open = [...engines.values()].find((e) => e.path !== path);
  if (open) throw new Error(`chDB has ${open.path} open in this process; it opens one data directory per process, not also ${path}`);
  let engine = engines.get(path);
  if (!engine) {
    engine = new ChdbEngine(path);
    engines.set(path, engine);
  }
  return engine;
}
