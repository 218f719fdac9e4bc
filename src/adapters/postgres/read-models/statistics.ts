import type pg from 'pg';

/** Rows changed since a table's last ANALYZE that make its statistics stale: this many, and this share of it. */
const STALE_ROWS = 1000;
const STALE_SHARE = 0.1;
/** How often at most the server's counters are looked at (they reach pg_stat within about a second anyway). */
const CHECK_INTERVAL_MS = 1000;

/**
 * Keeps the planner's statistics of the schema's tables current while folds write them fast.
 * Autovacuum analyzes a table once ~10% of it changed, but wakes once a minute: a fold filling fresh
 * tables (a first start, a replay) meanwhile runs the per-record reads under the statistics of a
 * nearly empty table, which turns their key lookups into scans of the whole project (every record
 * then costs more than the last). After write transactions this looks at the server's counters
 * (pg_stat_user_tables) and analyzes the tables that changed by autovacuum's measure, one at a time
 * and off the transactions' path.
 */
export class StatisticsKeeper {
  private running: Promise<void> | null = null;
  private lastCheck = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}

  /** A write transaction committed: check soon, unless a check is running or ran within the interval. */
  written(): void {
    const now = Date.now();
    if (this.running || now - this.lastCheck < CHECK_INTERVAL_MS) return;
    this.lastCheck = now;
    this.running = this.analyzeStale()
      // Statistics only steer plans: a failed check or ANALYZE (a closing pool, a dropped table) is retried after the next write.
      .catch(() => undefined)
      .finally(() => {
        this.running = null;
      });
  }

  /** Resolves once no check is running (before the pool closes). */
  async settled(): Promise<void> {
    await this.running;
  }

  private async analyzeStale(): Promise<void> {
    const { rows } = await this.pool.query<{ relname: string }>({
      text: `SELECT relname FROM pg_stat_user_tables
        WHERE schemaname = $1 AND n_mod_since_analyze >= $2 AND n_mod_since_analyze >= $3::float8 * n_live_tup`,
      values: [this.schema, STALE_ROWS, STALE_SHARE],
    });
    // SKIP_LOCKED: autovacuum or another process analyzing the table already does the work.
    for (const { relname } of rows) await this.pool.query(`ANALYZE (SKIP_LOCKED) "${relname.replaceAll('"', '""')}"`);
  }
}
