import type { BatchExportRow, RunRow } from '../../../projections/exports';
import { getDestination, nonRetryableError, type LogLevel } from '../destinations';
import type { ExportSource } from './export-source';
import type { SecretBox } from '../secrets';
import type { DestinationPolicy } from '../policy';

export type AbandonReason = 'cancelled' | 'superseded' | 'stopping';

const ABANDON_MESSAGES: Record<AbandonReason, string> = {
  cancelled: 'Run cancelled; export stopped',
  superseded: 'Another attempt took the run over; export stopped',
  stopping: 'The worker is stopping',
};

/** Thrown from the record source when the run stopped being this attempt's to finish. */
export class RunAbandonedError extends Error {
  constructor(readonly reason: AbandonReason) {
    super(ABANDON_MESSAGES[reason]);
    this.name = 'RunAbandonedError';
  }
}

export interface ExecuteOptions {
  exp: BatchExportRow;
  run: RunRow;
  /** Where the run's rows come from (the analytics port). */
  source: ExportSource;
  /** Opens the sealed destination secrets for the write. */
  secrets: SecretBox;
  batchSize: number;
  /** Where destinations may write (export root, network policy). */
  policy: DestinationPolicy;
  log: (level: LogLevel, message: string) => void;
  /** Checked between batches (where the source checks), before the next batch reaches the destination; a reason stops the export. */
  abandoned: () => Promise<AbandonReason | null>;
}

export interface ExecuteResult {
  recordsCompleted: number;
  recordsTotalCount: number;
  bytesExported: number | null;
}

/**
 * Hands the run's rows, batch by batch, to the destination, which does the writing and its own
 * idempotence. The source reads one snapshot, so the total matches what is exported.
 */
export async function executeRun(options: ExecuteOptions): Promise<ExecuteResult> {
  const { exp, run } = options;
  const destination = getDestination(exp.destination_type);
  if (!destination) throw nonRetryableError(`Unsupported destination type '${exp.destination_type}'`);
  const rows = await options.source(exp, run);
  try {
    options.log('DEBUG', `${rows.total} records in the interval`);
    const { check, guarded } = abandonChecks(options.abandoned);
    const result = await destination.write(
      options.secrets.openConfig(exp.destination_type, exp.destination_config),
      {
        batchExportId: exp.id,
        runId: run.id,
        teamId: exp.project_id,
        dataIntervalStart: new Date(run.data_interval_start),
        dataIntervalEnd: new Date(run.data_interval_end),
        isBackfill: run.backfill_id !== null,
        log: options.log,
        policy: options.policy,
      },
      Object.assign(guarded(rows.batches(options.batchSize, check)), {
        encoded: (format: 'JSONLines') => {
          const chunks = rows.encoded?.(format, options.batchSize, check);
          return chunks ? guarded(chunks) : null;
        },
      }),
    );
    return { recordsCompleted: result.recordsCompleted, recordsTotalCount: rows.total, bytesExported: result.bytesExported ?? null };
  } finally {
    await rows.close();
  }
}

/**
 * The source calls `check` synchronously where a run may stop (between batches), but whether it
 * should is a read-model query, which is asynchronous: `check` only notes that a check is due, and
 * the rows pass through `guarded`, which makes it (awaiting the query) before the next batch reaches
 * the destination, and once more after the last. A stop is thus noticed at the same points as the
 * source's checks, before anything more is written.
 */
function abandonChecks(abandoned: () => Promise<AbandonReason | null>) {
  let due = false;
  let known: AbandonReason | null = null;
  const check = () => {
    if (known) throw new RunAbandonedError(known);
    due = true;
  };
  const settle = async () => {
    if (!due) return;
    due = false;
    known = await abandoned();
    if (known) throw new RunAbandonedError(known);
  };
  async function* guarded<T>(items: AsyncIterable<T>): AsyncGenerator<T> {
    for await (const item of items) {
      await settle();
      yield item;
    }
    await settle();
  }
  return { check, guarded };
}
